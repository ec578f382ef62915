// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-planner-bench: what the level-aware planner costs per file,
// against the filter build it plans, warm and from cold caches.
//
// The planner runs three times per SST file inside the engine (PlanNewFile
// when the builder is made, BitsAtFinish at Finish, ObserveFilter after
// it), and a compaction between two files evicts its state. This bench
// drives the planner (linebloom/planner/level_planner.h) the way the
// RocksDB plugin does for a leveled tree rewritten file by file, and times
// each call:
//   - the tree: levels --last_level - --levels + 1 .. --last_level, the last
//     with --last_files files, each level above 1 / --size_ratio as many
//     (at least one); every file holds --keys 16-byte keys (an 8-byte
//     big-endian index, then "00000000", as db_bench writes them), the
//     files of one level split the key space evenly;
//   - a pass rewrites every file, the last level first, each with the three
//     calls, the filter bytes those of the planned kind at the planned bits;
//   - pass 1 builds the planner's records (untimed); then --reps warm and
//     --reps cold passes alternate, a cold one writing --evict_mb MiB
//     (untimed) before each call;
//   - beside each last-level file's calls, the compact filter of its keys is
//     built (CompactFilterBuilder, the planned bits), warm or cold alike: the
//     planner's cost is reported as a share of that build's.
// The table: medians over the passes of each kind of microseconds per file
// for each call (BitsAtFinish per pinned file: an upper level's overlapping
// the level below, planned at Finish; the others only look), and the
// planner's three calls over the build for the last level's files, one
// ratio per pass: median (smallest-largest). The last line
// fingerprints the planner's decisions (every file's bits in every timed
// pass): a change meant to leave them alone must leave it alone.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "cache_evictor.h"
#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_format.h"
#include "linebloom/planner/level_planner.h"
#include "ratio_summary.h"

namespace linebloom::bench {
namespace {

struct Config {
  int last_level = 6;
  int levels = 4;
  size_t last_files = 600;
  size_t keys = 2000;
  double size_ratio = 10;
  double bits = 10;
  int compact_from_level = 6;  // < 0: none
  int reps = 5;
  double evict_mb = 48;
};

std::string Key(uint64_t index) {
  std::string key(16, '0');
  for (int i = 0; i < 8; ++i) key[i] = static_cast<char>(index >> (56 - 8 * i));
  return key;
}

struct File {
  int level;
  uint64_t first;  // key index of its smallest key; its keys are spaced by `step`
  uint64_t step;
};

// The tree's files in rewrite order: the last level first.
std::vector<File> Files(const Config& c) {
  std::vector<File> files;
  const uint64_t space = c.last_files * c.keys;
  double count = static_cast<double>(c.last_files);
  for (int level = c.last_level; level > c.last_level - c.levels && level >= 1; --level) {
    const auto n = static_cast<uint64_t>(std::max(1.0, std::round(count)));
    const uint64_t span = space / n;
    for (uint64_t i = 0; i < n; ++i) files.push_back({level, i * span, std::max<uint64_t>(1, span / c.keys)});
    count /= c.size_ratio;
  }
  return files;
}

// Microseconds per file of each call in one pass, summed over its files.
struct PassTimes {
  double plan = 0, finish = 0, observe = 0, build = 0;
  double plan_last = 0, finish_last = 0, observe_last = 0;  // last-level files only
  double finish_pinned = 0;
  size_t files = 0, last_files = 0, pinned = 0;
};

class PlannerBench {
 public:
  explicit PlannerBench(const Config& c) : config_(c), files_(Files(c)), planner_(Options(c)), evictor_(c.evict_mb) {}

