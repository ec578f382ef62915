// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "level_aware_bits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <vector>

#include <rocksdb/cache.h>
#if __has_include(<rocksdb/advanced_cache.h>)
#include <rocksdb/advanced_cache.h>  // Cache's definition from RocksDB 8.1
#endif
#include <rocksdb/env.h>
#include <rocksdb/table.h>

#include "linebloom/filter_format.h"

namespace linebloom::rocksdb_plugin {

namespace {

// The model's entries are relative; a large unit keeps the smallest level of
// a deep tree with a big ratio well above zero entries after rounding
// (2^60 / 100^8 is still 1e2).
constexpr uint64_t kModelEntries = uint64_t{1} << 60;

// Weights are cached in 64ths: kUnit = weight 1.
constexpr int kUnit = 64;

// Past this many cached weighted allocations the cache is emptied (weights
// drift slowly; this bounds memory in a long-lived DB).
constexpr size_t kMaxCachedAllocations = 4096;

// The position of `key` in the key space: the 8 bytes after `prefix_length`
// as a big-endian number (missing bytes are 0).
double KeyPosition(std::string_view key, size_t prefix_length) {
  uint64_t x = 0;
  for (size_t i = 0; i < 8; ++i) {
    const size_t at = prefix_length + i;
    x = (x << 8) | (at < key.size() ? static_cast<unsigned char>(key[at]) : 0u);
  }
  return static_cast<double>(x);
}

size_t CommonPrefixLength(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// Forwards everything to the real builder and reports each finished
// filter's key range and count to the policy's weight estimate.
class ObservingBitsBuilder final : public ::rocksdb::FilterBitsBuilder {
 public:
  ObservingBitsBuilder(std::shared_ptr<LevelAwareBits> owner, std::string column_family, int level,
                       std::unique_ptr<LinebloomBitsBuilder> inner)
      : owner_(std::move(owner)),
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
  // comparator need not be bytewise, and prefixes are interleaved.
  void Record(const ::rocksdb::Slice& entry) {
    const std::string_view e(entry.data(), entry.size());
    if (!any_ || e < std::string_view(smallest_)) smallest_.assign(e);
    if (!any_ || e > std::string_view(largest_)) largest_.assign(e);
    any_ = true;
  }

  // Before each Finish: a pinned file's own bits (BitsAtFinish), else the
  // bits it was created with. The partitions of a partitioned filter are
  // one file: once one is pinned, the rest get its bits without another
  // plan (one plan per file, not per partition).
  void SizeForKeyRange(size_t keys) {
    if (!any_ || keys == 0) return;
    if (!pinned_bits_) pinned_bits_ = owner_->BitsAtFinish(column_family_, level_, smallest_, largest_, keys);
    inner_->SetBitsPerKey(pinned_bits_ ? *pinned_bits_ : created_bits_);
  }

  // After each Finish (the inner builder then starts the next filter, a
  // partition; so does our range). `keys` was counted before Finish.
  void Report(size_t keys, size_t filter_bytes) {
    if (any_ && keys > 0) {
      owner_->ObserveFilter(column_family_, level_, smallest_, largest_, keys, filter_bytes);
    }
    any_ = false;
  }

  std::shared_ptr<LevelAwareBits> owner_;
  std::string column_family_;
  int level_;
  std::unique_ptr<LinebloomBitsBuilder> inner_;
  const double created_bits_;
  std::optional<double> pinned_bits_;  // once a partition of the file is pinned
  bool any_ = false;
  std::string smallest_, largest_;
};

}  // namespace

LevelAwareBits::LevelAwareBits(double average_bits_per_key, int num_probes, double size_ratio, CacheOptions cache)
    : average_bits_per_key_(average_bits_per_key),
      num_probes_(num_probes),
      size_ratio_(size_ratio),
      cache_(std::move(cache)) {}

std::optional<std::vector<double>> LevelAwareBits::ParseLevelWeights(const std::string& text) {
  std::vector<double> weights;
  if (text.empty()) return weights;
  size_t at = 0;
  while (true) {
    const size_t end = std::min(text.find(':', at), text.size());
    const std::string part = text.substr(at, end - at);
    char* stop = nullptr;
    const double w = std::strtod(part.c_str(), &stop);
    if (part.empty() || stop != part.c_str() + part.size() || !(w >= 0 && w <= 1)) return std::nullopt;
    weights.push_back(w);
    if (end == text.size()) break;
    at = end + 1;
  }
  return weights;
}

uint64_t LevelAwareBits::BuiltinFilterBytes(uint64_t keys, double bits_per_key) {
  // FastLocalBloomBitsBuilder::CalculateSpace: whole bytes for the millibits,
  // rounded up to whole 64-byte cache lines, plus 5 bytes of metadata.
  const auto millibits = static_cast<uint64_t>(std::lround(bits_per_key * 1000));
  const uint64_t raw = (keys * millibits + 7999) / 8000;
  return ((raw + 63) / 64) * 64 + 5;
}

std::vector<double> LevelAwareBits::CheMissProbabilities(std::span<const double> blocks, std::span<const double> rates,
                                                         double capacity_blocks) {
  const size_t n = blocks.size();
  std::vector<double> miss(n, 1.0);
  if (!(capacity_blocks > 0)) return miss;
  double total = 0;
  for (size_t j = 0; j < n; ++j) total += blocks[j] > 0 && rates[j] > 0 ? blocks[j] : 0;
  if (total <= capacity_blocks) {  // every requested block fits
    std::fill(miss.begin(), miss.end(), 0.0);
    return miss;
  }
  // sum_j B_j (1 - exp(-lambda_j T)) is increasing in T: bisect for = C.
  auto occupied = [&](double t) {
    double sum = 0;
    for (size_t j = 0; j < n; ++j) {
      if (blocks[j] > 0 && rates[j] > 0) sum += blocks[j] * -std::expm1(-rates[j] / blocks[j] * t);
    }
    return sum;
  };
  double lo = 0, hi = 1;
  while (occupied(hi) < capacity_blocks && hi < 1e300) hi *= 2;
  for (int i = 0; i < 200 && hi > lo * (1 + 1e-12); ++i) {
    const double mid = 0.5 * (lo + hi);
    (occupied(mid) < capacity_blocks ? lo : hi) = mid;
  }
  const double t = 0.5 * (lo + hi);
  for (size_t j = 0; j < n; ++j) {
    if (blocks[j] > 0 && rates[j] > 0) miss[j] = std::exp(-rates[j] / blocks[j] * t);
  }
  return miss;
}

std::vector<uint64_t> LevelAwareBits::ModelEntries(double size_ratio, int num_non_l0_levels) {
  std::vector<uint64_t> levels = LeveledEntries(kModelEntries, size_ratio, std::max(num_non_l0_levels, 1));
  for (auto& n : levels) n = std::max<uint64_t>(n, 1);
  std::vector<uint64_t> runs;
  runs.reserve(levels.size() + 1);
  runs.push_back(levels.front());  // L0: as large as the shallowest level
  runs.insert(runs.end(), levels.begin(), levels.end());
  return runs;
}

FilterOptions LevelAwareBits::Uniform() const {
  FilterOptions options;
  options.bits_per_key = average_bits_per_key_;
  options.num_probes = num_probes_;
  return options;
}

const LevelAllocation& LevelAwareBits::AllocationForLocked(const std::vector<int>& key) {
  auto it = allocations_.find(key);
  if (it == allocations_.end()) {
    if (allocations_.size() >= kMaxCachedAllocations) allocations_.clear();
    const size_t num_runs = key.size() - 1;
    const std::vector<uint64_t> entries = ModelEntries(size_ratio_, static_cast<int>(num_runs) - 1);
    std::vector<double> weights(num_runs);
    for (size_t j = 0; j < num_runs; ++j) weights[j] = static_cast<double>(key[j]) / kUnit;
    const double average = static_cast<double>(key.back()) / kUnit;
    it = allocations_.emplace(key, AllocateBitsSharedMiddle(entries, weights, average)).first;
  }
  return it->second;
}

double LevelAwareBits::LiveRatioLocked(const ColumnFamily& cf) const {
  if (cf.shallowest < 0) return 1.0;
  const std::vector<uint64_t> entries = ModelEntries(size_ratio_, cf.deepest - cf.shallowest + 1);
  // Live actual / budgeted bytes, each run's ratio weighted by its model
  // size; runs with too few filters count as on budget.
  double weighted = 0, total = 0;
  for (size_t run = 0; run < entries.size(); ++run) {
    const int level = run == 0 ? 0 : cf.shallowest + static_cast<int>(run) - 1;
    const double n = static_cast<double>(entries[run]);
    double ratio = 1;
    if (auto it = cf.spend.find(level);
        it != cf.spend.end() && it->second.recent.size() >= kMinObservations && it->second.budget > 0) {
      ratio = it->second.actual / it->second.budget;
    }
    weighted += n * ratio;
    total += n;
  }
  return weighted / total;
}

double LevelAwareBits::BudgetAverageLocked(const ColumnFamily& cf) const {
  return std::clamp(average_bits_per_key_ / LiveRatioLocked(cf), 0.8 * average_bits_per_key_,
                    1.1 * average_bits_per_key_);
}

double LevelAwareBits::BudgetAverage(const std::string& column_family) {
  MutexLock lock(&mutex_);
  auto it = column_families_.find(column_family);
  return it == column_families_.end() ? average_bits_per_key_ : BudgetAverageLocked(it->second);
}

std::vector<double> LevelAwareBits::WeightsLocked(const ColumnFamily& cf) const {
  if (cf.shallowest < 0) return {};
  const int s = cf.shallowest, d = cf.deepest;
  std::vector<double> weights(static_cast<size_t>(d - s + 2), 1.0);

  const size_t prefix = CommonPrefixLength(cf.smallest, cf.largest);
  const double lo = KeyPosition(cf.smallest, prefix), hi = KeyPosition(cf.largest, prefix);
  if (!(hi > lo)) return weights;  // one key, or nothing seen: no scale
  auto width = [&](const Filter& f) {
    const double w = (KeyPosition(f.largest, prefix) - KeyPosition(f.smallest, prefix)) / (hi - lo);
    return std::clamp(w, 0.0, 1.0);
  };
  // Keys per whole key space of the level's recent filters; nullopt if too
  // few were seen (or they have no width: one key each).
  auto density = [&](int level) -> std::optional<double> {
    auto it = cf.recent.find(level);
    if (it == cf.recent.end() || it->second.size() < kMinObservations) return std::nullopt;
    double keys = 0, widths = 0;
    for (const Filter& f : it->second) {
      keys += static_cast<double>(f.keys);
      widths += width(f);
    }
    if (!(widths > 0)) return std::nullopt;
    return keys / widths;
  };

  // L0: the mean width of its recent files.
  if (auto it = cf.recent.find(0); it != cf.recent.end() && it->second.size() >= kMinObservations) {
    double widths = 0;
    for (const Filter& f : it->second) widths += width(f);
    weights[0] = widths / static_cast<double>(it->second.size());
  }
  // Levels above the deepest: c_l = T^(l-D) rho_D / rho_l.
  if (const std::optional<double> deepest = density(d)) {
    for (int level = s; level < d; ++level) {
      if (const std::optional<double> rho = density(level)) {
        weights[static_cast<size_t>(1 + level - s)] = std::pow(size_ratio_, level - d) * *deepest / *rho;
      }
    }
  }
  for (double& w : weights) w = std::clamp(w, kMinWeight, 1.0);
  return weights;
}

std::vector<int> LevelAwareBits::QuantizedWeightsLocked(const ColumnFamily& cf) const {
  const std::vector<double> weights = WeightsLocked(cf);
  std::vector<int> quantized(weights.size());
  for (size_t j = 0; j < weights.size(); ++j) {
    quantized[j] = std::clamp(static_cast<int>(std::lround(weights[j] * kUnit)), 1, kUnit);
  }
  return quantized;
}

std::vector<double> LevelAwareBits::LookupWeights(const std::string& column_family) {
  MutexLock lock(&mutex_);
  auto it = column_families_.find(column_family);
  return it == column_families_.end() ? std::vector<double>{} : WeightsLocked(it->second);
}

double LevelAwareBits::CoverageLocked(const ColumnFamily& cf, int level) const {
  auto it = cf.live.find(level);
  if (it == cf.live.end() || it->second.empty()) return 0;
  const size_t prefix = CommonPrefixLength(cf.smallest, cf.largest);
  const double lo = KeyPosition(cf.smallest, prefix), hi = KeyPosition(cf.largest, prefix);
  if (!(hi > lo)) return 1;
  double sum = 0;
  for (const auto& [smallest, file] : it->second) {
    sum += std::clamp((KeyPosition(file.largest, prefix) - KeyPosition(smallest, prefix)) / (hi - lo), 0.0, 1.0);
  }
  return std::min(sum, 1.0);
}

bool LevelAwareBits::StableLocked(const ColumnFamily& cf) const {
  if (cf.shallowest < 0 || cf.deepest <= cf.shallowest) return false;
  auto it = cf.live.find(cf.deepest);
  return it != cf.live.end() && it->second.size() >= kStableMinFiles &&
         CoverageLocked(cf, cf.deepest) >= kStableCoverage;
}

std::optional<LevelAwareBits::Plan> LevelAwareBits::ComputePlanLocked(const ColumnFamily& cf, bool move_safe) const {
  if (!StableLocked(cf)) return std::nullopt;
  const int s = cf.shallowest, d = cf.deepest;
  const size_t num_runs = static_cast<size_t>(d - s + 2);
  auto level_of = [&](size_t run) { return run == 0 ? 0 : s + static_cast<int>(run) - 1; };

  // Entries and lookup weights per run from the recorded files.
  std::vector<double> entries(num_runs, 0), coverage(num_runs, 1);
  for (size_t run = 1; run < num_runs; ++run) {
    const int level = level_of(run);
    double keys = 0;
    if (auto it = cf.live.find(level); it != cf.live.end()) {
      for (const auto& [smallest, file] : it->second) keys += static_cast<double>(file.keys);
    }
    const double c = CoverageLocked(cf, level);
    if (level == d) {
      entries[run] = c > 0 ? keys / c : keys;
    } else {
      entries[run] = keys;
      coverage[run] = c;
    }
  }
  // Upper levels at most their share of the quiesced tree. A file compacted
  // down without a replacement at its level stays recorded, and when writes
  // stop the upper levels drain while their records stay, so a level's
  // records can count many times its live keys. And while writes outrun
  // compaction, the live upper levels do hold several times their share,
  // which a last level planned for would keep in its files after they
  // drain. RocksDB returns level l to T^(l-D) of the last level, so each
  // upper level counts at most that: its keys, and its bytes in the books,
  // scaled down alike (docs/LEVEL_AWARE.md, "The tracked tree").
  // L0 is modelled on the shallowest level as recorded, which RocksDB keeps
  // at least max_bytes_for_level_base, often over its share; stale, its
  // records count at most kBaseLevelSlack times the share.
  auto share = [&](int level) { return entries.back() * std::pow(size_ratio_, level - d); };
  const double shallowest_keys = std::min(entries[1], kBaseLevelSlack * share(s));
  std::map<int, double> scale;
  for (size_t run = 1; run + 1 < num_runs; ++run) {
    const double cap = share(level_of(run));
    if (entries[run] > cap && entries[run] > 0) {
      scale[level_of(run)] = cap / entries[run];
      entries[run] = cap;
    }
  }
  auto scale_of = [&](int level) {
    auto it = scale.find(level);
    return it == scale.end() ? 1.0 : it->second;
  };
  // L0: as large as the shallowest level (the model) once L0 files were
  // built; none built (a tree rewritten by compactions alone) spends nothing.
  auto l0 = cf.recent.find(0);
  entries[0] = l0 != cf.recent.end() && !l0->second.empty() ? shallowest_keys : 0;
  const std::vector<double> model_weights = WeightsLocked(cf);
  coverage[0] = model_weights.empty() ? 1.0 : model_weights[0];
  for (size_t run = 0; run < num_runs; ++run) {
    double c = coverage[run];
    const auto level = static_cast<size_t>(level_of(run));
    if (level < cache_.level_weights.size()) c *= cache_.level_weights[level];
    coverage[run] = std::clamp(c, kStableMinWeight, 1.0);
  }
  std::vector<uint64_t> n(num_runs);
  double total = 0;
  for (size_t run = 0; run < num_runs; ++run) {
    n[run] = static_cast<uint64_t>(std::max(1.0, std::round(entries[run])));
    total += static_cast<double>(n[run]);
  }

  // Block cache (cache-aware weights): capacity in blocks and blocks per run.
  const bool cache_aware = cache_.enabled && cache_.level_weights.empty() && cf.cache_bytes > 0 && cf.block_size > 0;
  const double mean_key = cf.key_samples > 0 ? cf.key_bytes / cf.key_samples : 16;
  const double data_bytes_per_key = cache_.data_bytes_per_key > 0 ? cache_.data_bytes_per_key : mean_key + 40;
  const double capacity_blocks = std::max(0.0, cf.cache_bytes - cf.cached_filter_bytes) / cf.block_size;
  std::vector<double> blocks(num_runs);
  for (size_t run = 0; run < num_runs; ++run) {
    blocks[run] = std::max(1.0, std::ceil(static_cast<double>(n[run]) * data_bytes_per_key / cf.block_size));
  }

  // One allocation at nominal average A, with the cache fixed point; the
  // last run takes what the allocator's grid left unspent.
  // Each run's rank by data blocks, smallest first (cached first).
  std::vector<size_t> forced_cached(num_runs);
  {
    std::vector<size_t> order(num_runs);
    for (size_t run = 0; run < num_runs; ++run) order[run] = run;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return blocks[a] < blocks[b]; });
    for (size_t rank = 0; rank < num_runs; ++rank) forced_cached[order[rank]] = rank;
  }
  // The fixed point of allocation and Che's misses from `miss`; its cost is
  // the expected device reads per lookup, sum_j c_j f_j m_j, with m_j from
  // Che at the final allocation.
  struct Point {
    LevelAllocation allocation;
    std::vector<double> weights, miss;
    double cost = 0;
  };
  auto fixed_point = [&](double average, std::vector<double> miss, size_t forced, bool move_safe_run) {
    Point p;
    p.weights = coverage;
    const int rounds = cache_aware ? kCheIterations : 1;
    for (int round = 0; round < rounds; ++round) {
      for (size_t run = 0; run < num_runs; ++run) {
        p.weights[run] = coverage[run] * std::max(miss[run], kMinMissProbability);
      }
      const double largest = *std::max_element(p.weights.begin(), p.weights.end());
      std::vector<double> normalized(p.weights);
      for (double& w : normalized) w /= largest;
      // Move-safe (docs/LEVEL_AWARE.md, "Trivial moves"), or per run for
      // a pinned file (BitsAtFinish).
      p.allocation =
          move_safe_run ? AllocateBitsSharedMiddle(n, normalized, average) : AllocateBitsPerRun(n, normalized, average);
      if (!cache_aware) break;
      std::vector<double> rates(num_runs);
      for (size_t run = 0; run < num_runs; ++run) rates[run] = coverage[run] * p.allocation.expected_fpr[run];
      const std::vector<double> next = CheMissProbabilities(blocks, rates, capacity_blocks);
      for (size_t run = 0; run < num_runs; ++run) {
        if (forced_cached[run] < forced) continue;  // held at the floor: assumed cached
        miss[run] = round == 0 ? next[run] : std::sqrt(std::max(miss[run], 1e-12) * std::max(next[run], 1e-12));
      }
      if (round + 1 == rounds) {
        for (size_t run = 0; run < num_runs; ++run) p.cost += rates[run] * next[run];
      }
    }
    p.miss = miss;
    return p;
  };
  auto allocate = [&](double average, bool move_safe_run, std::vector<double>* weights_out,
                      std::vector<double>* miss_out) {
    // Two starts: every false positive a miss (the cache-oblivious optimum),
    // and the misses of a tree without filters (every covered level read on
    // every lookup: small levels hot and cached). The two can settle in
    // different fixed points -- a level given many bits is read rarely, so
    // its blocks are cold and its weight stays high; given few, it is read
    // often, cached and cheap -- and the cheaper one is kept.
    Point best = fixed_point(average, std::vector<double>(num_runs, 1.0), 0, move_safe_run);
    if (cache_aware) {
      Point other = fixed_point(average, CheMissProbabilities(blocks, coverage, capacity_blocks), 0, move_safe_run);
      if (other.cost < best.cost) best = std::move(other);
      // And the cached fixed points the iteration cannot reach from either
      // start (a level is cached only once it has few bits, and it gets few
      // bits only once it is cached): the p runs with the fewest blocks held
      // at the floor while the others iterate, for every p whose blocks fit
      // in the cache; the cost is Che's at the final allocation either way.
      for (size_t p = 1; p < num_runs; ++p) {
        double held = 0;
        for (size_t run = 0; run < num_runs; ++run) held += forced_cached[run] < p ? blocks[run] : 0;
        if (held > capacity_blocks) break;
        std::vector<double> start(num_runs, 1.0);
        for (size_t run = 0; run < num_runs; ++run) start[run] = forced_cached[run] < p ? kMinMissProbability : 1.0;
        Point forced = fixed_point(average, start, p, move_safe_run);
        if (forced.cost < best.cost) best = std::move(forced);
      }
    }
    LevelAllocation& allocation = best.allocation;
    const std::vector<double>& weights = best.weights;
    const std::vector<double>& miss = best.miss;
    double spent = 0;
    for (size_t run = 0; run + 1 < num_runs; ++run) spent += static_cast<double>(n[run]) * allocation.bits_per_key[run];
    const double last = static_cast<double>(n.back());
    allocation.bits_per_key.back() =
        std::clamp((average * total - spent) / last, allocation.bits_per_key.back(), kMaxLevelBitsPerKey);
    if (weights_out != nullptr) *weights_out = weights;
    if (miss_out != nullptr) *miss_out = miss;
    return allocation.bits_per_key;
  };
  // Real bytes of the recorded files under `bits`, and the built-in's.
  double builtin = 0;
  for (const auto& [level, files] : cf.live) {
    for (const auto& [smallest, file] : files) {
      builtin += scale_of(level) * static_cast<double>(BuiltinFilterBytes(file.keys, average_bits_per_key_));
    }
  }
  // L0's files overlap, so none is recorded; the books count the model's
  // L0 run (as large as the shallowest level once L0 files were built) as
  // one file at L0's bits against the built-in's bytes for it: an
  // over-estimate of a small L0, so its high bits never push the tree over.
  const auto l0_keys = entries[0] > 0 ? n[0] : 0;
  if (l0_keys > 0) builtin += static_cast<double>(BuiltinFilterBytes(l0_keys, average_bits_per_key_));
  // The recorded files at levels s..d and the bits each is booked at: a
  // pinned one got its level's own bits (plan.own_bits_per_key,
  // BitsAtFinish), the others the plan's. Whether a file is pinned is looked
  // up once here, not in every step of the bisection below.
  struct Booked {
    int level;
    size_t run;
    const Live* file;
    bool pinned;
  };
  std::vector<Booked> booked;
  for (const auto& [level, files] : cf.live) {
    if (level < s || level > d) continue;
    for (const auto& [smallest, file] : files) {
      booked.push_back({level, static_cast<size_t>(1 + level - s), &file, cf.Pinned(level, smallest, file.largest)});
    }
  }
  Plan plan;
  // Calls f(level, file, bits it is booked at) for each booked file.
  auto for_each_booked = [&](const std::vector<double>& bits, auto f) {
    for (const Booked& b : booked) f(b.level, *b.file, b.pinned ? plan.own_bits_per_key[b.run] : bits[b.run]);
  };
  auto real_bytes = [&](const std::vector<double>& bits) {
    double sum = l0_keys > 0 && bits[0] > 0 ? static_cast<double>(FilterBytesFor(l0_keys, bits[0])) : 0.0;
    for_each_booked(bits, [&](int level, const Live& file, double b) {
      sum += b > 0 ? scale_of(level) * static_cast<double>(FilterBytesFor(file.keys, b)) : 0.0;
    });
    return sum;
  };
  double recorded_keys = 0;
  for (const auto& [level, files] : cf.live) {
    for (const auto& [smallest, file] : files) recorded_keys += scale_of(level) * static_cast<double>(file.keys);
  }
  // The nominal average: the built-in's bytes less the per-file overhead
  // linebloom pays on top of the bits (16-byte trailer, half a 64-byte block
  // of rounding on average). It sets the upper levels' bits; the last level
  // then takes exactly what is left of the built-in's real bytes (below).
  double files = 0;
  for (const auto& [level, recorded] : cf.live) files += scale_of(level) * static_cast<double>(recorded.size());
  const double average =
      recorded_keys > 0
          ? std::clamp((builtin - files * (kFilterTrailerBytes + kFilterBlockBytes / 2.0)) * 8 / recorded_keys,
                       0.5 * average_bits_per_key_, 1.5 * average_bits_per_key_)
          : average_bits_per_key_;
  plan.bits_per_key = allocate(average, move_safe, &plan.weights, &plan.miss);
  plan.own_bits_per_key = move_safe ? allocate(average, false, nullptr, nullptr) : plan.bits_per_key;
  // The last level's bits: the largest (by bisection) whose real bytes, with
  // the other levels' at their bits, stay within the built-in's.
  if (auto deepest = cf.live.find(d); deepest != cf.live.end() && recorded_keys > 0) {
    std::vector<double> bits = plan.bits_per_key;
    double lo = 0, hi = kMaxLevelBitsPerKey;
    for (int step = 0; step < kBudgetBisections; ++step) {
      bits.back() = 0.5 * (lo + hi);
      (real_bytes(bits) <= builtin ? lo : hi) = bits.back();
    }
    plan.bits_per_key.back() = lo >= 1 ? lo : plan.bits_per_key.back();
  }
  const double bytes = real_bytes(plan.bits_per_key);
  plan.shallowest = s;
  plan.average = average;
  plan.entries = entries;
  plan.real_bytes = bytes;
  if (auto deepest = cf.live.find(d); deepest != cf.live.end()) {
    double keys = 0, others = 0;
    for (const auto& [smallest, file] : deepest->second) keys += static_cast<double>(file.keys);
    std::vector<double> without_last = plan.bits_per_key;
    without_last.back() = 0;
    others = real_bytes(without_last);
    // Less a margin: the dither's carry may end up to kMaxCarryBlocks
    // blocks (plus one file's rounding) over. And the upper levels keep
    // changing after the last level's files were sized: a compaction into
    // an upper level rewrites a file there with up to about one file's
    // more keys, each at that level's bits where the built-in spends its
    // average. The largest upper-level file's excess over the built-in's
    // bytes for it bounds one such rewrite, and kLateUpperRewrites may end
    // after the last level's last file.
    double upper_excess = 0;
    for_each_booked(plan.bits_per_key, [&](int level, const Live& file, double b) {
      if (level >= d || b <= 0) return;
      const double excess = static_cast<double>(FilterBytesFor(file.keys, b)) -
                            static_cast<double>(BuiltinFilterBytes(file.keys, average_bits_per_key_));
      upper_excess = std::max(upper_excess, excess);
    });
    const double margin = (kMaxCarryBlocks + 1) * kFilterBlockBytes + kLateUpperRewrites * upper_excess;
    plan.last_bytes_per_key = keys > 0 ? (builtin - margin - others) / keys : 0;
  }
  plan.builtin_bytes = builtin;
  return plan;
}

