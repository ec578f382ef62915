// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/sstable/table_reader.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "reader_impl.h"

namespace linebloom::sstable {

using internal::BlockHandle;
using internal::IndexEntry;
using internal::kStoredBlockTrailerSize;

Status TableReader::Impl::Corrupt(uint64_t offset, std::string_view what) const {
  return Status::CorruptionAt(file->name(), offset, what);
}

Status TableReader::Impl::ReadStored(const BlockHandle& h, std::string* buf, std::string* scratch,
                                     std::string_view* contents, uint64_t* bytes) const {
  buf->resize(static_cast<size_t>(h.size));
  if (Status s = file->Read(h.offset, *buf, bytes); !s.ok()) return s;
  return internal::ReadStoredBlock(*buf, file->name(), h.offset, scratch, contents);
}

Status TableReader::Impl::ReadDataBlock(size_t b, std::string* buf, std::string* scratch, internal::DataBlock* block,
                                        uint64_t* bytes) const {
  const IndexEntry& e = index[b];
  std::string_view contents;
  if (Status s = ReadStored(e.data, buf, scratch, &contents, bytes); !s.ok()) return s;
  const char* why = nullptr;
  if (!internal::DataBlock::Parse(contents, block, &why)) return Corrupt(e.data.offset, why);
  // The index is checksummed separately; a block that disagrees with it was
  // misplaced, and answering from it could be wrong.
  if (block->size() != e.num_entries || block->key(block->size() - 1) != e.last_key) {
    return Corrupt(e.data.offset, "data block does not match its index entry");
  }
  return Status::Ok();
}

Status TableReader::Impl::Load(const TableReaderOptions& options) {
  const uint64_t size = file->Size();
  if (size < internal::kFooterSize) {
    return Corrupt(0, std::string("file is ")
                          .append(std::to_string(size))
                          .append(" bytes, too short for the 48-byte footer (truncated?)"));
  }
  const uint64_t footer_at = size - internal::kFooterSize;
  std::string footer_bytes(internal::kFooterSize, '\0');
  if (Status s = file->Read(footer_at, footer_bytes, nullptr); !s.ok()) return s;
  internal::Footer footer;
  const char* why = nullptr;
  if (!internal::DecodeFooter(footer_bytes, &footer, &why)) return Corrupt(footer_at, why);
  if (footer.index.end() != footer_at || footer.meta.end() != footer.index.offset ||
      footer.meta.size < kStoredBlockTrailerSize || footer.index.size < kStoredBlockTrailerSize) {
    return Corrupt(footer_at, "footer points at impossible meta/index blocks");
  }

  std::string buf, scratch;
  std::string_view contents;
  if (Status s = ReadStored(footer.meta, &buf, &scratch, &contents, nullptr); !s.ok()) return s;
  version = footer.version;
  if (!internal::DecodeMeta(contents, version, &meta, &why)) return Corrupt(footer.meta.offset, why);
  const BlockHandle& region = meta.filter_region;
  // Version 1 stores the whole-file filter as a stored block (at least its
  // trailer); version 2 stores its bytes alone (an empty table's is empty).
  if (region.end() != footer.meta.offset || (meta.filter_mode == FilterMode::kNone && region.size != 0) ||
      (version == 1 && meta.filter_mode == FilterMode::kPerFile && region.size < kStoredBlockTrailerSize)) {
    return Corrupt(footer.meta.offset, "meta block gives an impossible filter region");
  }

  if (Status s = ReadStored(footer.index, &buf, &scratch, &contents, nullptr); !s.ok()) return s;
  if (!internal::DecodeIndex(contents, version, &index, &why)) return Corrupt(footer.index.offset, why);
  if (Status s = CheckIndex(footer.index.offset); !s.ok()) return s;

  if (meta.filter_mode != FilterMode::kNone && options.use_filters) {
    for (const auto& p : options.filter_policies) {
      if (p && p->Name() == meta.filter_policy) policy = p;
    }
    if (policy) return LoadFilters(footer.meta.offset);
  }
  return Status::Ok();
}

// The layout is fully determined by the writer, so the reader demands it
// exactly: data blocks back to back from offset 0, filters back to back
// filling their region, keys strictly increasing, counts adding up. In
// version 2 the filter offsets are implied by the sizes and filled in here.
Status TableReader::Impl::CheckIndex(uint64_t index_offset) {
  if (index.size() != meta.num_blocks) return Corrupt(index_offset, "index and meta block disagree on the block count");
  uint64_t data_at = 0, filter_at = meta.filter_region.offset, entries = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    IndexEntry& e = index[i];
    auto bad = [&](const char* what) {
      return Corrupt(index_offset, std::string("index entry ").append(std::to_string(i)).append(": ").append(what));
    };
    if (e.data.offset != data_at || e.data.size <= kStoredBlockTrailerSize)
      return bad("impossible data block location");
    data_at = e.data.end();
    if (data_at > meta.filter_region.offset) return bad("data block overlaps the filter region");
    if (e.num_entries == 0 || e.num_entries > meta.num_entries - entries) return bad("impossible entry count");
    entries += e.num_entries;
    if (i > 0 && !(index[i - 1].last_key < e.last_key)) return bad("keys out of order");
    if (meta.filter_mode == FilterMode::kPerBlock) {
      if (version >= 2) e.filter.offset = filter_at;
      if (e.filter.offset != filter_at || (version == 1 && e.filter.size < kStoredBlockTrailerSize)) {
        return bad("impossible filter location");
      }
      filter_at = e.filter.end();
      if (filter_at > meta.filter_region.end()) return bad("filter beyond the filter region");
    } else if (e.filter.offset != 0 || e.filter.size != 0) {
      return bad("filter location without per-block filters");
    }
  }
  if (data_at != meta.filter_region.offset)
    return Corrupt(index_offset, "data blocks do not end where the filters begin");
  if (entries != meta.num_entries) return Corrupt(index_offset, "entry counts of index and meta block disagree");
  if (meta.filter_mode == FilterMode::kPerBlock && filter_at != meta.filter_region.end()) {
    return Corrupt(index_offset, "per-block filters do not fill the filter region");
  }
  return Status::Ok();
}

