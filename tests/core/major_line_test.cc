// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Every probe kernel, on blocks placed at every offset from a cache line
// (a filter may start anywhere), answers as the reference AllProbesSet:
// the whole-block kernels, and the major-line kernels (major_line.h), single
// and batched, which test the same probes in another order. Kernels the CPU
// lacks are skipped. The buffers keep a line of slack on both sides, so the
// major-line kernels' aligned loads stay inside them.

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
#include "major_line.h"

namespace linebloom::internal {
namespace {

constexpr size_t kBlocks = 29;
constexpr size_t kQueries = 3000;

// kBlocks blocks at `off` bytes past a line, of random bits each set with
// probability `fill`, with a line of slack before and after.
class PlacedBlocks {
 public:
  PlacedBlocks(size_t off, double fill, uint32_t seed) : bytes_((kBlocks + 4) * kFilterBlockBytes) {
    unsigned char* const base = bytes_.data() + (kFilterBlockBytes - LineOffset(bytes_.data())) % kFilterBlockBytes;
    blocks_ = base + kFilterBlockBytes + off;
    std::mt19937 rng(seed);
    std::bernoulli_distribution bit(fill);
    for (unsigned char& byte : bytes_) byte = static_cast<unsigned char>(rng());  // slack: noise
    for (size_t i = 0; i < kBlocks * kFilterBlockBytes; ++i) {
      unsigned char byte = 0;
      for (int b = 0; b < 8; ++b) byte |= static_cast<unsigned char>(bit(rng) << b);
      blocks_[i] = byte;
    }
  }
  const unsigned char* blocks() const { return blocks_; }
  bool Expected(uint64_t hash, int k) const {
    return AllProbesSet(blocks_ + BlockIndex(hash, kBlocks) * kFilterBlockBytes, ProbeState(hash), k);
  }

