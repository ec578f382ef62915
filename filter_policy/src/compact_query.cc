// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// CompactFilterReader's queries (compact_layout.h). One query body, in two
// forms that differ only in how the line answers (compact_planes.h): the
// AVX-512 form is compiled for those instructions as a whole, so the
// answer is inlined, and the form is chosen once per query from the
// process-wide kernel.

#include <algorithm>

#include "compact_layout.h"
#include "compact_planes.h"
#include "kernel_state.h"
#include "key_hash.h"
#include "linebloom/compact_filter.h"

namespace linebloom {

namespace c = internal::compact;

struct CompactQuery {
  // The line that answers `hash`: the first layer's line whose threshold
  // its order is below; nullptr if every layer bumped it.
  __attribute__((always_inline)) static const unsigned char* FindLine(const CompactFilterReader& r, uint64_t hash) {
    for (int layer = 0; layer < r.num_layers_; ++layer) {
      const c::Slot slot = c::SlotOf(c::LayerHash(hash, layer), r.layers_[layer].lines);
      const unsigned char* line = r.layers_[layer].data + size_t{64} * slot.line;
      if (slot.order < (line[c::kMetaByte] & c::kThresholdMask)) return line;
    }
    return nullptr;
  }

  // The query with `answer` (a line, a row, R, C -> the R answer bits).
  template <class Answer>
  __attribute__((always_inline)) static bool Query(const CompactFilterReader& r, uint64_t hash, Answer answer) {
    const unsigned char* line = FindLine(r, hash);
    // Bumped out of the last layer, which a builder never writes: a damaged
    // filter may match. An empty filter has no layer and holds nothing.
    if (line == nullptr) return r.num_layers_ != 0;
    const c::KeyCode code = c::CodeOf(hash);
    const int extra = line[c::kMetaByte] >> 7;
    const int planes = r.fingerprint_bits_ + extra;
    const int columns = r.columns_[extra];
    const c::Bits128 row = c::RowOf(code, c::Bits128{r.row_mask_[extra][0], r.row_mask_[extra][1]});
    return answer(line, row, planes, columns) == c::FingerprintOf(code, planes);
  }

  static bool Portable(const CompactFilterReader& r, uint64_t hash) { return Query(r, hash, c::AnswerPortable); }

#if defined(LINEBLOOM_COMPACT_AVX512)
  LINEBLOOM_COMPACT_AVX512 static bool Avx512(const CompactFilterReader& r, uint64_t hash) {
    return Query(r, hash,
                 [](const unsigned char* line, c::Bits128 row, int planes, int /*columns*/)
                     LINEBLOOM_COMPACT_AVX512 { return c::AnswerAvx512(line, row, planes); });
  }
#endif
};

bool CompactFilterReader::MayContainHash(uint64_t hash) const {
#if defined(LINEBLOOM_COMPACT_AVX512)
  if (use_avx512_ && internal::CurrentKernel() == Kernel::kAvx512) return CompactQuery::Avx512(*this, hash);
#endif
  return CompactQuery::Portable(*this, hash);
}

bool CompactFilterReader::MayContain(std::string_view key) const {
  return MayContainHash(internal::HashKeyTiered(key, seed_));
}

// A batch in chunks of up to 32 (a MultiGet batch is at most 32 keys):
// every key's first-layer line is prefetched before the first answer.
//   simple form: for each i: out[i] = MayContainHash(hashes[i])
void CompactFilterReader::MayContainHashBatch(std::span<const uint64_t> hashes, std::span<bool> out) const {
  constexpr size_t kChunk = 32;
  for (size_t begin = 0; begin < hashes.size(); begin += kChunk) {
    const size_t end = std::min(hashes.size(), begin + kChunk);
    if (num_layers_ > 0) {
      for (size_t i = begin; i < end; ++i) {
        const uint32_t line = c::SlotOf(hashes[i], layers_[0].lines).line;
        __builtin_prefetch(layers_[0].data + size_t{64} * line);
      }
    }
    for (size_t i = begin; i < end; ++i) out[i] = MayContainHash(hashes[i]);
  }
}

void CompactFilterReader::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
  constexpr size_t kChunk = 32;
  uint64_t hashes[kChunk];
  for (size_t begin = 0; begin < keys.size(); begin += kChunk) {
    const size_t n = std::min(kChunk, keys.size() - begin);
    for (size_t i = 0; i < n; ++i) hashes[i] = internal::HashKeyTiered(keys[begin + i], seed_);
    MayContainHashBatch({hashes, n}, out.subspan(begin, n));
  }
}

}  // namespace linebloom
