// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-level-bound: for a measured LSM tree, the best any per-level
// choice of bits per key could do at a given average, against one bits per
// key everywhere. Input (stdin), one line per level with filters:
//   level entries checks
// where `checks` is how many of `--lookups` absent-key lookups consulted the
// level's filters (RocksDB's perf context counts them per level). A level's
// lookup weight is checks / lookups, and both answers come from
// linebloom::AllocateBitsPerRun / UniformAllocation with those weights: the
// expected false positives per lookup, sum_j w_j FPR_j, of a 512-bit
// blocked Bloom filter at nominal bits per key (no rounding to whole blocks).
// The optimum knows each level's coverage exactly, which no filter policy
// does (RocksDB does not tell it), so it bounds what a level-aware policy
// can gain on that tree.
//
//   linebloom-level-bound --lookups 500000 --bits 10 < levels.txt

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "linebloom/level_allocator.h"

int main(int argc, char** argv) {
  CLI::App app{"Best per-level bits per key on a measured LSM tree vs uniform bits (reads level entries checks)"};
  double lookups = 0;
  double bits = 10;
  app.add_option("--lookups", lookups, "absent-key lookups the checks were counted over")
      ->required()
      ->check(CLI::PositiveNumber);
  app.add_option("--bits", bits, "average bits per key")->check(CLI::Range(1.0, 64.0));
  CLI11_PARSE(app, argc, argv);

  std::vector<int> levels;
  std::vector<uint64_t> entries;
  std::vector<double> weights;
  int level = 0;
  double n = 0, checks = 0;
  while (std::cin >> level >> n >> checks) {
    if (n < 1 || checks < 0) continue;
    levels.push_back(level);
    entries.push_back(static_cast<uint64_t>(n));
    weights.push_back(checks / lookups);
  }
  if (!std::cin.eof() || entries.empty()) {
    std::fprintf(stderr, "linebloom-level-bound: expected lines 'level entries checks' on stdin\n");
    return 2;
  }
  const linebloom::LevelAllocation uniform = linebloom::UniformAllocation(entries, weights, bits);
  const linebloom::LevelAllocation best = linebloom::AllocateBitsPerRun(entries, weights, bits);
  std::printf("uniform %.5f  best %.5f (%+.1f %%)  best bits:", uniform.expected_weighted_fpr_sum,
              best.expected_weighted_fpr_sum,
              100 * (best.expected_weighted_fpr_sum / uniform.expected_weighted_fpr_sum - 1));
  for (size_t j = 0; j < levels.size(); ++j) std::printf(" L%d=%.3f", levels[j], best.bits_per_key[j]);
  std::printf("\n");
  return 0;
}
