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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"linebloom-kv: a small LSM key-value store with linebloom filters (docs/KVSTORE.md)"};
  app.failure_message(CLI::FailureMessage::help);
  app.require_subcommand(1);

  std::string dir;
  app.add_option("DIR", dir, "store directory (created if missing)")->required();

  Options options;
  double bits_per_key = 10.0;
  bool no_sync = false, no_run_filter = false, no_block_filter = false, no_auto_compaction = false;
  app.add_option("--write-buffer-size", options.write_buffer_size, "memtable bytes before a flush")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--bits-per-key", bits_per_key, "filter bits per key for new runs (every level)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 100.0));
  std::string allocation = "per-level";
  app.add_option("--filter-allocation", allocation,
                 "per-level: --bits-per-key for every run; run-aware: --bits-per-key is the average over all "
                 "runs, small recent runs get more (docs/KVSTORE.md)")
      ->capture_default_str()
      ->check(CLI::IsMember({"per-level", "run-aware"}));
  app.add_option("--block-size", options.block_size, "data block bytes for new runs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--fanout", options.tier_fanout, "runs per level before they are merged")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  app.add_flag("--no-sync", no_sync, "acknowledge writes before fsync (survives a process crash, not a power loss)");
  app.add_flag("--no-run-filter", no_run_filter, "build new runs without a whole-run filter");
  app.add_flag("--no-block-filter", no_block_filter, "build new runs without per-block filters");
  app.add_flag("--no-auto-compaction", no_auto_compaction, "compact only on `compact`");

  std::string key, value, from, to;
  CLI::App* put = app.add_subcommand("put", "store VALUE under KEY");
  put->add_option("KEY", key)->required();
  put->add_option("VALUE", value)->required();
  CLI::App* get = app.add_subcommand("get", "print the value of KEY (exit 1 if absent)");
  get->add_option("KEY", key)->required();
  CLI::App* del = app.add_subcommand("delete", "delete KEY");
  del->add_option("KEY", key)->required();
  CLI::App* scan = app.add_subcommand("scan", "print `key<TAB>value` for FROM <= key < TO (escaped)");
  scan->add_option("FROM", from, "first key (default: the smallest)");
  CLI::Option* to_opt = scan->add_option("TO", to, "end key, excluded (default: no end)");
  CLI::App* flush = app.add_subcommand("flush", "write the memtable to a new run");
  CLI::App* compact = app.add_subcommand("compact", "merge every run into one");
  CLI::App* stats = app.add_subcommand("stats", "print lookup and filter statistics as JSON");
  CLI::App* batch = app.add_subcommand("batch", "read put/get/delete lines from stdin, answer one line each");

  CLI11_PARSE(app, argc, argv);

  options.sync_writes = !no_sync;
  options.run_filters = !no_run_filter;
  options.block_filters = !no_block_filter;
  options.auto_compaction = !no_auto_compaction;
  options.bits_per_key = linebloom::kvstore::UniformBitsPerKey(bits_per_key);
  options.average_bits_per_key = bits_per_key;
  options.filter_allocation = allocation == "run-aware" ? linebloom::kvstore::FilterAllocation::kRunAware
                                                        : linebloom::kvstore::FilterAllocation::kPerLevel;

  std::unique_ptr<KvStore> store;
  if (Status s = KvStore::Open(dir, options, &store); !s.ok()) return Fail(s);

  int rc = 0;
  Status s;
  if (*put) {
    s = store->Put(key, value);
  } else if (*get) {
    std::string found;
    s = store->Get(key, &found);
    if (s.ok()) {
      WriteOut(found);
      WriteOut("\n");
    } else if (s.IsNotFound()) {
      s = Status::Ok();
      rc = kExitAbsent;
    }
  } else if (*del) {
    s = store->Delete(key);
  } else if (*scan) {
    std::optional<std::string_view> end;
    if (*to_opt) end = to;
    s = store->Scan(from, end, [](std::string_view k, std::string_view v) {
      std::string line = linebloom::kvstore::cli::Escape(k);
      line.push_back('\t');
      line.append(linebloom::kvstore::cli::Escape(v)).push_back('\n');
      WriteOut(line);
      return true;
    });
  } else if (*flush) {
    s = store->Flush();
  } else if (*compact) {
    s = store->Compact();
  } else if (*stats) {
    WriteOut(linebloom::kvstore::StatsToJson(store->Stats()));
  } else if (*batch) {
    linebloom::kvstore::cli::RunBatch(store.get(), STDIN_FILENO, stdout);
  }
  if (!s.ok()) return Fail(s);
  if (Status c = store->Close(); !c.ok()) return Fail(c);
  if (std::fflush(stdout) != 0) return kExitStoreError;
  return rc;
}
