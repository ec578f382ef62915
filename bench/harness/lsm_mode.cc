// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "lsm_mode.h"

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>

#include "linebloom/bloom_math.h"
#include "linebloom/compact_math.h"
#include "linebloom/level_allocator.h"
#include "linebloom/sstable/table_reader.h"
#include "linebloom/sstable/table_writer.h"

namespace linebloom::harness {
namespace {

// Which level each key lives in: a seeded shuffle, so every level spans the
// whole key range and every absent lookup must consult every level.
std::vector<std::vector<size_t>> AssignLevels(size_t num_keys, const std::vector<uint64_t>& per_level) {
  std::vector<size_t> order(num_keys);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(7);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::vector<size_t>> levels(per_level.size());
  size_t next = 0;
  for (size_t l = 0; l < per_level.size(); ++l) {
    levels[l].assign(order.begin() + next, order.begin() + next + per_level[l]);
    std::sort(levels[l].begin(), levels[l].end());  // keys are sorted, so indices sort them
    next += per_level[l];
  }
  return levels;
}

bool BuildAndProbe(const Workload& w, const std::vector<std::vector<size_t>>& members, const LevelAllocation& alloc,
                   const std::string& dir, LsmResult* result, std::string* error) {
  std::vector<std::unique_ptr<sstable::TableReader>> readers;
  for (size_t l = 0; l < members.size(); ++l) {
    LsmLevel level;
    level.keys = members[l].size();
    level.bits_per_key = alloc.bits_per_key[l];
    sstable::TableWriterOptions options;
    options.sync_on_finish = false;
    const bool compact = l < alloc.kinds.size() && alloc.kinds[l] == FilterKind::kCompact;
    if (level.bits_per_key > 0) {
      options.filter_mode = sstable::FilterMode::kPerFile;
      options.filter_policy = compact ? sstable::NewLinebloomCompactPolicy({.bits_per_key = level.bits_per_key})
                                      : sstable::NewLinebloomLinePairPolicy(
                                            {.bits_per_key = level.bits_per_key, .num_probes = alloc.num_probes[l]});
    } else {
      options.filter_mode = sstable::FilterMode::kNone;
    }
    const std::string path =
        dir + "/lsm-" + std::to_string(getpid()) + "-" + result->name + "-L" + std::to_string(l) + ".sst";
    std::unique_ptr<sstable::TableWriter> writer;
    Status s = sstable::TableWriter::Create(path, options, &writer);
    for (size_t i : members[l]) {
      if (!s.ok()) break;
      s = writer->Add(w.keys[i], ValueFor(i, 16));
    }
    if (s.ok()) s = writer->Finish();
    std::unique_ptr<sstable::TableReader> reader;
    if (s.ok()) s = sstable::TableReader::Open(path, IoMode::kBuffered, {}, &reader);
    unlink(path.c_str());  // the open reader keeps the file
    if (!s.ok()) {
      *error = s.ToString();
      return false;
    }
    level.filter_bytes = reader->filter_memory();
    level.compact = compact;
    if (compact && level.bits_per_key > 0 && level.keys > 0) {
      level.expected_fpr = CompactFpr(level.bits_per_key, level.keys);
    } else if (level.bits_per_key > 0 && level.keys > 0) {
      const double real_bits = (level.filter_bytes - 16) * 8.0 / level.keys;  // blocks only
      level.probes = alloc.num_probes[l];
      level.expected_fpr = BlockedFpr(real_bits, level.probes);
    } else {
      level.expected_fpr = level.keys > 0 ? 1.0 : 0.0;
    }
    result->filter_bytes += level.filter_bytes;
    result->expected_reads_per_lookup += level.expected_fpr;
    result->levels.push_back(level);
    readers.push_back(std::move(reader));
  }
  // Absent keys: every level is asked; a block read there is wasted.
  std::string value;
  uint64_t wasted = 0;
  for (const std::string& key : w.absent) {
    for (size_t l = 0; l < readers.size(); ++l) {
      sstable::LookupStats stats;
      Status s = readers[l]->Get(key, &value, &stats);
      if (!s.IsNotFound()) {
        *error = "absent key found or error: " + s.ToString();
        return false;
      }
      if (stats.filter_probes + stats.block_reads == 0) continue;  // outside the level's key range
      result->levels[l].lookups += 1;
      result->levels[l].false_positives += stats.unneeded_block_reads;
      wasted += stats.unneeded_block_reads;
    }
  }
  result->lookups = w.absent.size();
  result->measured_reads_per_lookup = w.absent.empty() ? 0 : static_cast<double>(wasted) / w.absent.size();
  // A sample of present keys must be found in their level.
  for (size_t l = 0; l < members.size(); ++l) {
    for (size_t j = 0; j < members[l].size(); j += std::max<size_t>(1, members[l].size() / 2000)) {
      if (!readers[l]->Get(w.keys[members[l][j]], &value).ok()) ++result->false_negatives;
    }
  }
  return true;
}

}  // namespace

bool RunLsm(const Workload& workload, int levels, double size_ratio, double bits_per_key, const std::string& dir,
            std::vector<LsmResult>* results, std::string* error) {
  const std::vector<uint64_t> per_level = LeveledEntries(workload.keys.size(), size_ratio, levels);
  const auto members = AssignLevels(workload.keys.size(), per_level);
  // The third plan gives the last level the compact filter (as RocksDB's
  // bloom_before_level would) and prices it so in the allocation.
  std::vector<FilterKind> kinds(per_level.size(), FilterKind::kBloom);
  kinds.back() = FilterKind::kCompact;
  const std::pair<const char*, LevelAllocation> plans[] = {
      {"uniform", UniformAllocation(per_level, bits_per_key)},
      {"level-aware", AllocateBitsPerRun(per_level, bits_per_key)},
      {"level-aware+compact-last", AllocateBitsPerRun(per_level, {}, kinds, bits_per_key)}};
  for (const auto& [name, alloc] : plans) {
    LsmResult r;
    r.name = name;
    LevelAllocation a = alloc;
    for (size_t l = 0; l < a.num_probes.size(); ++l) {
      const bool compact = l < a.kinds.size() && a.kinds[l] == FilterKind::kCompact;
      if (!compact && a.bits_per_key[l] > 0 && a.num_probes[l] == 0)
        a.num_probes[l] = OptimalBlockedProbes(a.bits_per_key[l]);
    }
    if (!BuildAndProbe(workload, members, a, dir, &r, error)) return false;
    results->push_back(std::move(r));
  }
  return true;
}

void PrintLsmTable(FILE* out, const std::vector<LsmResult>& results, double size_ratio, double bits_per_key) {
  std::fprintf(out, "LSM mode: %zu levels, size ratio %g, %g bits/key on average, one whole-file filter per level;\n",
               results.empty() ? size_t{0} : results[0].levels.size(), size_ratio, bits_per_key);
  std::fprintf(out, "every absent-key lookup consults every level.\n\n");
  for (const LsmResult& r : results) {
    std::fprintf(out, "%s\n%6s %10s %9s %3s %12s %12s %12s\n", r.name.c_str(), "level", "keys", "bits/key", "k",
                 "filter B", "expected FPR", "measured FPR");
    for (size_t l = 0; l < r.levels.size(); ++l) {
      const LsmLevel& v = r.levels[l];
      // k is "c" for a compact filter, which has no probe count.
      std::fprintf(out, "%6zu %10llu %9.3f %3s %12llu %11.5f%% %11.5f%%\n", l, static_cast<unsigned long long>(v.keys),
                   v.bits_per_key, v.compact ? "c" : std::to_string(v.probes).c_str(),
                   static_cast<unsigned long long>(v.filter_bytes), 100 * v.expected_fpr, 100 * v.measured_fpr());
    }
    std::fprintf(out,
                 "total filter bytes %llu; wasted block reads per absent lookup: expected %.5f, measured %.5f (%llu "
                 "lookups)\n\n",
                 static_cast<unsigned long long>(r.filter_bytes), r.expected_reads_per_lookup,
                 r.measured_reads_per_lookup, static_cast<unsigned long long>(r.lookups));
  }
  for (size_t i = 1; i < results.size() && results[0].measured_reads_per_lookup > 0; ++i) {
    std::fprintf(out, "%s vs uniform: %.1f%% fewer wasted reads measured (%.1f%% expected), filter bytes %+.3f%%\n",
                 results[i].name.c_str(),
                 100 * (1 - results[i].measured_reads_per_lookup / results[0].measured_reads_per_lookup),
                 100 * (1 - results[i].expected_reads_per_lookup / results[0].expected_reads_per_lookup),
                 100.0 * (static_cast<double>(results[i].filter_bytes) / results[0].filter_bytes - 1));
  }
}

void PrintLsmJson(FILE* out, const std::vector<LsmResult>& results, double size_ratio, double bits_per_key) {
  std::fprintf(out, "{\"lsm\": {\"size_ratio\": %g, \"bits_per_key\": %g, \"configs\": [", size_ratio, bits_per_key);
  for (size_t i = 0; i < results.size(); ++i) {
    const LsmResult& r = results[i];
    std::fprintf(out, "%s{\"name\": \"%s\", \"levels\": [", i ? ", " : "", r.name.c_str());
    for (size_t l = 0; l < r.levels.size(); ++l) {
      const LsmLevel& v = r.levels[l];
      std::fprintf(out,
                   "%s{\"level\": %zu, \"keys\": %llu, \"kind\": \"%s\", \"bits_per_key\": %.4f, \"probes\": %d, "
                   "\"filter_bytes\": %llu, \"expected_fpr\": %.8g, \"measured_fpr\": %.8g}",
                   l ? ", " : "", l, static_cast<unsigned long long>(v.keys), v.compact ? "compact" : "bloom",
                   v.bits_per_key, v.probes, static_cast<unsigned long long>(v.filter_bytes), v.expected_fpr,
                   v.measured_fpr());
    }
    std::fprintf(out,
                 "], \"filter_bytes\": %llu, \"lookups\": %llu, \"expected_reads_per_lookup\": %.8g, "
                 "\"measured_reads_per_lookup\": %.8g, \"false_negatives\": %llu}",
                 static_cast<unsigned long long>(r.filter_bytes), static_cast<unsigned long long>(r.lookups),
                 r.expected_reads_per_lookup, r.measured_reads_per_lookup,
                 static_cast<unsigned long long>(r.false_negatives));
  }
  std::fprintf(out, "]}}\n");
}

}  // namespace linebloom::harness
