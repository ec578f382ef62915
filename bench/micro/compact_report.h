// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The statistics and tables of linebloom-compact-bench (compact_bench.cc):
// measured false-positive rates with their standard deviation, the check
// against a model rate, the bits per key Ribbon spends at a given rate
// (log-linear interpolation between measured Ribbon settings), and per
// cell the medians and per-repetition ratios of the alternating timings
// (ratio_summary.h), as Markdown tables and as JSON.

#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace linebloom::bench {

inline constexpr const char* kCompactBloomName = "rocksdb-bloom";
inline constexpr const char* kCompactRibbonName = "rocksdb-ribbon";
// linebloom's Bloom filter, the reference of the compact rows' query ratios.
inline constexpr const char* kCompactLinebloomName = "linebloom";

// sqrt(p (1 - p) / n): the standard deviation of a rate p measured over n
// independent queries (0 for n = 0).
double BinomialSd(double p, uint64_t n);

// Absent keys asked and the "maybe" answers they got.
struct FprCount {
  uint64_t positives = 0;
  uint64_t queries = 0;
  double Rate() const { return queries == 0 ? 0 : static_cast<double>(positives) / static_cast<double>(queries); }
  double Sd() const { return BinomialSd(Rate(), queries); }
};

// Whether `measured` is within `sds` standard deviations of `model`, the
// deviation being that of a rate `model` measured over `queries` queries
// (the spread the measurement has if the model is right).
bool WithinSds(double measured, double model, uint64_t queries, double sds);

struct BitsFprPoint {
  double bits_per_key = 0;
  double fpr = 0;
};

struct BitsAtFprResult {
  double bits_per_key = std::numeric_limits<double>::quiet_NaN();
  bool bracketed = false;  // false: extrapolated from the two nearest points
};

// The bits per key at which a filter measured at `points` has rate `fpr`:
// linear in log(rate) between the two points (by rate) bracketing `fpr`,
// since a filter's rate falls geometrically with its bits per key. Outside
// the points, the line through the two nearest. Points of rate 0 are
// ignored; NaN with fewer than two points of distinct rates.
BitsAtFprResult BitsAtFpr(std::vector<BitsFprPoint> points, double fpr);

// One filter at one target rate and key count.
struct BuildCell {
  std::string filter;
  double target_fpr = 0;
  size_t keys = 0;
  double setting = 0;  // the bits per key it was asked for
  size_t bytes = 0;
  FprCount fpr;
  double model_fpr = std::numeric_limits<double>::quiet_NaN();          // where a model is printed
  double second_line_share = std::numeric_limits<double>::quiet_NaN();  // compact: the model's
  std::vector<double> build_ns;                                         // per key, one per repetition
  std::vector<double> peak_bytes;  // above the bytes live before, one per repetition
  std::string failure;             // why the filter could not be built; empty if it was

  double BitsPerKey() const { return keys == 0 ? 0 : static_cast<double>(bytes) * 8 / static_cast<double>(keys); }
};

// One filter of about `size_mb` MiB (at the 1 % setting), negative queries.
struct QueryCell {
  std::string filter;
  double size_mb = 0;
  size_t keys = 0;
  size_t bytes = 0;
  std::vector<double> single_ns;  // per query, one per repetition
  std::vector<double> alone_ns;   // per query, one at a time, one per repetition
  std::vector<double> batch_ns;   // per key of a batch, one per repetition
  std::string failure;            // why the filter could not be built; empty if it was
};

class CompactReport {
 public:
  struct Header {
    std::string builtin_label;  // BuiltinLabel()
    std::string kernel;
    size_t key_length = 0;
    int reps = 0;
    size_t batch = 0;
    double evict_mb = 0;  // written before each timed build (0: none)
  };
  explicit CompactReport(Header header) : header_(std::move(header)) {}

  void AddBuild(BuildCell cell) { builds_.push_back(std::move(cell)); }
  // A Ribbon setting measured for the interpolation at (target, keys),
  // besides the rocksdb-ribbon row's own.
  void AddRibbonPoint(double target_fpr, size_t keys, BitsFprPoint point);
  void AddQuery(QueryCell cell) { queries_.push_back(std::move(cell)); }

  // Ribbon's bits per key at `fpr` from its points at (target, keys).
  BitsAtFprResult RibbonBitsAt(double target_fpr, size_t keys, double fpr) const;

  void Print(FILE* out) const;
  bool WriteJson(const std::string& path) const;

 private:
  struct RibbonPoint {
    double target_fpr;
    size_t keys;
    BitsFprPoint point;
  };
  const BuildCell* FindBuild(double target_fpr, size_t keys, const std::string& filter) const;
  const QueryCell* FindQuery(double size_mb, const std::string& filter) const;
  void PrintBuilds(FILE* out, double target_fpr, size_t keys) const;
  void PrintQueries(FILE* out, double size_mb) const;

  Header header_;
  std::vector<BuildCell> builds_;
  std::vector<RibbonPoint> ribbon_points_;
  std::vector<QueryCell> queries_;
};

}  // namespace linebloom::bench
