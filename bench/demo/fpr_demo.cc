// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-demo: builds filters from N string keys at several bits-per-key
// values and prints the measured false-positive rate over M absent keys next
// to the 512-bit blocked-Bloom prediction and the standard-Bloom one.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "linebloom/bloom_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"

int main(int argc, char** argv) {
  CLI::App app{"linebloom-demo: measured vs predicted false-positive rates"};
  size_t keys = 1'000'000, queries = 1'000'000;
  std::vector<double> bits = {6, 8, 10, 12, 16, 20};
  uint32_t seed = 0;
  app.add_option("--keys", keys, "keys inserted per filter")->check(CLI::Range(size_t{1}, size_t{1} << 32));
  app.add_option("--queries", queries, "absent keys queried per filter")->check(CLI::PositiveNumber);
  app.add_option("--bits", bits, "bits per key values")->check(CLI::Range(1.0, 100.0));
  app.add_option("--seed", seed, "hash seed");
  CLI11_PARSE(app, argc, argv);

  std::printf("%zu keys, %zu absent-key queries per row\n\n", keys, queries);
  std::printf("%9s %3s %11s %12s %12s %12s %8s\n", "bits/key", "k", "filter KiB", "measured", "blocked", "standard",
              "meas/thy");
  for (double b : bits) {
    linebloom::FilterBuilder builder({.bits_per_key = b, .seed = seed});
    builder.Reserve(keys);
    for (size_t i = 0; i < keys; ++i) builder.AddKey("present-" + std::to_string(i));
    const std::string bytes = builder.Finish();
    linebloom::FilterReader reader;
    if (auto r = linebloom::FilterReader::Parse(bytes, &reader); !r.ok()) {
      std::fprintf(stderr, "parse failed: %s\n", r.message());
      return 1;
    }
    size_t positives = 0;
    for (size_t i = 0; i < queries; ++i) positives += reader.MayContain("absent-" + std::to_string(i));
    const double measured = static_cast<double>(positives) / queries;
    const double actual_bits = reader.num_blocks() * 512.0 / keys;
    const double blocked = linebloom::BlockedFpr(actual_bits, reader.num_probes());
    const double standard = linebloom::StandardFpr(actual_bits, reader.num_probes());
    std::printf("%9.2f %3d %11.1f %11.4f%% %11.4f%% %11.4f%% %8.3f\n", b, reader.num_probes(), bytes.size() / 1024.0,
                100 * measured, 100 * blocked, 100 * standard, measured / blocked);
  }
  return 0;
}
