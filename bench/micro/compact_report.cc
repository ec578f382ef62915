// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_report.h"

#include <algorithm>
#include <set>
#include <utility>

#include "ratio_summary.h"

namespace linebloom::bench {

double BinomialSd(double p, uint64_t n) { return n == 0 ? 0 : std::sqrt(p * (1 - p) / static_cast<double>(n)); }

bool WithinSds(double measured, double model, uint64_t queries, double sds) {
  return std::abs(measured - model) <= sds * BinomialSd(model, queries);
}

BitsAtFprResult BitsAtFpr(std::vector<BitsFprPoint> points, double fpr) {
  std::erase_if(points, [](const BitsFprPoint& p) { return !(p.fpr > 0); });
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.fpr < b.fpr; });
  points.erase(std::unique(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.fpr == b.fpr; }),
               points.end());
  BitsAtFprResult result;
  if (points.size() < 2 || !(fpr > 0)) return result;
  // The pair (i, i + 1) bracketing fpr, or the two nearest outside.
  size_t i = 0;
  while (i + 2 < points.size() && points[i + 1].fpr < fpr) ++i;
  const BitsFprPoint& lo = points[i];
  const BitsFprPoint& hi = points[i + 1];
  result.bracketed = lo.fpr <= fpr && fpr <= hi.fpr;
  const double t = std::log(fpr / lo.fpr) / std::log(hi.fpr / lo.fpr);
  result.bits_per_key = lo.bits_per_key + t * (hi.bits_per_key - lo.bits_per_key);
  return result;
}

void CompactReport::AddRibbonPoint(double target_fpr, size_t keys, BitsFprPoint point) {
  ribbon_points_.push_back({target_fpr, keys, point});
}

BitsAtFprResult CompactReport::RibbonBitsAt(double target_fpr, size_t keys, double fpr) const {
  std::vector<BitsFprPoint> points;
  for (const RibbonPoint& p : ribbon_points_) {
    if (p.target_fpr == target_fpr && p.keys == keys) points.push_back(p.point);
  }
  if (const BuildCell* ribbon = FindBuild(target_fpr, keys, kCompactRibbonName)) {
    points.push_back({ribbon->BitsPerKey(), ribbon->fpr.Rate()});
  }
  return BitsAtFpr(std::move(points), fpr);
}

const BuildCell* CompactReport::FindBuild(double target_fpr, size_t keys, const std::string& filter) const {
  for (const BuildCell& c : builds_) {
    if (c.target_fpr == target_fpr && c.keys == keys && c.filter == filter) return &c;
  }
  return nullptr;
}

const QueryCell* CompactReport::FindQuery(double size_mb, const std::string& filter) const {
  for (const QueryCell& c : queries_) {
    if (c.size_mb == size_mb && c.filter == filter) return &c;
  }
  return nullptr;
}

namespace {

std::string Format(const char* format, double value) {
  if (std::isnan(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

// "0.93 (0.90-0.97)": the median ratio of the repetitions, min and max.
std::string FormatRatio(const std::vector<double>& ns, const std::vector<double>* reference) {
  if (reference == nullptr || reference->size() != ns.size()) return "-";
  const RatioSummary s = SummarizeRatios(ns, *reference);
  if (s.count == 0) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f (%.2f-%.2f)", s.median, s.min, s.max);
  return buf;
}

std::string FormatFpr(const FprCount& fpr) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.4f %% ± %.4f (%llu/%llu)", 100 * fpr.Rate(), 100 * fpr.Sd(),
                static_cast<unsigned long long>(fpr.positives), static_cast<unsigned long long>(fpr.queries));
  return buf;
}

}  // namespace

void CompactReport::PrintBuilds(FILE* out, double target_fpr, size_t keys) const {
  std::fprintf(out, "\n### Target %g %%, %zu keys\n\n", 100 * target_fpr, keys);
  std::fprintf(out,
               "| filter | setting | bits/key | FPR measured ± 1 sd (positives/queries) | model FPR | within 2 sd | "
               "bits/key vs Ribbon at equal FPR | 2nd line (model) | build ns/key | vs bloom | vs ribbon | "
               "peak build B/key |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  const BuildCell* bloom = FindBuild(target_fpr, keys, kCompactBloomName);
  const BuildCell* ribbon = FindBuild(target_fpr, keys, kCompactRibbonName);
  for (const BuildCell& c : builds_) {
    if (c.target_fpr != target_fpr || c.keys != keys) continue;
    if (!c.failure.empty()) {
      std::fprintf(out, "| %s | %.2f | not built: %s |\n", c.filter.c_str(), c.setting, c.failure.c_str());
      continue;
    }
    const BitsAtFprResult at = RibbonBitsAt(target_fpr, keys, c.fpr.Rate());
    std::string vs_ribbon = Format("%.3f", c.BitsPerKey() / at.bits_per_key);
    if (!at.bracketed && !std::isnan(at.bits_per_key)) vs_ribbon += " (extrapolated)";
    const bool has_model = !std::isnan(c.model_fpr);
    std::fprintf(out, "| %s | %.2f | %.3f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.filter.c_str(),
                 c.setting, c.BitsPerKey(), FormatFpr(c.fpr).c_str(), Format("%.4f %%", 100 * c.model_fpr).c_str(),
                 has_model ? (WithinSds(c.fpr.Rate(), c.model_fpr, c.fpr.queries, 2) ? "yes" : "NO") : "-",
                 vs_ribbon.c_str(), Format("%.2f %%", 100 * c.second_line_share).c_str(),
                 Format("%.1f", Median(c.build_ns)).c_str(),
                 FormatRatio(c.build_ns, bloom ? &bloom->build_ns : nullptr).c_str(),
                 FormatRatio(c.build_ns, ribbon ? &ribbon->build_ns : nullptr).c_str(),
                 Format("%.2f", Median(c.peak_bytes) / static_cast<double>(keys)).c_str());
  }
  std::fprintf(out, "\nRibbon points for the interpolation (bits/key: measured FPR):");
  std::vector<BitsFprPoint> points;
  for (const RibbonPoint& p : ribbon_points_) {
    if (p.target_fpr == target_fpr && p.keys == keys) points.push_back(p.point);
  }
  if (ribbon) points.push_back({ribbon->BitsPerKey(), ribbon->fpr.Rate()});
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.bits_per_key < b.bits_per_key; });
  for (const BitsFprPoint& p : points) std::fprintf(out, " %.3f: %.4f %%;", p.bits_per_key, 100 * p.fpr);
  std::fprintf(out, "\n");
}

