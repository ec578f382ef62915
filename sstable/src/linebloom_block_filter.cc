// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom's two table filter formats: "linebloom.linepairs", the line pair
// filter (per-block filters sized to the byte, parameters once per table;
// line_pair_filter.h), and "linebloom.blocked512" (the general filter of
// docs/FORMAT.md section 1, self-describing, one per block).

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "linebloom/bloom_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/foundation/coding.h"
#include "linebloom/foundation/mutex.h"
#include "linebloom/filter_reader.h"
#include "linebloom/sstable/block_filter.h"
#include "line_pair_filter.h"

namespace linebloom::sstable {
namespace {

using internal::LinePairLayout;

// Bytes of the filter of `keys` keys at `bits_per_key`: the nearest whole
// byte (at least one), so that the table's filters average the configured
// bits per key instead of rounding every filter up.
uint64_t LinePairFilterBytes(uint64_t keys, double bits_per_key) {
  if (keys == 0) return 0;
  return std::max<uint64_t>(1, std::llround(static_cast<double>(keys) * bits_per_key / 8));
}

// The k with the least exact false-positive rate for a filter of this size
// and key count, averaged over the positions it may have relative to the
// cache lines (they decide its parts): every 8th of the 64 for a filter of
// up to 512 bytes that some position cuts; position 0 alone for one that no
// position cuts, or for a larger one, whose many parts make the position
// all but irrelevant. Position 0 alone, too, when the 8 positions would
// cost the model more than ~10^8 steps (two chains of keys * k * 8 S steps
// each; every block of up to 16 KiB at up to 22 bits/key stays below).
// The rate is unimodal in k, so a walk downhill from k = c ln 2 finds the
// minimum.
int BestLinePairProbes(uint64_t keys, uint64_t filter_bytes) {
  FiniteBloomFpr model;
  const double c = 8.0 * static_cast<double>(filter_bytes) / static_cast<double>(keys);
  const double work =
      16.0 * static_cast<double>(keys) * (c * std::log(2.0) + 1) * 8.0 * static_cast<double>(filter_bytes);
  const uint64_t positions =
      filter_bytes + 63 <= internal::kLinePairBytes || filter_bytes > 512 || work > 1.2e8 ? 1 : 8;
  auto fpr = [&](int k) {
    double sum = 0;
    for (uint64_t i = 0; i < positions; ++i) {
      sum += model.SplitBySize(keys, LinePairLayout{filter_bytes, i * 64 / positions}.Groups(), k);
    }
    return sum / static_cast<double>(positions);
  };
  int best = std::clamp(static_cast<int>(std::lround(c * std::log(2.0))), kMinProbes, kMaxProbes);
  double best_fpr = fpr(best);
  for (int step : {-1, +1}) {
    for (int k = best + step; k >= kMinProbes && k <= kMaxProbes; k += step) {
      const double f = fpr(k);
      if (!(f < best_fpr)) break;
      best = k, best_fpr = f;
    }
  }
  return best;
}

// BestLinePairProbes's answers, process-wide. It is a function of its two
// arguments alone and costs at most about 10^8 model steps, once per table,
// at the table's first block: in a store, while the flush holds up the
// writers. The tables of one store ask for few pairs (their first blocks
// hold similar key counts), so after its first tables a store pays a
// lookup. At most kMaxAnswers pairs are kept (then the memo starts over).
class LinePairProbesMemo {
 public:
  int Get(uint64_t keys, uint64_t filter_bytes) {
    const std::pair<uint64_t, uint64_t> pair{keys, filter_bytes};
    {
      MutexLock lock(&mu_);
      const auto it = answers_.find(pair);
      if (it != answers_.end()) return it->second;
    }
    // Outside the lock: tables built in parallel do not wait on each
    // other's model (two may compute the same pair; they agree).
    const int probes = BestLinePairProbes(keys, filter_bytes);
    MutexLock lock(&mu_);
    if (answers_.size() >= kMaxAnswers) answers_.clear();
    answers_.emplace(pair, probes);
    return probes;
  }

 private:
  static constexpr size_t kMaxAnswers = 4096;
  Mutex mu_;
  std::map<std::pair<uint64_t, uint64_t>, int> answers_ LINEBLOOM_GUARDED_BY(mu_);
};

int MemoizedLinePairProbes(uint64_t keys, uint64_t filter_bytes) {
  // Never destroyed (as LevelDB's default Env): a table may still be built
  // on another thread while the process exits.
  static LinePairProbesMemo* const memo = new LinePairProbesMemo;
  return memo->Get(keys, filter_bytes);
}

class LinePairBuilder final : public BlockFilterBuilder {
 public:
  explicit LinePairBuilder(const FilterOptions& options)
      : bits_per_key_(options.EffectiveBitsPerKey()), probes_(options.num_probes), seed_(options.seed) {
    if (probes_ != 0) probes_ = options.EffectiveProbes();
  }

  void AddKey(std::string_view key) override { hashes_.push_back(KeyHash(key, seed_)); }
  size_t NumKeys() const override { return hashes_.size(); }

