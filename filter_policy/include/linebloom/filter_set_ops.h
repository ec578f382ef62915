// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Union and intersection of two filters built with the same parameters (same
// number of blocks, probes, seed and hash scheme), and the estimates that go with them.

#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "linebloom/filter_reader.h"

namespace linebloom {

// Bitwise OR of the blocks: exactly the filter FilterBuilder would build from
// the union of both key sets. nullopt if the parameters differ.
std::optional<std::string> UnionFilters(const FilterReader& a, const FilterReader& b);

// Bitwise AND of the blocks: answers "may contain" for every key in both
// sets (never a false negative for the intersection), but its false-positive
// rate is higher than a filter built from the intersection.
// nullopt if the parameters differ.
std::optional<std::string> IntersectFilters(const FilterReader& a, const FilterReader& b);

// Number of set bits in the filter's blocks.
uint64_t CountSetBits(const FilterReader& filter);

// Swamidass–Baldi estimate of how many distinct keys `filter` holds.
double EstimateKeyCount(const FilterReader& filter);
// Estimates of |A u B| and |A n B|; nullopt if the parameters differ.
std::optional<double> EstimateUnionSize(const FilterReader& a, const FilterReader& b);
std::optional<double> EstimateIntersectionSize(const FilterReader& a, const FilterReader& b);

}  // namespace linebloom