std::optional<LevelAwareBits::Plan> LevelAwareBits::StablePlan(const std::string& column_family) {
  MutexLock lock(&mutex_);
  auto it = column_families_.find(column_family);
  if (it == column_families_.end()) return std::nullopt;
  return ComputePlanLocked(it->second);
}

void LevelAwareBits::ObserveFilter(const std::string& column_family, int level, std::string_view smallest,
                                   std::string_view largest, uint64_t keys, uint64_t filter_bytes) {
  if (level < 0 || keys == 0 || largest < smallest) return;
  MutexLock lock(&mutex_);
  ColumnFamily& cf = column_families_[column_family];
  cf.WidenKeySpace(smallest, largest);
  ++cf.observations;
  cf.key_bytes += static_cast<double>(smallest.size() + largest.size());
  cf.key_samples += 2;
  if (level > 0) cf.RecordLive(level, smallest, largest, keys, filter_bytes);
  if (level > 0 && level == cf.deepest && cf.plan && cf.plan->last_bytes_per_key > 0) {
    const double limit = kMaxCarryBlocks * kFilterBlockBytes;
    cf.carry_bytes = std::clamp(
        cf.carry_bytes + cf.plan->last_bytes_per_key * static_cast<double>(keys) - static_cast<double>(filter_bytes),
        -limit, limit);
  }
  std::deque<Filter>& recent = cf.recent[level];
  recent.push_back(Filter{std::string(smallest), std::string(largest), keys});
  if (recent.size() > kRecentFilters) recent.pop_front();

  Spend& spend = cf.spend[level];
  const double actual = static_cast<double>(filter_bytes);
  // The budget: exactly bits_per_key per key plus the 16-byte trailer. Rounding
  // up to whole 64-byte blocks is overhead the books make up for elsewhere
  // (a uniform filter pays it on top: ~+0.2-0.3 bits/key for 1000-key files).
  const double budget = static_cast<double>(keys) * average_bits_per_key_ / 8 + kFilterTrailerBytes;
  spend.recent.emplace_back(actual, budget);
  spend.actual += actual;
  spend.budget += budget;
  if (spend.recent.size() > kBudgetWindow) {
    spend.actual -= spend.recent.front().first;
    spend.budget -= spend.recent.front().second;
    spend.recent.pop_front();
  }
}