Status TableReader::Impl::LoadFilters(uint64_t footer_meta_offset) {
  const BlockHandle& region = meta.filter_region;
  // 64-byte aligned so that a filter part that is a whole line in the
  // region is one cache line in memory.
  const size_t alloc = std::max<size_t>(64, static_cast<size_t>((region.size + 63) / 64 * 64));
  filter_bytes.reset(static_cast<char*>(std::aligned_alloc(64, alloc)));
  if (!filter_bytes) return Status::IOError(file->name() + ": out of memory for the filters");
  if (Status s = file->Read(region.offset, std::span<char>(filter_bytes.get(), region.size), nullptr); !s.ok()) {
    return s;
  }
  const std::string_view bytes(filter_bytes.get(), static_cast<size_t>(region.size));
  if (version >= 2 && internal::FilterRegionChecksum(bytes) != meta.filter_region_checksum) {
    return Corrupt(region.offset, "filter region checksum mismatch");
  }
  if (Status s = policy->NewTableReader(meta.filter_parameters, &filters); !s.ok()) {
    return Corrupt(footer_meta_offset, s.message());
  }
  // One filter at `h` (absolute offset): in version 1 a stored block whose
  // payload is the filter, in version 2 the bytes themselves.
  auto load = [&](const BlockHandle& h, std::string_view* filter) {
    const std::string_view stored =
        bytes.substr(static_cast<size_t>(h.offset - region.offset), static_cast<size_t>(h.size));
    *filter = stored;
    if (version == 1) {
      std::string scratch;
      if (Status s = internal::ReadStoredBlock(stored, file->name(), h.offset, &scratch, filter); !s.ok()) return s;
      // Filters are stored raw so that readers can point into the region.
      if (!scratch.empty() || filter->data() != stored.data()) return Corrupt(h.offset, "compressed filter block");
    }
    if (Status s = filters->AddFilter(*filter); !s.ok()) return Corrupt(h.offset, s.message());
    return Status::Ok();
  };
  if (meta.filter_mode == FilterMode::kPerFile) {
    if (Status s = load(region, &file_filter_bytes); !s.ok()) return s;
  } else {
    block_filter_bytes.resize(index.size());
    for (size_t i = 0; i < index.size(); ++i) {
      if (Status s = load(index[i].filter, &block_filter_bytes[i]); !s.ok()) return s;
    }
  }
  filter_in_use = true;
  return Status::Ok();
}

std::optional<size_t> TableReader::Impl::FindBlock(std::string_view key) const {
  auto it = std::lower_bound(index.begin(), index.end(), key,
                             [](const IndexEntry& e, std::string_view k) { return e.last_key < k; });
  if (it == index.end()) return std::nullopt;
  return static_cast<size_t>(it - index.begin());
}

