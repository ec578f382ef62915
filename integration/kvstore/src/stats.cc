// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/kvstore/stats.h"

#include <cstdio>

#include "linebloom/kvstore/options.h"

namespace linebloom::kvstore {
namespace {

void AppendEscaped(std::string* out, std::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out->append(buf);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

class JsonObject {
 public:
  explicit JsonObject(std::string* out, int indent) : out_(out), indent_(indent) { out_->push_back('{'); }
  void Key(std::string_view k) {
    out_->append(first_ ? "\n" : ",\n").append(indent_ + 2, ' ');
    first_ = false;
    AppendEscaped(out_, k);
    out_->append(": ");
  }
  void Field(std::string_view k, uint64_t v) {
    Key(k);
    out_->append(std::to_string(v));
  }
  void Field(std::string_view k, double v) {
    Key(k);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    out_->append(buf);
  }
  void Field(std::string_view k, std::string_view v) {
    Key(k);
    AppendEscaped(out_, v);
  }
  void Close() { out_->append("\n").append(indent_, ' ').append("}"); }
  int indent() const { return indent_; }

 private:
  std::string* out_;
  int indent_;
  bool first_ = true;
};

void CounterFields(JsonObject* o, const LookupCounters& c) {
  o->Field("lookups", c.lookups);
  o->Field("range_skips", c.range_skips);
  o->Field("run_filter_checks", c.run_filter_checks);
  o->Field("run_filter_negatives", c.run_filter_negatives);
  o->Field("block_filter_checks", c.block_filter_checks);
  o->Field("block_filter_negatives", c.block_filter_negatives);
  o->Field("block_reads", c.block_reads);
  o->Field("bytes_read", c.bytes_read);
  o->Field("false_positives", c.false_positives);
  o->Field("hits", c.hits);
  o->Field("block_reads_avoided_by_filters", c.reads_avoided());
}

}  // namespace

BitsPerKeyForLevel UniformBitsPerKey(double bits_per_key) {
  return [bits_per_key](int) { return bits_per_key; };
}

LookupCounters& LookupCounters::operator+=(const LookupCounters& o) {
  lookups += o.lookups;
  range_skips += o.range_skips;
  run_filter_checks += o.run_filter_checks;
  run_filter_negatives += o.run_filter_negatives;
  block_filter_checks += o.block_filter_checks;
  block_filter_negatives += o.block_filter_negatives;
  block_reads += o.block_reads;
  bytes_read += o.bytes_read;
  false_positives += o.false_positives;
  hits += o.hits;
  return *this;
}

std::string StatsToJson(const StoreStats& s) {
  std::string out;
  JsonObject top(&out, 0);
  top.Field("gets", s.gets);
  top.Field("memtable_hits", s.memtable_hits);
  top.Field("puts", s.puts);
  top.Field("deletes", s.deletes);
  top.Field("scans", s.scans);
  top.Field("flushes", s.flushes);
  top.Field("compactions", s.compactions);
  top.Field("memtable_entries", s.memtable_entries);
  top.Field("memtable_bytes", s.memtable_bytes);
  top.Field("wal_records_replayed", s.wal_records_replayed);
  top.Field("wal_bytes_dropped", s.wal_bytes_dropped);

  top.Field("run_entries", s.run_entries);
  top.Field("filter_bytes", s.filter_bytes);
  top.Key("run_lookups");
  {
    JsonObject t(&out, 2);
    CounterFields(&t, s.total);
    // Of the lookups that got past the key-range check, the share the
    // filters answered without a data-block read.
    const uint64_t reached = s.total.reads_avoided() + s.total.block_reads;
    t.Field("avoided_fraction", reached ? static_cast<double>(s.total.reads_avoided()) / reached : 0.0);
    t.Close();
  }

  top.Key("levels");
  out.append("[");
  for (size_t i = 0; i < s.levels.size(); ++i) {
    out.append(i ? ",\n    " : "\n    ");
    const LevelStats& l = s.levels[i];
    JsonObject o(&out, 4);
    o.Field("level", static_cast<uint64_t>(l.level));
    o.Field("runs", l.runs);
    o.Field("entries", l.entries);
    o.Field("table_bytes", l.table_bytes);
    o.Field("bits_per_key", l.bits_per_key);
    o.Field("filter_bytes", l.filter_bytes);
    o.Field("filter_bits_per_key", l.filter_bits_per_key);
    CounterFields(&o, l.counters);
    o.Close();
  }
  out.append(s.levels.empty() ? "]" : "\n  ]");

  top.Key("runs");
  out.append("[");
  for (size_t i = 0; i < s.runs.size(); ++i) {
    out.append(i ? ",\n    " : "\n    ");
    const RunStats& r = s.runs[i];
    JsonObject o(&out, 4);
    o.Field("file", r.file_number);
    o.Field("level", static_cast<uint64_t>(r.level));
    o.Field("entries", r.entries);
    o.Field("table_bytes", r.table_bytes);
    o.Field("data_blocks", r.data_blocks);
    o.Field("filter_bytes", r.filter_bytes);
    o.Field("filter_bits_per_key", r.filter_bits_per_key);
    CounterFields(&o, r.counters);
    o.Close();
  }
  out.append(s.runs.empty() ? "]" : "\n  ]");
  top.Field("background_error", s.background_error);
  top.Close();
  out.push_back('\n');
  return out;
}

}  // namespace linebloom::kvstore