void CompactReport::PrintQueries(FILE* out, double size_mb) const {
  std::fprintf(out, "\n### Filters of about %g MiB (1 %% setting)\n\n", size_mb);
  std::fprintf(out,
               "| filter | keys | MiB | single ns | vs bloom | vs ribbon | alone ns | vs bloom | vs ribbon | batch%zu "
               "ns/key | vs bloom | vs ribbon |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
               header_.batch);
  const QueryCell* bloom = FindQuery(size_mb, kCompactBloomName);
  const QueryCell* ribbon = FindQuery(size_mb, kCompactRibbonName);
  for (const QueryCell& c : queries_) {
    if (c.size_mb != size_mb) continue;
    if (!c.failure.empty()) {
      std::fprintf(out, "| %s | %zu | not built: %s |\n", c.filter.c_str(), c.keys, c.failure.c_str());
      continue;
    }
    // A timing's median and its ratios to RocksDB's Bloom and Ribbon rows.
    const auto timing = [&](std::vector<double> QueryCell::*ns) {
      char text[128];
      std::snprintf(text, sizeof text, "%.1f | %s | %s", Median(c.*ns),
                    FormatRatio(c.*ns, bloom ? &(bloom->*ns) : nullptr).c_str(),
                    FormatRatio(c.*ns, ribbon ? &(ribbon->*ns) : nullptr).c_str());
      return std::string(text);
    };
    std::fprintf(out, "| %s | %zu | %.2f | %s | %s | %s |\n", c.filter.c_str(), c.keys,
                 static_cast<double>(c.bytes) / (1 << 20), timing(&QueryCell::single_ns).c_str(),
                 timing(&QueryCell::alone_ns).c_str(), timing(&QueryCell::batch_ns).c_str());
  }
  // The other linebloom rows (the compact filter's) against linebloom's
  // Bloom filter, the same cells' ratios.
  const QueryCell* linebloom = FindQuery(size_mb, kCompactLinebloomName);
  if (linebloom == nullptr || !linebloom->failure.empty()) return;
  std::fprintf(out, "\nAgainst %s (Bloom):\n\n| filter | single | alone | batch%zu |\n|---|---|---|---|\n",
               kCompactLinebloomName, header_.batch);
  const std::string prefix = std::string(kCompactLinebloomName) + "-";
  for (const QueryCell& c : queries_) {
    if (c.size_mb != size_mb || !c.failure.empty() || c.filter.rfind(prefix, 0) != 0) continue;
    std::fprintf(
        out, "| %s | %s | %s | %s |\n", c.filter.c_str(), FormatRatio(c.single_ns, &linebloom->single_ns).c_str(),
        FormatRatio(c.alone_ns, &linebloom->alone_ns).c_str(), FormatRatio(c.batch_ns, &linebloom->batch_ns).c_str());
  }
}

