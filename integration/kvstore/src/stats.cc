// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/kvstore/stats.h"

#include "json_object.h"
#include "linebloom/kvstore/options.h"
#include "lookup_counter_fields.h"

namespace linebloom::kvstore {
namespace {

using internal::JsonObject;

void CounterFields(JsonObject* o, const LookupCounters& c) {
  for (const internal::LookupCounterField& f : internal::kLookupCounterFields) o->Field(f.name, c.*f.member);
  o->Field("block_reads_avoided_by_filters", c.reads_avoided());
}

}  // namespace

BitsPerKeyForLevel UniformBitsPerKey(double bits_per_key) {
  return [bits_per_key](int) { return bits_per_key; };
}

LookupCounters& LookupCounters::operator+=(const LookupCounters& o) {
  for (const internal::LookupCounterField& f : internal::kLookupCounterFields) this->*f.member += o.*f.member;
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
  top.Field("filter_bits_per_key", s.filter_bits_per_key);
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

  top.ArrayOfObjects("levels", s.levels, [](JsonObject* o, const LevelStats& l) {
    o->Field("level", static_cast<uint64_t>(l.level));
    o->Field("runs", l.runs);
    o->Field("entries", l.entries);
    o->Field("table_bytes", l.table_bytes);
    o->Field("bits_per_key", l.bits_per_key);
    o->Field("filter_bytes", l.filter_bytes);
    o->Field("filter_bits_per_key", l.filter_bits_per_key);
    CounterFields(o, l.counters);
  });
  top.ArrayOfObjects("runs", s.runs, [](JsonObject* o, const RunStats& r) {
    o->Field("file", r.file_number);
    o->Field("level", static_cast<uint64_t>(r.level));
    o->Field("entries", r.entries);
    o->Field("table_bytes", r.table_bytes);
    o->Field("data_blocks", r.data_blocks);
    o->Field("filter_bytes", r.filter_bytes);
    o->Field("filter_bits_per_key", r.filter_bits_per_key);
    o->Field("block_filter_bytes", r.block_filter_bytes);
    o->Field("block_filter_bits_per_key", r.block_filter_bits_per_key);
    o->Field("run_filter_kind", r.run_filter_kind);
    CounterFields(o, r.counters);
  });
  top.Field("background_error", s.background_error);
  top.Close();
  out.push_back('\n');
  return out;
}

}  // namespace linebloom::kvstore
