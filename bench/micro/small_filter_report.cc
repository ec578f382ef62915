// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "small_filter_report.h"

#include <algorithm>
#include <fstream>

#include "ratio_summary.h"

namespace linebloom::bench {

namespace {

// Working sets up to this are the cache-resident ones (L3 or closer).
constexpr double kCachedMb = 16;

bool IsBuild(const SmallFilterCell& cell) { return cell.metric.rfind("build", 0) == 0; }

std::string Thousands(size_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string MetricName(const std::string& metric) {
  if (metric == "neg") return "single negative";
  if (metric == "pos") return "single positive";
  if (metric.rfind("batch", 0) == 0) return "batch of " + metric.substr(5) + " (negative), per key";
  return metric;
}

RatioSummary Summary(const SmallFilterCell& cell) { return SummarizeRatios(cell.ns[0], cell.ns[1]); }

std::string RatioText(const SmallFilterCell* cell) {
  if (cell == nullptr) return "-";
  const RatioSummary s = Summary(*cell);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f (%.2f-%.2f)", s.median, s.min, s.max);
  return buf;
}

std::string Mb(double mb) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g MiB", mb);
  return buf;
}

// Distinct values of `field` in the order the cells were added.
template <typename T, typename Field>
std::vector<T> InOrder(const std::vector<SmallFilterCell>& cells, Field field, bool queries_only) {
  std::vector<T> out;
  for (const SmallFilterCell& c : cells) {
    if (queries_only && IsBuild(c)) continue;
    if (std::find(out.begin(), out.end(), field(c)) == out.end()) out.push_back(field(c));
  }
  return out;
}

}  // namespace

const SmallFilterCell* SmallFilterReport::Find(size_t keys_per_filter, const std::string& metric,
                                               double working_set_mb) const {
  for (const SmallFilterCell& c : cells_) {
    if (c.keys_per_filter == keys_per_filter && c.metric == metric && c.working_set_mb == working_set_mb) return &c;
  }
  return nullptr;
}

void SmallFilterReport::Print(FILE* out) const {
  std::fprintf(out, "\nlinebloom plugin (%s) against %s; linebloom kernel %s; %zu-byte keys, %g bits/key.\n",
               plugin_label_.c_str(), builtin_label_.c_str(), kernel_.c_str(), key_length_, bits_per_key_);
  std::fprintf(out,
               "Ratio = plugin time / built-in time, median of %d alternating repetitions within this run "
               "(min-max); below 1: the plugin is faster.\n\n",
               reps_);
  PrintBuild(out);
  PrintQueries(out);
  PrintSummary(out);
}

void SmallFilterReport::PrintBuild(FILE* out) const {
  std::fprintf(
      out,
      "| keys/filter | build, a builder per filter | build, one builder for consecutive filters "
      "| false-positive rate, plugin | built-in | bits/key, plugin | built-in |\n|---|---|---|---|---|---|---|\n");
  for (size_t keys : InOrder<size_t>(
           cells_, [](const SmallFilterCell& c) { return c.keys_per_filter; }, false)) {
    // Quality from the negative queries over the most filters.
    const SmallFilterCell* widest = nullptr;
    for (const SmallFilterCell& c : cells_) {
      if (c.keys_per_filter == keys && c.metric == "neg" && (!widest || c.num_filters > widest->num_filters)) {
        widest = &c;
      }
    }
    std::fprintf(out, "| %s | %s | %s |", Thousands(keys).c_str(), RatioText(Find(keys, "build", 0)).c_str(),
                 RatioText(Find(keys, "build_one_builder", 0)).c_str());
    for (int side = 0; side < 2; ++side) {
      if (widest) std::fprintf(out, " %.3f %% |", 100 * widest->false_positives[side]);
    }
    for (int side = 0; side < 2; ++side) {
      if (widest)
        std::fprintf(out, " %.2f |", widest->bytes[side] * 8 / static_cast<double>(widest->num_filters * keys));
    }
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "\n");
}

void SmallFilterReport::PrintQueries(FILE* out) const {
  const auto keys_list = InOrder<size_t>(
      cells_, [](const SmallFilterCell& c) { return c.keys_per_filter; }, true);
  const auto sets = InOrder<double>(
      cells_, [](const SmallFilterCell& c) { return c.working_set_mb; }, true);
  const auto metrics = InOrder<std::string>(
      cells_, [](const SmallFilterCell& c) { return c.metric; }, true);
  std::fprintf(out, "| keys/filter | query |");
  for (double mb : sets) std::fprintf(out, " %s |", Mb(mb).c_str());
  std::fprintf(out, "\n|---|---|");
  for (size_t i = 0; i < sets.size(); ++i) std::fprintf(out, "---|");
  std::fprintf(out, "\n");
  for (size_t keys : keys_list) {
    std::fprintf(out, "| %s | filters |", Thousands(keys).c_str());
    for (double mb : sets) {
      const SmallFilterCell* c = Find(keys, metrics.front(), mb);
      std::fprintf(out, " %s |", c ? Thousands(c->num_filters).c_str() : "-");
    }
    std::fprintf(out, "\n");
    for (const std::string& metric : metrics) {
      std::fprintf(out, "| %s | %s |", Thousands(keys).c_str(), MetricName(metric).c_str());
      for (double mb : sets) std::fprintf(out, " %s |", RatioText(Find(keys, metric, mb)).c_str());
      std::fprintf(out, "\n");
    }
  }
  std::fprintf(out, "\n");
}

// Over the query cells of the cache-resident working sets and of the larger
// ones: the median of the cells' medians, the largest, and how many exceed 1.
void SmallFilterReport::PrintSummary(FILE* out) const {
  for (bool cached : {true, false}) {
    std::vector<double> medians;
    for (const SmallFilterCell& c : cells_) {
      if (!IsBuild(c) && (c.working_set_mb <= kCachedMb) == cached) medians.push_back(Summary(c).median);
    }
    if (medians.empty()) continue;
    const auto above =
        static_cast<size_t>(std::count_if(medians.begin(), medians.end(), [](double r) { return r > 1.0; }));
    std::fprintf(out, "Query cells with working sets %s %g MiB: median ratio %.2f, largest %.2f, %zu of %zu above 1.\n",
                 cached ? "up to" : "above", kCachedMb, Median(medians),
                 *std::max_element(medians.begin(), medians.end()), above, medians.size());
  }
}

bool SmallFilterReport::WriteJson(const std::string& path) const {
  std::ofstream out(path);
  if (!out) return false;
  out << "{\n  \"plugin\": \"" << plugin_label_ << "\",\n  \"builtin\": \"" << builtin_label_ << "\",\n  \"kernel\": \""
      << kernel_ << "\",\n  \"key_length\": " << key_length_ << ",\n  \"bits_per_key\": " << bits_per_key_
      << ",\n  \"reps\": " << reps_ << ",\n  \"cells\": [";
  for (size_t i = 0; i < cells_.size(); ++i) {
    const SmallFilterCell& c = cells_[i];
    out << (i ? ",\n" : "\n") << "    {\"metric\": \"" << c.metric << "\", \"keys_per_filter\": " << c.keys_per_filter
        << ", \"working_set_mb\": " << c.working_set_mb << ", \"num_filters\": " << c.num_filters
        << ", \"ratio_median\": " << Summary(c).median;
    const char* const sides[] = {"plugin", "builtin"};
    for (int side = 0; side < 2; ++side) {
      out << ", \"" << sides[side] << "\": {\"bytes\": " << c.bytes[side]
          << ", \"false_positive_rate\": " << c.false_positives[side] << ", \"ns\": [";
      for (size_t r = 0; r < c.ns[side].size(); ++r) out << (r ? ", " : "") << c.ns[side][r];
      out << "]}";
    }
    out << "}";
  }
  out << "\n  ]\n}\n";
  return static_cast<bool>(out);
}

}  // namespace linebloom::bench
