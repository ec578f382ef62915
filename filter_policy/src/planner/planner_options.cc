// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/planner/planner_options.h"

#include <algorithm>
#include <cstdlib>

namespace linebloom::planner {

std::optional<std::vector<double>> ParseLevelWeights(const std::string& text) {
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

}  // namespace linebloom::planner
