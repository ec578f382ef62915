// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Differential fuzz target for the compact filter (format versions 3 to 8),
// against the independent model of docs/FORMAT.md
// (tests/support/reference_compact.h). The first input byte picks one of:
//  (a) even: the rest of the input is a filter, as read from a damaged or
//      hostile file. CompactFilterReader::Parse accepts or rejects it as
//      the model's reader checks do, with the error of the first failing
//      check, with and without checksum verification, and a failed Parse
//      leaves the reader untouched; DetectFilterKind and the Bloom reader
//      agree with the trailer's version byte. When it parses (checksum
//      off), every query (single, hash, batch) on keys and hashes cut from
//      the input answers what the model answers.
//  (b) odd: the rest is a key set (fuzzer keys and raw hashes, plus bulk
//      hashes), a bits-per-key setting (NaN, +-inf and out-of-range values
//      included), a seed, a layer limit, lead bytes (0..63, from the
//      seed's high bits, so that the corpus keeps its meaning), the extra
//      planes (1 or 4) and whether shapes may be mixed (other bits of the
//      seed). The target builds the filter and checks: no stored key is
//      ever answered "no" by any path, or by the model; the reader answers
//      as the model on absent keys; the layer table, the sections and r
//      are what FORMAT.md says the builder writes (CompactShapeFor,
//      ceil(n_i / lambda) per layer), and the bits after the planes are 0;
//      the lead is L zero bytes; the version is 3, 5 or 7 (one extra
//      plane, several, a mixed shape), one more iff L > 0; a reused
//      builder writes the same bytes; a build over the layer limit is a
//      Bloom filter of the same keys.
// Kernels: the query checks of (a) and (b), the fallback's included, run
// under every probe kernel the CPU supports (portable, AVX2, AVX-512), the
// active one first, on the same reader (a reader reads the kernel at each
// query); under the AVX2 kernel, where the CPU has VPCLMULQDQ, they run
// again with the AVX2 form without it (PCLMULQDQ only), on a reader parsed
// anew with the form switched off (a reader takes its form at Parse). In
// (b) the builder of every other supported kernel (its line solver:
// portable or AVX2 Gauss-Jordan, AVX-512 sweep) writes the same bytes as
// the active kernel's. The active kernel and the VPCLMULQDQ switch are
// restored.

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_kernels.h"
#include "fuzz_key_stream.h"
#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_reader.h"
#include "linebloom/kernel.h"

#include "compact_planes.h"
#include "support/compact_checks.h"
#include "support/reference_compact.h"