namespace {

// The first recorded file of `files` (by smallest key) that may overlap a
// range starting at `smallest`: the one before it, if that one reaches it.
template <typename Files>
auto FirstOverlapCandidate(Files& files, std::string_view smallest) {
  auto it = files.upper_bound(smallest);
  if (it != files.begin()) {
    auto prev = std::prev(it);
    if (std::string_view(prev->second.largest) >= smallest) it = prev;
  }
  return it;
}

}  // namespace

void LevelAwareBits::ColumnFamily::RecordLive(int level, std::string_view file_smallest, std::string_view file_largest,
                                              uint64_t keys, uint64_t bytes) {
  auto& files = live[level];
  auto it = FirstOverlapCandidate(files, file_smallest);
  while (it != files.end() && std::string_view(it->first) <= file_largest) it = files.erase(it);
  files.emplace(std::string(file_smallest), Live{std::string(file_largest), keys, bytes});
}

bool LevelAwareBits::ColumnFamily::Pinned(int level, std::string_view file_smallest,
                                          std::string_view file_largest) const {
  if (level < shallowest || level >= deepest) return false;  // L0, the last level
  auto found = live.find(level + 1);
  if (found == live.end()) return false;
  auto it = FirstOverlapCandidate(found->second, file_smallest);
  return it != found->second.end() && std::string_view(it->first) <= file_largest;
}

