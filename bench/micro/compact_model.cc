// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-compact-model: the compact filter's model (compact_math.h) over
// a range of bits per key, as a Markdown table: the shape each setting is
// built with, its modeled false-positive rate, the share of negative
// queries that read a second line, and its bits per key over the
// information-theoretic minimum log2(1 / rate), and the bits per key the
// blocked Bloom filter needs for the same rate (FilterOptions::
// ForFalsePositiveRate). With --measure, each row
// also builds a filter of --keys random keys and measures its rate over
// --queries absent ones (± one standard deviation of the binomial count).
// Deterministic (fixed seeds); no timing.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_options.h"
#include "linebloom/level_allocator.h"

namespace {

// "measured ± sd" of the filter at `bits` over `queries` absent hashes.
std::string Measure(double bits, size_t keys, int extra_planes, bool mixed, size_t queries) {
  std::mt19937_64 rng(static_cast<uint64_t>(bits * 1000));
  linebloom::CompactFilterBuilder builder({.bits_per_key = bits});
  builder.SetExtraPlanes(extra_planes);
  builder.SetMixed(mixed);
  for (size_t i = 0; i < keys; ++i) builder.AddHash(rng());
  const std::string bytes = builder.Finish();
  linebloom::CompactFilterReader reader;
  if (!linebloom::CompactFilterReader::Parse(bytes, &reader).ok()) return "unreadable";
  size_t positives = 0;
  for (size_t q = 0; q < queries; ++q) positives += reader.MayContainHash(rng());
  const double p = static_cast<double>(positives) / static_cast<double>(queries);
  char text[96];
  std::snprintf(text, sizeof(text), "%.4f ± %.4f %% (%.3f bits/key)", 100 * p,
                100 * std::sqrt(p * (1 - p) / static_cast<double>(queries)), 8.0 * bytes.size() / keys);
  return text;
}

// The level-aware allocation of a leveled tree (`levels` levels, ratio
// `ratio`, `average` bits per key) with Bloom filters everywhere and with
// the compact kind at the last level: bits per level and the expected
// false-positive reads per absent-key lookup that consults every level.
void PrintTree(int levels, double ratio, double average) {
  const std::vector<uint64_t> entries = linebloom::LeveledEntries(1'000'000'000, ratio, levels);
  std::vector<linebloom::FilterKind> kinds(entries.size(), linebloom::FilterKind::kBloom);
  kinds.back() = linebloom::FilterKind::kCompact;
  const linebloom::LevelAllocation bloom = linebloom::AllocateBitsPerRun(entries, {}, average);
  const linebloom::LevelAllocation both = linebloom::AllocateBitsPerRun(entries, {}, kinds, average);
  std::printf("| filters | bits per key, first level to last | false-positive reads per lookup |\n|---|---|---|\n");
  for (const auto* a : {&bloom, &both}) {
    std::printf("| %s |", a == &bloom ? "Bloom at every level" : "compact at the last level");
    for (double b : a->bits_per_key) std::printf(" %.3f", b);
    std::printf(" | %.5f |\n", a->expected_fpr_sum);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double from = 6, to = 16, step = 0.25;
  size_t keys = 1'000'000;
  CLI::App app{"linebloom-compact-model: the compact filter's model by bits per key"};
  app.add_option("--from", from, "first bits per key")->check(CLI::Range(1.0, 100.0));
  app.add_option("--to", to, "last bits per key")->check(CLI::Range(1.0, 100.0));
  app.add_option("--step", step, "bits per key between rows")->check(CLI::Range(0.01, 10.0));
  app.add_option("--keys", keys, "keys per filter")->check(CLI::Range(1, 1 << 30));
  int extra_planes = linebloom::kCompactExtraPlanes;
  app.add_option("--extra_planes", extra_planes, "most planes a line gets above r (1: format version 3)")
      ->check(CLI::Range(1, linebloom::kCompactExtraPlanes));
  bool mixed = true;
  app.add_flag("--mixed,!--no-mixed", mixed,
               "mixed shapes where they do better (default; off: format versions 3 to 6)");
  bool measure = false;
  size_t queries = 4'000'000;
  app.add_flag("--measure", measure, "also build each filter and measure its rate");
  app.add_option("--queries", queries, "absent queries per measured filter")->check(CLI::Range(1, 1 << 30));
  int levels = 0;
  double ratio = 10, average = 10;
  app.add_option("--tree_levels", levels, "instead: the level-aware allocation of a tree of this many levels")
      ->check(CLI::Range(2, 12));
  app.add_option("--tree_ratio", ratio, "the tree's size ratio")->check(CLI::Range(2.0, 100.0));
  app.add_option("--tree_average", average, "the tree's average bits per key")->check(CLI::Range(1.0, 64.0));
  CLI11_PARSE(app, argc, argv);
  if (levels > 0) {
    PrintTree(levels, ratio, average);
    return 0;
  }
  std::printf(
      "| bits/key | r | keys/line | share at r - 1 (keys/line) | false-positive rate | second line | bits / "
      "log2(1/rate) | Bloom bits/key |%s\n",
      measure ? " measured |" : "");
  std::printf("|---|---|---|---|---|---|---|---|%s\n", measure ? "---|" : "");
  for (double bits = from; bits <= to + 1e-9; bits += step) {
    const linebloom::CompactShape shape = linebloom::CompactShapeFor(bits, keys, extra_planes, mixed);
    const linebloom::CompactEstimate e = linebloom::EstimateCompact(shape, keys);
    char low[48] = "-";
    if (shape.low_share > 0) std::snprintf(low, sizeof(low), "%.3f (%.1f)", shape.low_share, shape.low_keys_per_line);
    std::printf("| %.2f | %d | %.1f | %s | %.4f %% | %.2f %% | %.3f | %.2f |", bits, shape.fingerprint_bits,
                shape.keys_per_line, low, 100 * e.false_positive_rate, 100 * e.second_line_share,
                bits / std::log2(1 / e.false_positive_rate),
                linebloom::FilterOptions::ForFalsePositiveRate(e.false_positive_rate).bits_per_key);
    std::printf("%s\n", measure ? (" " + Measure(bits, keys, extra_planes, mixed, queries) + " |").c_str() : "");
  }
  return 0;
}