void CompactReport::Print(FILE* out) const {
  std::fprintf(out,
               "\n## Compact filter against Bloom and Ribbon\n\n%zu-byte keys; kernel %s; %s = %s; %d "
               "alternating repetitions, medians; ratios: median of the per-repetition ratios (min-max).\n",
               header_.key_length, header_.kernel.c_str(), kCompactBloomName, header_.builtin_label.c_str(),
               header_.reps);
  if (header_.evict_mb > 0) {
    std::fprintf(out,
                 "Builds from cold caches: %g MiB written (untimed) before each timed build, past the last cache "
                 "level, so the build's code, scratch and keys come from memory.\n",
                 header_.evict_mb);
  }
  std::set<std::pair<double, size_t>> cells;
  for (const BuildCell& c : builds_) cells.insert({-c.target_fpr, c.keys});
  for (const auto& [neg_fpr, keys] : cells) PrintBuilds(out, -neg_fpr, keys);
  std::set<double> sizes;
  for (const QueryCell& c : queries_) sizes.insert(c.size_mb);
  if (!sizes.empty()) std::fprintf(out, "\n## Negative queries\n");
  for (double size_mb : sizes) PrintQueries(out, size_mb);
}

}  // namespace linebloom::bench

namespace linebloom::bench {
namespace {

void WriteArray(FILE* f, const char* name, const std::vector<double>& values) {
  std::fprintf(f, "\"%s\": [", name);
  for (size_t i = 0; i < values.size(); ++i) std::fprintf(f, "%s%.6g", i ? ", " : "", values[i]);
  std::fprintf(f, "]");
}

// A message as a JSON string (messages hold no control characters).
void WriteString(FILE* f, const char* name, const std::string& value) {
  std::fprintf(f, "\"%s\": \"", name);
  for (char c : value) {
    if (c == '"' || c == '\\') std::fputc('\\', f);
    std::fputc(c, f);
  }
  std::fprintf(f, "\"");
}

// JSON has no NaN: absent values are null.
void WriteNumber(FILE* f, const char* name, double value) {
  if (std::isnan(value)) {
    std::fprintf(f, "\"%s\": null", name);
  } else {
    std::fprintf(f, "\"%s\": %.9g", name, value);
  }
}

}  // namespace

bool CompactReport::WriteJson(const std::string& path) const {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f,
               "{\"builtin\": \"%s\", \"kernel\": \"%s\", \"key_length\": %zu, \"reps\": %d, \"batch\": %zu, "
               "\"evict_mb\": %g,\n",
               header_.builtin_label.c_str(), header_.kernel.c_str(), header_.key_length, header_.reps, header_.batch,
               header_.evict_mb);
  std::fprintf(f, " \"builds\": [");
  for (size_t i = 0; i < builds_.size(); ++i) {
    const BuildCell& c = builds_[i];
    std::fprintf(f, "%s\n  {\"filter\": \"%s\", \"target_fpr\": %g, \"keys\": %zu, \"setting\": %.4f, \"bytes\": %zu, ",
                 i ? "," : "", c.filter.c_str(), c.target_fpr, c.keys, c.setting, c.bytes);
    std::fprintf(f, "\"positives\": %llu, \"queries\": %llu, ", static_cast<unsigned long long>(c.fpr.positives),
                 static_cast<unsigned long long>(c.fpr.queries));
    WriteNumber(f, "model_fpr", c.model_fpr);
    std::fprintf(f, ", ");
    WriteNumber(f, "second_line_share", c.second_line_share);
    std::fprintf(f, ", ");
    WriteNumber(f, "ribbon_bits_at_fpr", RibbonBitsAt(c.target_fpr, c.keys, c.fpr.Rate()).bits_per_key);
    std::fprintf(f, ", ");
    WriteArray(f, "build_ns", c.build_ns);
    std::fprintf(f, ", ");
    WriteArray(f, "peak_bytes", c.peak_bytes);
    std::fprintf(f, ", ");
    WriteString(f, "failure", c.failure);
    std::fprintf(f, "}");
  }
  std::fprintf(f, "],\n \"ribbon_points\": [");
  for (size_t i = 0; i < ribbon_points_.size(); ++i) {
    const RibbonPoint& p = ribbon_points_[i];
    std::fprintf(f, "%s\n  {\"target_fpr\": %g, \"keys\": %zu, \"bits_per_key\": %.6g, \"fpr\": %.6g}", i ? "," : "",
                 p.target_fpr, p.keys, p.point.bits_per_key, p.point.fpr);
  }
  std::fprintf(f, "],\n \"queries\": [");
  for (size_t i = 0; i < queries_.size(); ++i) {
    const QueryCell& c = queries_[i];
    std::fprintf(f, "%s\n  {\"filter\": \"%s\", \"size_mb\": %g, \"keys\": %zu, \"bytes\": %zu, ", i ? "," : "",
                 c.filter.c_str(), c.size_mb, c.keys, c.bytes);
    WriteArray(f, "single_ns", c.single_ns);
    std::fprintf(f, ", ");
    WriteArray(f, "alone_ns", c.alone_ns);
    std::fprintf(f, ", ");
    WriteArray(f, "batch_ns", c.batch_ns);
    std::fprintf(f, ", ");
    WriteString(f, "failure", c.failure);
    std::fprintf(f, "}");
  }
  std::fprintf(f, "]}\n");
  return std::fclose(f) == 0;
}

}  // namespace linebloom::bench