std::optional<double> LevelAwareBits::BitsAtFinish(const std::string& column_family, int level,
                                                   std::string_view smallest, std::string_view largest, uint64_t keys) {
  if (level < 1 || keys == 0 || largest < smallest) return std::nullopt;
  MutexLock lock(&mutex_);
  auto found = column_families_.find(column_family);
  if (found == column_families_.end()) return std::nullopt;
  const ColumnFamily& cf = found->second;
  if (!cf.Pinned(level, smallest, largest) || !StableLocked(cf)) return std::nullopt;
  // The plan with this file recorded, as ObserveFilter will record it.
  ColumnFamily with_file = cf;
  with_file.WidenKeySpace(smallest, largest);
  with_file.RecordLive(level, smallest, largest, keys, FilterBytesFor(keys, average_bits_per_key_));
  const std::optional<Plan> plan = ComputePlanLocked(with_file, /*move_safe=*/false);
  if (!plan) return std::nullopt;
  const double bits = plan->bits_per_key[static_cast<size_t>(1 + level - cf.shallowest)];
  if (bits <= 0) return std::nullopt;
  return bits;
}

void LevelAwareBits::ColumnFamily::WidenKeySpace(std::string_view file_smallest, std::string_view file_largest) {
  if (!any_filter) {
    any_filter = true;
    smallest.assign(file_smallest);
    largest.assign(file_largest);
    return;
  }
  if (file_smallest < std::string_view(smallest)) smallest.assign(file_smallest);
  if (file_largest > std::string_view(largest)) largest.assign(file_largest);
}

