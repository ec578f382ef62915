// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-harness: how many data-block reads do per-block filters avoid
// for keys that are not in the table? Builds one micro-SSTable per filter
// configuration from the same keys, looks up absent and present keys through
// the table reader, and reports what its I/O layer counted.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>

#include "lsm_mode.h"

#include "experiment.h"
#include "progress.h"
#include "report.h"
#include "sweep.h"
#include "workload.h"

namespace harness = linebloom::harness;

namespace {

struct Flags {
  size_t keys = 1'000'000;
  size_t lookups = 1'000'000;
  size_t present_lookups = 200'000;
  size_t direct_lookups = 2'000;
  double bits_per_key = 10;
  size_t block_size = 4096;
  size_t value_size = 100;
  uint64_t seed = 42;
  std::string key_file;
  std::string dir = std::filesystem::temp_directory_path().string();
  std::vector<std::string> configs;
  bool json = false, csv = false, no_direct = false, keep_files = false;
  int lsm_levels = 0;
  double size_ratio = 10;
  std::string svg_dir;
  std::vector<double> sweep_bits = {2, 4, 6, 8, 10, 12, 14, 16, 20};
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "linebloom-harness: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  CLI::App app{
      "linebloom-harness: data-block reads avoided by per-block filters for absent keys, measured "
      "through the micro-SSTable's I/O layer, for linebloom and RocksDB's built-in Bloom filter."};
  app.add_option("--keys", f.keys, "keys in the table (generated from --seed)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 32))
      ->capture_default_str();
  app.add_option("--key-file", f.key_file, "read the keys from this file instead, one per line")
      ->check(CLI::ExistingFile);
  app.add_option("--lookups", f.lookups, "absent-key lookups per configuration (M)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 32))
      ->capture_default_str();
  app.add_option("--present-lookups", f.present_lookups, "present-key lookups per configuration (capped at --lookups)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 32))
      ->capture_default_str();
  app.add_option("--direct-lookups", f.direct_lookups, "absent and present lookups measured with O_DIRECT")
      ->check(CLI::Range(size_t{1}, size_t{1} << 32))
      ->capture_default_str();
  app.add_option("--bits-per-key", f.bits_per_key, "filter bits per key, every filter")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  app.add_option("--block-size", f.block_size, "data-block target size in bytes")
      ->check(CLI::Range(size_t{64}, size_t{64} << 20))
      ->capture_default_str();
  app.add_option("--value-size", f.value_size, "bytes per value")
      ->check(CLI::Range(size_t{0}, size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--seed", f.seed, "seed for keys and lookups")->capture_default_str();
  app.add_option("--dir", f.dir, "directory for the table files (disk-backed for O_DIRECT)")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  app.add_option("--configs", f.configs,
                 "run only these configurations (none, linebloom/per-block, linebloom/per-file, "
                 "linebloom-compact/per-file, rocksdb-builtin/per-block, rocksdb-builtin/per-file), in the "
                 "table and the --svg sweep");
  auto* json = app.add_flag("--json", f.json, "print one JSON document instead of the table");
  auto* csv = app.add_flag("--csv", f.csv, "print CSV rows instead of the table");
  json->excludes(csv);
  app.add_option("--svg", f.svg_dir, "also sweep --sweep-bits and write two SVG plots into this directory");
  app.add_option("--sweep-bits", f.sweep_bits, "bits/key values of the --svg sweep")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  app.add_flag("--no-direct", f.no_direct, "skip the O_DIRECT measurements");
  app.add_flag("--keep-files", f.keep_files, "keep the table files in --dir");
  app.add_option("--lsm", f.lsm_levels,
                 "LSM mode: lay the keys out over this many levels (size ratio --size-ratio) and compare "
                 "uniform with level-aware bits per key at the same filter memory, Bloom filters only and "
                 "with a compact filter at the last level")
      ->check(CLI::Range(1, 12));
  app.add_option("--size-ratio", f.size_ratio, "LSM mode: size ratio between adjacent levels")
      ->check(CLI::Range(1.5, 100.0))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "linebloom-harness: " << e.what() << "\n\n" << app.help();
    return 2;
  }

  harness::Workload workload;
  if (f.lsm_levels > 0) {
    if (f.key_file.empty()) {
      workload = harness::GenerateWorkload(f.keys, f.lookups, f.seed);
    } else if (std::string error; !harness::LoadWorkload(f.key_file, f.lookups, f.seed, &workload, &error)) {
      return Fail(error);
    }
    std::vector<harness::LsmResult> lsm;
    if (std::string error;
        !harness::RunLsm(workload, f.lsm_levels, f.size_ratio, f.bits_per_key, f.dir, &lsm, &error)) {
      return Fail(error);
    }
    if (f.json) {
      harness::PrintLsmJson(stdout, lsm, f.size_ratio, f.bits_per_key);
    } else {
      harness::PrintLsmTable(stdout, lsm, f.size_ratio, f.bits_per_key);
    }
    for (const auto& r : lsm) {
      if (r.false_negatives != 0) return 3;
    }
    return 0;
  }
  const size_t present = std::min(f.present_lookups, f.lookups);
  if (f.key_file.empty()) {
    workload = harness::GenerateWorkload(f.keys, f.lookups, f.seed);
  } else if (std::string error; !harness::LoadWorkload(f.key_file, f.lookups, f.seed, &workload, &error)) {
    return Fail(error);
  }

  std::vector<harness::ConfigSpec> configs;
  const auto all = harness::StandardConfigs(f.bits_per_key);
  for (const auto& c : all) {
    if (f.configs.empty() || std::find(f.configs.begin(), f.configs.end(), c.name) != f.configs.end()) {
      configs.push_back(c);
    }
  }
  for (const std::string& name : f.configs) {
    if (std::none_of(all.begin(), all.end(), [&](const auto& c) { return c.name == name; })) {
      return Fail("unknown configuration '" + name + "'" +
                  (name.rfind("rocksdb", 0) == 0 && !harness::HaveRocksdb() ? " (built without RocksDB)" : ""));
    }
  }

  harness::RunOptions options;
  options.block_size = f.block_size;
  options.value_size = f.value_size;
  options.dir = f.dir;
  options.direct = !f.no_direct;
  options.direct_lookups = f.direct_lookups;
  options.keep_files = f.keep_files;
  options.max_present_lookups = present;

  const uint64_t per_config = workload.keys.size() + workload.absent.size() + present +
                              (options.direct ? 2 * std::min(f.direct_lookups, present) : 0);
  const size_t sweep_present = std::min<size_t>(present, 10'000);
  uint64_t total = per_config * configs.size();
  if (!f.svg_dir.empty()) total += harness::SweepWork(workload, f.sweep_bits.size(), sweep_present, f.configs);
  harness::Progress progress(total);

  std::vector<harness::ConfigResult> results;
  std::set<std::string> notes;
  for (const auto& spec : configs) {
    harness::ConfigResult r;
    std::string note, error;
    if (!harness::RunConfig(spec, workload, options, &progress, &r, &note, &error)) return Fail(error);
    if (!note.empty()) notes.insert(note);
    results.push_back(std::move(r));
  }
  harness::SetIoAvoided(&results);

  std::vector<std::string> plots;
  if (!f.svg_dir.empty()) {
    harness::RunOptions sweep = options;
    sweep.in_memory = true;
    sweep.time_lookups = false;
    sweep.direct = false;
    sweep.max_present_lookups = sweep_present;
    std::vector<harness::SweepPoint> points;
    std::string error;
    if (!harness::RunSweep(workload, sweep, f.sweep_bits, f.configs, &progress, &points, &error) ||
        !harness::WritePlots(f.svg_dir, points, workload.keys.size(), f.block_size, &plots, &error)) {
      return Fail(error);
    }
  }
  progress.Clear();

  harness::RunInfo info;
  info.keys = workload.keys.size();
  info.lookups = f.lookups;
  info.present_lookups = present;
  info.bits_per_key = f.bits_per_key;
  info.block_size = f.block_size;
  info.value_size = f.value_size;
  info.key_source = workload.source;
  bool direct_measured = false;
  for (const auto& r : results) direct_measured |= r.direct_absent_latency.has_value();
  info.direct_lookups = direct_measured ? std::min(f.direct_lookups, present) : 0;
  for (const std::string& n : notes) info.notes += (info.notes.empty() ? "" : "; ") + n;
  if (!harness::HaveRocksdb()) {
    info.notes +=
        std::string(info.notes.empty() ? "" : "; ") + "built without RocksDB: the built-in filter rows are missing";
  }

  if (f.json) {
    harness::PrintJson(stdout, info, results);
  } else if (f.csv) {
    harness::PrintCsv(stdout, info, results);
  } else {
    harness::PrintTable(stdout, info, results);
    for (const std::string& p : plots) std::printf("wrote %s\n", p.c_str());
  }
  uint64_t wrong = 0;
  for (const auto& r : results) wrong += r.false_negatives + r.wrong_answers;
  return wrong == 0 ? 0 : 3;
}
