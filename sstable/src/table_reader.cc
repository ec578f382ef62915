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

Status TableReader::Impl::ReadDataBlock(size_t b, std::string* buf, std::string* scratch,
                                        internal::DataBlock* block, uint64_t* bytes) const {
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
    return Corrupt(0, std::string("file is ").append(std::to_string(size)).append(
                          " bytes, too short for the 48-byte footer (truncated?)"));
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
  if (!internal::DecodeMeta(contents, &meta, &why)) return Corrupt(footer.meta.offset, why);
  const BlockHandle& region = meta.filter_region;
  if (region.end() != footer.meta.offset || (meta.filter_mode == FilterMode::kNone && region.size != 0) ||
      (meta.filter_mode == FilterMode::kPerFile && region.size < kStoredBlockTrailerSize)) {
    return Corrupt(footer.meta.offset, "meta block gives an impossible filter region");
  }

  if (Status s = ReadStored(footer.index, &buf, &scratch, &contents, nullptr); !s.ok()) return s;
  if (!internal::DecodeIndex(contents, &index, &why)) return Corrupt(footer.index.offset, why);
  if (Status s = CheckIndex(footer.index.offset); !s.ok()) return s;

  if (meta.filter_mode != FilterMode::kNone && options.use_filters) {
    for (const auto& p : options.filter_policies) {
      if (p && p->Name() == meta.filter_policy) policy = p;
    }
    if (policy) return LoadFilters();
  }
  return Status::Ok();
}

// The layout is fully determined by the writer, so the reader demands it
// exactly: data blocks back to back from offset 0, filters back to back
// filling their region, keys strictly increasing, counts adding up.
Status TableReader::Impl::CheckIndex(uint64_t index_offset) const {
  if (index.size() != meta.num_blocks) return Corrupt(index_offset, "index and meta block disagree on the block count");
  uint64_t data_at = 0, filter_at = meta.filter_region.offset, entries = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    const IndexEntry& e = index[i];
    auto bad = [&](const char* what) {
      return Corrupt(index_offset, std::string("index entry ").append(std::to_string(i)).append(": ").append(what));
    };
    if (e.data.offset != data_at || e.data.size <= kStoredBlockTrailerSize) return bad("impossible data block location");
    data_at = e.data.end();
    if (data_at > meta.filter_region.offset) return bad("data block overlaps the filter region");
    if (e.num_entries == 0 || e.num_entries > meta.num_entries - entries) return bad("impossible entry count");
    entries += e.num_entries;
    if (i > 0 && !(index[i - 1].last_key < e.last_key)) return bad("keys out of order");
    if (meta.filter_mode == FilterMode::kPerBlock) {
      if (e.filter.offset != filter_at || e.filter.size < kStoredBlockTrailerSize) return bad("impossible filter location");
      filter_at = e.filter.end();
      if (filter_at > meta.filter_region.end()) return bad("filter beyond the filter region");
    } else if (e.filter.offset != 0 || e.filter.size != 0) {
      return bad("filter location without per-block filters");
    }
  }
  if (data_at != meta.filter_region.offset) return Corrupt(index_offset, "data blocks do not end where the filters begin");
  if (entries != meta.num_entries) return Corrupt(index_offset, "entry counts of index and meta block disagree");
  if (meta.filter_mode == FilterMode::kPerBlock && filter_at != meta.filter_region.end()) {
    return Corrupt(index_offset, "per-block filters do not fill the filter region");
  }
  return Status::Ok();
}

Status TableReader::Impl::LoadFilters() {
  const BlockHandle& region = meta.filter_region;
  // 64-byte aligned so that a linebloom block is one cache line (for the
  // whole-file filter; per-block filters start wherever they fall).
  const size_t alloc = std::max<size_t>(64, static_cast<size_t>((region.size + 63) / 64 * 64));
  filter_bytes.reset(static_cast<char*>(std::aligned_alloc(64, alloc)));
  if (!filter_bytes) return Status::IOError(file->name() + ": out of memory for the filters");
  if (Status s = file->Read(region.offset, std::span<char>(filter_bytes.get(), region.size), nullptr); !s.ok()) {
    return s;
  }
  auto load = [&](const BlockHandle& h, std::string_view* bytes, std::unique_ptr<BlockFilterReader>* reader) {
    const std::string_view stored(filter_bytes.get() + (h.offset - region.offset), static_cast<size_t>(h.size));
    std::string scratch;
    if (Status s = internal::ReadStoredBlock(stored, file->name(), h.offset, &scratch, bytes); !s.ok()) return s;
    // Filters are stored raw so that readers can point into the region.
    if (!scratch.empty() || bytes->data() != stored.data()) return Corrupt(h.offset, "compressed filter block");
    if (Status s = policy->NewReader(*bytes, reader); !s.ok()) return Corrupt(h.offset, s.message());
    return Status::Ok();
  };
  if (meta.filter_mode == FilterMode::kPerFile) {
    if (Status s = load(region, &file_filter_bytes, &file_filter); !s.ok()) return s;
  } else {
    block_filter_bytes.resize(index.size());
    block_filters.resize(index.size());
    for (size_t i = 0; i < index.size(); ++i) {
      if (Status s = load(index[i].filter, &block_filter_bytes[i], &block_filters[i]); !s.ok()) return s;
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
    const BlockFilterReader& f = meta.filter_mode == FilterMode::kPerFile ? *file_filter : *block_filters[*b];
    if (!f.MayMatch(key)) {
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
  if (impl_->meta.filter_mode == FilterMode::kPerFile) return impl_->file_filter_bytes.size();
  size_t total = 0;
  for (std::string_view f : impl_->block_filter_bytes) total += f.size();
  return total;
}
std::string_view TableReader::file_filter() const { return impl_->file_filter_bytes; }
const std::string& TableReader::file_name() const { return impl_->file->name(); }
uint64_t TableReader::file_size() const { return impl_->file->Size(); }

}  // namespace linebloom::sstable