void LevelAwareBits::SyncLiveFiles(const std::string& column_family, std::span<const LiveSstFile> files) {
  MutexLock lock(&mutex_);
  // A column family this policy builds no filters for (another policy's,
  // seen by a listener of the same DB) is not recorded.
  auto found = column_families_.find(column_family);
  if (found == column_families_.end()) return;
  ColumnFamily& cf = found->second;
  cf.live.clear();
  for (const LiveSstFile& file : files) {
    if (file.level < 1 || file.filter_entries == 0 || file.largest < file.smallest) continue;
    cf.WidenKeySpace(file.smallest, file.largest);
    cf.live[file.level].insert_or_assign(file.smallest, Live{file.largest, file.filter_entries, file.filter_bytes});
    // A file moved down unrewritten may populate a level no filter was built at.
    cf.SeeLevel(file.level);
  }
  cf.plan.reset();
}

bool LevelAwareBits::BuildsFor(const std::string& column_family) {
  MutexLock lock(&mutex_);
  return column_families_.contains(column_family);
}

bool LevelAwareBits::RecordsAnyOf(const std::string& column_family, std::span<const LiveSstFile> files) {
  MutexLock lock(&mutex_);
  auto it = column_families_.find(column_family);
  if (it == column_families_.end()) return false;
  for (const auto& [level, recorded] : it->second.live) {
    for (const LiveSstFile& file : files) {
      if (recorded.contains(file.smallest)) return true;
    }
  }
  return false;
}

