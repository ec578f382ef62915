// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "report.h"

#include <cmath>

namespace linebloom::harness {
namespace {

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string Bytes(double b) {
  if (b < 1024) return Fmt("%.0f B", b);
  if (b < 1024 * 1024) return Fmt("%.1f KiB", b / 1024);
  return Fmt("%.2f MiB", b / (1024 * 1024));
}

std::string Time(double ns) {
  if (ns < 1000) return Fmt("%.0f ns", ns);
  if (ns < 1e6) return Fmt("%.1f us", ns / 1e3);
  return Fmt("%.2f ms", ns / 1e6);
}

std::string Percent(double f, int decimals) {
  char format[16];
  std::snprintf(format, sizeof(format), "%%.%df%%%%", decimals);
  return Fmt(format, 100 * f);
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", u);
      out.append(buf);
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

// Full precision for machines; JSON has no NaN, so "no value" is null.
std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  return buf;
}

// The binomial standard deviation of the measured rate if the prediction
// is right: sqrt(p (1 - p) / probes).
double PredictionStddev(const ConfigResult& r) {
  if (r.filter_probes == 0) return std::nan("");
  return std::sqrt(r.predicted_fpr * (1 - r.predicted_fpr) / static_cast<double>(r.filter_probes));
}

struct Field {
  const char* name;
  std::string value;
};

// Every per-config field, in output order; JSON and CSV share the list.
std::vector<Field> Fields(const ConfigResult& r) {
  const double nan = std::nan("");
  auto opt = [&](const std::optional<Latency>& l, bool p99) { return l ? (p99 ? l->p99_ns : l->p50_ns) : nan; };
  return {
      {"name", JsonString(r.name)},
      {"filter_bytes", JsonNumber(static_cast<double>(r.filter_bytes))},
      {"filter_bits_per_key", JsonNumber(r.filter_bits_per_key)},
      {"measured_fpr", JsonNumber(r.has_filter ? r.measured_fpr : nan)},
      {"predicted_fpr", JsonNumber(r.has_filter ? r.predicted_fpr : nan)},
      {"predicted_fpr_stddev", JsonNumber(r.has_filter ? PredictionStddev(r) : nan)},
      {"filter_probes", JsonNumber(static_cast<double>(r.filter_probes))},
      {"false_positives", JsonNumber(static_cast<double>(r.false_positives))},
      {"absent_block_reads", JsonNumber(r.absent_block_reads)},
      {"absent_bytes_read", JsonNumber(r.absent_bytes_read)},
      {"io_avoided_fraction", JsonNumber(r.io_avoided_fraction)},
      {"present_block_reads", JsonNumber(r.present_block_reads)},
      {"p50_ns", JsonNumber(opt(r.absent_latency, false))},
      {"p99_ns", JsonNumber(opt(r.absent_latency, true))},
      {"present_p50_ns", JsonNumber(opt(r.present_latency, false))},
      {"present_p99_ns", JsonNumber(opt(r.present_latency, true))},
      {"direct_p50_ns", JsonNumber(opt(r.direct_absent_latency, false))},
      {"direct_p99_ns", JsonNumber(opt(r.direct_absent_latency, true))},
      {"direct_present_p50_ns", JsonNumber(opt(r.direct_present_latency, false))},
      {"direct_present_p99_ns", JsonNumber(opt(r.direct_present_latency, true))},
      {"direct_absent_bytes_read", JsonNumber(r.direct_absent_latency ? r.direct_absent_bytes_read : nan)},
      {"false_negatives", JsonNumber(static_cast<double>(r.false_negatives))},
      {"wrong_answers", JsonNumber(static_cast<double>(r.wrong_answers))},
      {"file_bytes", JsonNumber(static_cast<double>(r.file_bytes))},
      {"data_blocks", JsonNumber(static_cast<double>(r.data_blocks))},
      {"build_seconds", JsonNumber(r.build_seconds)},
  };
}

}  // namespace

void PrintTable(std::FILE* out, const RunInfo& info, const std::vector<ConfigResult>& results) {
  std::fprintf(out,
               "linebloom-harness: %llu keys (%s), %llu absent + %llu present lookups per config,\n"
               "%g bits/key, %llu-byte blocks, %llu-byte values. Filters are in memory; a lookup reads\n"
               "a data block only if the filter says \"maybe\".\n\n",
               static_cast<unsigned long long>(info.keys), info.key_source.c_str(),
               static_cast<unsigned long long>(info.lookups), static_cast<unsigned long long>(info.present_lookups),
               info.bits_per_key, static_cast<unsigned long long>(info.block_size),
               static_cast<unsigned long long>(info.value_size));
  std::fprintf(out, "%-26s %10s %6s | %9s %9s %6s %5s | %8s %8s %8s | %9s %9s | %9s %9s\n", "", "filter", "bits/",
               "false-pos", "rate", "", "", "reads /", "bytes /", "I/O", "buffered", "", "O_DIRECT", "");
  std::fprintf(out, "%-26s %10s %6s | %9s %9s %6s %5s | %8s %8s %8s | %9s %9s | %9s %9s\n", "config", "memory", "key",
               "measured", "predicted", "m/p", "+-1sd", "absent", "absent", "avoided", "p50", "p99", "p50", "p99");
  for (const ConfigResult& r : results) {
    auto lat = [](const std::optional<Latency>& l, bool p99) {
      return l ? Time(p99 ? l->p99_ns : l->p50_ns) : std::string("-");
    };
    const bool f = r.has_filter;
    const bool ratio = f && r.predicted_fpr > 0;
    std::fprintf(
        out, "%-26s %10s %6s | %9s %9s %6s %5s | %8.5f %8.1f %8s | %9s %9s | %9s %9s\n", r.name.c_str(),
        Bytes(static_cast<double>(r.filter_bytes)).c_str(), f ? Fmt("%.2f", r.filter_bits_per_key).c_str() : "-",
        f ? Percent(r.measured_fpr, 3).c_str() : "-", f ? Percent(r.predicted_fpr, 3).c_str() : "-",
        ratio ? Fmt("%.3f", r.measured_fpr / r.predicted_fpr).c_str() : "-",
        ratio ? Fmt("%.3f", PredictionStddev(r) / r.predicted_fpr).c_str() : "-", r.absent_block_reads,
        r.absent_bytes_read,
        r.name == "none" || std::isnan(r.io_avoided_fraction) ? "-" : Percent(r.io_avoided_fraction, 2).c_str(),
        lat(r.absent_latency, false).c_str(), lat(r.absent_latency, true).c_str(),
        lat(r.direct_absent_latency, false).c_str(), lat(r.direct_absent_latency, true).c_str());
  }
  std::fprintf(
      out,
      "\nfalse-pos rate: block reads that found nothing / filter probes (absent keys); predicted from\n"
      "each filter's own keys and size (exact finite-Bloom model; the compact model for\n"
      "linebloom-compact at the bits asked); +-1sd: binomial standard\n"
      "deviation of m/p. bits/key: what the filters really cost per key: every filter byte, the\n"
      "table's filter parameters and the index fields that locate the filters. Latencies:\n"
      "absent-key Get%s.\n",
      info.direct_lookups
          ? ("; O_DIRECT (" + std::to_string(info.direct_lookups) + " lookups) bypasses the page cache").c_str()
          : "");
  uint64_t fn = 0, wrong = 0;
  for (const ConfigResult& r : results) fn += r.false_negatives, wrong += r.wrong_answers;
  std::fprintf(out, "Present keys: every lookup found its value in every config%s.\n",
               fn == 0 && wrong == 0 ? "" : " -- NOT TRUE, see false_negatives in --json");
  if (!info.notes.empty()) std::fprintf(out, "Note: %s\n", info.notes.c_str());
}

void PrintJson(std::FILE* out, const RunInfo& info, const std::vector<ConfigResult>& results) {
  std::fprintf(out, "{\n  \"keys\": %llu,\n  \"lookups\": %llu,\n  \"bits_per_key\": %s,\n  \"block_size\": %llu,\n",
               static_cast<unsigned long long>(info.keys), static_cast<unsigned long long>(info.lookups),
               JsonNumber(info.bits_per_key).c_str(), static_cast<unsigned long long>(info.block_size));
  std::fprintf(out, "  \"present_lookups\": %llu,\n", static_cast<unsigned long long>(info.present_lookups));
  std::fprintf(out, "  \"value_size\": %llu,\n  \"key_source\": %s,\n  \"direct_lookups\": %llu,\n",
               static_cast<unsigned long long>(info.value_size), JsonString(info.key_source).c_str(),
               static_cast<unsigned long long>(info.direct_lookups));
  std::fprintf(out, "  \"notes\": %s,\n  \"configs\": [", JsonString(info.notes).c_str());
  for (size_t i = 0; i < results.size(); ++i) {
    std::fprintf(out, "%s\n    {", i ? "," : "");
    const auto fields = Fields(results[i]);
    for (size_t j = 0; j < fields.size(); ++j) {
      std::fprintf(out, "%s\"%s\": %s", j ? ", " : "", fields[j].name, fields[j].value.c_str());
    }
    std::fprintf(out, "}");
  }
  std::fprintf(out, "\n  ]\n}\n");
}

void PrintCsv(std::FILE* out, const RunInfo& info, const std::vector<ConfigResult>& results) {
  std::fprintf(out, "keys,lookups,bits_per_key,block_size");
  if (!results.empty()) {
    for (const Field& f : Fields(results.front())) std::fprintf(out, ",%s", f.name);
  }
  std::fprintf(out, "\n");
  for (const ConfigResult& r : results) {
    std::fprintf(out, "%llu,%llu,%s,%llu", static_cast<unsigned long long>(info.keys),
                 static_cast<unsigned long long>(info.lookups), JsonNumber(info.bits_per_key).c_str(),
                 static_cast<unsigned long long>(info.block_size));
    // Names hold no comma or quote, so the JSON form is valid CSV; null
    // becomes an empty cell.
    for (const Field& f : Fields(r)) std::fprintf(out, ",%s", f.value == "null" ? "" : f.value.c_str());
    std::fprintf(out, "\n");
  }
}

}  // namespace linebloom::harness
