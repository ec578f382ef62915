// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "level_aware_adapter.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include <rocksdb/cache.h>
#if __has_include(<rocksdb/advanced_cache.h>)
#include <rocksdb/advanced_cache.h>  // Cache's definition from RocksDB 8.1
#endif
#include <rocksdb/env.h>
#include <rocksdb/table.h>

#include "linebloom/foundation/coding.h"

namespace linebloom::rocksdb_plugin {
namespace {

// a < b bytewise (std::string_view's order), eight bytes at a time as
// big-endian words. Every key of a file is compared once with the largest so
// far; sorted keys differ from it in their leading words, and memcmp's call
// through the PLT costs more than these few loads.
bool BytewiseLess(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t x = DecodeBigEndian64(a.data() + i), y = DecodeBigEndian64(b.data() + i);
    if (x != y) return x < y;
  }
  for (; i < n; ++i) {
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  return a.size() < b.size();
}

// dst[0, src.size()) = src, where keys of 8 to 16 bytes (the common ones)
// take two overlapping 8-byte moves instead of a call to memcpy.
void CopySameSize(char* dst, std::string_view src) {
  const size_t n = src.size();
  if (n < 8 || n > 16) {
    std::memcpy(dst, src.data(), n);
    return;
  }
  uint64_t head, tail;
  std::memcpy(&head, src.data(), 8);
  std::memcpy(&tail, src.data() + n - 8, 8);
  std::memcpy(dst, &head, 8);
  std::memcpy(dst + n - 8, &tail, 8);
}

bool Leveled(const ::rocksdb::FilterBuildingContext& context) {
  return context.compaction_style == ::rocksdb::kCompactionStyleLevel;
}

// Forwards everything to the real builder and reports each finished
// filter's key range and count to the planner. `Inner` is
// LinebloomBitsBuilder or CompactBitsBuilder (a template, not a common base,
// so that the Bloom builder's calls stay direct).
template <typename Inner>
class ObservingBitsBuilder final : public ::rocksdb::FilterBitsBuilder {
 public:
  ObservingBitsBuilder(std::shared_ptr<planner::LevelPlanner> planner, std::string column_family, int level,
                       std::unique_ptr<Inner> inner)
      : planner_(std::move(planner)),
        column_family_(std::move(column_family)),
        level_(level),
        inner_(std::move(inner)),
        created_bits_(inner_->bits_per_key()) {}

  void AddKey(const ::rocksdb::Slice& key) override {
    Record(key);
    inner_->AddKey(key);
  }
  void AddKeyAndAlt(const ::rocksdb::Slice& key, const ::rocksdb::Slice& alt) LINEBLOOM_OVERRIDE_SINCE_B {
    Record(key);
    Record(alt);
    inner_->AddKeyAndAlt(key, alt);
  }
  size_t EstimateEntriesAdded() override { return inner_->EstimateEntriesAdded(); }

  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override {
    const size_t keys = inner_->EstimateEntriesAdded();
    SizeForKeyRange(keys);
    const ::rocksdb::Slice filter = inner_->Finish(buf);
    Report(keys, filter.size());
    return filter;
  }
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf, ::rocksdb::Status* status) override {
    const size_t keys = inner_->EstimateEntriesAdded();
    SizeForKeyRange(keys);
    const ::rocksdb::Slice filter = inner_->Finish(buf, status);
    if (status == nullptr || status->ok()) Report(keys, filter.size());
    return filter;
  }
  ::rocksdb::Status MaybePostVerify(const ::rocksdb::Slice& filter) override { return inner_->MaybePostVerify(filter); }
  size_t ApproximateNumEntries(size_t bytes) override { return inner_->ApproximateNumEntries(bytes); }
  size_t CalculateSpace(size_t num_entries) LINEBLOOM_OVERRIDE_SINCE_C { return inner_->CalculateSpace(num_entries); }
  double EstimatedFpRate(size_t num_entries, size_t bytes) LINEBLOOM_OVERRIDE_SINCE_C {
    return inner_->EstimatedFpRate(num_entries, bytes);
  }