  // One pass over every file; with `cold`, the caches evicted before each
  // call and each build.
  PassTimes Pass(bool cold) {
    PassTimes t;
    for (const File& f : files_) {
      const std::string smallest = Key(f.first), largest = Key(f.first + (config_.keys - 1) * f.step);
      planner::LevelPlanner::NewFile file;
      file.tree = "default";
      file.level = f.level;
      file.num_levels = config_.last_level + 1;
      file.wants_log = false;
      if (cold) evictor_.Run();
      double start = NowNs();
      const planner::LevelPlanner::Decision decision = planner_.PlanNewFile(file);
      const double plan = NowNs() - start;
      double bits = decision.filter ? decision.filter->bits_per_key : 0;
      if (cold) evictor_.Run();
      start = NowNs();
      const std::optional<double> pinned = planner_.BitsAtFinish("default", f.level, smallest, largest, config_.keys);
      const double finish = NowNs() - start;
      if (pinned) bits = *pinned;
      fingerprint_ = fingerprint_ * 0x100000001b3ull ^ std::bit_cast<uint64_t>(bits);
      const bool compact = decision.kind == FilterKind::kCompact;
      const uint64_t bytes = bits <= 0 ? 0
                             : compact ? static_cast<uint64_t>(ExpectedCompactBytes(config_.keys, bits))
                                       : FilterBytesFor(config_.keys, bits);
      if (cold) evictor_.Run();
      start = NowNs();
      planner_.ObserveFilter("default", f.level, smallest, largest, config_.keys, bytes);
      const double observe = NowNs() - start;
      t.plan += plan;
      t.finish += finish;
      t.observe += observe;
      ++t.files;
      if (pinned) {
        t.finish_pinned += finish;
        ++t.pinned;
      }
      if (f.level == config_.last_level) {
        t.plan_last += plan;
        t.finish_last += finish;
        t.observe_last += observe;
        t.build += Build(f, bits, cold);
        ++t.last_files;
      }
    }
    return t;
  }

  uint64_t fingerprint() const { return fingerprint_; }

 private:
  static planner::PlannerOptions Options(const Config& c) {
    planner::PlannerOptions o;
    o.average_bits_per_key = c.bits;
    o.size_ratio = c.size_ratio;
    o.cache.enabled = false;  // no block cache is described to the planner
    o.compact_from_level = c.compact_from_level < 0 ? INT_MAX : c.compact_from_level;
    return o;
  }

  // Nanoseconds to build the compact filter of a last-level file's keys.
  double Build(const File& f, double bits, bool cold) {
    if (bits <= 0) return 0;
    keys_.clear();
    for (size_t i = 0; i < config_.keys; ++i) keys_.push_back(Key(f.first + i * f.step));
    if (cold) evictor_.Run();
    const double start = NowNs();
    CompactFilterBuilder builder({.bits_per_key = bits});
    for (const std::string& key : keys_) builder.AddKey(key);
    const std::string filter = builder.Finish();
    const double ns = NowNs() - start;
    sink_ += filter.size();
    return ns;
  }

