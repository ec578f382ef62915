// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-compact-model: the compact filter's model (compact_math.h) over
// a range of bits per key, as a Markdown table: the shape each setting is
// built with, its modeled false-positive rate, the share of negative
// queries that read a second line, and its bits per key over the
// information-theoretic minimum log2(1 / rate). With --measure, each row
// also builds a filter of --keys random keys and measures its rate over
// --queries absent ones (± one standard deviation of the binomial count).
// Deterministic (fixed seeds); no timing.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"

namespace {

// "measured ± sd" of the filter at `bits` over `queries` absent hashes.
std::string Measure(double bits, size_t keys, size_t queries) {
  std::mt19937_64 rng(static_cast<uint64_t>(bits * 1000));
  linebloom::CompactFilterBuilder builder({.bits_per_key = bits});
  for (size_t i = 0; i < keys; ++i) builder.AddHash(rng());
  const std::string bytes = builder.Finish();
  linebloom::CompactFilterReader reader;
  if (!linebloom::CompactFilterReader::Parse(bytes, &reader).ok()) return "unreadable";
  size_t positives = 0;
  for (size_t q = 0; q < queries; ++q) positives += reader.MayContainHash(rng());
  const double p = static_cast<double>(positives) / static_cast<double>(queries);
  char text[96];
  std::snprintf(text, sizeof(text), "%.4f ± %.4f %% (%.3f bits/key)", 100 * p,
                100 * std::sqrt(p * (1 - p) / static_cast<double>(queries)), 8.0 * bytes.size() / keys);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  double from = 6, to = 16, step = 0.25;
  size_t keys = 1'000'000;
  CLI::App app{"linebloom-compact-model: the compact filter's model by bits per key"};
  app.add_option("--from", from, "first bits per key")->check(CLI::Range(1.0, 100.0));
  app.add_option("--to", to, "last bits per key")->check(CLI::Range(1.0, 100.0));
  app.add_option("--step", step, "bits per key between rows")->check(CLI::Range(0.01, 10.0));
  app.add_option("--keys", keys, "keys per filter")->check(CLI::Range(1, 1 << 30));
  bool measure = false;
  size_t queries = 4'000'000;
  app.add_flag("--measure", measure, "also build each filter and measure its rate");
  app.add_option("--queries", queries, "absent queries per measured filter")->check(CLI::Range(1, 1 << 30));
  CLI11_PARSE(app, argc, argv);
  std::printf("| bits/key | r | keys/line | false-positive rate | second line | bits / log2(1/rate) |%s\n",
              measure ? " measured |" : "");
  std::printf("|---|---|---|---|---|---|%s\n", measure ? "---|" : "");
  for (double bits = from; bits <= to + 1e-9; bits += step) {
    const linebloom::CompactShape shape = linebloom::CompactShapeFor(bits, keys);
    const linebloom::CompactEstimate e = linebloom::EstimateCompact(shape, keys);
    std::printf("| %.2f | %d | %.1f | %.4f %% | %.2f %% | %.3f |", bits, shape.fingerprint_bits, shape.keys_per_line,
                100 * e.false_positive_rate, 100 * e.second_line_share, bits / std::log2(1 / e.false_positive_rate));
    std::printf("%s\n", measure ? (" " + Measure(bits, keys, queries) + " |").c_str() : "");
  }
  return 0;
}
