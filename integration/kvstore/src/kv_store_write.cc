// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The write path: log, memtable, flush, compaction, MANIFEST installation.

#include <algorithm>

#include "file_names.h"
#include "kv_store_impl.h"
#include "write_batch_internal.h"

namespace linebloom::kvstore {

using internal::EntryKind;

namespace {

// A live run as the allocation sees it: with the bits per key it really
// holds in the filter kind that run-aware allocation sizes.
internal::RunShape ShapeOf(const internal::Run& run, const Options& options) {
  const uint64_t bytes = options.run_filters ? run.run_filter_bytes() : run.block_filter_bytes();
  return {.entries = run.meta().num_entries,
          .level = static_cast<int>(run.meta().level),
          .bits_per_key = 8.0 * static_cast<double>(bytes) / static_cast<double>(run.meta().num_entries)};
}

}  // namespace

Status KvStore::Impl::Write(const WriteBatch& batch) {
  if (batch.rep().size() > internal::kMaxWalPayload) {
    return Status::InvalidArgument("write batch larger than 1 GiB");
  }
  uint64_t puts = 0, deletes = 0;
  // Checks sizes before anything is logged; the same walk re-parses our own
  // encoding, so a malformed batch cannot reach the log either.
  Status s = internal::ForEachBatchOp(batch.rep(), "write batch",
                                      [&](EntryKind kind, std::string_view key, std::string_view value) {
                                        if (key.size() > kMaxKeySize) {
                                          return Status::InvalidArgument("key larger than 1 MiB");
                                        }
                                        if (value.size() > kMaxValueSize) {
                                          return Status::InvalidArgument("value larger than 64 MiB - 1");
                                        }
                                        ++(kind == EntryKind::kValue ? puts : deletes);
                                        return Status::Ok();
                                      });
  if (!s.ok()) return s;

  MutexLock lock(&write_mu_);
  if (s = CheckOpen(); !s.ok()) return s;
  if (!sticky_error_.ok()) return sticky_error_;
  if (batch.Count() == 0) return Status::Ok();

  // After a failed append or sync the log's tail is unknown (a partial
  // record, or data the kernel dropped), so no later record may follow it.
  if (s = wal_->AddRecord(internal::WalRecordType::kWriteBatch, batch.rep()); !s.ok()) return sticky_error_ = s;
  if (options_.sync_writes) {
    if (s = wal_->Sync(); !s.ok()) return sticky_error_ = s;
  }
  std::shared_ptr<internal::MemTable> mem;
  {
    MutexLock state_lock(&state_mu_);
    mem = mem_;
  }
  (void)internal::ForEachBatchOp(batch.rep(), "write batch",
                                 [&](EntryKind kind, std::string_view key, std::string_view value) {
                                   mem->Apply(kind, key, value);
                                   return Status::Ok();
                                 });
  puts_ += puts;
  deletes_ += deletes;

  // The write is durable whatever happens next.
  if (mem->ApproximateBytes() >= options_.write_buffer_size) {
    Status f = FlushLocked();
    if (f.ok()) f = MaybeCompactLocked();
    if (!f.ok()) SetBackgroundError(f);
  }
  return Status::Ok();
}

Status KvStore::Impl::Flush() {
  MutexLock lock(&write_mu_);
  if (Status s = CheckOpen(); !s.ok()) return s;
  if (!sticky_error_.ok()) return sticky_error_;
  if (Status s = FlushLocked(); !s.ok()) return s;
  return MaybeCompactLocked();
}

Status KvStore::Impl::Compact() {
  MutexLock lock(&write_mu_);
  if (Status s = CheckOpen(); !s.ok()) return s;
  if (!sticky_error_.ok()) return sticky_error_;
  if (Status s = FlushLocked(); !s.ok()) return s;
  std::shared_ptr<const Version> version = View().version;
  if (version->runs.empty()) return Status::Ok();
  std::vector<uint32_t> levels;
  for (const auto& run : version->runs) levels.push_back(run->meta().level);
  return CompactLocked(internal::PickFullCompaction(levels));
}

// Memtable -> new level-0 run, and a fresh log. Order (docs/KVSTORE.md):
// run files synced, new log created, directory synced, MANIFEST installed
// (naming the run and the new log), read view switched, old log removed.
Status KvStore::Impl::FlushLocked() {
  const ReadView view = View();
  if (view.mem->Empty()) return Status::Ok();

  // With no older run, a tombstone hides nothing on disk.
  const bool drop_tombstones = view.version->runs.empty();
  std::vector<std::unique_ptr<internal::EntrySource>> sources;
  sources.push_back(internal::NewMemSource(view.mem->Range("", std::nullopt)));
  internal::MergingIterator input(std::move(sources));
  std::vector<internal::RunShape> others;
  for (const auto& r : view.version->runs) others.push_back(ShapeOf(*r, options_));
  std::shared_ptr<internal::Run> run;
  if (Status s = BuildRun(&input, 0, drop_tombstones, view.mem->Count(), others, &run); !s.ok()) return s;

  std::vector<std::string> new_files;
  if (run) {
    new_files.push_back(internal::TableFileName(dir_, run->meta().file_number));
    if (run->meta().filter_size > 0) new_files.push_back(internal::RunFilterFileName(dir_, run->meta().file_number));
  }
  const uint64_t new_log_number = next_file_number_++;
  const std::string new_log_path = internal::LogFileName(dir_, new_log_number);
  new_files.push_back(new_log_path);
  std::unique_ptr<internal::WalWriter> new_wal;
  Status s = internal::WalWriter::Create(env_, new_log_path, &new_wal);
  if (s.ok()) s = env_->SyncDir(dir_);
  if (!s.ok()) {
    new_wal.reset();
    for (const std::string& f : new_files) (void)env_->RemoveFile(f);
    return s;
  }

  Version next;
  if (run) next.runs.push_back(run);
  next.runs.insert(next.runs.end(), view.version->runs.begin(), view.version->runs.end());
  if (s = InstallLocked(next, new_log_number, new_files); !s.ok()) return s;

  {
    MutexLock lock(&state_mu_);
    version_ = std::make_shared<const Version>(std::move(next));
    mem_ = std::make_shared<internal::MemTable>();
  }
  const std::string old_log_path = internal::LogFileName(dir_, log_number_);
  (void)wal_->Close();
  wal_ = std::move(new_wal);
  log_number_ = new_log_number;
  (void)env_->RemoveFile(old_log_path);
  ++flushes_;
  return Status::Ok();
}

Status KvStore::Impl::MaybeCompactLocked() {
  if (!options_.auto_compaction) return Status::Ok();
  for (;;) {
    std::shared_ptr<const Version> version = View().version;
    std::vector<uint32_t> levels;
    for (const auto& run : version->runs) levels.push_back(run->meta().level);
    const auto pick = internal::PickTieredCompaction(levels, options_.tier_fanout, kMaxLevels - 1);
    if (!pick) return Status::Ok();
    if (Status s = CompactLocked(*pick); !s.ok()) return s;
  }
}

// Merges runs [begin, end) into one run that takes their place.
Status KvStore::Impl::CompactLocked(const internal::CompactionPick& pick) {
  std::shared_ptr<const Version> version = View().version;
  std::vector<std::unique_ptr<internal::EntrySource>> sources;
  for (size_t i = pick.begin; i < pick.end; ++i) sources.push_back(internal::NewRunSource(*version->runs[i]));
  internal::MergingIterator input(std::move(sources));
  uint64_t input_entries = 0;
  std::vector<internal::RunShape> others;
  for (size_t i = 0; i < version->runs.size(); ++i) {
    if (i >= pick.begin && i < pick.end) {
      input_entries += version->runs[i]->meta().num_entries;
    } else {
      others.push_back(ShapeOf(*version->runs[i], options_));
    }
  }
  std::shared_ptr<internal::Run> out;
  if (Status s = BuildRun(&input, pick.output_level, pick.drop_tombstones, input_entries, others, &out); !s.ok()) {
    return s;
  }

  std::vector<std::string> new_files;
  if (out) {
    new_files.push_back(internal::TableFileName(dir_, out->meta().file_number));
    if (out->meta().filter_size > 0) new_files.push_back(internal::RunFilterFileName(dir_, out->meta().file_number));
    if (Status s = env_->SyncDir(dir_); !s.ok()) {
      for (const std::string& f : new_files) (void)env_->RemoveFile(f);
      return s;
    }
  }
  Version next;
  next.runs.assign(version->runs.begin(), version->runs.begin() + static_cast<ptrdiff_t>(pick.begin));
  if (out) next.runs.push_back(out);
  next.runs.insert(next.runs.end(), version->runs.begin() + static_cast<ptrdiff_t>(pick.end), version->runs.end());
  if (Status s = InstallLocked(next, log_number_, new_files); !s.ok()) return s;

  {
    MutexLock lock(&state_mu_);
    version_ = std::make_shared<const Version>(std::move(next));
  }
  // Readers holding the old version keep their open files; unlinking only
  // removes the names.
  for (size_t i = pick.begin; i < pick.end; ++i) RemoveRunFiles(version->runs[i]->meta().file_number);
  ++compactions_;
  return Status::Ok();
}

Status KvStore::Impl::BuildRun(internal::MergingIterator* input, int level, bool drop_tombstones,
                               uint64_t estimated_entries, std::span<const internal::RunShape> others,
                               std::shared_ptr<internal::Run>* run) {
  run->reset();
  const uint64_t number = next_file_number_++;
  const internal::RunFilterBits bits = internal::ChooseRunFilterBits(
      options_, {.entries = std::max<uint64_t>(estimated_entries, 1), .level = level}, others);
  std::unique_ptr<internal::RunBuilder> builder;
  if (Status s = internal::RunBuilder::Create(env_, dir_, number, level, options_, bits, &builder); !s.ok()) {
    return s;
  }
  auto fail = [&](Status s) {
    builder->Abandon();
    return s;
  };
  for (input->Seek(""); input->Valid(); input->Next()) {
    if (drop_tombstones && input->kind() == EntryKind::kDeletion) continue;
    if (Status s = builder->Add(input->key(), input->kind(), input->value()); !s.ok()) return fail(s);
  }
  if (Status s = input->status(); !s.ok()) return fail(s);
  if (builder->num_entries() == 0) {
    builder->Abandon();
    return Status::Ok();
  }
  internal::RunMeta meta;
  if (Status s = builder->Finish(&meta); !s.ok()) return fail(s);
  // Reopening what was just written checks it end to end before the
  // MANIFEST may name it.
  if (Status s = internal::Run::Open(env_, dir_, meta, options_.io_mode, run); !s.ok()) return fail(s);
  return Status::Ok();
}

Status KvStore::Impl::InstallLocked(const Version& version, uint64_t log_number,
                                    const std::vector<std::string>& new_files) {
  internal::ManifestState state;
  state.next_file_number = next_file_number_;
  state.log_number = log_number;
  for (const auto& run : version.runs) state.runs.push_back(run->meta());
  bool renamed = false;
  Status s = internal::InstallManifest(env_, dir_, state, &renamed);
  if (s.ok()) return s;
  if (renamed) {
    // The directory may now hold either MANIFEST; keep every file both
    // name, and refuse writes until a reopen settles which one it is.
    sticky_error_ = s;
    return s;
  }
  for (const std::string& f : new_files) (void)env_->RemoveFile(f);
  return s;
}

void KvStore::Impl::RemoveRunFiles(uint64_t number) {
  (void)env_->RemoveFile(internal::TableFileName(dir_, number));
  (void)env_->RemoveFile(internal::RunFilterFileName(dir_, number));
}

}  // namespace linebloom::kvstore
