// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The state of an open table, shared by TableReader and TableIterator.
// Internal header.

#pragma once

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data_block.h"
#include "linebloom/sstable/table_reader.h"
#include "stored_block.h"
#include "table_format.h"

namespace linebloom::sstable {

class TableReader::Impl {
 public:
  Status Load(const TableReaderOptions& options);
  Status Get(std::string_view key, std::string* value, LookupStats* stats) const;
  std::optional<size_t> FindBlock(std::string_view key) const;
  // Reads, verifies and parses data block `b`; *block points into *buf or
  // *scratch. Adds the transferred bytes to *bytes.
  Status ReadDataBlock(size_t b, std::string* buf, std::string* scratch, internal::DataBlock* block,
                       uint64_t* bytes) const;

  std::unique_ptr<RandomAccessFile> file;
  internal::TableMeta meta;
  std::vector<internal::IndexEntry> index;

  struct FreeDeleter {
    void operator()(char* p) const { std::free(p); }
  };
  uint32_t version = 0;  // table format version
  std::shared_ptr<const BlockFilterPolicy> policy;
  std::unique_ptr<char, FreeDeleter> filter_bytes;  // the filter region
  std::vector<std::string_view> block_filter_bytes;
  std::string_view file_filter_bytes;
  std::unique_ptr<TableFilterReader> filters;
  bool filter_in_use = false;

 private:
  Status GetCounted(std::string_view key, std::string* value, LookupStats* stats) const;
  Status CheckIndex(uint64_t index_offset);
  Status LoadFilters(uint64_t footer_meta_offset);
  Status ReadStored(const internal::BlockHandle& h, std::string* buf, std::string* scratch, std::string_view* contents,
                    uint64_t* bytes) const;
  Status Corrupt(uint64_t offset, std::string_view what) const;
};

}  // namespace linebloom::sstable