namespace {

struct StateRegistry {
  Mutex mutex;
  std::vector<std::weak_ptr<LevelAwareBits>> states LINEBLOOM_GUARDED_BY(mutex);
};

StateRegistry& Registry() {
  static StateRegistry registry;
  return registry;
}

// The registered states still alive. The caller asks them outside the
// registry's lock, which is never held together with a state's.
std::vector<std::shared_ptr<LevelAwareBits>> AliveStates() {
  std::vector<std::shared_ptr<LevelAwareBits>> alive;
  StateRegistry& registry = Registry();
  MutexLock lock(&registry.mutex);
  for (const std::weak_ptr<LevelAwareBits>& weak : registry.states) {
    if (std::shared_ptr<LevelAwareBits> state = weak.lock()) alive.push_back(std::move(state));
  }
  return alive;
}

}  // namespace

void LevelAwareBits::Register(const std::shared_ptr<LevelAwareBits>& state) {
  StateRegistry& registry = Registry();
  MutexLock lock(&registry.mutex);
  std::erase_if(registry.states, [](const std::weak_ptr<LevelAwareBits>& s) { return s.expired(); });
  registry.states.push_back(state);
}

bool LevelAwareBits::AnyBuildsFor(const std::string& column_family) {
  const std::vector<std::shared_ptr<LevelAwareBits>> alive = AliveStates();
  return std::any_of(alive.begin(), alive.end(),
                     [&](const std::shared_ptr<LevelAwareBits>& state) { return state->BuildsFor(column_family); });
}

