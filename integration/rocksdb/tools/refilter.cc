// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-refilter: rebuild every filter of an existing RocksDB DB with the
// filter policy of another OPTIONS file, keeping the tree as it is.
//
// Why: comparing filter policies with db_bench means filling one DB per
// policy, and background compaction timing gives each its own tree (how many
// lookups reach each level varied more between trees than the policies'
// difference). Filling once, copying the DB and refiltering each copy gives
// every policy the very same keys per level.
//
// How: the DB is opened with the OPTIONS file's options (auto compactions
// off, so nothing but our rewrites happens) and each live SST is rewritten
// alone by DB::CompactFiles with output level = its own level and no output
// size limit: one file in, one file out, same keys, same level; the output's
// filter is built by the new policy with level_at_creation = that level.
// Deepest level first, so a level-aware policy has seen the large last level
// before the upper ones. A level-aware policy learns the tree's shape, key
// ranges and byte books only from the filters it builds, so the first pass
// builds the deep levels before it knows the upper ones exist; later passes
// rewrite everything with what the earlier ones taught it (--passes 3, the
// default: with 2 the books were still correcting the first pass's spend
// while the last level was rewritten). The policy state lives in this
// process only; the DB keeps just the filters.
//
// Afterwards every level must hold exactly the entries it held before (one
// SST alone at its own level drops nothing: it has no duplicate keys, and
// there are no tombstones to drop in a db_bench fill); the tool prints a
// before/after table per level (files, entries, filter bytes, filter policy
// names) and exits 1 if any level's entries changed, 2 on errors.
//
// --time-builds wraps the policy in TimedFilterPolicy (build_timer.h) and
// prints, per pass, the thread CPU time the policy spent building filters:
// "filter build pass P: S cpu_seconds, F filters, K keys", then the part of S
// spent choosing the builder ("filter build pass P setup: ...") and the part
// in the builders' Finish ("filter build pass P finish: ...").
//
//   linebloom-refilter --db DIR --options FILE [--passes N] [--time-builds]

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/utilities/options_util.h>

#include "build_timer.h"
#include "linebloom/rocksdb/api_shims.h"
#include "linebloom/rocksdb/registration.h"

