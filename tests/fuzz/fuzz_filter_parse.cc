// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Fuzz target: arbitrary bytes handed to FilterReader::Parse, as they would
// come from a damaged or hostile file.
//
// The whole input is the candidate filter (so any filter file is a seed).
// Properties, besides "no crash, no sanitizer report":
//  - Parse accepts or rejects exactly as docs/FORMAT.md says, with the error
//    of the first failing check, with and without checksum verification;
//  - a failed Parse leaves the reader untouched;
//  - an accepted filter reports the trailer's fields, and every query
//    (single, hash, batch, hash batch) answers what the format says, on keys
//    and hashes cut from the input itself, under every probe kernel;
//  - the set operations on it neither crash nor change its blocks.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_kernels.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"
#include "linebloom/filter_set_ops.h"
#include "support/reference_filter.h"

namespace linebloom {
namespace {

namespace ref = reference;

// The 1-based index of `e` in FORMAT.md's table of reader checks.
int CheckIndex(ParseError e) {
  switch (e) {
    case ParseError::kOk: return 0;
    case ParseError::kTooShort: return 1;
    case ParseError::kBadMagic: return 2;
    case ParseError::kUnsupportedVersion: return 3;
    case ParseError::kBadHashScheme: return 4;
    case ParseError::kBadProbes: return 5;
    case ParseError::kBadReservedField: return 6;
    case ParseError::kBadLeadBytes: return 6;
    case ParseError::kBadSize: return 7;
    case ParseError::kTooManyBlocks: return 8;
    case ParseError::kChecksumMismatch: return 9;
    // The compact reader's own checks: a Bloom parse never reports them.
    case ParseError::kBadFingerprintBits:
    case ParseError::kBadLayers: return -1;
  }
  return -1;
}

// A small valid filter the reader holds before each Parse, to detect a
// failed Parse that still modified it.
const std::string& SentinelFilter() {
  static const std::string bytes = [] {
    FilterBuilder b({.bits_per_key = 10, .seed = 77});
    for (int i = 0; i < 100; ++i) b.AddKey(std::string("sentinel").append(std::to_string(i)));
    return b.Finish();
  }();
  return bytes;
}

FilterReader SentinelReader() {
  FilterReader r;
  const bool ok = FilterReader::Parse(SentinelFilter(), &r).ok();
  FUZZ_CHECK(ok, "the sentinel filter parses");
  return r;
}

bool SameView(const FilterReader& a, const FilterReader& b) {
  return a.blocks().data() == b.blocks().data() && a.num_blocks() == b.num_blocks() &&
         a.num_probes() == b.num_probes() && a.seed() == b.seed() && a.hash_scheme() == b.hash_scheme();
}

// Parses with one setting and checks the verdict against the format.
// Returns true (and fills *out) if the bytes were accepted.
bool ParseAndCheckVerdict(std::string_view bytes, bool verify, FilterReader* out) {
  const FilterReader sentinel = SentinelReader();
  FilterReader reader = sentinel;
  const ParseResult result = FilterReader::Parse(bytes, &reader, {.verify_checksum = verify});
  FUZZ_CHECK(CheckIndex(result.error) == ref::FirstFailingCheck(bytes, verify),
             "Parse reports the first failing check of FORMAT.md");
  FUZZ_CHECK(result.message() != nullptr && result.message()[0] != '\0', "every verdict has a message");
  if (!result.ok()) {
    FUZZ_CHECK(SameView(reader, sentinel), "a failed Parse leaves the reader unchanged");
    return false;
  }
  *out = reader;
  return true;
}

// Keys cut from the input: the empty key, then windows of growing length at
// spread-out offsets. More than 32 of them, so batches span two chunks.
std::vector<std::string_view> KeysFrom(std::string_view bytes) {
  std::vector<std::string_view> keys{std::string_view()};
  for (size_t i = 1; i < 80 && !bytes.empty(); ++i) {
    const size_t offset = (i * 131) % bytes.size();
    keys.push_back(bytes.substr(offset, i % 40));
  }
  return keys;
}

// Hashes cut from the input: its 8-byte words, plus the edge values.
std::vector<uint64_t> HashesFrom(std::string_view bytes) {
  std::vector<uint64_t> hashes{0, ~uint64_t{0}, 0xFFFFFFFFu, uint64_t{0xFFFFFFFF} << 32};
  for (size_t at = 0; at + 8 <= bytes.size() && hashes.size() < 100; at += 8) {
    uint64_t h;
    std::memcpy(&h, bytes.data() + at, 8);
    hashes.push_back(h);
  }
  return hashes;
}

void CheckQueries(std::string_view bytes, const FilterReader& reader) {
  const auto expected = [&](uint64_t h) {
    return ref::MayContainHash(bytes.substr(ref::LeadBytes(bytes)), reader.num_blocks(), reader.num_probes(), h);
  };

  const std::vector<std::string_view> keys = KeysFrom(bytes);
  auto batch = std::make_unique<bool[]>(keys.size());
  reader.MayContainBatch(keys, std::span<bool>(batch.get(), keys.size()));
  for (size_t i = 0; i < keys.size(); ++i) {
    const bool single = reader.MayContain(keys[i]);
    FUZZ_CHECK(single == expected(ref::Hash(keys[i], reader.seed(), static_cast<int>(reader.hash_scheme()))),
               "MayContain follows the format");
    FUZZ_CHECK(batch[i] == single, "MayContainBatch == MayContain");
  }

  const std::vector<uint64_t> hashes = HashesFrom(bytes);
  auto hash_batch = std::make_unique<bool[]>(hashes.size());
  reader.MayContainHashBatch(hashes, std::span<bool>(hash_batch.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) {
    const bool single = reader.MayContainHash(hashes[i]);
    FUZZ_CHECK(single == expected(hashes[i]), "MayContainHash follows the format");
    FUZZ_CHECK(hash_batch[i] == single, "MayContainHashBatch == MayContainHash");
  }
}

void CheckSetOps(const FilterReader& reader) {
  uint64_t popcount = 0;
  for (unsigned char c : reader.blocks()) popcount += std::popcount(static_cast<unsigned>(c));
  FUZZ_CHECK(CountSetBits(reader) == popcount, "CountSetBits counts the set bits");
  (void)EstimateKeyCount(reader);  // may be +inf for a full filter; must not crash

  // A filter united or intersected with itself keeps its blocks.
  for (auto op : {&UnionFilters, &IntersectFilters}) {
    const std::optional<std::string> combined = op(reader, reader);
    FUZZ_CHECK(combined.has_value(), "a filter combines with itself");
    FilterReader r;
    FUZZ_CHECK(FilterReader::Parse(*combined, &r).ok(), "a combined filter parses");
    FUZZ_CHECK(r.blocks() == reader.blocks(), "A op A has the blocks of A");
    FUZZ_CHECK(
        r.num_probes() == reader.num_probes() && r.seed() == reader.seed() && r.hash_scheme() == reader.hash_scheme(),
        "A op A keeps probes, seed and hash scheme");
  }
  FUZZ_CHECK(EstimateUnionSize(reader, reader).has_value(), "union size of A and A");
  FUZZ_CHECK(EstimateIntersectionSize(reader, reader).has_value(), "intersection size of A and A");
}

}  // namespace
}  // namespace linebloom

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linebloom;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  FilterReader checked, unchecked;
  const bool ok_checked = ParseAndCheckVerdict(bytes, /*verify=*/true, &checked);
  const bool ok_unchecked = ParseAndCheckVerdict(bytes, /*verify=*/false, &unchecked);
  FUZZ_CHECK(!ok_checked || ok_unchecked, "verification only ever rejects more");
  if (!ok_unchecked) return 0;

  // The reader is a view of the trailer's fields over the caller's bytes.
  const auto* trailer = data + size - reference::kTrailerBytes;
  // (An empty filter may view a static zero block instead: nothing to read.)
  const size_t lead = reference::LeadBytes(bytes);
  FUZZ_CHECK(unchecked.num_blocks() == 0 || unchecked.blocks().data() == bytes.data() + lead,
             "the reader views the caller's bytes after the lead");
  FUZZ_CHECK(unchecked.num_blocks() == (size - reference::kTrailerBytes - lead) / reference::kBlockBytes,
             "num_blocks is (size - 16 - lead) / 64");
  FUZZ_CHECK(unchecked.num_probes() == trailer[4], "num_probes is the trailer's k");
  FUZZ_CHECK(unchecked.seed() == reference::Le32(trailer), "seed is the trailer's seed");

  // Without verification a corrupt body is still read: queries must stay
  // inside the bytes and answer what the (damaged) bits say.
  CheckQueries(bytes, unchecked);
  fuzz::ForEachOtherKernel([&] { CheckQueries(bytes, unchecked); });
  CheckSetOps(unchecked);
  return 0;
}
