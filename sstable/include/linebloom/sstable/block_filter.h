// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How the micro-SSTable builds and queries filters. The table never looks
// inside filter bytes; a policy does. The default is linebloom; a benchmark
// can plug in another filter (e.g. RocksDB's built-in Bloom filter) to
// compare both through identical table code.
//
// A table holds its filters back to back (one per data block, or one for the
// whole file) and, once, the parameters the policy needs to read them (for
// linebloom: k and the hash seed), so a filter of a few dozen keys carries
// no header of its own. A policy's Name() is written into every table it
// builds; a reader uses a table's filters only with a policy of the same
// name, so bytes built by one filter are never interpreted by another.

#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "linebloom/filter_options.h"
#include "linebloom/foundation/status.h"

namespace linebloom::sstable {

// Accumulates keys for the filters of one table (one per data block, or one
// for the whole file).
class BlockFilterBuilder {
 public:
  virtual ~BlockFilterBuilder() = default;
  // Keys arrive in sorted order without duplicates.
  virtual void AddKey(std::string_view key) = 0;
  // Keys added since construction or the last Finish.
  virtual size_t NumKeys() const = 0;
  // The filter for those keys; resets for the next filter of the table.
  virtual std::string Finish() = 0;
  // The table's filter parameters (at most 255 bytes), asked for once after
  // the last Finish and stored once per table.
  virtual std::string Parameters() const = 0;
};

// Answers queries against the filters of one table.
class TableFilterReader {
 public:
  virtual ~TableFilterReader() = default;
  // Called at open for each filter of the table in order; `filter` outlives
  // the reader. Corruption (with a short reason) if the bytes are malformed.
  virtual Status AddFilter(std::string_view filter) = 0;
  // False only if `key` was certainly not added to filter `i`.
  virtual bool MayMatch(size_t i, std::string_view key) const = 0;
};

class BlockFilterPolicy {
 public:
  virtual ~BlockFilterPolicy() = default;
  // Identifies the byte format (not the tuning): at most 255 bytes, recorded
  // in the table's meta block.
  virtual std::string Name() const = 0;
  virtual std::unique_ptr<BlockFilterBuilder> NewBuilder() const = 0;
  // Validates a table's `parameters` and returns a reader for its filters,
  // or Corruption with a short reason.
  virtual Status NewTableReader(std::string_view parameters, std::unique_ptr<TableFilterReader>* reader) const = 0;
};

// linebloom's line pair filter ("linebloom.linepairs", docs/FORMAT.md
// section 2), the default: each filter sized to the byte from its own key
// count at options.bits_per_key (rounded to the nearest byte); a filter
// within two adjacent cache lines is one standard Bloom filter, a longer one is split
// at 128-byte line pairs, so a query touches at most two adjacent lines; k
// (unless options fix it) minimises the exact false-positive rate of the
// table's first filter. (The RocksDB plugin's FilterPolicy is
// rocksdb_plugin::NewLinebloomFilterPolicy.)
std::shared_ptr<const BlockFilterPolicy> NewLinebloomLinePairPolicy(const FilterOptions& options = {});
inline constexpr std::string_view kLinebloomLinePairPolicyName = "linebloom.linepairs";
// The former names of the two above, for code written against them.
[[deprecated("use NewLinebloomLinePairPolicy")]] inline std::shared_ptr<const BlockFilterPolicy>
NewLinebloomBlockFilterPolicy(const FilterOptions& options = {}) {
  return NewLinebloomLinePairPolicy(options);
}
[[deprecated("use kLinebloomLinePairPolicyName")]] inline constexpr std::string_view kLinebloomPolicyName =
    kLinebloomLinePairPolicyName;

// linebloom's general filter (docs/FORMAT.md section 1), one per block with
// its own 16-byte trailer, rounded up to whole 64-byte blocks: what table
// format 1 stores. Kept to read those tables (and to write it for
// comparison); no table parameters.
std::shared_ptr<const BlockFilterPolicy> NewLinebloomBlocked512Policy(const FilterOptions& options = {});
inline constexpr std::string_view kLinebloomBlocked512PolicyName = "linebloom.blocked512";

// linebloom's compact filter ("linebloom.compact", docs/FORMAT.md section 2):
// each filter is a whole compact filter of section 1b (self-describing,
// its own trailer and checksum) at options.bits_per_key, clamped to
// [kMinCompactBitsPerKey, kMaxCompactBitsPerKey] (compact_math.h); no table
// parameters. About a quarter less memory than the Bloom filter for the
// same false-positive rate, slower to build, and at least one 64-byte line
// plus a 20-byte trailer per filter: meant for FilterMode::kPerFile.
std::shared_ptr<const BlockFilterPolicy> NewLinebloomCompactPolicy(const FilterOptions& options = {});
inline constexpr std::string_view kLinebloomCompactPolicyName = "linebloom.compact";

}  // namespace linebloom::sstable
