// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The table-level structures (docs/FORMAT.md, section 2):
//
//   data blocks | filter region | meta block | index block | footer (48 bytes)
//
// Version 2 (written) stores the filters back to back without framing, the
// filter parameters and a checksum of the region in the meta block, and each
// block's filter size in its index entry. Version 1 (read only) stores each
// filter as a stored block and has no parameters.
//
// Encoders produce block contents (the caller stores them with a trailer);
// decoders validate untrusted contents and return a reason on failure.
// Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/sstable/table_options.h"

namespace linebloom::sstable::internal {

inline constexpr uint32_t kTableFormatVersion = 2;
inline constexpr uint32_t kOldestTableFormatVersion = 1;
inline constexpr size_t kFooterSize = 48;
// "LBSSTABL", stored in this byte order at the end of the file.
inline constexpr char kTableMagic[8] = {'L', 'B', 'S', 'S', 'T', 'A', 'B', 'L'};
inline constexpr size_t kMaxPolicyNameSize = 255;
inline constexpr size_t kMaxFilterParametersSize = 255;

// Bytes of the varint encoding of v.
inline size_t VarintLength(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;  // stored bytes, trailer included
  uint64_t end() const { return offset + size; }
};

struct Footer {
  BlockHandle meta;
  BlockHandle index;
  uint32_t version = kTableFormatVersion;
};

std::string EncodeFooter(const Footer& footer);
// `bytes` is exactly kFooterSize. Checks, in order: magic, version, checksum.
bool DecodeFooter(std::string_view bytes, Footer* footer, const char** why);

struct TableMeta {
  FilterMode filter_mode = FilterMode::kNone;
  std::string filter_policy;  // empty when filter_mode is kNone
  uint64_t num_entries = 0;
  uint64_t num_blocks = 0;
  // All filters back to back, right after the data blocks.
  BlockHandle filter_region;
  // Version 2 only: the policy's parameters (at most 255 bytes) and the
  // low 32 bits of XXH3-64 (seed 0) of the filter region.
  std::string filter_parameters;
  uint32_t filter_region_checksum = 0;
};

std::string EncodeMeta(const TableMeta& meta);
bool DecodeMeta(std::string_view contents, uint32_t version, TableMeta* meta, const char** why);
uint32_t FilterRegionChecksum(std::string_view region);

struct IndexEntry {
  std::string last_key;
  BlockHandle data;
  // Per-block mode only; else {0, 0}. Version 2 stores only the size (the
  // offset is the region's start plus the sizes of the filters before);
  // the decoder leaves the offset 0 and the reader fills it in.
  BlockHandle filter;
  uint64_t num_entries = 0;
};

std::string EncodeIndex(const std::vector<IndexEntry>& entries);
// Decodes the entries; structural checks against the meta block and file
// layout are the reader's.
bool DecodeIndex(std::string_view contents, uint32_t version, std::vector<IndexEntry>* entries, const char** why);

}  // namespace linebloom::sstable::internal
