// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "line_pair_filter.h"

#include "linebloom/bloom_math.h"
#include "linebloom/foundation/coding.h"

namespace linebloom::sstable::internal {
namespace {

// Calls visit(byte offset, bit mask) for each of the k probes of `hash`.
// The part: the one holding bit u = fastrange(low 32 bits, 8 S), i.e. part
// (u / 8 + r) / 128, no division. The bits: fastrange of the probe state a
// (the hash's high 32 bits, multiplied by an odd constant per probe) onto
// the part's m bits. Stops early when visit returns false.
template <typename Visit>
bool ForEachProbe(uint64_t hash, int probes, uint64_t region_offset, uint64_t filter_bytes, Visit visit) {
  const LinePairLayout layout{filter_bytes, region_offset % 64};
  uint64_t base = 0, m = 8 * filter_bytes;
  if (layout.shift + filter_bytes > kLinePairBytes) {
    const uint64_t u = ((hash & 0xFFFFFFFFu) * m) >> 32;
    const uint64_t j = (u / 8 + layout.shift) / kLinePairBytes;
    base = layout.PartBegin(j);
    m = 8 * (layout.PartEnd(j) - base);
  }
  uint32_t a = static_cast<uint32_t>(hash >> 32);
  for (int t = 0; t < probes; ++t) {
    const uint64_t bit = (uint64_t{a} * m) >> 32;
    if (!visit(base + bit / 8, static_cast<uint8_t>(1u << (bit % 8)))) return false;
    a *= kProbeMultiplier;
  }
  return true;
}

}  // namespace

std::vector<FiniteBloomFpr::PartGroup> LinePairLayout::Groups() const {
  const uint64_t parts = NumParts();
  if (parts == 0) return {};
  if (parts == 1) return {{1, 8 * bytes}};
  return {{1, 8 * PartEnd(0)}, {parts - 2, 8 * kLinePairBytes}, {1, 8 * (bytes - PartBegin(parts - 1))}};
}

void LinePairAdd(uint64_t hash, int probes, uint64_t region_offset, std::string& filter) {
  if (filter.empty()) return;
  ForEachProbe(hash, probes, region_offset, filter.size(), [&](uint64_t at, uint8_t mask) {
    filter[at] = static_cast<char>(static_cast<uint8_t>(filter[at]) | mask);
    return true;
  });
}

bool LinePairMayMatch(uint64_t hash, int probes, uint64_t region_offset, std::string_view filter) {
  if (filter.empty()) return true;
  const auto* p = reinterpret_cast<const uint8_t*>(filter.data());
  return ForEachProbe(hash, probes, region_offset, filter.size(),
                      [&](uint64_t at, uint8_t mask) { return (p[at] & mask) != 0; });
}

bool ParseLinePairParameters(std::string_view parameters, int* probes, uint32_t* seed) {
  if (parameters.size() != kLinePairParametersSize) return false;
  const int k = static_cast<uint8_t>(parameters[0]);
  if (k < kMinProbes || k > kMaxProbes) return false;
  *probes = k;
  *seed = DecodeFixed32(parameters.data() + 1);
  return true;
}

double LinePairFilterFpr(std::string_view parameters, uint64_t filter_bytes, uint64_t region_offset, uint64_t keys,
                         FiniteBloomFpr* model) {
  int probes;
  uint32_t seed;
  if (!ParseLinePairParameters(parameters, &probes, &seed)) return -1;
  if (filter_bytes == 0) return keys == 0 ? 0 : 1;
  return model->SplitBySize(keys, LinePairLayout{filter_bytes, region_offset % 64}.Groups(), probes);
}

}  // namespace linebloom::sstable::internal
