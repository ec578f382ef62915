// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "plan_books.h"

#include <algorithm>
#include <span>
#include <unordered_map>
#include <vector>

#include "linebloom/compact_math.h"
#include "linebloom/filter_format.h"
#include "linebloom/planner/tracked_plan.h"

namespace linebloom::planner {

BookTotals::BookTotals(const TrackedTree& tree, const TrackedRuns& runs, const PlannerOptions& options)
    : average_bits_per_key(options.average_bits_per_key) {
  const double average = average_bits_per_key;
  // Per level, not per file: a trial plan (a pinned file's) is made for
  // every such file, and only the trial's level has changed since the last.
  for (const auto& [level, level_files] : tree.live) {
    const double scale = runs.Scale(level);
    const auto keys = static_cast<double>(tree.LiveKeys(level));
    const auto files = static_cast<double>(level_files.size());
    builtin += scale * static_cast<double>(tree.LiveBuiltinBytes(level, average));
    recorded_keys += scale * keys;
    if (KindOfLevel(options, level, tree.deepest) == FilterKind::kBloom) {
      bloom_files += scale * files;
    } else if (files > 0) {
      compact_overhead += scale * files * CompactOverheadBytes(static_cast<size_t>(keys / files));
    }
  }
  // The model L0 run as one file at L0's bits against the built-in's bytes
  // for it: an over-estimate of a small L0, so its high bits never push the
  // tree over.
  l0_keys = runs.entries[0] > 0 ? runs.n[0] : 0;
  if (l0_keys > 0) builtin += static_cast<double>(BuiltinFilterBytes(l0_keys, average));
}

double BookTotals::NominalAverage() const {
  if (!(recorded_keys > 0)) return average_bits_per_key;
  const double overhead = bloom_files * (kFilterTrailerBytes + kFilterBlockBytes / 2.0) + compact_overhead;
  return std::clamp((builtin - overhead) * 8 / recorded_keys, 0.5 * average_bits_per_key, 1.5 * average_bits_per_key);
}

PlanBooks::PlanBooks(const TrackedTree& tree, const TrackedRuns& runs, const PlannerOptions& options)
    : runs_(runs),
      totals_(tree, runs, options),
      deepest_(tree.deepest),
      l0_compact_(KindOfLevel(options, 0, tree.deepest) == FilterKind::kCompact) {
  for (const auto& [level, files] : tree.live) {
    if (level < tree.shallowest || level > tree.deepest) continue;
    const bool compact = KindOfLevel(options, level, tree.deepest) == FilterKind::kCompact;
    for (const auto& [smallest, file] : files) {
      // Whether a file is pinned is looked up once here, not in every step
      // of the plan's bisection.
      booked_.push_back({level, tree.RunOfLevel(level), &file, tree.Pinned(level, smallest, file.largest), compact});
    }
  }
}

double PlanBooks::FileBytes(uint64_t keys, double file_bits, bool compact) {
  if (compact) return ExpectedCompactBytes(keys, file_bits);
  return static_cast<double>(FilterBytesFor(keys, file_bits));
}

double PlanBooks::RealBytes(const std::vector<double>& bits, const std::vector<double>& own_bits) const {
  return SumBytes(booked_, bits, own_bits);
}

double PlanBooks::SumBytes(std::span<const Booked> booked, const std::vector<double>& bits,
                           const std::vector<double>& own_bits) const {
  const uint64_t l0_keys = totals_.l0_keys;
  double sum = l0_keys > 0 && bits[0] > 0 ? FileBytes(l0_keys, bits[0], l0_compact_) : 0.0;
  for (const Booked& b : booked) sum += BookedBytes(b, BookedBits(b, bits, own_bits));
  return sum;
}

double PlanBooks::FitLastRun(std::vector<double> bits, const std::vector<double>& own_bits, double hi,
                             int steps) const {
  double lo = 0;
  const size_t last = bits.size() - 1;
  auto varied = [last](const Booked& b) { return !b.pinned && b.run == last; };
  // The files of the last run come last in the books (levels in order);
  // summing the others first is then RealBytes's own order. Else, and when
  // the last run is L0's (whose term comes first), bisect with RealBytes.
  size_t first_varied = booked_.size();
  while (first_varied > 0 && varied(booked_[first_varied - 1])) --first_varied;
  const std::span<const Booked> fixed = std::span(booked_).first(first_varied);
  if (last == 0 || std::any_of(fixed.begin(), fixed.end(), varied)) {
    for (int step = 0; step < steps; ++step) {
      bits.back() = 0.5 * (lo + hi);
      (RealBytes(bits, own_bits) <= totals_.builtin ? lo : hi) = bits.back();
    }
    return lo;
  }
  const double fixed_bytes = SumBytes(fixed, bits, own_bits);
  const std::span<const Booked> files = std::span(booked_).subspan(first_varied);
  // A file's term depends only on its level and keys, and these files are
  // all of the last run's level; files of equal size are common (an engine
  // cuts files at a target size, and records of one size give equal
  // counts): those share one computation per step, their first file's.
  // Such files share their block boundaries too, so the search, which ends
  // at a boundary, would otherwise compute every one of them at every step.
  std::vector<size_t> same_as(files.size());
  std::unordered_map<uint64_t, size_t> first_of_size;
  for (size_t i = 0; i < files.size(); ++i) {
    same_as[i] = first_of_size.try_emplace(files[i].file->keys, i).first->second;
  }
  // Each file's term at lo, at hi, and at the step's midpoint.
  std::vector<double> at_lo(files.size()), at_hi(files.size()), at_mid(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    at_lo[i] = BookedBytes(files[i], lo);
    at_hi[i] = BookedBytes(files[i], hi);
  }
  for (int step = 0; step < steps; ++step) {
    const double mid = 0.5 * (lo + hi);
    double sum = fixed_bytes;
    for (size_t i = 0; i < files.size(); ++i) {
      if (same_as[i] != i) {
        at_mid[i] = at_mid[same_as[i]];
      } else {
        at_mid[i] = at_lo[i] == at_hi[i] ? at_lo[i] : BookedBytes(files[i], mid);
      }
      sum += at_mid[i];
    }
    if (sum <= totals_.builtin) {
      lo = mid;
      at_lo.swap(at_mid);
    } else {
      hi = mid;
      at_hi.swap(at_mid);
    }
  }
  return lo;
}

double PlanBooks::LargestUpperExcess(const std::vector<double>& bits, const std::vector<double>& own_bits) const {
  double excess = 0;
  for (const Booked& b : booked_) {
    const double file_bits = BookedBits(b, bits, own_bits);
    if (b.level >= deepest_ || file_bits <= 0) continue;
    excess = std::max(excess, FileBytes(b.file->keys, file_bits, b.compact) -
                                  static_cast<double>(BuiltinFilterBytes(b.file->keys, totals_.average_bits_per_key)));
  }
  return excess;
}

}  // namespace linebloom::planner
