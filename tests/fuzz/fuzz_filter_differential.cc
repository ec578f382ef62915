// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Differential fuzz target: the fuzzer chooses the filter parameters (bits
// per key, probes, seed, lead bytes and hash scheme; out-of-range values
// included) and the keys; the
// target builds the filter and checks
//  - no inserted key is ever reported absent, by any query path;
//  - the bytes equal the ones docs/FORMAT.md prescribes (reference_filter.h),
//    and are the same whether built by Finish, FinishInto or a reused builder;
//  - sizing and probe choice follow filter_format.h / filter_options.h;
//  - single, batch, hash and hash-batch queries agree on keys not inserted;
//  - when the SIMD kernels exist (linebloom/kernel.h), every kernel the CPU
//    supports builds byte-identical filters and gives identical answers.

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_kernels.h"
#include "fuzz_key_stream.h"
#include "linebloom/bloom_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_format.h"
#include "linebloom/filter_options.h"
#include "linebloom/filter_reader.h"
#include "support/reference_filter.h"

namespace linebloom {
namespace {

namespace ref = reference;

using fuzz::DistinctAdjacent;
using fuzz::Entry;
using fuzz::HashOf;
using fuzz::SplitMix64;

struct Case {
  FilterOptions options;
  size_t lead = 0;  // FilterBuilder::SetLeadBytes
  std::vector<Entry> inserted;
  std::vector<std::string> probes;  // keys queried but not (necessarily) inserted
};

Case ReadCase(FuzzedDataProvider& in) {
  Case c;
  c.options.bits_per_key = fuzz::ChooseBitsPerKey(in, kMinBitsPerKey, kMaxBitsPerKey, 0.5, 40.0);
  c.options.num_probes = in.ConsumeIntegralInRange<int>(-3, 30);
  c.options.seed = in.ConsumeIntegral<uint32_t>();
  // Lead bytes for one case in four, taken from the seed so that the corpus
  // keeps its meaning.
  if (c.options.seed % 4 == 3) c.lead = (c.options.seed >> 8) % 64;
  // Hash scheme 3 for half the seeds, likewise.
  if ((c.options.seed >> 16) % 2 == 1) c.options.hash_scheme = KeyHashScheme::kShortKeyMultiply;

  // Bulk keys: filters of up to 300 entries (up to ~24 blocks at 40 bits
  // per key) without a 300-key input. (More only slows the run: every
  // comparison inside the library is traced for the fuzzer.)
  // A hash whose low half is 0 or all ones lands on the first or last block.
  const uint16_t bulk = in.ConsumeIntegralInRange<uint16_t>(0, 300);
  uint64_t state = in.ConsumeIntegral<uint64_t>();
  for (uint16_t i = 0; i < bulk; ++i) {
    uint64_t h = SplitMix64(state);
    if (i % 97 == 0) h &= ~uint64_t{0xFFFFFFFF};
    if (i % 89 == 0) h |= 0xFFFFFFFF;
    c.inserted.push_back({.is_hash = true, .hash = h});
  }

  // Then the fuzzer's own keys.
  fuzz::ReadFuzzerKeys(in, c.options.seed, 12000, 80, &c.inserted, &c.probes);
  return c;
}

void AddAll(const Case& c, FilterBuilder& builder) {
  for (const Entry& e : c.inserted) {
    if (e.is_hash) builder.AddHash(e.hash);
    else builder.AddKey(e.key);
  }
}

void CheckOptions(const FilterOptions& o, int builder_probes) {
  const double c = o.EffectiveBitsPerKey();
  FUZZ_CHECK(c >= kMinBitsPerKey && c <= kMaxBitsPerKey, "bits per key clamped to [1, 100]");
  if (std::isnan(o.bits_per_key)) FUZZ_CHECK(c == 10.0, "NaN bits per key means 10");
  if (o.bits_per_key >= kMinBitsPerKey && o.bits_per_key <= kMaxBitsPerKey) {
    FUZZ_CHECK(c == o.bits_per_key, "in-range bits per key kept exactly");
  }
  const int k = o.EffectiveProbes();
  FUZZ_CHECK(k == builder_probes, "the builder uses EffectiveProbes");
  if (o.num_probes == 0) FUZZ_CHECK(k == OptimalBlockedProbes(c), "0 probes means the blocked optimum");
  else if (o.num_probes < kMinProbes) FUZZ_CHECK(k == kMinProbes, "probes clamped up");
  else if (o.num_probes > kMaxProbes) FUZZ_CHECK(k == kMaxProbes, "probes clamped down");
  else FUZZ_CHECK(k == o.num_probes, "in-range probes kept");
}

// The k a filter of num_keys keys in num_blocks blocks is built with
// (filter_format.h): fixed probes as given; else the optimum for the bits
// per key after rounding, c' = 512 num_blocks / num_keys -- the standard
// filter's in one block, the blocked filter's in several.
int ExpectedProbes(const FilterOptions& o, size_t num_keys, size_t num_blocks) {
  if (o.num_probes != 0 || num_keys == 0) return o.EffectiveProbes();
  const double actual = static_cast<double>(num_blocks) * 512 / static_cast<double>(num_keys);
  const int k = num_blocks == 1 ? OptimalStandardProbes(actual) : OptimalBlockedProbes(actual);
  return std::clamp(k, kMinProbes, kMaxProbes);
}

void CheckSize(size_t num_keys, double bits_per_key, size_t num_blocks) {
  FUZZ_CHECK((num_blocks == 0) == (num_keys == 0), "no blocks exactly when no keys");
  if (num_keys == 0) return;
  // The fewest 512-bit blocks holding num_keys * bits_per_key bits.
  const double bits = static_cast<double>(num_keys) * bits_per_key;
  FUZZ_CHECK(static_cast<double>(num_blocks) * 512 >= bits, "enough blocks for the bits");
  FUZZ_CHECK(num_blocks == 1 || static_cast<double>(num_blocks - 1) * 512 < bits, "no spare block");
}

// Every query path on `reader`, for every inserted entry and every probe.
// Returns the answers to the probes (for comparison across kernels).
std::vector<bool> CheckQueries(const Case& c, std::string_view bytes, const FilterReader& reader) {
  const uint32_t seed = c.options.seed;
  const int scheme = static_cast<int>(c.options.hash_scheme);
  std::vector<std::string_view> keys;
  std::vector<uint64_t> hashes;
  for (const Entry& e : c.inserted) {
    hashes.push_back(HashOf(e, seed, scheme));
    if (e.is_hash) {
      FUZZ_CHECK(reader.MayContainHash(e.hash), "no false negative (MayContainHash)");
    } else {
      keys.push_back(e.key);
      FUZZ_CHECK(reader.MayContain(e.key), "no false negative (MayContain)");
    }
  }
  auto answers = std::make_unique<bool[]>(std::max(keys.size(), hashes.size()) + 1);
  reader.MayContainBatch(keys, std::span<bool>(answers.get(), keys.size()));
  for (size_t i = 0; i < keys.size(); ++i) FUZZ_CHECK(answers[i], "no false negative (MayContainBatch)");
  reader.MayContainHashBatch(hashes, std::span<bool>(answers.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) FUZZ_CHECK(answers[i], "no false negative (MayContainHashBatch)");

  std::vector<std::string_view> probe_keys(c.probes.begin(), c.probes.end());
  std::vector<uint64_t> probe_hashes;
  for (const std::string& k : c.probes) probe_hashes.push_back(ref::Hash(k, seed, scheme));
  auto batch = std::make_unique<bool[]>(probe_keys.size() + 1);
  auto hash_batch = std::make_unique<bool[]>(probe_keys.size() + 1);
  reader.MayContainBatch(probe_keys, std::span<bool>(batch.get(), probe_keys.size()));
  reader.MayContainHashBatch(probe_hashes, std::span<bool>(hash_batch.get(), probe_keys.size()));
  std::vector<bool> out;
  for (size_t i = 0; i < probe_keys.size(); ++i) {
    const bool single = reader.MayContain(probe_keys[i]);
    FUZZ_CHECK(single == reader.MayContainHash(probe_hashes[i]), "MayContain == MayContainHash");
    FUZZ_CHECK(single == batch[i], "MayContainBatch == MayContain");
    FUZZ_CHECK(single == hash_batch[i], "MayContainHashBatch == MayContain");
    FUZZ_CHECK(
        single == ref::MayContainHash(bytes.substr(c.lead), reader.num_blocks(), reader.num_probes(), probe_hashes[i]),
        "answers follow the format");
    out.push_back(single);
  }
  return out;
}

// Builds with the current kernel, checks everything, returns the bytes and
// (in *answers) the probe answers.
std::string BuildAndCheck(const Case& c, std::vector<bool>* answers) {
  FilterBuilder builder(c.options);
  builder.SetLeadBytes(c.lead);
  CheckOptions(c.options, builder.num_probes());
  AddAll(c, builder);
  const int scheme = static_cast<int>(c.options.hash_scheme);
  const std::vector<uint64_t> distinct = DistinctAdjacent(c.inserted, c.options.seed, scheme);
  FUZZ_CHECK(builder.NumKeys() == distinct.size(), "NumKeys counts entries minus adjacent repeats");
  const size_t num_blocks = NumBlocksFor(distinct.size(), c.options.EffectiveBitsPerKey());
  CheckSize(distinct.size(), c.options.EffectiveBitsPerKey(), num_blocks);
  const int num_probes = ExpectedProbes(c.options, distinct.size(), num_blocks);
  FUZZ_CHECK(ProbesFor(c.options, distinct.size()) == num_probes, "k is chosen after rounding to whole blocks");
  FUZZ_CHECK(builder.num_probes() == num_probes, "the builder reports the k Finish uses");
  FUZZ_CHECK(builder.FinishedSize() == c.lead + num_blocks * ref::kBlockBytes + ref::kTrailerBytes,
             "FinishedSize is lead plus blocks plus trailer");

  std::string into(builder.FinishedSize(), '\0');
  builder.FinishInto(into);
  FUZZ_CHECK(builder.NumKeys() == 0, "FinishInto resets the builder");
  AddAll(c, builder);  // the reset builder, reused
  const std::string bytes = builder.Finish();
  FUZZ_CHECK(bytes == into, "Finish == FinishInto, and a reused builder builds the same filter");
  FUZZ_CHECK(bytes == ref::Build(distinct, num_blocks, num_probes, c.options.seed, c.lead, scheme),
             "the bytes are the ones FORMAT.md prescribes");

  FilterReader reader;
  FUZZ_CHECK(FilterReader::Parse(bytes, &reader).ok(), "a built filter parses");
  FUZZ_CHECK(reader.num_blocks() == num_blocks && reader.num_probes() == num_probes &&
                 reader.seed() == c.options.seed && reader.hash_scheme() == c.options.hash_scheme,
             "the reader sees the builder's parameters");
  FUZZ_CHECK(num_blocks == 0 || reader.blocks().data() == bytes.data() + c.lead, "the blocks start after the lead");
  *answers = CheckQueries(c, bytes, reader);
  return bytes;
}

// Every supported kernel must build the same bytes and answer the same.
void CheckKernelsAgree(const Case& c, const std::string& bytes, const std::vector<bool>& answers) {
  fuzz::ForEachOtherKernel([&] {
    std::vector<bool> kernel_answers;
    const std::string kernel_bytes = BuildAndCheck(c, &kernel_answers);
    FUZZ_CHECK(kernel_bytes == bytes, "every kernel builds the same bytes");
    FUZZ_CHECK(kernel_answers == answers, "every kernel gives the same answers");
  });
}

}  // namespace
}  // namespace linebloom

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linebloom;
  FuzzedDataProvider in(data, size);
  const Case c = ReadCase(in);
  std::vector<bool> answers;
  const std::string bytes = BuildAndCheck(c, &answers);
  CheckKernelsAgree(c, bytes, answers);
  return 0;
}
