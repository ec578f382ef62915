// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "plan_books.h"

#include <algorithm>

#include "linebloom/filter_format.h"
#include "linebloom/planner/tracked_plan.h"

namespace linebloom::planner {

PlanBooks::PlanBooks(const TrackedTree& tree, const TrackedRuns& runs, double average_bits_per_key)
    : runs_(runs), average_bits_per_key_(average_bits_per_key), deepest_(tree.deepest) {
  for (const auto& [level, files] : tree.live) {
    const double scale = runs.Scale(level);
    for (const auto& [smallest, file] : files) {
      builtin_ += scale * static_cast<double>(BuiltinFilterBytes(file.keys, average_bits_per_key));
      recorded_keys_ += scale * static_cast<double>(file.keys);
      // Whether a file is pinned is looked up once here, not in every step
      // of the plan's bisection.
      if (level >= tree.shallowest && level <= tree.deepest) {
        booked_.push_back({level, tree.RunOfLevel(level), &file, tree.Pinned(level, smallest, file.largest)});
      }
    }
    files_ += scale * static_cast<double>(files.size());
  }
  // The model L0 run as one file at L0's bits against the built-in's bytes
  // for it: an over-estimate of a small L0, so its high bits never push the
  // tree over.
  l0_keys_ = runs.entries[0] > 0 ? runs.n[0] : 0;
  if (l0_keys_ > 0) builtin_ += static_cast<double>(BuiltinFilterBytes(l0_keys_, average_bits_per_key));
}

double PlanBooks::NominalAverage() const {
  if (!(recorded_keys_ > 0)) return average_bits_per_key_;
  const double overhead = files_ * (kFilterTrailerBytes + kFilterBlockBytes / 2.0);
  return std::clamp((builtin_ - overhead) * 8 / recorded_keys_, 0.5 * average_bits_per_key_,
                    1.5 * average_bits_per_key_);
}

double PlanBooks::RealBytes(const std::vector<double>& bits, const std::vector<double>& own_bits) const {
  double sum = l0_keys_ > 0 && bits[0] > 0 ? static_cast<double>(FilterBytesFor(l0_keys_, bits[0])) : 0.0;
  for (const Booked& b : booked_) {
    const double file_bits = BookedBits(b, bits, own_bits);
    sum += file_bits > 0 ? runs_.Scale(b.level) * static_cast<double>(FilterBytesFor(b.file->keys, file_bits)) : 0.0;
  }
  return sum;
}

double PlanBooks::LargestUpperExcess(const std::vector<double>& bits, const std::vector<double>& own_bits) const {
  double excess = 0;
  for (const Booked& b : booked_) {
    const double file_bits = BookedBits(b, bits, own_bits);
    if (b.level >= deepest_ || file_bits <= 0) continue;
    excess = std::max(excess, static_cast<double>(FilterBytesFor(b.file->keys, file_bits)) -
                                  static_cast<double>(BuiltinFilterBytes(b.file->keys, average_bits_per_key_)));
  }
  return excess;
}

}  // namespace linebloom::planner
