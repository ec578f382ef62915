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

namespace {

struct Flags {
  double lookups = 0;
  double bits = 10;
  bool move_safe = false;
  double candidate_fp = -1, reference_fp = -1, candidate_bytes = -1, reference_bytes = -1, target_score = 0.85;
  double filters = -1;
};

void AddFlags(CLI::App& app, Flags* f) {
  app.add_option("--lookups", f->lookups, "absent-key lookups the checks were counted over")
      ->required()
      ->check(CLI::PositiveNumber);
  app.add_option("--bits", f->bits, "average bits per key")->check(CLI::Range(1.0, 64.0));
  app.add_flag("--move-safe", f->move_safe, "also the best with the shared bits of the level-aware policy");
  app.add_option("--candidate-fp", f->candidate_fp, "measured false positives per lookup of the policy scored");
  app.add_option("--reference-fp", f->reference_fp, "measured false positives per lookup of the reference");
  app.add_option("--candidate-bytes", f->candidate_bytes, "real filter bytes of the policy scored");
  app.add_option("--reference-bytes", f->reference_bytes, "real filter bytes of the reference");
  app.add_option("--filters", f->filters, "filters (SSTs) in the tree: the bound is at the reference's bytes")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--target-score", f->target_score, "share of the bound's reduction that passes");
}

// The measured tree: per level with filters, its entries and the share of
// lookups that checked its filters (scaled so the largest is at most 1).
struct Tree {
  std::vector<int> levels;
  std::vector<uint64_t> entries;
  std::vector<double> weights;
  double scale = 1;  // weights were divided by it
  double total_entries = 0;
};

bool ReadTree(double lookups, Tree* tree) {
  int level = 0;
  double n = 0, checks = 0;
  while (std::cin >> level >> n >> checks) {
    if (n < 1 || checks < 0) continue;
    tree->levels.push_back(level);
    tree->entries.push_back(static_cast<uint64_t>(n));
    tree->weights.push_back(checks / lookups);
  }
  if (!std::cin.eof() || tree->entries.empty()) return false;
  tree->scale = std::max(1.0, *std::max_element(tree->weights.begin(), tree->weights.end()));
  for (double& w : tree->weights) w /= tree->scale;
  for (const uint64_t e : tree->entries) tree->total_entries += static_cast<double>(e);
  return true;
}

double BestAt(const Tree& tree, double bits) {
  return tree.scale * linebloom::AllocateBitsPerRun(tree.entries, tree.weights, bits).expected_weighted_fpr_sum;
}

void PrintMoveSafe(const Tree& tree, double bits, double uniform) {
  // Run 0 of the shared-middle allocation is L0: an empty one if the tree has none.
  std::vector<uint64_t> runs = tree.entries;
  std::vector<double> run_weights = tree.weights;
  if (tree.levels[0] != 0) {
    runs.insert(runs.begin(), 0);
    run_weights.insert(run_weights.begin(), 0.0);
  }
  const double safe =
      tree.scale * linebloom::AllocateBitsSharedMiddle(runs, run_weights, bits).expected_weighted_fpr_sum;
  std::printf("  move-safe best %.5f (%+.1f %%)\n", safe, 100 * (safe / uniform - 1));
}

// Prints the score line; whole_bits >= 0: also at the reference's whole
// bytes (trailers counted as bits). Returns the exit code.
int Score(const Flags& f, const Tree& tree, double best, double whole_bits) {
  auto score_against = [&](double best_fp) {
    const double bound = 1 - best_fp / f.reference_fp;
    return bound > 0 ? (1 - f.candidate_fp / f.reference_fp) / bound : 0;
  };
  const double reduction = 1 - f.candidate_fp / f.reference_fp;
  const double score = score_against(best);
  const bool bytes_ok = f.candidate_bytes < 0 || f.reference_bytes < 0 || f.candidate_bytes <= f.reference_bytes;
  const bool pass = score >= f.target_score && bytes_ok;
  std::printf("  score: reduction %.1f %% of bound %.1f %% = %.1f %% (target %.0f %%)", 100 * reduction,
              100 * (1 - best / f.reference_fp), 100 * score, 100 * f.target_score);
  if (whole_bits >= 0) {
    std::printf(" [at %.3f bits/key, trailers as bits: %.1f %%]", whole_bits,
                100 * score_against(BestAt(tree, whole_bits)));
  }
  if (f.candidate_bytes >= 0 && f.reference_bytes > 0) {
    std::printf(", bytes %.0f vs %.0f (%+.2f %%)", f.candidate_bytes, f.reference_bytes,
                100 * (f.candidate_bytes / f.reference_bytes - 1));
  }
  std::printf(": %s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Best per-level bits per key on a measured LSM tree vs uniform bits (reads level entries checks)"};
  Flags f;
  AddFlags(app, &f);
  CLI11_PARSE(app, argc, argv);

  Tree tree;
  if (!ReadTree(f.lookups, &tree)) {
    std::fprintf(stderr, "linebloom-level-bound: expected lines 'level entries checks' on stdin\n");
    return 2;
  }
  const bool at_reference_bytes = f.filters >= 0 && f.reference_bytes > 0;
  double bits = f.bits;
  if (at_reference_bytes) {
    bits =
        8 * (f.reference_bytes - f.filters * static_cast<double>(linebloom::kFilterTrailerBytes)) / tree.total_entries;
    if (bits <= 0) {
      std::fprintf(stderr, "linebloom-level-bound: --reference-bytes leave no bits after the trailers\n");
      return 2;
    }
  }
  const linebloom::LevelAllocation uniform_allocation = linebloom::UniformAllocation(tree.entries, tree.weights, bits);
  const linebloom::LevelAllocation best_allocation = linebloom::AllocateBitsPerRun(tree.entries, tree.weights, bits);
  const double uniform = tree.scale * uniform_allocation.expected_weighted_fpr_sum;
  const double best = tree.scale * best_allocation.expected_weighted_fpr_sum;
  std::printf("at %.3f bits/key: uniform %.5f  best %.5f (%+.1f %%)  best bits:", bits, uniform, best,
              100 * (best / uniform - 1));
  for (size_t j = 0; j < tree.levels.size(); ++j) {
    std::printf(" L%d=%.3f", tree.levels[j], best_allocation.bits_per_key[j]);
  }
  std::printf("\n");
  if (f.move_safe) PrintMoveSafe(tree, bits, uniform);
  if (f.candidate_fp < 0 || !(f.reference_fp > 0)) return 0;
  return Score(f, tree, best, at_reference_bytes ? 8 * f.reference_bytes / tree.total_entries : -1);
}
