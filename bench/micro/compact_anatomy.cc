// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-compact-anatomy: where a compact filter's negative query spends
// its time, on the AVX-512 path. The whole query is timed beside parts of
// it, on one filter of the 1 % setting (7.26 bits/key: mixed, r = 7, one
// group of planes), against linebloom's Bloom filter of the same bytes:
//   full       the query (CompactQuery::Query with the AVX-512 answer)
//   fixed-form the same, but every line answered as a line of the high
//              section's r planes: no metadata byte, form or table on the
//              way from the line to the answer (wrong answers for lines of
//              other forms: a timing only)
//   form       the line's form alone: metadata byte, form, the table's
//              plane count and row mask, then one byte of the line at the
//              plane count (no answer)
//   locate     the line located, its metadata byte and one byte read
// Each from hashes given, single (independent queries in a loop, whose
// cache misses the processor overlaps) and alone (an LFENCE after each:
// one query's latency; bench_clock.h), over the same absent hashes; the
// variants alternate within each repetition, and ratios are medians of
// per-repetition ratios (ratio_summary.h). Filters of --sizes_mb MiB.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "compact_query.h"
#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_memory.h"
#include "linebloom/filter_reader.h"
#include "ratio_summary.h"

namespace linebloom::bench {
namespace {

#if defined(LINEBLOOM_COMPACT_AVX512)
namespace c = internal::compact;
using Avx512 = CompactQuery::Avx512Form;

constexpr double kCompactBits = 7.26;  // the 1 % setting (BENCHMARKS.md)
constexpr double kBloomBits = 9.92;
constexpr int kHighPlanes = 7;

LINEBLOOM_COMPACT_AVX512 __attribute__((noinline, flatten)) bool Full(const CompactFilterReader& r, uint64_t h) {
  return CompactQuery::Query<Avx512>(r, h);
}
LINEBLOOM_COMPACT_AVX512 __attribute__((noinline)) bool FixedForm(const CompactFilterReader& r, uint64_t h) {
  const CompactQuery::Located at = CompactQuery::LocateFirst<true>(r, h);
  const c::KeyCode code = c::CodeOf(h);
  if (__builtin_expect(!CompactQuery::Holds(at), 0)) return Avx512::Bumped(r, h);
  const c::Bits128 row = c::RowOf(code, c::ColumnsFor(kHighPlanes));
  const uint32_t answer = c::AnswerAvx512Groups<1, true>(at.line, row, kHighPlanes);
  return _bzhi_u32(answer ^ c::FingerprintOf(code, kHighPlanes), kHighPlanes) == 0;
}
LINEBLOOM_COMPACT_AVX512 __attribute__((noinline)) bool FormOnly(const CompactFilterReader& r, uint64_t h) {
  const CompactQuery::Located at = CompactQuery::LocateFirst<true>(r, h);
  const c::KeyCode code = c::CodeOf(h);
  if (__builtin_expect(!CompactQuery::Holds(at), 0)) return Avx512::Bumped(r, h);
  const CompactQuery::LineQuery q = CompactQuery::LineQueryOf(r, at.line, at.forms, code);
  return ((at.line[q.planes] ^ q.row.lo ^ c::FingerprintOf(code, q.planes)) & 1) != 0;
}
LINEBLOOM_COMPACT_AVX512 __attribute__((noinline)) bool LocateOnly(const CompactFilterReader& r, uint64_t h) {
  const CompactQuery::Located at = CompactQuery::LocateFirst<true>(r, h);
  return (CompactQuery::Holds(at) & ((at.line[0] ^ h) & 1)) != 0;
}

struct Filters {
  AlignedFilter compact_bytes, bloom_bytes;
  CompactFilterReader compact;
  FilterReader bloom;
};

// A filter of each kind of about `mib` MiB from random hashes.
bool MakeFilters(double mib, std::mt19937_64& rng, Filters* f) {
  const auto compact_keys = static_cast<size_t>(mib * 8 * 1024 * 1024 / kCompactBits);
  const auto bloom_keys = static_cast<size_t>(mib * 8 * 1024 * 1024 / kBloomBits);
  if (CompactShapeFor(kCompactBits, compact_keys, kCompactExtraPlanes, true).low_share <= 0) return false;
  CompactFilterBuilder compact({.bits_per_key = kCompactBits});
  for (size_t i = 0; i < compact_keys; ++i) compact.AddHash(rng());
  f->compact_bytes = AlignedFilter::Copy(compact.Finish());
  FilterOptions bloom_options;
  bloom_options.bits_per_key = kBloomBits;
  FilterBuilder bloom(bloom_options);
  for (size_t i = 0; i < bloom_keys; ++i) bloom.AddHash(rng());
  f->bloom_bytes = AlignedFilter::Copy(bloom.Finish());
  return CompactFilterReader::Parse(f->compact_bytes.bytes(), &f->compact).ok() &&
         f->compact.fingerprint_bits() == kHighPlanes && FilterReader::Parse(f->bloom_bytes.bytes(), &f->bloom).ok();
}

void RunSize(double mib, int reps, size_t queries, std::mt19937_64& rng) {
  Filters f;
  if (!MakeFilters(mib, rng, &f)) {
    std::printf("%.0f MiB: the filter is not of the mixed r = 7 shape this benchmark times\n", mib);
    return;
  }
  std::vector<uint64_t> hashes(queries);
  for (uint64_t& h : hashes) h = rng();
  const CompactFilterReader& r = f.compact;
  using QueryFn = bool (*)(const CompactFilterReader&, uint64_t);
  const char* names[] = {"bloom", "full", "fixed-form", "form", "locate"};
  const QueryFn compact_queries[] = {Full, FixedForm, FormOnly, LocateOnly};
  constexpr size_t kVariants = 5;
  std::vector<double> single[kVariants], alone[kVariants];
  uint64_t sink = 0;
  for (int rep = -1; rep < reps; ++rep) {  // -1: untimed, to warm caches and pages
    for (size_t v = 0; v < kVariants; ++v) {
      const auto query = [&](uint64_t h) { return v == 0 ? f.bloom.MayContainHash(h) : compact_queries[v - 1](r, h); };
      const double single_ns = NsPerQuery<false>(hashes, query, &sink);
      const double alone_ns = NsPerQuery<true>(hashes, query, &sink);
      if (rep < 0) continue;
      single[v].push_back(single_ns);
      alone[v].push_back(alone_ns);
    }
  }
  asm volatile("" : : "r"(sink));  // the answers stay live
  std::printf("\n### Filters of about %.0f MiB\n\n", mib);
  std::printf("| query | single ns | vs full | vs bloom | alone ns | vs full | vs bloom |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (size_t v = 0; v < kVariants; ++v) {
    std::printf("| %s | %.1f | %.2f | %.2f | %.1f | %.2f | %.2f |\n", names[v], Median(single[v]),
                SummarizeRatios(single[v], single[1]).median, SummarizeRatios(single[v], single[0]).median,
                Median(alone[v]), SummarizeRatios(alone[v], alone[1]).median,
                SummarizeRatios(alone[v], alone[0]).median);
  }
}
#endif

}  // namespace
}  // namespace linebloom::bench

