// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How the micro-SSTable builds and queries filters. The table never looks
// inside filter bytes; a policy does. The default is linebloom; a benchmark
// can plug in another filter (e.g. RocksDB's built-in Bloom filter) to
// compare both through identical table code.
//
// A policy's Name() is written into every table it builds. A reader uses a
// table's filters only with a policy of the same name, so bytes built by one
// filter are never interpreted by another.

#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "linebloom/filter_options.h"
#include "linebloom/foundation/status.h"

namespace linebloom::sstable {

// Accumulates keys for one filter (of one data block, or of the whole file).
class BlockFilterBuilder {
 public:
  virtual ~BlockFilterBuilder() = default;
  // Keys arrive in sorted order without duplicates.
  virtual void AddKey(std::string_view key) = 0;
  // Keys added since construction or the last Finish.
  virtual size_t NumKeys() const = 0;
  // The filter for those keys; resets the builder for the next filter.
  virtual std::string Finish() = 0;
};

// Answers queries against one filter's bytes, which it does not own.
class BlockFilterReader {
 public:
  virtual ~BlockFilterReader() = default;
  // False only if `key` was certainly not added to this filter.
  virtual bool MayMatch(std::string_view key) const = 0;
};

class BlockFilterPolicy {
 public:
  virtual ~BlockFilterPolicy() = default;
  // Identifies the byte format (not the tuning): at most 255 bytes, recorded
  // in the table's meta block.
  virtual std::string Name() const = 0;
  virtual std::unique_ptr<BlockFilterBuilder> NewBuilder() const = 0;
  // Validates `bytes` (which outlive the reader) and returns a reader, or
  // Corruption with a short reason.
  virtual Status NewReader(std::string_view bytes, std::unique_ptr<BlockFilterReader>* reader) const = 0;
};

// linebloom's cache-line-blocked Bloom filter as the table's block filter
// (the RocksDB plugin's FilterPolicy is rocksdb_plugin::
// NewLinebloomFilterPolicy). Its bytes carry their own probes count and
// seed, so any linebloom policy reads any linebloom filter; `options` only
// tune the filters this policy builds.
std::shared_ptr<const BlockFilterPolicy> NewLinebloomBlockFilterPolicy(const FilterOptions& options = {});

// The name recorded for linebloom filters.
inline constexpr std::string_view kLinebloomPolicyName = "linebloom.blocked512";

}  // namespace linebloom::sstable