  std::string Finish() override {
    const uint64_t bytes = LinePairFilterBytes(hashes_.size(), bits_per_key_);
    // k is fixed for the whole table by its first non-empty filter: data
    // blocks of one table hold similar key counts.
    if (probes_ == 0 && !hashes_.empty()) probes_ = MemoizedLinePairProbes(hashes_.size(), bytes);
    std::string filter(bytes, '\0');
    for (uint64_t h : hashes_) internal::LinePairAdd(h, probes_, region_offset_, filter);
    hashes_.clear();
    // The table stores the filters back to back in this order.
    region_offset_ += bytes;
    return filter;
  }

  std::string Parameters() const override {
    std::string p(1, static_cast<char>(probes_ != 0 ? probes_ : OptimalBlockedProbes(bits_per_key_)));
    PutFixed32(&p, seed_);
    return p;
  }

 private:
  double bits_per_key_;
  int probes_;  // 0 until the first filter decides it
  uint32_t seed_;
  uint64_t region_offset_ = 0;  // of the next filter
  std::vector<uint64_t> hashes_;
};

class LinePairReader final : public TableFilterReader {
 public:
  LinePairReader(int probes, uint32_t seed) : probes_(probes), seed_(seed) {}
  Status AddFilter(std::string_view filter) override {
    filters_.push_back(filter);
    shifts_.push_back(static_cast<uint8_t>(region_offset_ % 64));
    region_offset_ += filter.size();
    return Status::Ok();
  }
  bool MayMatch(size_t i, std::string_view key) const override {
    return internal::LinePairMayMatch(KeyHash(key, seed_), probes_, shifts_[i], filters_[i]);
  }

 private:
  int probes_;
  uint32_t seed_;
  uint64_t region_offset_ = 0;  // of the next filter
  std::vector<std::string_view> filters_;
  std::vector<uint8_t> shifts_;  // region offset mod 64 of each filter
};

class LinePairPolicy final : public BlockFilterPolicy {
 public:
  explicit LinePairPolicy(const FilterOptions& options) : options_(options) {}
  std::string Name() const override { return std::string(kLinebloomLinePairPolicyName); }
  std::unique_ptr<BlockFilterBuilder> NewBuilder() const override {
    return std::make_unique<LinePairBuilder>(options_);
  }
  Status NewTableReader(std::string_view parameters, std::unique_ptr<TableFilterReader>* out) const override {
    int probes;
    uint32_t seed;
    if (!internal::ParseLinePairParameters(parameters, &probes, &seed)) {
      return Status::Corruption("linebloom.linepairs: bad filter parameters");
    }
    *out = std::make_unique<LinePairReader>(probes, seed);
    return Status::Ok();
  }

 private:
  FilterOptions options_;
};

// --- linebloom.blocked512 ---

// Keys go straight into one FilterBuilder, reused for every filter of the
// table: it rounds each filter up to whole 64-byte blocks and picks the k
// for the bits the filter really has (unless options fix it).
class Blocked512Builder final : public BlockFilterBuilder {
 public:
  explicit Blocked512Builder(const FilterOptions& options) : builder_(options) {}

  void AddKey(std::string_view key) override { builder_.AddKey(key); }
  size_t NumKeys() const override { return builder_.NumKeys(); }
  std::string Finish() override { return builder_.Finish(); }
  std::string Parameters() const override { return {}; }

 private:
  FilterBuilder builder_;
};

class Blocked512Reader final : public TableFilterReader {
 public:
  Status AddFilter(std::string_view filter) override {
    FilterReader reader;
    // The filter's own checksum is verified as well as the table's: it
    // costs one pass at open and keeps each filter self-checking.
    if (ParseResult r = FilterReader::Parse(filter, &reader); !r.ok()) {
      return Status::Corruption(std::string("linebloom filter: ").append(r.message()));
    }
    filters_.push_back(reader);
    return Status::Ok();
  }
  bool MayMatch(size_t i, std::string_view key) const override { return filters_[i].MayContain(key); }

 private:
  std::vector<FilterReader> filters_;
};

class Blocked512Policy final : public BlockFilterPolicy {
 public:
  explicit Blocked512Policy(const FilterOptions& options) : options_(options) {}
  std::string Name() const override { return std::string(kLinebloomBlocked512PolicyName); }
  std::unique_ptr<BlockFilterBuilder> NewBuilder() const override {
    return std::make_unique<Blocked512Builder>(options_);
  }
  Status NewTableReader(std::string_view parameters, std::unique_ptr<TableFilterReader>* out) const override {
    if (!parameters.empty()) return Status::Corruption("linebloom.blocked512 takes no filter parameters");
    *out = std::make_unique<Blocked512Reader>();
    return Status::Ok();
  }

 private:
  FilterOptions options_;
};

}  // namespace

std::shared_ptr<const BlockFilterPolicy> NewLinebloomLinePairPolicy(const FilterOptions& options) {
  return std::make_shared<LinePairPolicy>(options);
}

std::shared_ptr<const BlockFilterPolicy> NewLinebloomBlocked512Policy(const FilterOptions& options) {
  return std::make_shared<Blocked512Policy>(options);
}

}  // namespace linebloom::sstable