namespace {

struct LevelStats {
  uint64_t files = 0, entries = 0, filter_bytes = 0;
  std::set<std::string> policies;  // filter policy names of its files
};
using TreeStats = std::map<int, LevelStats>;  // by level, non-empty only

std::string Basename(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Files and entries per level from the DB's metadata; filter bytes and
// policy names from the files' table properties (matched by file name).
bool Stats(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, TreeStats* out) {
  rocksdb::TablePropertiesCollection props;
  const rocksdb::Status s = db->GetPropertiesOfAllTables(cf, &props);
  if (!s.ok()) {
    std::fprintf(stderr, "linebloom-refilter: table properties: %s\n", s.ToString().c_str());
    return false;
  }
  std::map<std::string, const rocksdb::TableProperties*> by_name;
  for (const auto& [path, p] : props) by_name[Basename(path)] = p.get();
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(cf, &meta);
  out->clear();
  for (const rocksdb::LevelMetaData& level : meta.levels) {
    for (const rocksdb::SstFileMetaData& file : level.files) {
      LevelStats& st = (*out)[level.level];
      ++st.files;
      st.entries += file.num_entries;
      if (auto it = by_name.find(Basename(file.name)); it != by_name.end()) {
        st.filter_bytes += it->second->filter_size;
        st.policies.insert(it->second->filter_policy_name.empty() ? "(none)" : it->second->filter_policy_name);
      }
    }
  }
  return true;
}

// One pass: every file of every level, deepest level first. The file list
// of a level is taken before its rewrites (they add new files to it).
bool RewriteAll(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, size_t* rewritten) {
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(cf, &meta);
  rocksdb::CompactionOptions options;
  // The column family's compression for the output level (the default
  // would be Snappy), and one output file per input file.
  options.compression = rocksdb::kDisableCompressionOption;
  for (auto level = meta.levels.rbegin(); level != meta.levels.rend(); ++level) {
    for (const rocksdb::SstFileMetaData& file : level->files) {
      std::vector<std::string> output;
      const rocksdb::Status s =
          db->CompactFiles(options, cf, {file.name}, level->level, /*output_path_id=*/-1, &output);
      if (!s.ok()) {
        std::fprintf(stderr, "linebloom-refilter: CompactFiles(%s, L%d -> L%d) refused: %s\n", file.name.c_str(),
                     level->level, level->level, s.ToString().c_str());
        return false;
      }
      ++*rewritten;
    }
  }
  return true;
}

std::string Join(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out.append(out.empty() ? "" : ",").append(n);
  return out;
}

// The before/after table; true if every level kept its entries.
bool Report(const std::string& cf_name, const TreeStats& before, const TreeStats& after) {
  std::printf("column family %s:\n", cf_name.c_str());
  std::printf("%5s %7s %7s %10s %10s %12s %12s  %s\n", "level", "files", "files'", "entries", "entries'", "filter_B",
              "filter_B'", "filter policy' (' = after)");
  std::set<int> levels;
  for (const auto& [l, st] : before) levels.insert(l);
  for (const auto& [l, st] : after) levels.insert(l);
  bool same = true;
  for (int l : levels) {
    const auto b = before.count(l) ? before.at(l) : LevelStats{};
    const auto a = after.count(l) ? after.at(l) : LevelStats{};
    const bool ok = a.entries == b.entries;
    same = same && ok;
    std::printf("%5s %7llu %7llu %10llu %10llu %12llu %12llu  %s%s\n", ("L" + std::to_string(l)).c_str(),
                static_cast<unsigned long long>(b.files), static_cast<unsigned long long>(a.files),
                static_cast<unsigned long long>(b.entries), static_cast<unsigned long long>(a.entries),
                static_cast<unsigned long long>(b.filter_bytes), static_cast<unsigned long long>(a.filter_bytes),
                Join(a.policies).c_str(), ok ? "" : "  ENTRIES CHANGED");
  }
  return same;
}

// Wraps the column family's filter policy in a TimedFilterPolicy, after
// the open: RocksDB writes the DB's OPTIONS file at the open, which must
// name the policy itself (the wrapper has no options of its own to write).
// The table factory is shared with the open column family, which reads its
// filter policy for every new table.
std::shared_ptr<const linebloom::refilter::TimedFilterPolicy> TimeBuilds(rocksdb::DB* db,
                                                                         rocksdb::ColumnFamilyHandle* cf) {
  const rocksdb::Options options = db->GetOptions(cf);
  auto* table =
      options.table_factory == nullptr ? nullptr : options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  if (table == nullptr || table->filter_policy == nullptr) return nullptr;
  auto timed = std::make_shared<const linebloom::refilter::TimedFilterPolicy>(table->filter_policy);
  table->filter_policy = timed;
  return timed;
}

void PrintBuildTotals(int pass, const linebloom::refilter::TimedFilterPolicy& timed) {
  const linebloom::refilter::BuildTotals t = timed.TakeTotals();
  std::printf("filter build pass %d: %.6f cpu_seconds, %llu filters, %llu keys\n", pass + 1, t.cpu_ns * 1e-9,
              static_cast<unsigned long long>(t.filters), static_cast<unsigned long long>(t.keys));
  std::printf("filter build pass %d setup: %.6f cpu_seconds in GetBuilderWithContext\n", pass + 1, t.setup_ns * 1e-9);
  std::printf("filter build pass %d finish: %.6f cpu_seconds in Finish\n", pass + 1, t.finish_ns * 1e-9);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Rewrite every live SST of a RocksDB DB at its own level with another OPTIONS file's filter policy"};
  std::string db_path, options_file;
  int passes = 3;
  bool time_builds = false;
  app.add_option("--db", db_path, "the DB directory (rewritten in place)")->required()->check(CLI::ExistingDirectory);
  app.add_option("--options", options_file, "RocksDB OPTIONS file with the new filter policy")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--passes", passes,
                 "rewrite every file this many times (a level-aware policy "
                 "learns the tree in the first)")
      ->check(CLI::Range(1, 10));
  app.add_flag("--time-builds", time_builds, "print the CPU time of the filter builds of each pass");
  app.failure_message(CLI::FailureMessage::help);  // a bad flag prints the usage
  CLI11_PARSE(app, argc, argv);

  // "linebloom" in the OPTIONS file resolves through RocksDB's default
  // object library, the one this process shares with librocksdb.so.
  linebloom::rocksdb_plugin::RegisterLinebloomWithDefaultLibrary();

  rocksdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.input_strings_escaped = true;
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::Status s = rocksdb::LoadOptionsFromFile(config, options_file, &db_options, &cfs);
  if (!s.ok()) {
    std::fprintf(stderr, "linebloom-refilter: %s: %s\n", options_file.c_str(), s.ToString().c_str());
    return 2;
  }
  db_options.create_if_missing = false;
  for (auto& cf : cfs) cf.options.disable_auto_compactions = true;

  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<rocksdb::DB> db;
  s = linebloom::rocksdb_plugin::OpenDB(db_options, db_path, cfs, &handles, &db);
  if (!s.ok()) {
    std::fprintf(stderr, "linebloom-refilter: open %s: %s\n", db_path.c_str(), s.ToString().c_str());
    return 2;
  }

  int rc = 0;
  for (rocksdb::ColumnFamilyHandle* cf : handles) {
    TreeStats before, after;
    size_t rewritten = 0;
    bool ok = Stats(db.get(), cf, &before);
    const auto timed = time_builds ? TimeBuilds(db.get(), cf) : nullptr;
    for (int pass = 0; ok && pass < passes; ++pass) {
      ok = RewriteAll(db.get(), cf, &rewritten);
      if (ok && timed != nullptr) PrintBuildTotals(pass, *timed);
    }
    if (!ok || !Stats(db.get(), cf, &after)) {
      rc = 2;
      break;
    }
    std::printf("rewrote %zu files in %d pass(es)\n", rewritten, passes);
    if (!Report(cf->GetName(), before, after)) rc = 1;
  }
  for (rocksdb::ColumnFamilyHandle* cf : handles) db->DestroyColumnFamilyHandle(cf);
  s = db->Close();
  if (!s.ok() && rc == 0) rc = 2;
  if (rc == 1) std::fprintf(stderr, "linebloom-refilter: entries per level changed\n");
  return rc;
}