  Config config_;
  std::vector<File> files_;
  planner::LevelPlanner planner_;
  CacheEvictor evictor_;
  std::vector<std::string> keys_;
  uint64_t fingerprint_ = 0xcbf29ce484222325ull;
  size_t sink_ = 0;
};

// One row: the medians over `passes` of each column, per file.
void PrintRow(const char* name, const std::vector<PassTimes>& passes) {
  auto per = [&](auto field, auto count) {
    std::vector<double> v;
    for (const PassTimes& t : passes) v.push_back(count(t) ? field(t) / 1e3 / static_cast<double>(count(t)) : 0);
    return Median(v);
  };
  auto files = [](const PassTimes& t) { return t.files; };
  auto last = [](const PassTimes& t) { return t.last_files; };
  auto pinned = [](const PassTimes& t) { return t.pinned; };
  std::vector<double> planner_ns, build_ns;
  for (const PassTimes& t : passes) {
    planner_ns.push_back(t.plan_last + t.finish_last + t.observe_last);
    build_ns.push_back(t.build);
  }
  const RatioSummary share = SummarizeRatios(planner_ns, build_ns);
  std::printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f (%.2f-%.2f) |\n", name,
              per([](const PassTimes& t) { return t.plan; }, files),
              per([](const PassTimes& t) { return t.finish_pinned; }, pinned),
              per([](const PassTimes& t) { return t.finish - t.finish_pinned; },
                  [](const PassTimes& t) { return t.files - t.pinned; }),
              per([](const PassTimes& t) { return t.observe; }, files),
              per([](const PassTimes& t) { return t.plan_last + t.finish_last + t.observe_last; }, last),
              per([](const PassTimes& t) { return t.build; }, last), share.median, share.min, share.max);
}

int Run(const Config& c) {
  PlannerBench bench(c);
  bench.Pass(false);  // the planner's records
  std::vector<PassTimes> warm, cold;
  for (int rep = 0; rep < c.reps; ++rep) {
    warm.push_back(bench.Pass(false));
    cold.push_back(bench.Pass(true));
  }
  const PassTimes& shape = warm.front();
  std::printf(
      "linebloom-planner-bench: %zu files (%zu at L%d), %zu keys each, %.3g bits/key, size ratio %.3g, "
      "compact from L%d; %d warm and %d cold passes (%.4g MiB written before each call)\n",
      shape.files, shape.last_files, c.last_level, c.keys, c.bits, c.size_ratio, c.compact_from_level, c.reps, c.reps,
      c.evict_mb);
  std::printf("%zu pinned files per pass. Microseconds per file, medians over passes:\n\n", shape.pinned);
  std::printf(
      "| caches | PlanNewFile | BitsAtFinish, pinned | BitsAtFinish, others | ObserveFilter "
      "| planner, last level | compact build, last level | planner / build |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  PrintRow("warm", warm);
  PrintRow("cold", cold);
  std::printf("\ndecisions fingerprint: %016llx\n", static_cast<unsigned long long>(bench.fingerprint()));
  return 0;
}

}  // namespace
}  // namespace linebloom::bench

int main(int argc, char** argv) {
  linebloom::bench::Config c;
  bool smoke = false;
  CLI::App app{"The level-aware planner's cost per file against the filter build, warm and cold"};
  app.add_option("--last_level", c.last_level, "the deepest level")->check(CLI::Range(1, 20));
  app.add_option("--levels", c.levels, "levels with files, the deepest and those above it")->check(CLI::Range(2, 20));
  app.add_option("--last_files", c.last_files, "files of the deepest level")->check(CLI::Range(1, 1000000));
  app.add_option("--keys", c.keys, "keys per file")->check(CLI::Range(16, 10000000));
  app.add_option("--size_ratio", c.size_ratio, "files of a level over those of the level above")
      ->check(CLI::Range(2.0, 100.0));
  app.add_option("--bits", c.bits, "the policy's bits per key")->check(CLI::Range(1.0, 30.0));
  app.add_option("--compact_from_level", c.compact_from_level, "the compact filter from this level (-1: none)")
      ->check(CLI::Range(-1, 20));
  app.add_option("--reps", c.reps, "warm and cold passes each")->check(CLI::Range(1, 1000));
  app.add_option("--evict_mb", c.evict_mb, "MiB written before each call of a cold pass")
      ->check(CLI::Range(0.0, 4096.0));
  app.add_flag("--smoke", smoke, "a small tree, two passes of each kind");
  CLI11_PARSE(app, argc, argv);
  if (c.levels > c.last_level) {
    std::fprintf(stderr, "--levels %d exceeds --last_level %d\n%s", c.levels, c.last_level, app.help().c_str());
    return 2;
  }
  if (smoke) {
    c.last_files = 150;  // past kTrackedMinFiles: tracked, with pinned files
    c.keys = 200;
    c.reps = 2;
    c.evict_mb = std::min(c.evict_mb, 1.0);
  }
  return linebloom::bench::Run(c);
}