int main(int argc, char** argv) {
  CLI::App app{"linebloom-compact-anatomy: where a compact filter's negative query spends its time (AVX-512)"};
  std::vector<double> sizes_mb = {1, 16, 128};
  int reps = 7;
  size_t queries = size_t{1} << 20;
  bool smoke = false;
  app.add_option("--sizes_mb", sizes_mb, "filter sizes, MiB")->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "alternating repetitions")->check(CLI::Range(1, 1000));
  app.add_option("--queries", queries, "absent hashes per timing")->check(CLI::Range(size_t{64}, size_t{1} << 26));
  app.add_flag("--smoke", smoke, "a 1 MiB filter, short runs (for CI)");
  CLI11_PARSE(app, argc, argv);
  if (smoke) {
    sizes_mb = {1};
    reps = 1;
    queries = 4096;
  }
#if defined(LINEBLOOM_COMPACT_AVX512)
  if (!linebloom::internal::compact::CompactAvx512Supported()) {
    std::printf("linebloom-compact-anatomy: this CPU lacks the compact filter's AVX-512 path; nothing timed\n");
    return 0;
  }
  std::printf("# Compact query anatomy: ns per negative query, medians of %d alternating repetitions\n", reps);
  std::mt19937_64 rng(1);
  for (double mib : sizes_mb) linebloom::bench::RunSize(mib, reps, queries, rng);
#else
  std::printf("linebloom-compact-anatomy: built without the compact filter's AVX-512 path; nothing timed\n");
#endif
  return 0;
}
