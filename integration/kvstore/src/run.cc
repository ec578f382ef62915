// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "run.h"

#include "file_names.h"
#include "linebloom/sstable/block_filter.h"

namespace linebloom::kvstore::internal {
namespace {

Status SizeMismatch(const std::string& file, uint64_t actual, std::string_view unit, uint64_t recorded) {
  std::string msg = file;
  msg.append(": ").append(std::to_string(actual)).append(" ").append(unit);
  msg.append(", the MANIFEST says ").append(std::to_string(recorded));
  return Status::Corruption(msg);
}

}  // namespace

void AtomicLookupCounters::Add(const LookupCounters& c) {
  for (size_t i = 0; i < kLookupCounterFields.size(); ++i) {
    values_[i].fetch_add(c.*kLookupCounterFields[i].member, std::memory_order_relaxed);
  }
}

LookupCounters AtomicLookupCounters::Load() const {
  LookupCounters c;
  for (size_t i = 0; i < kLookupCounterFields.size(); ++i) {
    c.*kLookupCounterFields[i].member = values_[i].load(std::memory_order_relaxed);
  }
  return c;
}

Run::Run(RunMeta meta, std::unique_ptr<sstable::TableReader> table, AlignedFilter filter_bytes)
    : meta_(std::move(meta)), table_(std::move(table)), run_filter_(std::move(filter_bytes)) {}

Status Run::Open(Env* env, const std::string& dir, const RunMeta& meta, IoMode mode, std::shared_ptr<Run>* run) {
  const std::string table_name = TableFileName(dir, meta.file_number);
  uint64_t size = 0;
  if (Status s = env->GetFileSize(table_name, &size); s.IsNotFound()) {
    return Status::Corruption(table_name + ": missing, but the MANIFEST names it as a live run");
  }
  std::unique_ptr<RandomAccessFile> file;
  if (Status s = env->NewRandomAccessFile(table_name, mode, &file); !s.ok()) return s;
  if (file->Size() != meta.table_size) {
    return SizeMismatch(table_name, file->Size(), "bytes", meta.table_size);
  }
  std::unique_ptr<sstable::TableReader> table;
  if (Status s = sstable::TableReader::Open(std::move(file), sstable::TableReaderOptions{}, &table); !s.ok()) {
    return s;
  }
  if (table->num_entries() != meta.num_entries) {
    return SizeMismatch(table_name, table->num_entries(), "entries", meta.num_entries);
  }

  AlignedFilter filter;
  if (meta.filter_size > 0) {
    const std::string filter_name = RunFilterFileName(dir, meta.file_number);
    std::string bytes;
    if (Status s = env->ReadFileToString(filter_name, &bytes); !s.ok()) {
      if (s.IsNotFound()) return Status::Corruption(filter_name + ": missing, but the MANIFEST names it");
      return s;
    }
    if (bytes.size() != meta.filter_size) {
      return SizeMismatch(filter_name, bytes.size(), "bytes", meta.filter_size);
    }
    filter = AlignedFilter::Copy(bytes);
  }
  std::shared_ptr<Run> r(new Run(meta, std::move(table), std::move(filter)));
  if (meta.filter_size > 0) {
    if (const Status s = r->run_filter_reader_.Parse(r->run_filter_.bytes()); !s.ok()) {
      return Status::Corruption(RunFilterFileName(dir, meta.file_number) + ": bad run filter: " + s.message());
    }
  }
  *run = std::move(r);
  return Status::Ok();
}

Status Run::Get(std::string_view key, RunLookup* result, std::string* value, LookupCounters* cost) const {
  *result = RunLookup::kAbsent;
  cost->lookups += 1;
  if (key < meta_.smallest || key > meta_.largest) {
    cost->range_skips += 1;
    return Status::Ok();
  }
  if (meta_.filter_size > 0) {
    cost->run_filter_checks += 1;
    if (!run_filter_reader_.MayContain(key)) {
      cost->run_filter_negatives += 1;
      return Status::Ok();
    }
  }
  sstable::LookupStats io;
  std::string stored;
  Status s = table_->Get(key, &stored, &io);
  cost->block_filter_checks += io.filter_probes;
  cost->block_filter_negatives += io.filter_negatives;
  cost->block_reads += io.block_reads;
  cost->bytes_read += io.bytes_read;
  // A read that did not find the key was a false positive of whichever
  // filter let it through.
  cost->false_positives += io.unneeded_block_reads;
  if (s.IsNotFound()) return Status::Ok();
  if (!s.ok()) return s;
  cost->hits += 1;
  EntryKind kind;
  std::string_view v;
  if (!DecodeTableValue(stored, &kind, &v)) {
    return Status::Corruption(table_->file_name() + ": entry of a run is not a tagged value");
  }
  if (kind == EntryKind::kDeletion) {
    *result = RunLookup::kDeleted;
  } else {
    *result = RunLookup::kValue;
    value->assign(v);
  }
  return Status::Ok();
}

std::unique_ptr<sstable::TableIterator> Run::NewIterator() const { return table_->NewIterator(); }

bool Run::Overlaps(std::string_view from, std::optional<std::string_view> to) const {
  if (std::string_view(meta_.largest) < from) return false;
  if (to && !(std::string_view(meta_.smallest) < *to)) return false;
  return true;
}

RunBuilder::RunBuilder(Env* env, std::string dir, RunMeta meta, const RunFilterBits& bits)
    : env_(env), dir_(std::move(dir)), meta_(std::move(meta)) {
  if (bits.run_filter > 0) filter_ = std::make_unique<RunFilterBuilder>(bits.run_filter_kind, bits.run_filter);
}

RunBuilder::~RunBuilder() = default;

Status RunBuilder::Create(Env* env, const std::string& dir, uint64_t file_number, int level, const Options& options,
                          RunFilterBits bits, std::unique_ptr<RunBuilder>* builder) {
  RunMeta meta;
  meta.file_number = file_number;
  meta.level = static_cast<uint32_t>(level);
  std::unique_ptr<RunBuilder> b(new RunBuilder(env, dir, std::move(meta), bits));

  sstable::TableWriterOptions topt;
  topt.block_size = options.block_size;
  topt.compress = options.compress;
  topt.filter_mode = bits.block_filters > 0 ? sstable::FilterMode::kPerBlock : sstable::FilterMode::kNone;
  if (bits.block_filters > 0) {
    topt.filter_policy = sstable::NewLinebloomLinePairPolicy(FilterOptions{.bits_per_key = bits.block_filters});
  }
  topt.sync_on_finish = true;
  std::unique_ptr<WritableFile> file;
  if (Status s = env->NewWritableFile(TableFileName(dir, file_number), &file); !s.ok()) return s;
  if (Status s = sstable::TableWriter::Open(std::move(file), topt, &b->table_); !s.ok()) {
    b->Abandon();
    return s;
  }
  *builder = std::move(b);
  return Status::Ok();
}

Status RunBuilder::Add(std::string_view key, EntryKind kind, std::string_view value) {
  if (Status s = table_->Add(key, EncodeTableValue(kind, value)); !s.ok()) return s;
  if (meta_.num_entries == 0) meta_.smallest.assign(key);
  meta_.largest.assign(key);
  ++meta_.num_entries;
  if (filter_) filter_->AddKey(key);
  return Status::Ok();
}

Status RunBuilder::Finish(RunMeta* meta) {
  finished_ = true;
  if (Status s = table_->Finish(); !s.ok()) return s;
  meta_.table_size = table_->file_size();
  if (filter_) {
    const std::string bytes = filter_->Finish();
    std::unique_ptr<WritableFile> file;
    if (Status s = env_->NewWritableFile(RunFilterFileName(dir_, meta_.file_number), &file); !s.ok()) return s;
    if (Status s = file->Append(bytes); !s.ok()) return s;
    if (Status s = file->Sync(); !s.ok()) return s;
    if (Status s = file->Close(); !s.ok()) return s;
    meta_.filter_size = bytes.size();
  }
  *meta = meta_;
  return Status::Ok();
}

void RunBuilder::Abandon() {
  table_.reset();  // closes the file
  (void)env_->RemoveFile(TableFileName(dir_, meta_.file_number));
  if (filter_ && finished_) (void)env_->RemoveFile(RunFilterFileName(dir_, meta_.file_number));
}

}  // namespace linebloom::kvstore::internal
