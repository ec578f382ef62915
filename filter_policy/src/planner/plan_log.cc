// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "plan_log.h"

#include <cstdint>
#include <cstdio>

namespace linebloom::planner {
namespace {

std::string Header(const std::string& tree_name) {
  return std::string("linebloom level_aware [").append(tree_name).append("]: ");
}

template <typename... Args>
void AppendRun(std::string* line, const char* format, Args... args) {
  char part[128];
  std::snprintf(part, sizeof part, format, args...);
  line->append(part);
}

}  // namespace

std::string DescribeEstimate(const std::string& tree_name, const TrackedTree& tree, double average,
                             const std::vector<double>& weights, const std::vector<double>& bits_per_key) {
  std::string line = Header(tree_name).append("average ").append(std::to_string(average)).append(":");
  for (size_t run = 0; run < weights.size(); ++run) {
    AppendRun(&line, " L%d w=%.3f bits=%.3f", tree.LevelOfRun(run), weights[run], bits_per_key[run]);
  }
  return line;
}

std::string DescribeTrackedPlan(const std::string& tree_name, const TrackedTree& tree, const TrackedPlan& plan) {
  std::string line = Header(tree_name)
                         .append("tracked tree, average ")
                         .append(std::to_string(plan.average))
                         .append(", real bytes ")
                         .append(std::to_string(static_cast<uint64_t>(plan.real_bytes)))
                         .append(" vs built-in ")
                         .append(std::to_string(static_cast<uint64_t>(plan.builtin_bytes)))
                         .append(":");
  for (size_t run = 0; run < plan.bits_per_key.size(); ++run) {
    AppendRun(&line, " L%d n=%.0f w=%.3f miss=%.3f bits=%.3f", tree.LevelOfRun(run), plan.entries[run],
              plan.weights[run], plan.miss[run], plan.bits_per_key[run]);
  }
  return line;
}

}  // namespace linebloom::planner