std::shared_ptr<LevelAwareBits> LevelAwareBits::OwnerOf(const std::string& column_family,
                                                        std::span<const LiveSstFile> files) {
  std::vector<std::shared_ptr<LevelAwareBits>> alive = AliveStates();
  std::shared_ptr<LevelAwareBits> owner;
  for (std::shared_ptr<LevelAwareBits>& state : alive) {
    if (!state->RecordsAnyOf(column_family, files)) continue;
    if (owner != nullptr) return nullptr;
    owner = std::move(state);
  }
  return owner;
}

std::vector<LiveSstFile> LevelAwareBits::RecordedLiveFiles(const std::string& column_family) {
  MutexLock lock(&mutex_);
  std::vector<LiveSstFile> files;
  auto it = column_families_.find(column_family);
  if (it == column_families_.end()) return files;
  for (const auto& [level, recorded] : it->second.live) {
    for (const auto& [smallest, file] : recorded) {
      files.push_back(LiveSstFile{level, smallest, file.largest, file.keys, file.bytes});
    }
  }
  return files;
}

std::unique_ptr<::rocksdb::FilterBitsBuilder> LevelAwareBits::Observed(const ::rocksdb::FilterBuildingContext& context,
                                                                       std::unique_ptr<LinebloomBitsBuilder> builder) {
  if (builder == nullptr || context.compaction_style != ::rocksdb::kCompactionStyleLevel ||
      context.level_at_creation < 0) {
    return builder;
  }
  return std::make_unique<ObservingBitsBuilder>(shared_from_this(), context.column_family_name,
                                                context.level_at_creation, std::move(builder));
}