 private:
  // Bytewise min and max, not first and last: the column family's
  // comparator need not be bytewise, and prefixes are interleaved. Keys
  // mostly come in ascending order, so a key above the largest is taken
  // with one comparison (it cannot be below the smallest), and copied over
  // the old one in place when it is as long.
  void Record(const ::rocksdb::Slice& entry) {
    const std::string_view e(entry.data(), entry.size());
    if (!any_) {
      smallest_.assign(e);
      largest_.assign(e);
      any_ = true;
    } else if (BytewiseLess(largest_, e)) {
      if (e.size() == largest_.size()) {
        CopySameSize(largest_.data(), e);
      } else {
        largest_.assign(e);
      }
    } else if (BytewiseLess(e, smallest_)) {
      smallest_.assign(e);
    }
  }

  // Before each Finish: a pinned file's own bits (BitsAtFinish), else the
  // bits it was created with (a compact builder clamps them to its range). The partitions of a partitioned filter are
  // one file: once one is pinned, the rest get its bits without another
  // plan (one plan per file, not per partition).
  void SizeForKeyRange(size_t keys) {
    if (!any_ || keys == 0) return;
    if (!pinned_bits_) pinned_bits_ = planner_->BitsAtFinish(column_family_, level_, smallest_, largest_, keys);
    inner_->SetBitsPerKey(pinned_bits_ ? *pinned_bits_ : created_bits_);
  }

  // After each Finish (the inner builder then starts the next filter, a
  // partition; so does our range). `keys` was counted before Finish.
  void Report(size_t keys, size_t filter_bytes) {
    if (any_ && keys > 0) planner_->ObserveFilter(column_family_, level_, smallest_, largest_, keys, filter_bytes);
    any_ = false;
  }

  std::shared_ptr<planner::LevelPlanner> planner_;
  std::string column_family_;
  int level_;
  std::unique_ptr<Inner> inner_;
  const double created_bits_;
  std::optional<double> pinned_bits_;  // once a partition of the file is pinned
  bool any_ = false;
  std::string smallest_, largest_;
};

}  // namespace

std::optional<FilterOptions> PlanFromContext(planner::LevelPlanner& planner,
                                             const ::rocksdb::FilterBuildingContext& context) {
  const ::rocksdb::BlockBasedTableOptions& table = context.table_options;
  planner::LevelPlanner::NewFile file;
  file.tree = context.column_family_name;
  file.level = context.level_at_creation;
  file.num_levels = context.num_levels;
  file.leveled = Leveled(context);
  if (!table.no_block_cache && table.block_cache != nullptr) {
    file.cache_capacity_bytes = static_cast<double>(table.block_cache->GetCapacity());
  }
  file.block_size = static_cast<double>(table.block_size);
  file.filters_in_cache = table.cache_index_and_filter_blocks;
  file.wants_log = context.info_log != nullptr;
  planner::LevelPlanner::Decision decision = planner.PlanNewFile(file);
  if (!decision.log.empty()) {
    ::rocksdb::Log(::rocksdb::InfoLogLevel::INFO_LEVEL, context.info_log, "%s", decision.log.c_str());
  }
  return decision.filter;
}

namespace {

template <typename Inner>
std::unique_ptr<::rocksdb::FilterBitsBuilder> Observe(std::shared_ptr<planner::LevelPlanner> planner,
                                                      const ::rocksdb::FilterBuildingContext& context,
                                                      std::unique_ptr<Inner> builder) {
  if (builder == nullptr || !Leveled(context) || context.level_at_creation < 0) return builder;
  return std::make_unique<ObservingBitsBuilder<Inner>>(std::move(planner), context.column_family_name,
                                                       context.level_at_creation, std::move(builder));
}

}  // namespace

std::unique_ptr<::rocksdb::FilterBitsBuilder> ObserveFilters(std::shared_ptr<planner::LevelPlanner> planner,
                                                             const ::rocksdb::FilterBuildingContext& context,
                                                             std::unique_ptr<LinebloomBitsBuilder> builder) {
  return Observe(std::move(planner), context, std::move(builder));
}

std::unique_ptr<::rocksdb::FilterBitsBuilder> ObserveFilters(std::shared_ptr<planner::LevelPlanner> planner,
                                                             const ::rocksdb::FilterBuildingContext& context,
                                                             std::unique_ptr<CompactBitsBuilder> builder) {
  return Observe(std::move(planner), context, std::move(builder));
}

}  // namespace linebloom::rocksdb_plugin
