// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-probe-cost: the query loop of per-block filters alone, for
// counting instructions under callgrind (not for timing). Builds 1000
// filters of 33 keys at 10 bits/key (a 4 KiB block of 100-byte values) with
// the chosen policy, then asks 100,000 absent keys (AbsentQueries) and
// 100,000 present keys (PresentQueries), each in a block's filter:
//
//   valgrind --tool=callgrind --collect-atstart=no
//       --toggle-collect='linebloom::harness::AbsentQueries*'
//       build/bench/harness/linebloom-probe-cost linepairs
//
// (one command line).
//
// Instructions per query = collected / 100,000 (key hashing included).

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "linebloom/sstable/block_filter.h"

namespace linebloom::harness {

constexpr size_t kFilters = 1000;
constexpr int kKeysPerFilter = 33;

__attribute__((noinline)) size_t AbsentQueries(const sstable::TableFilterReader& r,
                                               const std::vector<std::string>& keys) {
  size_t hits = 0;
  for (size_t i = 0; i < keys.size(); ++i) hits += r.MayMatch(i % kFilters, keys[i]);
  return hits;
}

__attribute__((noinline)) size_t PresentQueries(const sstable::TableFilterReader& r,
                                                const std::vector<std::string>& keys) {
  size_t hits = 0;
  for (size_t i = 0; i < keys.size(); ++i) hits += r.MayMatch(i % kFilters, keys[i]);
  return hits;
}

int Main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "linepairs") != 0 && std::strcmp(argv[1], "blocked512") != 0)) {
    std::fprintf(stderr, "usage: linebloom-probe-cost linepairs|blocked512\n");
    return 2;
  }
  const FilterOptions options{.bits_per_key = 10};
  const auto policy = std::strcmp(argv[1], "linepairs") == 0 ? sstable::NewLinebloomLinePairPolicy(options)
                                                             : sstable::NewLinebloomBlocked512Policy(options);
  auto builder = policy->NewBuilder();
  std::vector<std::string> filters;
  for (size_t f = 0; f < kFilters; ++f) {
    for (int i = 0; i < kKeysPerFilter; ++i) builder->AddKey("key" + std::to_string(f * 1000 + i));
    filters.push_back(builder->Finish());
  }
  std::string region;
  for (const std::string& f : filters) region += f;
  std::unique_ptr<sstable::TableFilterReader> reader;
  if (!policy->NewTableReader(builder->Parameters(), &reader).ok()) return 1;
  size_t at = 0;
  for (const std::string& f : filters) {
    if (!reader->AddFilter(std::string_view(region).substr(at, f.size())).ok()) return 1;
    at += f.size();
  }
  std::vector<std::string> absent, present;
  for (size_t i = 0; i < 100000; ++i) {
    absent.push_back("absent-key" + std::to_string(i));
    present.push_back("key" + std::to_string((i % kFilters) * 1000 + (i / kFilters) % kKeysPerFilter));
  }
  const size_t false_positives = AbsentQueries(*reader, absent);
  const size_t found = PresentQueries(*reader, present);
  std::printf("%s: %zu filters, %zu bytes; absent: %zu false positives of %zu; present: %zu of %zu found\n", argv[1],
              filters.size(), region.size(), false_positives, absent.size(), found, present.size());
  return found == present.size() ? 0 : 3;
}

}  // namespace linebloom::harness

int main(int argc, char** argv) { return linebloom::harness::Main(argc, argv); }
