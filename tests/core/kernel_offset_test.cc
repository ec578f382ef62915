// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Every probe kernel answers as the reference AllProbesSet on blocks placed
// at every offset from a cache line: a filter may start anywhere (RocksDB's
// buffers are 16-byte aligned, lead bytes shift the first block), and then
// each block straddles two lines. Single queries and batches (whose
// prefetches cover both lines) of every kernel the CPU has, at every k, on
// blocks from sparse to nearly full; kernels the CPU lacks are skipped.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "block_probe.h"
#include "filter_query.h"
#include "linebloom/kernel.h"

namespace linebloom::internal {
namespace {

constexpr size_t kBlocks = 29;
constexpr size_t kQueries = 3000;

// kBlocks blocks at `off` bytes past a line, of random bits each set with
// probability `fill`, amid random bytes.
class PlacedBlocks {
 public:
  PlacedBlocks(size_t off, double fill, uint32_t seed) : bytes_((kBlocks + 3) * kFilterBlockBytes) {
    const size_t to_line =
        (kFilterBlockBytes - reinterpret_cast<uintptr_t>(bytes_.data()) % kFilterBlockBytes) % kFilterBlockBytes;
    blocks_ = bytes_.data() + to_line + off;
    std::mt19937 rng(seed);
    std::bernoulli_distribution bit(fill);
    for (unsigned char& byte : bytes_) byte = static_cast<unsigned char>(rng());
    for (size_t i = 0; i < kBlocks * kFilterBlockBytes; ++i) {
      unsigned char byte = 0;
      for (int b = 0; b < 8; ++b) byte |= static_cast<unsigned char>(bit(rng) << b);
      blocks_[i] = byte;
    }
  }
  const unsigned char* blocks() const { return blocks_; }

 private:
  std::vector<unsigned char> bytes_;
  unsigned char* blocks_ = nullptr;
};

std::vector<bool> Reference(const PlacedBlocks& placed, const std::vector<uint64_t>& hashes, int k) {
  std::vector<bool> answers;
  for (uint64_t h : hashes) {
    answers.push_back(AllProbesSet(placed.blocks() + BlockIndex(h, kBlocks) * kFilterBlockBytes, ProbeState(h), k));
  }
  return answers;
}

template <typename Probe>
std::vector<bool> Singles(const PlacedBlocks& placed, const std::vector<uint64_t>& hashes, int k, Probe probe) {
  std::vector<bool> answers;
  for (uint64_t h : hashes) answers.push_back(QueryHash(placed.blocks(), kBlocks, k, h, probe));
  return answers;
}

// The answers of the pipelined batch, each chunk probed by probe_chunk.
template <typename ProbeChunkFn>
std::vector<bool> Batch(const PlacedBlocks& placed, const std::vector<uint64_t>& hashes, ProbeChunkFn probe_chunk) {
  std::unique_ptr<bool[]> out(new bool[hashes.size()]);
  QueryPipelined(
      placed.blocks(), kBlocks, hashes.size(), out.get(), [&](size_t i) { return hashes[i]; }, probe_chunk);
  return std::vector<bool>(out.get(), out.get() + hashes.size());
}

TEST(KernelOffsetTest, EveryKernelAnswersAsTheReferenceAtEveryOffset) {
  size_t positives = 0, answers = 0;
  for (size_t off = 0; off < kFilterBlockBytes; ++off) {
    for (double fill : {0.3, 0.5, 0.85}) {
      const PlacedBlocks placed(off, fill, static_cast<uint32_t>(off * 7 + fill * 100));
      std::mt19937_64 rng(off + 1);
      std::vector<uint64_t> hashes(kQueries);
      for (uint64_t& h : hashes) h = rng();
      for (int k = kMinProbes; k <= kMaxProbes; ++k) {
        const std::vector<bool> expected = Reference(placed, hashes, k);
        for (bool e : expected) positives += e;
        answers += expected.size();
        const std::string at =
            "off " + std::to_string(off) + " fill " + std::to_string(fill) + " k " + std::to_string(k);
        ASSERT_EQ(Singles(placed, hashes, k, PortableProbe{}), expected) << "portable " << at;
        ASSERT_EQ(
            Batch(placed, hashes,
                  [k](const PrefetchedChunk& chunk, size_t n, bool* out) { ProbeChunkPortable(chunk, n, k, out); }),
            expected)
            << "portable " << at;
#if defined(__x86_64__)
        if (KernelSupported(Kernel::kAvx2)) {
          ASSERT_EQ(Singles(placed, hashes, k, Avx2Probe{}), expected) << "avx2 " << at;
          ASSERT_EQ(Batch(placed, hashes,
                          [k](const PrefetchedChunk& chunk, size_t n, bool* out) { ProbeChunkAvx2(chunk, n, k, out); }),
                    expected)
              << "avx2 " << at;
        }
        if (KernelSupported(Kernel::kAvx512)) {
          ASSERT_EQ(Singles(placed, hashes, k, Avx512Probe{}), expected) << "avx512 " << at;
          ASSERT_EQ(
              Batch(placed, hashes,
                    [k](const PrefetchedChunk& chunk, size_t n, bool* out) { ProbeChunkAvx512(chunk, n, k, out); }),
              expected)
              << "avx512 " << at;
        }
#endif
      }
    }
  }
  // Both answers are well represented (the fills above give both).
  EXPECT_GT(positives, answers / 20);
  EXPECT_LT(positives, answers - answers / 20);
}

}  // namespace
}  // namespace linebloom::internal
