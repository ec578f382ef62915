// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/filter_set_ops.h"

#include <bit>
#include <cstring>

#include "block_probe.h"
#include "linebloom/bloom_math.h"
#include "trailer.h"

namespace linebloom {

namespace {

bool SameParameters(const FilterReader& a, const FilterReader& b) {
  return a.num_blocks() == b.num_blocks() && a.num_probes() == b.num_probes() && a.seed() == b.seed() &&
         a.hash_scheme() == b.hash_scheme();
}

template <typename Op>
std::optional<std::string> Combine(const FilterReader& a, const FilterReader& b, Op op) {
  if (!SameParameters(a, b)) return std::nullopt;
  const std::string_view x = a.blocks(), y = b.blocks();
  std::string out(x.size() + kFilterTrailerBytes, '\0');
  for (size_t i = 0; i < x.size(); ++i) {
    out[i] = static_cast<char>(op(static_cast<unsigned char>(x[i]), static_cast<unsigned char>(y[i])));
  }
  internal::Trailer trailer;
  trailer.seed = a.seed();
  trailer.num_probes = static_cast<uint8_t>(a.num_probes());
  trailer.hash_scheme = static_cast<uint8_t>(a.hash_scheme());
  internal::EncodeTrailer(trailer, reinterpret_cast<unsigned char*>(out.data()), x.size());
  return out;
}

uint64_t TotalBits(const FilterReader& f) { return uint64_t{f.num_blocks()} * kFilterBlockBits; }

}  // namespace

std::optional<std::string> UnionFilters(const FilterReader& a, const FilterReader& b) {
  return Combine(a, b, [](unsigned x, unsigned y) { return x | y; });
}

std::optional<std::string> IntersectFilters(const FilterReader& a, const FilterReader& b) {
  return Combine(a, b, [](unsigned x, unsigned y) { return x & y; });
}

uint64_t CountSetBits(const FilterReader& filter) {
  const std::string_view blocks = filter.blocks();
  uint64_t count = 0;
  for (size_t i = 0; i + 8 <= blocks.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, blocks.data() + i, 8);
    count += std::popcount(word);
  }
  return count;
}

double EstimateKeyCount(const FilterReader& filter) {
  return EstimateKeyCount(CountSetBits(filter), TotalBits(filter), filter.num_probes());
}

static uint64_t CountUnionBits(const FilterReader& a, const FilterReader& b) {
  const std::string_view x = a.blocks(), y = b.blocks();
  uint64_t count = 0;
  for (size_t i = 0; i + 8 <= x.size(); i += 8) {
    uint64_t wx, wy;
    std::memcpy(&wx, x.data() + i, 8);
    std::memcpy(&wy, y.data() + i, 8);
    count += std::popcount(wx | wy);
  }
  return count;
}

std::optional<double> EstimateUnionSize(const FilterReader& a, const FilterReader& b) {
  if (!SameParameters(a, b)) return std::nullopt;
  return EstimateKeyCount(CountUnionBits(a, b), TotalBits(a), a.num_probes());
}

std::optional<double> EstimateIntersectionSize(const FilterReader& a, const FilterReader& b) {
  if (!SameParameters(a, b)) return std::nullopt;
  return EstimateIntersectionSize(CountSetBits(a), CountSetBits(b), CountUnionBits(a, b), TotalBits(a), a.num_probes());
}

}  // namespace linebloom