namespace linebloom {
namespace {

namespace model = reference::compact;

// The VPCLMULQDQ switch back on, however its scope is left.
class VpclmulRestorer {
 public:
  ~VpclmulRestorer() { internal::compact::EnableCompactVpclmulForTesting(true); }
};

// Where the AVX2 kernel is active and the CPU has VPCLMULQDQ (so the
// readers parsed so far take the form with it): check(reader) on a reader
// of `bytes` parsed with the form without it.
template <typename Check>
void AgainWithoutVpclmul(std::string_view bytes, ParseOptions options, Check check) {
  if (ActiveKernel() != Kernel::kAvx2 || !internal::compact::CompactVpclmulSupported()) return;
  VpclmulRestorer restore;
  internal::compact::EnableCompactVpclmulForTesting(false);
  CompactFilterReader reader;
  FUZZ_CHECK(CompactFilterReader::Parse(bytes, &reader, options).ok(), "it parses again without VPCLMULQDQ");
  check(reader);
}

// check(reader) under every supported kernel, the active one first, and
// under the AVX2 kernel also without VPCLMULQDQ.
template <typename Check>
void UnderEveryKernel(std::string_view bytes, ParseOptions options, const CompactFilterReader& reader, Check check) {
  const auto both_forms = [&] {
    check(reader);
    AgainWithoutVpclmul(bytes, options, check);
  };
  both_forms();
  fuzz::ForEachOtherKernel(both_forms);
}

// ---- (a) bytes as a filter ----

struct Sentinel {
  std::string bytes;
  CompactFilterReader reader;
};

const Sentinel& TheSentinel() {
  static const Sentinel* s = [] {
    auto* out = new Sentinel;
    CompactFilterBuilder b({.bits_per_key = 9, .seed = 77});
    for (int i = 0; i < 300; ++i) b.AddKey("sentinel" + std::to_string(i));
    out->bytes = b.Finish();
    FUZZ_CHECK(CompactFilterReader::Parse(out->bytes, &out->reader).ok(), "the sentinel filter parses");
    return out;
  }();
  return *s;
}

bool Unchanged(const CompactFilterReader& r) {
  const CompactFilterReader& s = TheSentinel().reader;
  if (r.num_layers() != s.num_layers() || r.fingerprint_bits() != s.fingerprint_bits() || r.seed() != s.seed()) {
    return false;
  }
  for (int i = 0; i < s.num_layers(); ++i) {
    if (r.num_lines(i) != s.num_lines(i)) return false;
  }
  return r.MayContain("sentinel0") && r.MayContain("sentinel299");
}

bool ParseAndCheckVerdict(std::string_view bytes, bool verify, CompactFilterReader* out) {
  CompactFilterReader reader = TheSentinel().reader;
  const ParseResult result = CompactFilterReader::Parse(bytes, &reader, {.verify_checksum = verify});
  FUZZ_CHECK(result.error == model::ExpectedParseError(bytes, verify),
             "Parse reports the first failing check of FORMAT.md");
  FUZZ_CHECK(result.message() != nullptr && result.message()[0] != '\0', "every verdict has a message");
  if (!result.ok()) {
    FUZZ_CHECK(Unchanged(reader), "a failed Parse leaves the reader unchanged");
    return false;
  }
  *out = reader;
  return true;
}

// Queries cut from the input: windows of it as keys, its 8-byte words and
// the edge values as hashes.
void CheckQueriesFromInput(std::string_view bytes, const CompactFilterReader& reader, const model::Filter& f) {
  std::vector<std::string_view> keys{std::string_view()};
  for (size_t i = 1; i < 48 && !bytes.empty(); ++i) keys.push_back(bytes.substr((i * 97) % bytes.size(), i % 33));
  auto batch = std::make_unique<bool[]>(keys.size());
  reader.MayContainBatch(keys, std::span<bool>(batch.get(), keys.size()));
  for (size_t i = 0; i < keys.size(); ++i) {
    const bool single = reader.MayContain(keys[i]);
    FUZZ_CHECK(single == model::MayContain(f, keys[i]), "MayContain follows the format");
    FUZZ_CHECK(batch[i] == single, "MayContainBatch == MayContain");
  }
  std::vector<uint64_t> hashes{0, ~uint64_t{0}, uint64_t{1} << 63, 0xFFFFFFFFu};
  for (size_t at = 0; at + 8 <= bytes.size() && hashes.size() < 64; at += 8) {
    uint64_t h;
    std::memcpy(&h, bytes.data() + at, 8);
    hashes.push_back(h);
  }
  for (uint64_t h : hashes) FUZZ_CHECK(reader.MayContainHash(h) == model::MayContainHash(f, h), "hash query");
}

void CheckBytesAsFilter(std::string_view bytes) {
  CompactFilterReader checked, unchecked;
  const bool ok_checked = ParseAndCheckVerdict(bytes, /*verify=*/true, &checked);
  const bool ok_unchecked = ParseAndCheckVerdict(bytes, /*verify=*/false, &unchecked);
  FUZZ_CHECK(!ok_checked || ok_unchecked, "verification only ever rejects more");
  const FilterKind kind = model::ExpectedKind(bytes);
  FUZZ_CHECK(DetectFilterKind(bytes) == kind, "DetectFilterKind reads the version byte");
  if (kind == FilterKind::kCompact) {
    FilterReader bloom;
    FUZZ_CHECK(FilterReader::Parse(bytes, &bloom, {.verify_checksum = false}).error == ParseError::kUnsupportedVersion,
               "the Bloom reader rejects versions 3 to 6");
  }
  if (!ok_unchecked) return;
  model::Filter f;
  FUZZ_CHECK(model::Parse(bytes, /*verify_checksum=*/false, &f) == 0, "the model parses it too");
  FUZZ_CHECK(unchecked.num_layers() == static_cast<int>(f.lines.size()), "num_layers is M");
  FUZZ_CHECK(unchecked.fingerprint_bits() == f.r && unchecked.seed() == f.seed, "r and seed from the trailer");
  for (int i = 0; i < unchecked.num_layers(); ++i) FUZZ_CHECK(unchecked.num_lines(i) == f.lines[i], "L_i");
  UnderEveryKernel(bytes, {.verify_checksum = false}, unchecked,
                   [&](const CompactFilterReader& reader) { CheckQueriesFromInput(bytes, reader, f); });
}

// ---- (b) a key set, built ----

using fuzz::DistinctAdjacent;
using fuzz::Entry;
using fuzz::SplitMix64;

struct Case {
  double bits_per_key = 0;
  uint32_t seed = 0;
  int max_layers = 8;
  size_t lead = 0;
  int extra_planes = kCompactExtraPlanes;
  bool mixed = true;
  std::vector<Entry> inserted;
  std::vector<std::string> probes;
  uint64_t absent_state = 0;  // for absent raw hashes
};

Case ReadCase(FuzzedDataProvider& in) {
  Case c;
  c.bits_per_key = fuzz::ChooseBitsPerKey(in, kMinCompactBitsPerKey, kMaxCompactBitsPerKey, 4.0, 34.0);
  c.seed = in.ConsumeIntegral<uint32_t>();
  const uint8_t layers = in.ConsumeIntegral<uint8_t>();
  if (layers < 32) c.max_layers = 1 + layers % 8;
  // Half the builds without lead (version 3 or 5), half with 0..63 lead bytes.
  if ((c.seed >> 31) != 0) c.lead = (c.seed >> 24) % 64;
  // A quarter of the builds with one extra plane at most (versions 3, 4).
  if (((c.seed >> 20) & 3) == 0) c.extra_planes = kCompactExtraPlanesVersion3;
  // A quarter without mixed shapes (versions 3 to 6 only).
  if (((c.seed >> 18) & 3) == 0) c.mixed = false;
  // Bulk hashes: filters of several lines and layers without a large input,
  // and mixed shapes (from kMinMixedKeys keys) for most of those above 1,024.
  const uint16_t bulk = in.ConsumeIntegralInRange<uint16_t>(0, 2400);
  uint64_t state = in.ConsumeIntegral<uint64_t>();
  for (uint16_t i = 0; i < bulk; ++i) c.inserted.push_back({.is_hash = true, .hash = SplitMix64(state)});
  c.absent_state = state;
  fuzz::ReadFuzzerKeys(in, c.seed, 6000, 64, &c.inserted, &c.probes);
  // A filter of no keys is covered by compact_golden_test.
  if (c.inserted.empty()) c.inserted.push_back({.key = ""});
  return c;
}

std::string Build(const Case& c, CompactFilterBuilder& builder) {
  for (const Entry& e : c.inserted) {
    if (e.is_hash) builder.AddHash(e.hash);
    else builder.AddKey(e.key);
  }
  FUZZ_CHECK(builder.NumKeys() == DistinctAdjacent(c.inserted, c.seed).size(),
             "NumKeys counts entries minus adjacent repeats");
  std::string bytes = builder.Finish();
  FUZZ_CHECK(builder.NumKeys() == 0, "Finish resets the builder");
  return bytes;
}

void CheckBloomFallback(const Case& c, std::string_view bytes) {
  FUZZ_CHECK(DetectFilterKind(bytes) == FilterKind::kBloom, "a fallback is a Bloom filter");
  CompactFilterReader compact;
  FUZZ_CHECK(CompactFilterReader::Parse(bytes, &compact).error == ParseError::kUnsupportedVersion,
             "the compact reader rejects the fallback's version");
  FilterReader reader;
  FUZZ_CHECK(FilterReader::Parse(bytes, &reader).ok(), "the fallback parses");
  FUZZ_CHECK(static_cast<size_t>(bytes[bytes.size() - 10]) == c.lead && bytes[bytes.size() - 9] == (c.lead > 0 ? 2 : 1),
             "the fallback has the lead (Bloom version 2 iff L > 0)");
  for (const Entry& e : c.inserted) {
    FUZZ_CHECK(e.is_hash ? reader.MayContainHash(e.hash) : reader.MayContain(e.key), "no false negative (fallback)");
  }
}

// The layer table, the sections, r and the spare bits, as FORMAT.md says a
// builder writes them; `reaching[i]` is the number of keys that reach
// layer i, `distinct` the keys' hashes.
void CheckShape(const Case& c, const model::Filter& f, const std::vector<size_t>& reaching,
                const std::vector<uint64_t>& distinct, int version) {
  const CompactShape shape = CompactShapeFor(c.bits_per_key, reaching[0], c.extra_planes, c.mixed);
  FUZZ_CHECK(f.r == shape.fingerprint_bits, "r from CompactShapeFor");
  const bool many = shape.extra_planes > 1;
  const bool mixed = shape.low_share > 0;
  FUZZ_CHECK(!mixed || (c.mixed && many && reaching[0] >= kMinMixedKeys), "mixed only as allowed");
  const int plain = mixed ? model::kVersionMixed : many ? model::kVersionPlanes : model::kVersion;
  FUZZ_CHECK(version == plain + (c.lead > 0 ? 1 : 0),
             "version 3 for one extra plane, 7 for a mixed shape, else 5; one more iff there are lead bytes");
  FUZZ_CHECK(static_cast<int>(f.lines.size()) <= c.max_layers, "no more layers than allowed");
  size_t low_keys = 0;
  if (mixed) {
    FUZZ_CHECK(f.low_threshold == static_cast<uint32_t>(std::llround(shape.low_share * 4294967296.0)),
               "H = round(a 2^32)");
    for (uint64_t h : distinct) low_keys += (h & 0xFFFFFFFFu) < f.low_threshold;
    FUZZ_CHECK(f.low_lines == CompactLowSectionLines(low_keys, shape.low_keys_per_line),
               "L_low = round(n_low / lambda_low)");
  } else {
    FUZZ_CHECK(f.low_threshold == 0 && f.low_lines == 0, "no sections unless mixed");
  }
  uint64_t total = 0;
  for (size_t i = 0; i < f.lines.size(); ++i) {
    FUZZ_CHECK(reaching[i] > 0, "no layer without keys");
    const uint32_t low_lines = i == 0 ? f.low_lines : 0;
    FUZZ_CHECK(
        f.lines[i] - low_lines == CompactFirstLayerLines(reaching[i] - (i == 0 ? low_keys : 0), shape.keys_per_line),
        "L_i = ceil(n_i / lambda), layer 0's high section alike");
    total += f.lines[i];
  }
  for (uint64_t i = 0; i < total; ++i) {
    const unsigned char* line = f.bytes + i * model::kLineBytes;
    const int planes = model::PlanesOf(line, f);
    for (int bit = planes * (504 / planes); bit < 504; ++bit) FUZZ_CHECK(!model::Bit(line, bit), "spare bits are 0");
  }
}

// The reader's answers: every stored key found by every path, absent keys
// and hashes answered as the model answers.
void CheckAnswers(const Case& c, const CompactFilterReader& reader, const model::Filter& f) {
  std::vector<std::string_view> keys;
  for (const Entry& e : c.inserted) {
    FUZZ_CHECK(e.is_hash ? reader.MayContainHash(e.hash) : reader.MayContain(e.key), "no false negative");
    if (!e.is_hash) keys.push_back(e.key);
  }
  auto batch = std::make_unique<bool[]>(std::max(keys.size(), c.probes.size()) + 1);
  reader.MayContainBatch(keys, std::span<bool>(batch.get(), keys.size()));
  for (size_t i = 0; i < keys.size(); ++i) FUZZ_CHECK(batch[i], "no false negative (MayContainBatch)");

  const std::vector<std::string_view> probes(c.probes.begin(), c.probes.end());
  reader.MayContainBatch(probes, std::span<bool>(batch.get(), probes.size()));
  for (size_t i = 0; i < probes.size(); ++i) {
    const bool single = reader.MayContain(probes[i]);
    FUZZ_CHECK(single == batch[i], "MayContainBatch == MayContain");
    FUZZ_CHECK(single == model::MayContain(f, probes[i]), "absent keys answer as the model");
  }
  uint64_t state = c.absent_state;
  for (int i = 0; i < 64; ++i) {
    const uint64_t h = SplitMix64(state);
    FUZZ_CHECK(reader.MayContainHash(h) == model::MayContainHash(f, h), "absent hashes answer as the model");
  }
}

void CheckCompact(const Case& c, std::string_view bytes) {
  FUZZ_CHECK(DetectFilterKind(bytes) == FilterKind::kCompact, "a compact build is a compact filter");
  CompactFilterReader reader;
  FUZZ_CHECK(CompactFilterReader::Parse(bytes, &reader).ok(), "a built filter parses");
  model::Filter f;
  FUZZ_CHECK(model::Parse(bytes, /*verify_checksum=*/true, &f) == 0, "the model parses a built filter");
  FUZZ_CHECK(f.seed == c.seed, "the trailer's seed is the option's");
  FUZZ_CHECK(f.lead == c.lead, "the lead is the option's");
  FUZZ_CHECK(
      std::all_of(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(c.lead), [](char b) { return b == 0; }),
      "the lead bytes are zero");

  // Every stored key is answered by a layer; the model's full answer (one
  // bit at a time, slow) for the last 128 (the fuzzer's own keys come
  // after the bulk hashes) and 128 spread over the others.
  const std::vector<uint64_t> distinct = DistinctAdjacent(c.inserted, c.seed);
  const size_t stride = std::max<size_t>(1, distinct.size() / 128);
  std::vector<size_t> reaching(f.lines.size() + 1, 0);
  for (size_t k = 0; k < distinct.size(); ++k) {
    const int layer = model::AnsweringLayer(f, distinct[k]);
    FUZZ_CHECK(layer < static_cast<int>(f.lines.size()), "no stored key is bumped out of the last layer");
    for (int i = 0; i <= layer; ++i) ++reaching[i];
    if (k % stride == 0 || k + 128 >= distinct.size()) {
      FUZZ_CHECK(model::MayContainHash(f, distinct[k]), "the model answers stored keys true");
    }
  }
  CheckShape(c, f, reaching, distinct, static_cast<unsigned char>(bytes[bytes.size() - 9]));

  UnderEveryKernel(bytes, {}, reader, [&](const CompactFilterReader& r) { CheckAnswers(c, r, f); });
}

void SetOptions(const Case& c, CompactFilterBuilder& builder) {
  builder.SetExtraPlanes(c.extra_planes);
  builder.SetMixed(c.mixed);
  builder.TEST_SetMaxLayers(c.max_layers);
  builder.SetLeadBytes(c.lead);
}

void CheckBuild(std::string_view input) {
  FuzzedDataProvider in(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  const Case c = ReadCase(in);
  CompactFilterBuilder builder({.bits_per_key = c.bits_per_key, .seed = c.seed});
  SetOptions(c, builder);
  const std::string bytes = Build(c, builder);
  const bool fell_back = !builder.fallback_reason().empty();
  FUZZ_CHECK(Build(c, builder) == bytes, "a reused builder writes the same bytes");
  fuzz::ForEachOtherKernel([&] {
    CompactFilterBuilder other({.bits_per_key = c.bits_per_key, .seed = c.seed});
    SetOptions(c, other);
    FUZZ_CHECK(Build(c, other) == bytes, "every kernel's builder writes the same bytes as the active kernel's");
  });
  if (fell_back) {
    CheckBloomFallback(c, bytes);
    fuzz::ForEachOtherKernel([&] { CheckBloomFallback(c, bytes); });
  } else {
    CheckCompact(c, bytes);
  }
}

}  // namespace
}  // namespace linebloom

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) linebloom::CheckBytesAsFilter(rest);
  else linebloom::CheckBuild(rest);
  return 0;
}
