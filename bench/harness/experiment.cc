// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "experiment.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/sstable/table_reader.h"
#include "linebloom/sstable/table_writer.h"
#include "line_pair_filter.h"

#ifdef LINEBLOOM_HARNESS_WITH_ROCKSDB
#include "rocksdb_block_filter.h"
#endif

namespace linebloom::harness {

using sstable::FilterMode;
using sstable::LookupStats;
using sstable::TableReader;
using sstable::TableWriter;
using Clock = std::chrono::steady_clock;

namespace {

Latency Percentiles(std::vector<uint32_t>& ns) {
  Latency l;
  if (ns.empty()) return l;
  auto at = [&](double q) {
    const size_t i = std::min(ns.size() - 1, static_cast<size_t>(q * static_cast<double>(ns.size())));
    std::nth_element(ns.begin(), ns.begin() + static_cast<std::ptrdiff_t>(i), ns.end());
    return static_cast<double>(ns[i]);
  };
  l.p50_ns = at(0.50);
  l.p99_ns = at(0.99);
  return l;
}

// Runs the lookups of `keys`; `expect_present` decides what a correct
// answer is. Timings go to *ns when not null.
struct LookupOutcome {
  LookupStats stats;
  uint64_t wrong = 0;  // present: not found or wrong value; absent: found
};

bool RunLookups(const TableReader& table, const Workload& w, bool present, size_t count, size_t value_size,
                std::vector<uint32_t>* ns, Progress* progress, LookupOutcome* out, std::string* error) {
  std::string value;
  if (ns) ns->reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const std::string& key = present ? w.keys[w.present[i]] : w.absent[i];
    const auto t0 = Clock::now();
    const Status s = table.Get(key, &value, &out->stats);
    const auto t1 = Clock::now();
    if (ns)
      ns->push_back(static_cast<uint32_t>(
          std::min<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count(), UINT32_MAX)));
    if (!s.ok() && !s.IsNotFound()) {
      *error = s.ToString();
      return false;
    }
    if (present) {
      out->wrong += !s.ok() || value != ValueFor(w.present[i], value_size);
    } else {
      out->wrong += s.ok();
    }
    if ((i & 4095) == 4095) progress->Advance(4096);
  }
  progress->Advance(count & 4095);
  return true;
}

// The expected false-positive rate over the absent lookups that reached a
// filter: each lookup weighs its own block's filter (per-block mode), whose
// size and key count the table records.
double PredictedFpr(const TableReader& table, const ConfigSpec& spec, const Workload& w, size_t count) {
  FiniteBloomFpr model;
  // (filter bytes, offset mod 64, keys): what decides a filter's rate.
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, double> memo;
  auto fpr_of = [&](std::string_view filter, uint64_t offset, uint64_t keys) {
    if (!spec.predict) return 1.0;
    auto [it, inserted] = memo.try_emplace({filter.size(), offset % 64, keys}, 0.0);
    if (inserted) it->second = spec.predict(table.filter_parameters(), filter, offset, keys, &model);
    return it->second < 0 ? 1.0 : it->second;
  };
  if (spec.mode == FilterMode::kPerFile) return fpr_of(table.file_filter(), 0, table.num_entries());
  // Per-block filters lie back to back from the first one.
  const char* region = table.num_blocks() ? table.block(0).filter.data() : nullptr;
  std::vector<double> per_block(table.num_blocks(), -1);
  double sum = 0;
  uint64_t probed = 0;
  for (size_t i = 0; i < count; ++i) {
    const std::optional<size_t> b = table.FindBlock(w.absent[i]);
    if (!b) continue;
    if (per_block[*b] < 0) {
      const sstable::BlockInfo info = table.block(*b);
      per_block[*b] = fpr_of(info.filter, static_cast<uint64_t>(info.filter.data() - region), info.num_entries);
    }
    sum += per_block[*b];
    ++probed;
  }
  return probed ? sum / static_cast<double>(probed) : 0;
}

double PerLookup(uint64_t total, uint64_t lookups) {
  return lookups ? static_cast<double>(total) / static_cast<double>(lookups) : 0;
}

}  // namespace

bool HaveRocksdb() {
#ifdef LINEBLOOM_HARNESS_WITH_ROCKSDB
  return true;
#else
  return false;
#endif
}