Status TableReader::Impl::Get(std::string_view key, std::string* value, LookupStats* stats) const {
  LookupStats local;
  local.lookups = 1;
  Status result = GetCounted(key, value, &local);
  if (stats) *stats += local;
  return result;
}

Status TableReader::Impl::GetCounted(std::string_view key, std::string* value, LookupStats* st) const {
  const std::optional<size_t> b = FindBlock(key);
  if (!b) return Status::NotFound("");
  if (filter_in_use) {
    ++st->filter_probes;
    if (!filters->MayMatch(meta.filter_mode == FilterMode::kPerFile ? 0 : *b, key)) {
      ++st->filter_negatives;
      return Status::NotFound("");
    }
  }
  std::string buf, scratch;
  internal::DataBlock block;
  ++st->block_reads;
  if (Status s = ReadDataBlock(*b, &buf, &scratch, &block, &st->bytes_read); !s.ok()) return s;
  const size_t i = block.LowerBound(key);
  if (i < block.size() && block.key(i) == key) {
    value->assign(block.value(i));
    return Status::Ok();
  }
  ++st->unneeded_block_reads;
  if (filter_in_use) ++st->false_positives;
  return Status::NotFound("");
}

// --- TableReader ---

Status TableReader::Open(std::unique_ptr<RandomAccessFile> file, const TableReaderOptions& options,
                         std::unique_ptr<TableReader>* reader) {
  if (!file) return Status::InvalidArgument("TableReader: no file");
  auto impl = std::make_unique<Impl>();
  impl->file = std::move(file);
  if (Status s = impl->Load(options); !s.ok()) return s;
  reader->reset(new TableReader(std::move(impl)));
  return Status::Ok();
}

Status TableReader::Open(const std::string& path, IoMode mode, const TableReaderOptions& options,
                         std::unique_ptr<TableReader>* reader) {
  std::unique_ptr<RandomAccessFile> file;
  if (Status s = OpenRandomAccessFile(path, mode, &file); !s.ok()) return s;
  return Open(std::move(file), options, reader);
}

TableReader::TableReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableReader::~TableReader() = default;

Status TableReader::Get(std::string_view key, std::string* value, LookupStats* stats) const {
  return impl_->Get(key, value, stats);
}
std::unique_ptr<TableIterator> TableReader::NewIterator() const { return std::make_unique<TableIterator>(this); }
std::optional<size_t> TableReader::FindBlock(std::string_view key) const { return impl_->FindBlock(key); }
uint64_t TableReader::num_entries() const { return impl_->meta.num_entries; }
size_t TableReader::num_blocks() const { return impl_->index.size(); }

BlockInfo TableReader::block(size_t i) const {
  const IndexEntry& e = impl_->index.at(i);
  BlockInfo info{e.data.offset, e.data.size, e.num_entries, e.last_key, {}};
  if (!impl_->block_filter_bytes.empty()) info.filter = impl_->block_filter_bytes[i];
  return info;
}

FilterMode TableReader::filter_mode() const { return impl_->meta.filter_mode; }
const std::string& TableReader::filter_policy_name() const { return impl_->meta.filter_policy; }
bool TableReader::filter_in_use() const { return impl_->filter_in_use; }
size_t TableReader::filter_memory() const {
  if (!impl_->filter_in_use) return 0;
  // The region, the parameters, and the index fields that locate each
  // filter (version 2: its size; version 1: its offset and size).
  size_t total = static_cast<size_t>(impl_->meta.filter_region.size) + impl_->meta.filter_parameters.size();
  if (impl_->meta.filter_mode == FilterMode::kPerBlock) {
    for (const IndexEntry& e : impl_->index) {
      total +=
          internal::VarintLength(e.filter.size) + (impl_->version == 1 ? internal::VarintLength(e.filter.offset) : 0);
    }
  }
  return total;
}
const std::string& TableReader::filter_parameters() const { return impl_->meta.filter_parameters; }
uint32_t TableReader::format_version() const { return impl_->version; }
std::string_view TableReader::file_filter() const { return impl_->file_filter_bytes; }
const std::string& TableReader::file_name() const { return impl_->file->name(); }
uint64_t TableReader::file_size() const { return impl_->file->Size(); }

}  // namespace linebloom::sstable
