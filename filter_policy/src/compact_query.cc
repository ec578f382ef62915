// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// CompactFilterReader's queries (compact_layout.h).

#include "compact_layout.h"
#include "key_hash.h"
#include "linebloom/compact_filter.h"

namespace linebloom {

namespace c = internal::compact;

bool CompactFilterReader::MayContainHash(uint64_t hash) const {
  const c::KeyCode code = c::CodeOf(hash);
  for (int layer = 0; layer < num_layers_; ++layer) {
    const c::Slot slot = c::SlotOf(c::LayerHash(hash, layer), layers_[layer].lines);
    const unsigned char* line = layers_[layer].data + size_t{64} * slot.line;
    const unsigned meta = line[c::kMetaByte];
    if (slot.order >= (meta & c::kThresholdMask)) continue;  // bumped to the next layer
    // The answer's bit b is parity(row & plane b); a stored key's answer is
    // its fingerprint.
    //   for b in 0..R-1: answer |= Parity(LoadPlane(line, b C) & row) << b
    const int extra = static_cast<int>(meta >> 7);
    const int planes = fingerprint_bits_ + extra;
    const int columns = columns_[extra];
    const c::Bits128 row = c::RowOf(code, columns);
    uint32_t answer = 0;
    for (int b = 0, at = 0; b < planes; ++b, at += columns) {
      answer |= static_cast<uint32_t>(c::Parity(c::LoadPlane(line, at) & row)) << b;
    }
    return answer == c::FingerprintOf(code, planes);
  }
  // Bumped out of the last layer, which a builder never writes: a damaged
  // filter may match.
  return num_layers_ != 0;
}

bool CompactFilterReader::MayContain(std::string_view key) const {
  return MayContainHash(internal::HashKeyTiered(key, seed_));
}

void CompactFilterReader::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
  for (size_t i = 0; i < keys.size(); ++i) out[i] = MayContain(keys[i]);
}

}  // namespace linebloom
