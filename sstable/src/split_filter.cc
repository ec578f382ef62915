// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "split_filter.h"

namespace linebloom::sstable::internal {
namespace {

// Calls visit(byte offset, bit mask) for each of the k probes of `hash`:
// bit = (a * m) >> 32 is fastrange of the probe state a (the hash's high 32
// bits, then multiplied by an odd constant per probe) onto the part's m
// bits. Stops early when visit returns false.
template <typename Visit>
bool ForEachProbe(uint64_t hash, int probes, uint64_t filter_bytes, Visit visit) {
  const SplitLayout layout(filter_bytes);
  const uint64_t j = layout.PartOf(hash);
  const uint64_t base = layout.PartOffset(j);
  const uint64_t m = 8 * layout.PartBytes(j);
  uint32_t a = static_cast<uint32_t>(hash >> 32);
  for (int t = 0; t < probes; ++t) {
    const uint64_t bit = (uint64_t{a} * m) >> 32;
    if (!visit(base + bit / 8, static_cast<uint8_t>(1u << (bit % 8)))) return false;
    a *= kSplitProbeMultiplier;
  }
  return true;
}

}  // namespace

void SplitFilterAdd(uint64_t hash, int probes, std::string& bytes) {
  if (bytes.empty()) return;
  ForEachProbe(hash, probes, bytes.size(), [&](uint64_t at, uint8_t mask) {
    bytes[at] = static_cast<char>(static_cast<uint8_t>(bytes[at]) | mask);
    return true;
  });
}

bool SplitFilterMayMatch(uint64_t hash, int probes, std::string_view bytes) {
  if (bytes.empty()) return true;
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  return ForEachProbe(hash, probes, bytes.size(), [&](uint64_t at, uint8_t mask) { return (p[at] & mask) != 0; });
}

}  // namespace linebloom::sstable::internal
