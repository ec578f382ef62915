// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Reads a micro-SSTable. Open validates the footer, meta block and index and
// loads the filters into memory; each Get then costs at most one data-block
// read: index search -> the block's filter -> read the block only if the
// filter says "maybe".
//
// Damaged bytes (truncation, bad magic, checksum mismatch, impossible
// offsets) give a Corruption status naming the file and offset, never a
// crash and never wrong data. A TableReader is safe to use from several
// threads at once.

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "linebloom/foundation/file.h"
#include "linebloom/foundation/status.h"
#include "linebloom/sstable/lookup_stats.h"
#include "linebloom/sstable/table_options.h"

namespace linebloom::sstable {

class TableIterator;

// What the index records about one data block.
struct BlockInfo {
  uint64_t offset = 0;  // of the stored block, trailer included
  uint64_t size = 0;    // stored bytes, trailer included
  uint64_t num_entries = 0;
  std::string_view last_key;
  // The block's filter bytes (per-block mode with a filter in use), else empty.
  std::string_view filter;
};

class TableReader {
 public:
  static Status Open(std::unique_ptr<RandomAccessFile> file, const TableReaderOptions& options,
                     std::unique_ptr<TableReader>* reader);
  // Opens `path` with the given I/O mode.
  static Status Open(const std::string& path, IoMode mode, const TableReaderOptions& options,
                     std::unique_ptr<TableReader>* reader);

  ~TableReader();
  TableReader(const TableReader&) = delete;
  TableReader& operator=(const TableReader&) = delete;

  // The value of `key`, NotFound if the table does not hold it, or a
  // Corruption / IOError. Adds what the lookup cost to *stats if not null.
  Status Get(std::string_view key, std::string* value, LookupStats* stats = nullptr) const;

  // An iterator over every entry in key order (see TableIterator).
  std::unique_ptr<TableIterator> NewIterator() const;

  // The block whose key range holds `key` (the first block whose last key is
  // >= key), or nullopt if `key` is beyond the last key.
  std::optional<size_t> FindBlock(std::string_view key) const;

  uint64_t num_entries() const;
  size_t num_blocks() const;
  BlockInfo block(size_t i) const;

  FilterMode filter_mode() const;
  // The filter policy name the table recorded ("" without filters).
  const std::string& filter_policy_name() const;
  // True when lookups consult filters: the table has them, a policy of the
  // recorded name was given, and TableReaderOptions::use_filters is set.
  bool filter_in_use() const;
  // What the filters cost, in bytes (0 when no filter is in use): the
  // filter region (every filter byte, held in memory), the table's filter
  // parameters, and the index fields that locate the filters.
  size_t filter_memory() const;
  // The table's filter parameters (table format 2; empty in format 1).
  const std::string& filter_parameters() const;
  // The table format version of the file (1 or 2).
  uint32_t format_version() const;
  // The whole-file filter's bytes (per-file mode with a filter in use).
  std::string_view file_filter() const;

  const std::string& file_name() const;
  uint64_t file_size() const;

 private:
  friend class TableIterator;
  class Impl;
  explicit TableReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Walks the entries of a table in key order. Keys and values stay valid
// until the iterator moves. When a block cannot be read, Valid() turns false
// and status() says why.
class TableIterator {
 public:
  explicit TableIterator(const TableReader* table);
  ~TableIterator();
  TableIterator(const TableIterator&) = delete;
  TableIterator& operator=(const TableIterator&) = delete;

  void SeekToFirst();
  // The first entry with key >= target.
  void Seek(std::string_view target);
  void Next();
  bool Valid() const;
  std::string_view key() const;
  std::string_view value() const;
  Status status() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace linebloom::sstable
