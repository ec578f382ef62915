// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// KvStore's public face, and Open: lock, MANIFEST, runs, log replay, cleanup.

#include <set>

#include "file_names.h"
#include "kv_store_impl.h"
#include "stats_file.h"
#include "write_batch_internal.h"

namespace linebloom::kvstore {

using internal::FileType;
using internal::ManifestState;

// ---- KvStore: forwards to Impl --------------------------------------------

KvStore::KvStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KvStore::~KvStore() = default;

Status KvStore::Open(const std::string& dir, const Options& options, std::unique_ptr<KvStore>* store) {
  store->reset();
  if (dir.empty()) return Status::InvalidArgument("KvStore::Open: empty directory name");
  if (options.tier_fanout < 2) return Status::InvalidArgument("KvStore::Open: tier_fanout must be >= 2");
  if (options.filter_allocation == FilterAllocation::kRunAware &&
      !(options.average_bits_per_key >= 1 && options.average_bits_per_key <= 100)) {
    return Status::InvalidArgument("KvStore::Open: average_bits_per_key must be in [1, 100]");
  }
  if (options.write_buffer_size == 0) return Status::InvalidArgument("KvStore::Open: write_buffer_size must be > 0");
  if (options.block_size == 0 || options.block_size > sstable::kMaxBlockSize) {
    return Status::InvalidArgument("KvStore::Open: block_size must be in [1, 256 MiB]");
  }
  auto impl = std::make_unique<Impl>(dir, options);
  if (Status s = impl->Recover(); !s.ok()) return s;
  store->reset(new KvStore(std::move(impl)));
  return Status::Ok();
}

Status KvStore::Put(std::string_view key, std::string_view value) {
  WriteBatch batch;
  batch.Put(key, value);
  return impl_->Write(batch);
}

Status KvStore::Delete(std::string_view key) {
  WriteBatch batch;
  batch.Delete(key);
  return impl_->Write(batch);
}

Status KvStore::Write(const WriteBatch& batch) { return impl_->Write(batch); }
Status KvStore::Get(std::string_view key, std::string* value) const { return impl_->Get(key, value); }

Status KvStore::Scan(std::string_view from, std::optional<std::string_view> to, const ScanVisitor& visit) const {
  return impl_->Scan(from, to, visit);
}

Status KvStore::Scan(std::string_view from, std::optional<std::string_view> to,
                     std::vector<std::pair<std::string, std::string>>* out) const {
  out->clear();
  return impl_->Scan(from, to, [out](std::string_view k, std::string_view v) {
    out->emplace_back(k, v);
    return true;
  });
}

Status KvStore::Flush() { return impl_->Flush(); }
Status KvStore::Compact() { return impl_->Compact(); }
StoreStats KvStore::Stats() const { return impl_->Stats(); }
Status KvStore::Close() { return impl_->Close(); }

// ---- Open ------------------------------------------------------------------

namespace {

std::string WithoutTrailingSlashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

KvStore::Impl::Impl(std::string dir, const Options& options)
    : dir_(WithoutTrailingSlashes(std::move(dir))), options_(options), env_(options.env ? options.env : PosixEnv()) {}

KvStore::Impl::~Impl() { (void)Close(); }

Status KvStore::Impl::Recover() {
  // Nothing else can reach the store yet, so the lock costs nothing; holding
  // it keeps recovery under the same rules as every later writer.
  MutexLock writer_lock(&write_mu_);
  if (options_.create_if_missing) {
    if (Status s = env_->CreateDirIfMissing(dir_); !s.ok()) return s;
  }
  if (Status s = env_->LockFile(internal::LockFileName(dir_), &lock_); !s.ok()) {
    if (!options_.create_if_missing) {
      std::vector<std::string> names;
      if (!env_->GetChildren(dir_, &names).ok()) {
        return Status::InvalidArgument(dir_ + ": no such store directory (and create_if_missing is off)");
      }
    }
    return s;
  }
  ManifestState state;
  Status s = internal::ReadManifest(env_, dir_, &state);
  if (s.IsNotFound()) {
    if (!options_.create_if_missing) {
      return Status::InvalidArgument(dir_ + ": no store here (no MANIFEST) and create_if_missing is off");
    }
    s = CreateStore(&state);
  } else if (s.ok() && options_.error_if_exists) {
    return Status::InvalidArgument(dir_ + ": a store exists here and error_if_exists is set");
  }
  if (!s.ok()) return s;

  next_file_number_ = state.next_file_number;
  log_number_ = state.log_number;
  auto version = std::make_shared<Version>();
  for (const internal::RunMeta& meta : state.runs) {
    std::shared_ptr<internal::Run> run;
    if (s = internal::Run::Open(env_, dir_, meta, options_.io_mode, &run); !s.ok()) return s;
    version->runs.push_back(std::move(run));
  }
  {
    MutexLock lock(&state_mu_);
    version_ = std::move(version);
    mem_ = std::make_shared<internal::MemTable>();
  }
  if (s = ReplayLog(); !s.ok()) return s;
  RemoveObsoleteFiles();
  LoadStats();
  closed_ = false;

  if (View().mem->ApproximateBytes() >= options_.write_buffer_size) {
    Status f = FlushLocked();
    if (f.ok()) f = MaybeCompactLocked();
    if (!f.ok()) SetBackgroundError(f);
  }
  return Status::Ok();
}

// A directory without a MANIFEST is a new store, or one whose creation
// crashed before its first MANIFEST: then it may hold an empty log, which is
// replaced. Anything more means the MANIFEST was lost, and guessing would risk
// serving stale data.
Status KvStore::Impl::CreateStore(ManifestState* state) {
  std::vector<std::string> names;
  if (Status s = env_->GetChildren(dir_, &names); !s.ok()) return s;
  for (const std::string& name : names) {
    FileType type;
    uint64_t number;
    if (!internal::ParseFileName(name, &type, &number)) continue;
    const std::string path = dir_ + "/" + name;
    if (type == FileType::kTable || type == FileType::kRunFilter) {
      return Status::Corruption(dir_ + ": has run files but no MANIFEST (" + name + ")");
    }
    if (type == FileType::kLog) {
      uint64_t size = 0;
      if (Status s = env_->GetFileSize(path, &size); !s.ok()) return s;
      if (size > internal::kWalHeaderSize) {
        return Status::Corruption(dir_ + ": has a write-ahead log with records but no MANIFEST (" + name + ")");
      }
    }
    if (type == FileType::kLog || type == FileType::kManifestTemp) {
      if (Status s = env_->RemoveFile(path); !s.ok()) return s;
    }
  }
  std::unique_ptr<internal::WalWriter> wal;
  if (Status s = internal::WalWriter::Create(env_, internal::LogFileName(dir_, 1), &wal); !s.ok()) return s;
  if (Status s = wal->Close(); !s.ok()) return s;
  if (Status s = env_->SyncDir(dir_); !s.ok()) return s;
  ManifestState fresh;
  fresh.next_file_number = 2;
  fresh.log_number = 1;
  bool renamed = false;
  if (Status s = internal::InstallManifest(env_, dir_, fresh, &renamed); !s.ok()) return s;
  *state = fresh;
  return Status::Ok();
}

Status KvStore::Impl::ReplayLog() {
  const std::string path = internal::LogFileName(dir_, log_number_);
  std::string contents;
  if (Status s = env_->ReadFileToString(path, &contents); !s.ok()) {
    if (s.IsNotFound()) return Status::Corruption(path + ": missing, but the MANIFEST names it as the log");
    return s;
  }
  const std::shared_ptr<internal::MemTable> mem = View().mem;
  internal::WalReplayResult result;
  Status s = internal::ReplayWal(
      path, contents,
      [&](internal::WalRecordType, std::string_view payload, uint64_t offset) {
        const std::string where = std::string(path).append(": offset ").append(std::to_string(offset));
        return internal::ForEachBatchOp(payload, where,
                                        [&](internal::EntryKind kind, std::string_view k, std::string_view v) {
                                          // Writes are checked before they are logged.
                                          if (k.size() > kMaxKeySize || v.size() > kMaxValueSize) {
                                            return Status::Corruption(where + ": oversized key or value");
                                          }
                                          mem->Apply(kind, k, v);
                                          return Status::Ok();
                                        });
      },
      &result);
  if (!s.ok()) return s;
  wal_records_replayed_ = result.records;
  wal_bytes_dropped_ = result.dropped_bytes;

  if (result.valid_bytes < internal::kWalHeaderSize) {
    // Only a torn header: start the log afresh.
    return internal::WalWriter::Create(env_, path, &wal_);
  }
  // Cut a torn tail off before appending, or the next record would follow
  // garbage and the log would read as corrupt in the middle.
  if (result.dropped_bytes > 0) {
    if (s = env_->TruncateFile(path, result.valid_bytes); !s.ok()) return s;
  }
  return internal::WalWriter::OpenForAppend(env_, path, result.valid_bytes, &wal_);
}

// Files no MANIFEST state refers to: the output of a flush or compaction that
// crashed before its MANIFEST was installed, inputs of a compaction that was
// installed, old logs, temporary files. Best effort.
void KvStore::Impl::RemoveObsoleteFiles() {
  std::set<uint64_t> live;
  {
    MutexLock lock(&state_mu_);
    for (const auto& run : version_->runs) live.insert(run->meta().file_number);
  }
  std::vector<std::string> names;
  if (!env_->GetChildren(dir_, &names).ok()) return;
  for (const std::string& name : names) {
    FileType type;
    uint64_t number;
    if (!internal::ParseFileName(name, &type, &number)) continue;
    bool obsolete = false;
    switch (type) {
      case FileType::kTable:
      case FileType::kRunFilter: obsolete = live.count(number) == 0; break;
      case FileType::kLog: obsolete = number != log_number_; break;
      case FileType::kManifestTemp:
      case FileType::kStatsTemp: obsolete = true; break;
      default: break;
    }
    if (obsolete) (void)env_->RemoveFile(dir_ + "/" + name);
  }
}

void KvStore::Impl::LoadStats() {
  std::string text;
  internal::SavedStats saved;
  if (!env_->ReadFileToString(internal::StatsFileName(dir_), &text).ok() || !internal::DecodeStatsFile(text, &saved)) {
    return;
  }
  gets_ = saved.gets;
  memtable_hits_ = saved.memtable_hits;
  puts_ = saved.puts;
  deletes_ = saved.deletes;
  scans_ = saved.scans;
  flushes_ = saved.flushes;
  compactions_ = saved.compactions;
  for (const auto& [level, c] : saved.levels) {
    if (level < kMaxLevels) level_counters_[level].Add(c);
  }
  MutexLock lock(&state_mu_);
  for (const auto& run : version_->runs) {
    if (auto it = saved.runs.find(run->meta().file_number); it != saved.runs.end()) run->counters().Add(it->second);
  }
}

void KvStore::Impl::SaveStats() {
  internal::SavedStats saved;
  CopyOperationCounts(&saved);
  for (int level = 0; level < kMaxLevels; ++level) {
    const LookupCounters c = level_counters_[level].Load();
    if (c.lookups > 0) saved.levels[level] = c;
  }
  {
    MutexLock lock(&state_mu_);
    for (const auto& run : version_->runs) saved.runs[run->meta().file_number] = run->counters().Load();
  }
  const std::string tmp = internal::StatsTempFileName(dir_);
  std::unique_ptr<WritableFile> file;
  if (!env_->NewWritableFile(tmp, &file).ok()) return;
  const bool written = file->Append(internal::EncodeStatsFile(saved)).ok();
  if (!file->Close().ok() || !written) return;
  (void)env_->RenameFile(tmp, internal::StatsFileName(dir_));
}

Status KvStore::Impl::Close() {
  MutexLock lock(&write_mu_);
  if (closed_) {
    lock_.reset();
    return Status::Ok();
  }
  closed_ = true;
  Status s;
  if (wal_) {
    if (sticky_error_.ok() && !options_.sync_writes) s = wal_->Sync();
    if (Status c = wal_->Close(); s.ok()) s = c;
    wal_.reset();
  }
  SaveStats();
  lock_.reset();
  return s;
}

Status KvStore::Impl::CheckOpen() const {
  if (closed_) return Status::InvalidArgument(dir_ + ": the store is closed");
  return Status::Ok();
}

KvStore::Impl::ReadView KvStore::Impl::View() const {
  MutexLock lock(&state_mu_);
  return {mem_, version_};
}

void KvStore::Impl::SetBackgroundError(const Status& s) {
  MutexLock lock(&background_error_mu_);
  background_error_ = s.ToString();
}

}  // namespace linebloom::kvstore
