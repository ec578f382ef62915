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
// L0's files overlap, so one lookup can consult several of them: its checks
// per lookup can exceed 1. The allocator clamps weights to [0, 1], so all
// weights are divided by the largest first; scaling the objective does not
// move its minimum, and the sums printed are scaled back.
//
// --move-safe also prints the best allocation in which every level between
// the shallowest non-L0 level and the last-but-one shares one bits per key
// (the level-aware policy's constraint for files moved down unrewritten),
// which shows what that constraint costs on the tree.
//
// Score (--candidate-fp and --reference-fp, optionally the bytes): the
// reduction in false positives per lookup a measured policy reached against
// a reference (RocksDB's built-in), as a share of the reduction the best
// allocation reaches against the same reference:
//   score = (reference_fp - candidate_fp) / (reference_fp - best)
// Both reductions are against the reference's measured false positives.
// `best` is the bound at equal filter bytes: with --reference-bytes and
// --filters (how many filters, one per SST, the tree holds), at the bits per
// key that the reference's real bytes leave a linebloom filter per file for
// its blocks, 8 x (reference_bytes - filters x 16-byte trailer) / entries;
// otherwise at --bits. Its blocks are not rounded (an allocation can dither
// whole blocks across files), so no real filter of those bytes does better.
// The figure at the reference's whole bytes, trailers counted as bits
// (8 x reference_bytes / entries), is printed too. PASS when score >=
// --target-score and the candidate's real filter bytes are at most the
// reference's.
//
//   linebloom-level-bound --lookups 500000 --bits 10 < levels.txt
//   linebloom-level-bound --lookups 500000 --candidate-fp 0.0134 --reference-fp 0.0220
//     --candidate-bytes 1686784 --reference-bytes 1697348 --filters 1074 < levels.txt

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "linebloom/filter_format.h"
#include "linebloom/level_allocator.h"

int main(int argc, char** argv) {
  CLI::App app{"Best per-level bits per key on a measured LSM tree vs uniform bits (reads level entries checks)"};
  double lookups = 0;
  double bits = 10;
  bool move_safe = false;
  double candidate_fp = -1, reference_fp = -1, candidate_bytes = -1, reference_bytes = -1, target_score = 0.85;
  double filters = -1;
  app.add_option("--lookups", lookups, "absent-key lookups the checks were counted over")
      ->required()
      ->check(CLI::PositiveNumber);
  app.add_option("--bits", bits, "average bits per key")->check(CLI::Range(1.0, 64.0));
  app.add_flag("--move-safe", move_safe, "also the best with the shared bits of the level-aware policy");
  app.add_option("--candidate-fp", candidate_fp, "measured false positives per lookup of the policy scored");
  app.add_option("--reference-fp", reference_fp, "measured false positives per lookup of the reference");
  app.add_option("--candidate-bytes", candidate_bytes, "real filter bytes of the policy scored");
  app.add_option("--reference-bytes", reference_bytes, "real filter bytes of the reference");
  app.add_option("--filters", filters, "filters (SSTs) in the tree: the bound is at the reference's bytes")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--target-score", target_score, "share of the bound's reduction that passes");
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
  const double scale = std::max(1.0, *std::max_element(weights.begin(), weights.end()));
  for (double& w : weights) w /= scale;
  double total_entries = 0;
  for (const uint64_t e : entries) total_entries += static_cast<double>(e);
  const bool at_reference_bytes = filters >= 0 && reference_bytes > 0;
  const double whole_bits = at_reference_bytes ? 8 * reference_bytes / total_entries : bits;
  if (at_reference_bytes) {
    bits = 8 * (reference_bytes - filters * static_cast<double>(linebloom::kFilterTrailerBytes)) / total_entries;
    if (bits <= 0) {
      std::fprintf(stderr, "linebloom-level-bound: --reference-bytes leave no bits after the trailers\n");
      return 2;
    }
  }
  auto best_at = [&](double b) {
    return scale * linebloom::AllocateBitsPerRun(entries, weights, b).expected_weighted_fpr_sum;
  };
  const linebloom::LevelAllocation uniform_allocation = linebloom::UniformAllocation(entries, weights, bits);
  const linebloom::LevelAllocation best_allocation = linebloom::AllocateBitsPerRun(entries, weights, bits);
  const double uniform = scale * uniform_allocation.expected_weighted_fpr_sum;
  const double best = scale * best_allocation.expected_weighted_fpr_sum;
  std::printf("at %.3f bits/key: uniform %.5f  best %.5f (%+.1f %%)  best bits:", bits, uniform, best,
              100 * (best / uniform - 1));
  for (size_t j = 0; j < levels.size(); ++j) std::printf(" L%d=%.3f", levels[j], best_allocation.bits_per_key[j]);
  std::printf("\n");
  if (move_safe) {
    // Run 0 of the shared-middle allocation is L0: an empty one if the tree has none.
    std::vector<uint64_t> runs = entries;
    std::vector<double> run_weights = weights;
    if (levels[0] != 0) {
      runs.insert(runs.begin(), 0);
      run_weights.insert(run_weights.begin(), 0.0);
    }
    const double safe = scale * linebloom::AllocateBitsSharedMiddle(runs, run_weights, bits).expected_weighted_fpr_sum;
    std::printf("  move-safe best %.5f (%+.1f %%)\n", safe, 100 * (safe / uniform - 1));
  }
  if (candidate_fp >= 0 && reference_fp > 0) {
    auto score_against = [&](double best_fp) {
      const double bound = 1 - best_fp / reference_fp;
      return bound > 0 ? (1 - candidate_fp / reference_fp) / bound : 0;
    };
    const double reduction = 1 - candidate_fp / reference_fp;
    const double score = score_against(best);
    const bool bytes_ok = candidate_bytes < 0 || reference_bytes < 0 || candidate_bytes <= reference_bytes;
    const bool pass = score >= target_score && bytes_ok;
    std::printf("  score: reduction %.1f %% of bound %.1f %% = %.1f %% (target %.0f %%)", 100 * reduction,
                100 * (1 - best / reference_fp), 100 * score, 100 * target_score);
    if (at_reference_bytes) {
      std::printf(" [at %.3f bits/key, trailers as bits: %.1f %%]", whole_bits,
                  100 * score_against(best_at(whole_bits)));
    }
    if (candidate_bytes >= 0 && reference_bytes > 0) {
      std::printf(", bytes %.0f vs %.0f (%+.2f %%)", candidate_bytes, reference_bytes,
                  100 * (candidate_bytes / reference_bytes - 1));
    }
    std::printf(": %s\n", pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
  }
  return 0;
}
