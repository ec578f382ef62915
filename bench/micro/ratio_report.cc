// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "ratio_report.h"

#include <cstdlib>
#include <fstream>

#include "linebloom/bloom_math.h"
#include "linebloom/filter_options.h"

namespace linebloom::bench {

namespace {

const char* const kQueryMetrics[] = {"neg", "pos", "batch8", "batch32", "batch128"};

double NsFromRun(const benchmark::BenchmarkReporter::Run& run) {
  auto per_key = run.counters.find("ns_per_key");
  if (per_key != run.counters.end()) return per_key->second.value * 1e9;  // counter is s/key
  return run.GetAdjustedRealTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
}

}  // namespace

void CollectingReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    // With --benchmark_repetitions the median of the repetitions, reported
    // after them, replaces the last repetition's figure.
    const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
    if (run.error_occurred || (run.run_type != Run::RT_Iteration && !median)) continue;
    // <metric>/<filter>/<size>MB
    const std::string name = run.run_name.function_name;
    const size_t a = name.find('/'), b = name.rfind('/');
    if (a == std::string::npos || a == b) continue;
    report_.Add(name.substr(0, a), name.substr(a + 1, b - a - 1), std::atof(name.c_str() + b + 1), NsFromRun(run));
  }
}

void RatioReport::Print(FILE* out) const {
  std::fprintf(out, "\n== Ratios, all measured in this run (lower is better) ==\n");
  std::fprintf(out, "%s = %s\n", reference_.c_str(), reference_label_.c_str());
  std::fprintf(out, "x%s = time / %s's time; x%s_indep, x%s_dep = time / one random 64-byte read from a\n",
               reference_.c_str(), reference_.c_str(), memory_.c_str(), memory_.c_str());
  std::fprintf(out, "buffer of the same size (independent reads: throughput limit; dependent: latency limit).\n");
  for (const auto& [size, unused] : sizes_) {
    (void)unused;
    const double indep = Get(size, "mem_indep", memory_), dep = Get(size, "mem_dep", memory_);
    std::fprintf(out, "\n-- %s filters (memory: independent read %.1f ns, dependent read %.1f ns)\n",
                 FormatSize(size).c_str(), indep, dep);
    std::fprintf(out, "x%s: against %s\n", reference_.c_str(), reference_label_.c_str());
    std::fprintf(out, "%-22s %-9s %10s %10s %12s %10s\n", "filter", "metric", "ns",
                 "x"
                 "builtin",
                 "x_mem_indep", "x_mem_dep");
    for (const std::string& filter : filters_) {
      for (const char* metric : {"build", "neg", "pos", "batch8", "batch32", "batch128"}) {
        const double ns = Get(size, metric, filter), ref = Get(size, metric, reference_);
        if (ns == 0) continue;
        const bool query = std::string(metric) != "build";
        std::fprintf(out, "%-22s %-9s %10.2f %10.3f", filter.c_str(), metric, ns, ref > 0 ? ns / ref : 0.0);
        if (query && indep > 0) {
          std::fprintf(out, " %12.3f %10.3f\n", ns / indep, ns / dep);
        } else {
          std::fprintf(out, " %12s %10s\n", "-", "-");
        }
      }
      auto q = quality_.find({size, filter});
      if (q != quality_.end()) {
        auto ref = quality_.find({size, reference_});
        std::fprintf(out, "%-22s %-9s %9.4f%% %10.3f   bits/key %.2f, %zu bytes\n", filter.c_str(), "fpr",
                     100 * q->second.fpr,
                     ref != quality_.end() && ref->second.fpr > 0 ? q->second.fpr / ref->second.fpr : 0.0,
                     q->second.bits_per_key, q->second.bytes);
      }
    }
  }
  (void)kQueryMetrics;
}

bool RatioReport::WriteJson(const std::string& path) const {
  std::ofstream out(path);
  if (!out) return false;
  out << "{\n  \"reference\": \"" << reference_ << "\",\n  \"reference_label\": \"" << reference_label_
      << "\",\n  \"results\": [\n";
  bool first = true;
  for (const auto& [key, ns] : ns_) {
    const auto& [size, metric, filter] = key;
    const double ref = Get(size, metric, reference_);
    const double indep = Get(size, "mem_indep", memory_), dep = Get(size, "mem_dep", memory_);
    out << (first ? "" : ",\n") << "    {\"size_mb\": " << size << ", \"metric\": \"" << metric << "\", \"filter\": \""
        << filter << "\", \"ns\": " << ns << ", \"vs_builtin\": " << (ref > 0 ? ns / ref : 0)
        << ", \"vs_mem_indep\": " << (indep > 0 ? ns / indep : 0) << ", \"vs_mem_dep\": " << (dep > 0 ? ns / dep : 0)
        << "}";
    first = false;
  }
  out << "\n  ],\n  \"quality\": [\n";
  first = true;
  for (const auto& [key, q] : quality_) {
    out << (first ? "" : ",\n") << "    {\"size_mb\": " << key.first << ", \"filter\": \"" << key.second
        << "\", \"fpr\": " << q.fpr << ", \"bits_per_key\": " << q.bits_per_key << ", \"bytes\": " << q.bytes << "}";
    first = false;
  }
  out << "\n  ]\n}\n";
  return static_cast<bool>(out);
}

}  // namespace linebloom::bench
