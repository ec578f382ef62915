// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-kv: the command-line face of the key-value store. Its output and
// exit codes are a stable contract (docs/KVSTORE.md, "CLI"):
//   0  success
//   1  `get`: the key is absent (nothing on stdout)
//   2  the store reported an error (message on stderr)
//   other non-zero: bad command line (usage on stderr)

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string_view>
#include <string>

#include "batch_session.h"
#include "escape.h"
#include "linebloom/kvstore/kv_store.h"

namespace {

using linebloom::Status;
using linebloom::kvstore::KvStore;
using linebloom::kvstore::Options;

constexpr int kExitAbsent = 1;
constexpr int kExitStoreError = 2;

int Fail(const Status& s) {
  std::fprintf(stderr, "linebloom-kv: %s\n", s.ToString().c_str());
  return kExitStoreError;
}

void WriteOut(std::string_view bytes) { std::fwrite(bytes.data(), 1, bytes.size(), stdout); }

// What the command line asked for.
struct CommandLine {
  std::string dir;
  Options options;
  double bits_per_key = 10.0;
  std::string allocation = "per-level";
  bool no_sync = false, no_run_filter = false, no_block_filter = false, no_auto_compaction = false;
  std::string key, value, from, to;
  CLI::App *put = nullptr, *get = nullptr, *del = nullptr, *scan = nullptr, *flush = nullptr, *compact = nullptr,
           *stats = nullptr, *batch = nullptr;
  CLI::Option* to_given = nullptr;
};

void AddStoreOptions(CLI::App& app, CommandLine* c) {
  app.add_option("DIR", c->dir, "store directory (created if missing)")->required();
  app.add_option("--write-buffer-size", c->options.write_buffer_size, "memtable bytes before a flush")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--bits-per-key", c->bits_per_key, "filter bits per key for new runs (every level)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 100.0));
  app.add_option("--filter-allocation", c->allocation,
                 "per-level: --bits-per-key for every run; run-aware: --bits-per-key is the average over all "
                 "runs, small recent runs get more (docs/KVSTORE.md)")
      ->capture_default_str()
      ->check(CLI::IsMember({"per-level", "run-aware"}));
  app.add_option("--block-size", c->options.block_size, "data block bytes for new runs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--fanout", c->options.tier_fanout, "runs per level before they are merged")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  app.add_option("--compact-run-filters-from-level", c->options.compact_run_filters_from_level,
                 "new runs at this level or deeper get compact run filters (default: none do)")
      ->check(CLI::Range(0, linebloom::kvstore::kMaxLevels));
  app.add_flag("--no-sync", c->no_sync, "acknowledge writes before fsync (survives a process crash, not a power loss)");
  app.add_flag("--no-run-filter", c->no_run_filter, "build new runs without a whole-run filter");
  app.add_flag("--no-block-filter", c->no_block_filter, "build new runs without per-block filters");
  app.add_flag("--no-auto-compaction", c->no_auto_compaction, "compact only on `compact`");
}

void AddCommands(CLI::App& app, CommandLine* c) {
  c->put = app.add_subcommand("put", "store VALUE under KEY");
  c->put->add_option("KEY", c->key)->required();
  c->put->add_option("VALUE", c->value)->required();
  c->get = app.add_subcommand("get", "print the value of KEY (exit 1 if absent)");
  c->get->add_option("KEY", c->key)->required();
  c->del = app.add_subcommand("delete", "delete KEY");
  c->del->add_option("KEY", c->key)->required();
  c->scan = app.add_subcommand("scan", "print `key<TAB>value` for FROM <= key < TO (escaped)");
  c->scan->add_option("FROM", c->from, "first key (default: the smallest)");
  c->to_given = c->scan->add_option("TO", c->to, "end key, excluded (default: no end)");
  c->flush = app.add_subcommand("flush", "write the memtable to a new run");
  c->compact = app.add_subcommand("compact", "merge every run into one");
  c->stats = app.add_subcommand("stats", "print lookup and filter statistics as JSON");
  c->batch = app.add_subcommand("batch", "read put/get/delete lines from stdin, answer one line each");
}

Options StoreOptions(const CommandLine& c) {
  Options options = c.options;
  options.sync_writes = !c.no_sync;
  options.run_filters = !c.no_run_filter;
  options.block_filters = !c.no_block_filter;
  options.auto_compaction = !c.no_auto_compaction;
  options.bits_per_key = linebloom::kvstore::UniformBitsPerKey(c.bits_per_key);
  options.average_bits_per_key = c.bits_per_key;
  options.filter_allocation = c.allocation == "run-aware" ? linebloom::kvstore::FilterAllocation::kRunAware
                                                          : linebloom::kvstore::FilterAllocation::kPerLevel;
  return options;
}

Status Scan(KvStore& store, const CommandLine& c) {
  std::optional<std::string_view> end;
  if (*c.to_given) end = c.to;
  return store.Scan(c.from, end, [](std::string_view k, std::string_view v) {
    std::string line = linebloom::kvstore::cli::Escape(k);
    line.push_back('\t');
    line.append(linebloom::kvstore::cli::Escape(v)).push_back('\n');
    WriteOut(line);
    return true;
  });
}

// Runs the chosen command; *rc is set to kExitAbsent for `get` of an absent key.
Status RunCommand(KvStore& store, const CommandLine& c, int* rc) {
  if (*c.put) return store.Put(c.key, c.value);
  if (*c.get) {
    std::string found;
    Status s = store.Get(c.key, &found);
    if (s.ok()) {
      WriteOut(found);
      WriteOut("\n");
    } else if (s.IsNotFound()) {
      *rc = kExitAbsent;
      return Status::Ok();
    }
    return s;
  }
  if (*c.del) return store.Delete(c.key);
  if (*c.scan) return Scan(store, c);
  if (*c.flush) return store.Flush();
  if (*c.compact) return store.Compact();
  if (*c.stats) WriteOut(linebloom::kvstore::StatsToJson(store.Stats()));
  if (*c.batch) linebloom::kvstore::cli::RunBatch(&store, STDIN_FILENO, stdout);
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"linebloom-kv: a small LSM key-value store with linebloom filters (docs/KVSTORE.md)"};
  app.failure_message(CLI::FailureMessage::help);
  app.require_subcommand(1);
  CommandLine c;
  AddStoreOptions(app, &c);
  AddCommands(app, &c);
  CLI11_PARSE(app, argc, argv);

  std::unique_ptr<KvStore> store;
  if (Status s = KvStore::Open(c.dir, StoreOptions(c), &store); !s.ok()) return Fail(s);
  int rc = 0;
  if (Status s = RunCommand(*store, c, &rc); !s.ok()) return Fail(s);
  if (Status s = store->Close(); !s.ok()) return Fail(s);
  if (std::fflush(stdout) != 0) return kExitStoreError;
  return rc;
}
