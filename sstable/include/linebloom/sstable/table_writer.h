// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Writes a micro-SSTable in one pass: data blocks are streamed to the file as
// they fill; filters, the index and the footer follow in Finish.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "linebloom/foundation/file.h"
#include "linebloom/foundation/status.h"
#include "linebloom/sstable/table_options.h"

namespace linebloom::sstable {

class TableWriter {
 public:
  // Checks `options` (InvalidArgument if unusable) and takes the file.
  static Status Open(std::unique_ptr<WritableFile> file, const TableWriterOptions& options,
                     std::unique_ptr<TableWriter>* writer);
  // Creates (or truncates) `path` and opens a writer on it.
  static Status Create(const std::string& path, const TableWriterOptions& options,
                       std::unique_ptr<TableWriter>* writer);

  ~TableWriter();
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

  // Adds an entry. Keys must be strictly increasing in bytewise order: an
  // out-of-order or duplicate key, or an oversized key or value, is rejected
  // with InvalidArgument and not added (the writer stays usable). An I/O
  // error is sticky: every later call returns it.
  Status Add(std::string_view key, std::string_view value);

  // Writes the filters, meta block, index and footer, then syncs (unless
  // disabled) and closes the file. A table with no entries is valid.
  Status Finish();

  uint64_t num_entries() const;
  // Bytes written so far; the file size after Finish.
  uint64_t file_size() const;

 private:
  class Impl;
  explicit TableWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace linebloom::sstable