std::vector<ConfigSpec> StandardConfigs(double bits_per_key) {
  std::vector<ConfigSpec> configs;
  configs.push_back({"none", FilterMode::kNone, nullptr, nullptr});
  auto lb = sstable::NewLinebloomLinePairPolicy({.bits_per_key = bits_per_key});
  auto lb_predict = [](std::string_view parameters, std::string_view filter, uint64_t offset, uint64_t keys,
                       FiniteBloomFpr* model) {
    return sstable::internal::LinePairFilterFpr(parameters, filter.size(), offset, keys, model);
  };
  configs.push_back({"linebloom/per-block", FilterMode::kPerBlock, lb, lb_predict});
  configs.push_back({"linebloom/per-file", FilterMode::kPerFile, lb, lb_predict});
  // The compact filter over the whole file, predicted by its own model
  // (compact_math.h) at the bits it was built with; a Bloom fallback is not
  // predicted.
  const double compact_bits = std::clamp(bits_per_key, kMinCompactBitsPerKey, kMaxCompactBitsPerKey);
  auto compact_predict = [compact_bits](std::string_view, std::string_view filter, uint64_t, uint64_t keys,
                                        FiniteBloomFpr*) {
    return DetectFilterKind(filter) == FilterKind::kCompact ? CompactFpr(compact_bits, keys) : -1.0;
  };
  configs.push_back({"linebloom-compact/per-file", FilterMode::kPerFile,
                     sstable::NewLinebloomCompactPolicy({.bits_per_key = bits_per_key}), compact_predict});
#ifdef LINEBLOOM_HARNESS_WITH_ROCKSDB
  auto rocks = NewRocksdbBloomPolicy(bits_per_key);
  // FastLocalBloom: a key picks one of the 512-bit lines, then k bits in it.
  auto rocks_predict = [](std::string_view, std::string_view filter, uint64_t, uint64_t keys, FiniteBloomFpr* model) {
    RocksdbBloomShape s;
    if (!ParseRocksdbBloom(filter, &s)) return -1.0;
    return model->Split(keys, {{s.num_lines, 512}}, s.num_probes);
  };
  configs.push_back({"rocksdb-builtin/per-block", FilterMode::kPerBlock, rocks, rocks_predict});
  configs.push_back({"rocksdb-builtin/per-file", FilterMode::kPerFile, rocks, rocks_predict});
#endif
  return configs;
}

