// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/sstable/table_writer.h"

#include <vector>

#include "data_block.h"
#include "printable.h"
#include "stored_block.h"
#include "table_format.h"

namespace linebloom::sstable {

using internal::AppendStoredBlock;
using internal::BlockHandle;
using internal::IndexEntry;

class TableWriter::Impl {
 public:
  Impl(std::unique_ptr<WritableFile> file, const TableWriterOptions& options)
      : file_(std::move(file)), options_(options) {
    if (options_.filter_mode != FilterMode::kNone) filter_ = options_.filter_policy->NewBuilder();
  }

  Status Add(std::string_view key, std::string_view value) {
    if (finished_) return Status::InvalidArgument(file_->name() + ": Add after Finish");
    if (!error_.ok()) return error_;
    if (key.size() > kMaxKeySize) return Reject(key, "key larger than 1 MiB");
    if (value.size() > kMaxValueSize) return Reject(key, "value larger than 64 MiB");
    if (num_entries_ > 0 && !(last_key_ < key)) {
      return Reject(
          key, last_key_ == key
                   ? "duplicate key"
                   : std::string("key out of order (previous key ").append(internal::Printable(last_key_)).append(")"));
    }
    block_.Add(key, value);
    if (filter_) filter_->AddKey(key);
    last_key_.assign(key);
    ++num_entries_;
    if (block_.EstimatedSize() >= options_.block_size) return FlushDataBlock();
    return Status::Ok();
  }

  Status Finish() {
    if (finished_) return Status::InvalidArgument(file_->name() + ": Finish called twice");
    finished_ = true;
    if (!error_.ok()) return error_;
    if (!block_.empty()) {
      if (Status s = FlushDataBlock(); !s.ok()) return s;
    }

    internal::TableMeta meta;
    meta.filter_mode = options_.filter_mode;
    meta.num_entries = num_entries_;
    meta.num_blocks = index_.size();
    meta.filter_region.offset = offset_;
    if (options_.filter_mode == FilterMode::kPerFile) filters_ = filter_->Finish();
    if (options_.filter_mode != FilterMode::kNone) {
      meta.filter_policy = options_.filter_policy->Name();
      meta.filter_parameters = filter_->Parameters();
      if (meta.filter_parameters.size() > internal::kMaxFilterParametersSize) {
        return error_ = Status::InvalidArgument(file_->name() + ": filter parameters longer than 255 bytes");
      }
    }
    meta.filter_region.size = filters_.size();
    meta.filter_region_checksum = internal::FilterRegionChecksum(filters_);
    if (Status s = Write(filters_); !s.ok()) return s;

    internal::Footer footer;
    if (Status s = WriteBlock(internal::EncodeMeta(meta), &footer.meta); !s.ok()) return s;
    if (Status s = WriteBlock(internal::EncodeIndex(index_), &footer.index); !s.ok()) return s;
    if (Status s = Write(internal::EncodeFooter(footer)); !s.ok()) return s;
    if (options_.sync_on_finish) {
      if (Status s = file_->Sync(); !s.ok()) return error_ = s;
    }
    if (Status s = file_->Close(); !s.ok()) return error_ = s;
    return Status::Ok();
  }

  uint64_t num_entries() const { return num_entries_; }
  uint64_t file_size() const { return offset_; }

 private:
  Status Reject(std::string_view key, std::string_view why) {
    std::string msg = file_->name();
    msg.append(": entry ").append(std::to_string(num_entries_)).append(": ").append(why);
    msg.append(": key ").append(internal::Printable(key));
    return Status::InvalidArgument(msg);
  }

  Status FlushDataBlock() {
    IndexEntry entry;
    entry.last_key = last_key_;
    entry.num_entries = block_.num_entries();
    if (Status s = WriteBlock(block_.Finish(), &entry.data, options_.compress); !s.ok()) return s;
    block_.Reset();
    if (options_.filter_mode == FilterMode::kPerBlock) {
      const std::string filter = filter_->Finish();
      entry.filter.size = filter.size();
      filters_.append(filter);
    }
    index_.push_back(std::move(entry));
    return Status::Ok();
  }

  Status WriteBlock(std::string_view contents, BlockHandle* handle, bool compress = true) {
    stored_.clear();
    AppendStoredBlock(contents, compress, &stored_);
    handle->offset = offset_;
    handle->size = stored_.size();
    return Write(stored_);
  }

  Status Write(std::string_view bytes) {
    if (Status s = file_->Append(bytes); !s.ok()) return error_ = s;
    offset_ += bytes.size();
    return Status::Ok();
  }

  std::unique_ptr<WritableFile> file_;
  TableWriterOptions options_;
  internal::DataBlockBuilder block_;
  // Of the current data block (per-block mode) or of the file (per-file).
  std::unique_ptr<BlockFilterBuilder> filter_;
  std::string last_key_;
  std::vector<IndexEntry> index_;
  // The filter region, written after the data blocks in Finish; filters are
  // small (bits per key, not bytes per key), so they wait in memory.
  std::string filters_;
  std::string stored_;
  uint64_t offset_ = 0;
  uint64_t num_entries_ = 0;
  Status error_;  // the first I/O error; sticky
  bool finished_ = false;
};

Status TableWriter::Open(std::unique_ptr<WritableFile> file, const TableWriterOptions& options,
                         std::unique_ptr<TableWriter>* writer) {
  if (!file) return Status::InvalidArgument("TableWriter: no file");
  if (options.block_size == 0 || options.block_size > kMaxBlockSize) {
    return Status::InvalidArgument("TableWriter: block_size must be in [1, 256 MiB]");
  }
  if (options.filter_mode != FilterMode::kNone) {
    if (!options.filter_policy) return Status::InvalidArgument("TableWriter: filter mode needs a filter policy");
    const std::string name = options.filter_policy->Name();
    if (name.empty() || name.size() > internal::kMaxPolicyNameSize) {
      return Status::InvalidArgument("TableWriter: filter policy name must be 1..255 bytes");
    }
  }
  writer->reset(new TableWriter(std::make_unique<Impl>(std::move(file), options)));
  return Status::Ok();
}

Status TableWriter::Create(const std::string& path, const TableWriterOptions& options,
                           std::unique_ptr<TableWriter>* writer) {
  std::unique_ptr<WritableFile> file;
  if (Status s = NewWritableFile(path, &file); !s.ok()) return s;
  return Open(std::move(file), options, writer);
}

TableWriter::TableWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableWriter::~TableWriter() = default;

Status TableWriter::Add(std::string_view key, std::string_view value) { return impl_->Add(key, value); }
Status TableWriter::Finish() { return impl_->Finish(); }
uint64_t TableWriter::num_entries() const { return impl_->num_entries(); }
uint64_t TableWriter::file_size() const { return impl_->file_size(); }

const char* FilterModeName(FilterMode mode) {
  switch (mode) {
    case FilterMode::kNone: return "none";
    case FilterMode::kPerBlock: return "per-block";
    case FilterMode::kPerFile: return "per-file";
  }
  return "unknown";
}

}  // namespace linebloom::sstable
