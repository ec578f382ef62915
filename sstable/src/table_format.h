// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The table-level structures (docs/FORMAT.md, section 2):
//
//   data blocks | filter region | meta block | index block | footer (48 bytes)
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

inline constexpr uint32_t kTableFormatVersion = 1;
inline constexpr size_t kFooterSize = 48;
// "LBSSTABL", stored in this byte order at the end of the file.
inline constexpr char kTableMagic[8] = {'L', 'B', 'S', 'S', 'T', 'A', 'B', 'L'};
inline constexpr size_t kMaxPolicyNameSize = 255;

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
  // All filters, stored blocks back to back, right after the data blocks.
  BlockHandle filter_region;
};

std::string EncodeMeta(const TableMeta& meta);
bool DecodeMeta(std::string_view contents, TableMeta* meta, const char** why);

struct IndexEntry {
  std::string last_key;
  BlockHandle data;
  BlockHandle filter;  // per-block mode only; else {0, 0}
  uint64_t num_entries = 0;
};

std::string EncodeIndex(const std::vector<IndexEntry>& entries);
// Decodes the entries; structural checks against the meta block and file
// layout are the reader's.
bool DecodeIndex(std::string_view contents, std::vector<IndexEntry>* entries, const char** why);

}  // namespace linebloom::sstable::internal
