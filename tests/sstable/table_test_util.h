// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Shared helpers for the micro-SSTable tests: deterministic keys and values,
// an in-memory WritableFile, and a one-call table builder.

#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "linebloom/foundation/file.h"
#include "linebloom/sstable/table_reader.h"
#include "linebloom/sstable/table_writer.h"

namespace linebloom::sstable::testing {

// Keys sort in index order: "k" + 10 zero-padded digits.
inline std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%010llu", static_cast<unsigned long long>(i));
  return buf;
}

// A key that sorts between Key(i) and Key(i + 1) and is never present.
inline std::string AbsentKey(uint64_t i) { return Key(i) + "~absent"; }

// A value of `size` bytes that differs per key and compresses a little.
inline std::string Value(uint64_t i, size_t size) {
  std::string v(size, '\0');
  uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
  for (size_t j = 0; j < size; ++j) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v[j] = static_cast<char>('a' + (x % 8));
  }
  return v;
}

// Collects appended bytes in memory.
class StringFile final : public WritableFile {
 public:
  explicit StringFile(std::string* out, std::string name = "mem.sst") : out_(out), name_(std::move(name)) {}
  Status Append(std::string_view data) override {
    out_->append(data);
    return Status::Ok();
  }
  Status Sync() override {
    ++syncs;
    return Status::Ok();
  }
  Status Close() override { return Status::Ok(); }
  const std::string& name() const override { return name_; }
  int syncs = 0;

 private:
  std::string* out_;
  std::string name_;
};

struct Entry {
  std::string key, value;
};

inline std::vector<Entry> MakeEntries(size_t n, size_t value_size) {
  std::vector<Entry> entries;
  entries.reserve(n);
  for (size_t i = 0; i < n; ++i) entries.push_back({Key(i), Value(i, value_size)});
  return entries;
}

// Writes `entries` with `options` into a string; fails the test on error.
inline std::string BuildTable(const std::vector<Entry>& entries, const TableWriterOptions& options) {
  std::string bytes;
  std::unique_ptr<TableWriter> writer;
  Status s = TableWriter::Open(std::make_unique<StringFile>(&bytes), options, &writer);
  if (!s.ok()) return "open failed: " + s.ToString();
  for (const Entry& e : entries) {
    if (s = writer->Add(e.key, e.value); !s.ok()) return "add failed: " + s.ToString();
  }
  if (s = writer->Finish(); !s.ok()) return "finish failed: " + s.ToString();
  return bytes;
}

inline Status OpenTable(std::string bytes, const TableReaderOptions& options, std::unique_ptr<TableReader>* reader,
                        std::string name = "mem.sst") {
  return TableReader::Open(NewMemoryFile(std::move(name), std::move(bytes)), options, reader);
}

inline TableWriterOptions Options(FilterMode mode, size_t block_size = 4096) {
  TableWriterOptions o;
  o.filter_mode = mode;
  o.block_size = block_size;
  return o;
}

}  // namespace linebloom::sstable::testing