 private:
  std::vector<unsigned char> bytes_;
  unsigned char* blocks_ = nullptr;
};

struct Case {
  size_t off;
  double fill;
  int k;
  std::string Name() const {
    return "off " + std::to_string(off) + " fill " + std::to_string(fill) + " k " + std::to_string(k);
  }
};

// Runs check(placed, hashes, expected, case) over every offset 0..63, three
// fills (mostly negative to mostly positive answers) and every k.
template <typename Check>
void ForEveryPlacement(int max_k, Check check) {
  for (size_t off = 0; off < kFilterBlockBytes; ++off) {
    for (double fill : {0.3, 0.5, 0.85}) {
      const PlacedBlocks placed(off, fill, static_cast<uint32_t>(off * 7 + fill * 100));
      std::mt19937_64 rng(off + 1);
      std::vector<uint64_t> hashes(kQueries);
      for (uint64_t& h : hashes) h = rng();
      for (int k = kMinProbes; k <= max_k; ++k) {
        std::vector<bool> expected;
        for (uint64_t h : hashes) expected.push_back(placed.Expected(h, k));
        check(placed, hashes, expected, Case{off, fill, k});
      }
    }
  }
}

// The answers of a batch staged by `lines` and probed by probe_chunk.
template <typename Lines, typename ProbeChunkFn>
std::vector<bool> Batch(const Lines& lines, const std::vector<uint64_t>& hashes, ProbeChunkFn probe_chunk) {
  std::unique_ptr<bool[]> out(new bool[hashes.size()]);
  QueryPipelined(
      lines, hashes.size(), out.get(), [&](size_t i) { return hashes[i]; }, probe_chunk);
  return std::vector<bool>(out.get(), out.get() + hashes.size());
}

template <typename Probe>
std::vector<bool> Singles(const unsigned char* base, const std::vector<uint64_t>& hashes, int k, Probe probe) {
  std::vector<bool> answers;
  for (uint64_t h : hashes) answers.push_back(QueryHash(base, kBlocks, k, h, probe));
  return answers;
}

TEST(MajorLineTest, PortableMajorFirstAnswersAsTheReference) {
  ForEveryPlacement(kMaxProbes, [](const PlacedBlocks& placed, const std::vector<uint64_t>& hashes,
                                   const std::vector<bool>& expected, const Case& c) {
    const MajorLines lines = MajorLinesOf(placed.blocks());
    ASSERT_EQ(Singles(lines.first, hashes, c.k, PortableMajorFirstProbe{lines}), expected) << c.Name();
    const auto batch =
        Batch(MajorLinesOfBlocks{lines.first, kBlocks}, hashes, [&](const PrefetchedChunk& chunk, size_t n, bool* out) {
          ProbeChunkMajorFirstPortable(chunk, n, c.k, lines, out);
        });
    ASSERT_EQ(batch, expected) << c.Name();
  });
}

TEST(MajorLineTest, WholeBlockKernelsAnswerAsTheReferenceAtEveryOffset) {
  ForEveryPlacement(kMaxProbes, [](const PlacedBlocks& placed, const std::vector<uint64_t>& hashes,
                                   const std::vector<bool>& expected, const Case& c) {
    ASSERT_EQ(Singles(placed.blocks(), hashes, c.k, PortableProbe{}), expected) << c.Name();
#if defined(__x86_64__)
    const WholeBlocks whole{placed.blocks(), kBlocks};
    if (KernelSupported(Kernel::kAvx2)) {
      ASSERT_EQ(Singles(placed.blocks(), hashes, c.k, Avx2Probe{}), expected) << "avx2 " << c.Name();
      ASSERT_EQ(Batch(whole, hashes,
                      [&](const PrefetchedChunk& chunk, size_t n, bool* out) { ProbeChunkAvx2(chunk, n, c.k, out); }),
                expected)
          << "avx2 " << c.Name();
    }
    if (KernelSupported(Kernel::kAvx512)) {
      ASSERT_EQ(Singles(placed.blocks(), hashes, c.k, Avx512Probe{}), expected) << "avx512 " << c.Name();
      ASSERT_EQ(Batch(whole, hashes,
                      [&](const PrefetchedChunk& chunk, size_t n, bool* out) { ProbeChunkAvx512(chunk, n, c.k, out); }),
                expected)
          << "avx512 " << c.Name();
    }
#endif
  });
}

#if defined(__x86_64__)
// A major-line kernel of `lanes` lanes, single and batched, against the
// reference. powers_row(k) is the kernel's row of kOneRound*Powers for k
// probes.
template <typename Probe, typename PowersRow, typename ProbeChunkFn>
void ExpectMajorFirstKernel(int lanes, PowersRow powers_row, ProbeChunkFn probe_chunk) {
  ForEveryPlacement(lanes, [&](const PlacedBlocks& placed, const std::vector<uint64_t>& hashes,
                               const std::vector<bool>& expected, const Case& c) {
    const MajorLines lines = MajorLinesOf(placed.blocks());
    ASSERT_EQ(Singles(lines.first, hashes, c.k, Probe(powers_row(c.k), lines)), expected) << c.Name();
    const auto batch = Batch(
        MajorLinesOfBlocks{lines.first, kBlocks}, hashes,
        [&](const PrefetchedChunk& chunk, size_t n, bool* out) { probe_chunk(chunk, n, powers_row(c.k), lines, out); });
    ASSERT_EQ(batch, expected) << c.Name();
  });
}
#endif

TEST(MajorLineTest, Avx512MajorFirstAnswersAsTheReference) {
#if defined(__x86_64__)
  if (!KernelSupported(Kernel::kAvx512)) GTEST_SKIP() << "CPU has no AVX-512F";
  ExpectMajorFirstKernel<Avx512MajorFirstProbe>(
      kOneRoundPowers512.kLanes, [](int k) { return kOneRoundPowers512.value[k]; }, ProbeChunkMajorFirstAvx512);
#else
  GTEST_SKIP() << "not x86-64";
#endif
}

TEST(MajorLineTest, Avx2MajorFirstAnswersAsTheReference) {
#if defined(__x86_64__)
  if (!KernelSupported(Kernel::kAvx2)) GTEST_SKIP() << "CPU has no AVX2";
  ExpectMajorFirstKernel<Avx2MajorFirstProbe>(
      kOneRoundPowers.kLanes, [](int k) { return kOneRoundPowers.value[k]; }, ProbeChunkMajorFirstAvx2);
#else
  GTEST_SKIP() << "not x86-64";
#endif
}

}  // namespace
}  // namespace linebloom::internal
