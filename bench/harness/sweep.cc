// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "sweep.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "linebloom/bloom_math.h"
#include "svg_plot.h"

namespace linebloom::harness {

namespace {
bool Wanted(const std::string& name, const std::vector<std::string>& only) {
  return name == "none" || only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}
}  // namespace

uint64_t SweepWork(const Workload& w, size_t num_bits, size_t present_lookups, const std::vector<std::string>& only) {
  const uint64_t per_config = w.keys.size() + w.absent.size() + present_lookups;
  uint64_t configs_per_bits = 0;
  for (const ConfigSpec& spec : StandardConfigs(10)) configs_per_bits += spec.name != "none" && Wanted(spec.name, only);
  return per_config * (1 + configs_per_bits * num_bits);
}

bool RunSweep(const Workload& w, const RunOptions& options, const std::vector<double>& bits,
              const std::vector<std::string>& only, Progress* progress, std::vector<SweepPoint>* points,
              std::string* error) {
  std::string unused_note;
  bool have_none = false;
  for (double b : bits) {
    for (const ConfigSpec& spec : StandardConfigs(b)) {
      if ((spec.name == "none" && have_none) || !Wanted(spec.name, only)) continue;
      SweepPoint p;
      p.nominal_bits = b;
      if (!RunConfig(spec, w, options, progress, &p.result, &unused_note, error)) return false;
      have_none |= spec.name == "none";
      points->push_back(std::move(p));
    }
  }
  std::vector<ConfigResult> results;
  for (const SweepPoint& p : *points) results.push_back(p.result);
  SetIoAvoided(&results);
  for (size_t i = 0; i < points->size(); ++i) (*points)[i].result.io_avoided_fraction = results[i].io_avoided_fraction;
  return true;
}

namespace {

const std::map<std::string, std::string>& Colors() {
  static const std::map<std::string, std::string> colors = {
      {"linebloom/per-block", "#1f77b4"},        {"linebloom/per-file", "#2ca02c"},
      {"linebloom-compact/per-file", "#9467bd"}, {"rocksdb-builtin/per-block", "#d62728"},
      {"rocksdb-builtin/per-file", "#ff7f0e"},
  };
  return colors;
}

std::vector<Series> MeasuredSeries(const std::vector<SweepPoint>& points, bool fpr) {
  std::vector<Series> out;
  for (const auto& [name, color] : Colors()) {
    // RocksDB's per-block filters of a few dozen keys round up to whole
    // 64-byte lines, so several settings share one size: markers, no line.
    const bool per_block = name == "rocksdb-builtin/per-block";
    // linebloom's per-file line is drawn wide underneath RocksDB's, which
    // would otherwise hide it: the two nearly coincide.
    const double width = name == "linebloom/per-file" ? 6 : 2;
    Series s{.name = name, .color = color, .line = !per_block, .width = width, .points = {}};
    for (const SweepPoint& p : points) {
      if (p.result.name != name) continue;
      s.points.push_back({p.result.filter_bits_per_key, fpr ? p.result.measured_fpr : p.result.io_avoided_fraction});
    }
    if (!s.points.empty()) out.push_back(std::move(s));
  }
  return out;
}

bool WriteFile(const std::filesystem::path& path, const std::string& text, std::vector<std::string>* written,
               std::string* error) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    *error = "cannot write " + path.string();
    return false;
  }
  written->push_back(path.string());
  return true;
}

}  // namespace

bool WritePlots(const std::string& dir, const std::vector<SweepPoint>& points, uint64_t keys, size_t block_size,
                std::vector<std::string>* written, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  double max_bits = 0;
  for (const SweepPoint& p : points) max_bits = std::max(max_bits, p.result.filter_bits_per_key);
  uint64_t blocks = 0;
  for (const SweepPoint& p : points) blocks = std::max(blocks, p.result.data_blocks);
  char where[200];
  std::snprintf(where, sizeof(where),
                "%llu keys, %zu-byte blocks of ~%.0f keys; x = real filter memory per key (every byte and parameter)",
                static_cast<unsigned long long>(keys), block_size,
                blocks ? static_cast<double>(keys) / static_cast<double>(blocks) : 0.0);

  std::vector<Series> fpr = MeasuredSeries(points, true);
  Series blocked{
      .name = "theory: 512-bit blocked, best k", .color = "#444", .dashed = true, .markers = false, .points = {}};
  Series standard{.name = "theory: standard Bloom", .color = "#aaa", .dashed = true, .markers = false, .points = {}};
  for (double c = 2; c <= max_bits + 0.01; c += 0.25) {
    blocked.points.push_back({c, BlockedFpr(c, OptimalBlockedProbes(c))});
    standard.points.push_back({c, StandardFpr(c, OptimalStandardProbes(c))});
  }
  fpr.push_back(blocked);
  fpr.push_back(standard);
  PlotSpec fs = DefaultPlotSpec();
  fs.title = "False-positive rate vs bits per key";
  fs.subtitle = where;
  fs.x_label = "real filter bits per key";
  fs.y_label = "false-positive rate (absent keys)";
  fs.log_y = true;
  fs.y_percent = true;
  fs.x_min = 0;
  if (!WriteFile(std::filesystem::path(dir) / "fpr_vs_bits_per_key.svg", RenderLinePlot(fs, fpr), written, error)) {
    return false;
  }

  PlotSpec is = DefaultPlotSpec();
  is.title = "Data-block reads avoided for absent keys vs bits per key";
  is.subtitle = where;
  is.x_label = "real filter bits per key";
  is.y_label = "block reads avoided (vs no filter), log scale of what is left";
  is.y_nines = true;
  is.x_min = 0;
  if (!WriteFile(std::filesystem::path(dir) / "io_avoided_vs_bits_per_key.svg",
                 RenderLinePlot(is, MeasuredSeries(points, false)), written, error)) {
    return false;
  }
  // The points themselves, for checks at equal memory.
  std::string csv =
      "config,nominal_bits_per_key,real_bits_per_key,measured_fpr,predicted_fpr,filter_probes,"
      "io_avoided_fraction,false_negatives\n";
  for (const SweepPoint& p : points) {
    char line[256];
    std::snprintf(line, sizeof(line), "%s,%g,%.6f,%.8g,%.8g,%llu,%.8g,%llu\n", p.result.name.c_str(), p.nominal_bits,
                  p.result.filter_bits_per_key, p.result.measured_fpr, p.result.predicted_fpr,
                  static_cast<unsigned long long>(p.result.filter_probes), p.result.io_avoided_fraction,
                  static_cast<unsigned long long>(p.result.false_negatives));
    csv += line;
  }
  return WriteFile(std::filesystem::path(dir) / "sweep.csv", csv, written, error);
}

}  // namespace linebloom::harness