std::optional<FilterOptions> LevelAwareBits::ForNewFile(const ::rocksdb::FilterBuildingContext& context) {
  const int level = context.level_at_creation;
  if (context.compaction_style != ::rocksdb::kCompactionStyleLevel || level < 0 ||
      (context.num_levels > 0 && level >= context.num_levels)) {
    return Uniform();
  }
  MutexLock lock(&mutex_);
  ColumnFamily& cf = column_families_[context.column_family_name];
  if (level > 0) cf.SeeLevel(level);
  if (cf.shallowest < 0) return Uniform();  // only L0 so far: no shape yet

  // The block cache the cache-aware weights assume.
  cf.block_size = static_cast<double>(std::max<size_t>(context.table_options.block_size, 1));
  cf.cache_bytes = cache_.block_cache_bytes;
  if (cf.cache_bytes <= 0 && !context.table_options.no_block_cache && context.table_options.block_cache != nullptr) {
    cf.cache_bytes = static_cast<double>(context.table_options.block_cache->GetCapacity());
  }
  cf.cached_filter_bytes = 0;
  if (context.table_options.cache_index_and_filter_blocks) {
    for (const auto& [l, files] : cf.live) {
      for (const auto& [smallest, file] : files) cf.cached_filter_bytes += static_cast<double>(file.bytes);
    }
  }

  if (StableLocked(cf)) {
    const bool shape_changed =
        cf.plan && (cf.plan->shallowest != cf.shallowest ||
                    cf.plan->bits_per_key.size() != static_cast<size_t>(cf.deepest - cf.shallowest + 2));
    if (!cf.plan || shape_changed || cf.observations >= cf.plan_at + kReplanEvery) {
      cf.plan = ComputePlanLocked(cf);
      cf.plan_at = cf.observations;
      if (cf.plan && context.info_log != nullptr) {
        std::string line = std::string("linebloom level_aware [")
                               .append(context.column_family_name)
                               .append("]: tracked tree, average ")
                               .append(std::to_string(cf.plan->average))
                               .append(", real bytes ")
                               .append(std::to_string(static_cast<uint64_t>(cf.plan->real_bytes)))
                               .append(" vs built-in ")
                               .append(std::to_string(static_cast<uint64_t>(cf.plan->builtin_bytes)))
                               .append(":");
        for (size_t run = 0; run < cf.plan->bits_per_key.size(); ++run) {
          char part[128];
          std::snprintf(part, sizeof part, " L%d n=%.0f w=%.3f miss=%.3f bits=%.3f",
                        run == 0 ? 0 : cf.shallowest + static_cast<int>(run) - 1, cf.plan->entries[run],
                        cf.plan->weights[run], cf.plan->miss[run], cf.plan->bits_per_key[run]);
          line.append(part);
        }
        ::rocksdb::Log(::rocksdb::InfoLogLevel::INFO_LEVEL, context.info_log, "%s", line.c_str());
      }
    }
    if (cf.plan) {
      const size_t run = level == 0 ? 0 : static_cast<size_t>(1 + level - cf.shallowest);
      if (run < cf.plan->bits_per_key.size()) {
        double bits = cf.plan->bits_per_key[run];
        if (bits <= 0) return std::nullopt;
        if (level == cf.deepest && cf.plan->last_bytes_per_key > 0) {
          // Whole blocks for the predicted keys, budget plus carry
          // (docs/LEVEL_AWARE.md, "Whole blocks per file"); bits half a
          // block below, so that ceil gives them.
          double keys = 0;
          const auto& recent = cf.recent[level];
          for (const Filter& f : recent) keys += static_cast<double>(f.keys);
          if (!recent.empty() && keys > 0) {
            const double predicted = keys / static_cast<double>(recent.size());
            const double wanted = cf.plan->last_bytes_per_key * predicted + cf.carry_bytes;
            const double blocks = std::max(1.0, std::round((wanted - kFilterTrailerBytes) / kFilterBlockBytes));
            bits = std::clamp((blocks - 0.5) * kFilterBlockBits / predicted, kMinBitsPerKey, kMaxLevelBitsPerKey);
          }
        }
        FilterOptions options;
        options.bits_per_key = bits;
        options.num_probes = num_probes_;
        return options;
      }
    }
  }

  // Run 0 is L0, run 1 + (l - s) is level l.
  std::vector<int> key = QuantizedWeightsLocked(cf);
  const size_t num_runs = key.size();
  key.push_back(static_cast<int>(std::lround(BudgetAverageLocked(cf) * kUnit)));
  const LevelAllocation& allocation = AllocationForLocked(key);
  if (key != cf.last_logged && context.info_log != nullptr) {
    // One line per change of the estimate: what each level now gets.
    std::string line = std::string("linebloom level_aware [")
                           .append(context.column_family_name)
                           .append("]: average ")
                           .append(std::to_string(static_cast<double>(key.back()) / kUnit))
                           .append(":");
    for (size_t run = 0; run < num_runs; ++run) {
      char part[96];
      std::snprintf(part, sizeof part, " L%d w=%.3f bits=%.3f",
                    run == 0 ? 0 : cf.shallowest + static_cast<int>(run) - 1, static_cast<double>(key[run]) / kUnit,
                    allocation.bits_per_key[run]);
      line.append(part);
    }
    ::rocksdb::Log(::rocksdb::InfoLogLevel::INFO_LEVEL, context.info_log, "%s", line.c_str());
    cf.last_logged = key;
  }
  const size_t run = level == 0 ? 0 : static_cast<size_t>(1 + level - cf.shallowest);
  const double bits = allocation.bits_per_key[run];
  if (bits <= 0) return std::nullopt;
  FilterOptions options;
  options.bits_per_key = bits;
  // 0: the core picks k for the bits the filter has after rounding (ProbesFor).
  options.num_probes = num_probes_;
  return options;
}

}  // namespace linebloom::rocksdb_plugin