bool RunConfig(const ConfigSpec& spec, const Workload& w, const RunOptions& options, Progress* shown_progress,
               ConfigResult* r, std::string* direct_note, std::string* error) {
  Progress quiet(0, /*enabled=*/false);
  Progress* progress = shown_progress ? shown_progress : &quiet;
  *r = ConfigResult{};
  r->name = spec.name;
  r->keys = w.keys.size();
  progress->SetPhase(spec.name + ": writing");

  sstable::TableWriterOptions wo;
  wo.block_size = options.block_size;
  wo.filter_mode = spec.mode;
  wo.filter_policy = spec.policy;
  std::string file_name = spec.name;
  std::replace(file_name.begin(), file_name.end(), '/', '-');
  // The pid keeps concurrent runs sharing a directory apart.
  const std::string path = (std::filesystem::path(options.dir) /
                            ("linebloom-harness-" + std::to_string(::getpid()) + "-" + file_name + ".sst"))
                               .string();
  std::string memory;
  std::unique_ptr<TableWriter> writer;
  Status s = options.in_memory ? TableWriter::Open(NewStringWritableFile(&memory), wo, &writer)
                               : TableWriter::Create(path, wo, &writer);
  const auto build_start = Clock::now();
  for (size_t i = 0; s.ok() && i < w.keys.size(); ++i) {
    s = writer->Add(w.keys[i], ValueFor(i, options.value_size));
    if ((i & 65535) == 65535) progress->Advance(65536);
  }
  progress->Advance(w.keys.size() & 65535);
  if (s.ok()) s = writer->Finish();
  r->build_seconds = std::chrono::duration<double>(Clock::now() - build_start).count();
  if (!s.ok()) {
    *error = spec.name + ": writing the table: " + s.ToString();
    return false;
  }
  r->file_bytes = writer->file_size();
  writer.reset();

  sstable::TableReaderOptions ro;
  if (spec.policy) ro.filter_policies = {spec.policy};
  std::unique_ptr<TableReader> table;
  s = options.in_memory ? TableReader::Open(NewMemoryFile("(memory)", std::move(memory)), ro, &table)
                        : TableReader::Open(path, IoMode::kBuffered, ro, &table);
  if (!s.ok()) {
    *error = spec.name + ": opening the table: " + s.ToString();
    return false;
  }
  r->has_filter = table->filter_in_use();
  if ((spec.mode != FilterMode::kNone) != r->has_filter) {
    *error = spec.name + ": the table's filter is not in use";
    return false;
  }
  r->data_blocks = table->num_blocks();
  r->filter_bytes = table->filter_memory();
  r->filter_bits_per_key = PerLookup(8 * r->filter_bytes, r->keys);

  const size_t m = w.absent.size();
  LookupOutcome absent, present;
  std::vector<uint32_t> absent_ns, present_ns;
  std::vector<uint32_t>* a_ns = options.time_lookups ? &absent_ns : nullptr;
  std::vector<uint32_t>* p_ns = options.time_lookups ? &present_ns : nullptr;
  progress->SetPhase(spec.name + ": absent keys");
  if (!RunLookups(*table, w, false, m, options.value_size, a_ns, progress, &absent, error)) return false;
  progress->SetPhase(spec.name + ": present keys");
  const size_t num_present = std::min(w.present.size(), options.max_present_lookups);
  if (!RunLookups(*table, w, true, num_present, options.value_size, p_ns, progress, &present, error)) {
    return false;
  }
  r->absent_lookups = m;
  r->filter_probes = absent.stats.filter_probes;
  r->false_positives = absent.stats.false_positives;
  r->absent_block_reads = PerLookup(absent.stats.block_reads, m);
  r->absent_bytes_read = PerLookup(absent.stats.bytes_read, m);
  r->wrong_answers = absent.wrong;
  r->present_lookups = num_present;
  r->present_block_reads = PerLookup(present.stats.block_reads, num_present);
  r->false_negatives = present.wrong;
  if (r->has_filter) {
    r->measured_fpr = PerLookup(absent.stats.false_positives, absent.stats.filter_probes);
    r->predicted_fpr = PredictedFpr(*table, spec, w, m);
  }
  if (options.time_lookups) {
    r->absent_latency = Percentiles(absent_ns);
    r->present_latency = Percentiles(present_ns);
  }
  table.reset();

  if (options.direct && !options.in_memory) {
    progress->SetPhase(spec.name + ": O_DIRECT");
    std::unique_ptr<TableReader> direct;
    s = TableReader::Open(path, IoMode::kDirect, ro, &direct);
    if (s.IsNotSupported()) {
      *direct_note = s.message() + "; O_DIRECT columns skipped (use --dir on a disk-backed filesystem)";
    } else if (!s.ok()) {
      *error = spec.name + ": opening with O_DIRECT: " + s.ToString();
      return false;
    } else {
      const size_t d = std::min({options.direct_lookups, m, num_present});
      LookupOutcome da, dp;
      std::vector<uint32_t> da_ns, dp_ns;
      if (!RunLookups(*direct, w, false, d, options.value_size, &da_ns, progress, &da, error) ||
          !RunLookups(*direct, w, true, d, options.value_size, &dp_ns, progress, &dp, error)) {
        return false;
      }
      r->false_negatives += dp.wrong;
      r->wrong_answers += da.wrong;
      r->direct_absent_latency = Percentiles(da_ns);
      r->direct_present_latency = Percentiles(dp_ns);
      r->direct_absent_bytes_read = PerLookup(da.stats.bytes_read, d);
    }
  }
  if (!options.in_memory && !options.keep_files) std::filesystem::remove(path);
  return true;
}

void SetIoAvoided(std::vector<ConfigResult>* results) {
  const ConfigResult* none = nullptr;
  for (const ConfigResult& r : *results) {
    if (r.name == "none") none = &r;
  }
  for (ConfigResult& r : *results) {
    r.io_avoided_fraction =
        none && none->absent_block_reads > 0 ? 1.0 - r.absent_block_reads / none->absent_block_reads : std::nan("");
  }
}

}  // namespace linebloom::harness
