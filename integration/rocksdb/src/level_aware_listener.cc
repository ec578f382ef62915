// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/rocksdb/level_aware_listener.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include "linebloom/foundation/mutex.h"
#include "linebloom/planner/level_planner.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "planner_registry.h"

namespace linebloom::rocksdb_plugin {

struct LevelAwareListener::CreatedTables {
  struct Filter {
    std::string column_family;
    uint64_t entries = 0, bytes = 0;
  };
  // Held through a whole sync, so syncs of one column family reach the
  // policy in the order they listed the live files.
  Mutex sync_mutex;
  Mutex mutex;
  // By Key(DB name, table file name). A table is recorded when it is
  // created and forgotten when it is deleted, not when a listing misses it:
  // RocksDB reports a flush's or compaction's table created before it
  // installs it in the tree, so a listing taken in between does not show it
  // yet.
  std::map<std::string, Filter> by_table LINEBLOOM_GUARDED_BY(mutex);

  // Creation and deletion events give a table's path in its directory,
  // DB::GetLiveFilesMetaData its name apart ("/000123.sst"); the file name
  // is unique within a DB, and a listener may serve several DBs.
  static std::string Key(std::string_view db_name, std::string_view path) {
    const size_t slash = path.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    return std::string(db_name).append(1, '\0').append(name);
  }
};

LevelAwareListener::LevelAwareListener() : created_(std::make_unique<CreatedTables>()) {}
LevelAwareListener::~LevelAwareListener() = default;

void LevelAwareListener::OnTableFileCreated(const ::rocksdb::TableFileCreationInfo& info) {
  if (!info.status.ok()) return;
  MutexLock lock(&created_->mutex);
  created_->by_table.insert_or_assign(
      CreatedTables::Key(info.db_name, info.file_path),
      CreatedTables::Filter{info.cf_name, info.table_properties.num_filter_entries, info.table_properties.filter_size});
}

void LevelAwareListener::OnTableFileDeleted(const ::rocksdb::TableFileDeletionInfo& info) {
  MutexLock lock(&created_->mutex);
  created_->by_table.erase(CreatedTables::Key(info.db_name, info.file_path));
}

namespace {

// The level-aware linebloom policy of the default column family's
// block-based table options, or null.
const LinebloomFilterPolicy* DefaultLevelAwarePolicy(::rocksdb::DB& db) {
  const ::rocksdb::Options options = db.GetOptions(db.DefaultColumnFamily());
  if (options.table_factory == nullptr) return nullptr;
  const auto* table_options = options.table_factory->GetOptions<::rocksdb::BlockBasedTableOptions>();
  if (table_options == nullptr || table_options->filter_policy == nullptr) return nullptr;
  // CheckedCast, not dynamic_cast: RocksDB is built without RTTI.
  const auto* policy = table_options->filter_policy->CheckedCast<LinebloomFilterPolicy>();
  if (policy == nullptr || !policy->options().level_aware) return nullptr;
  // The policy object outlives this call: the DB's options hold it.
  return policy;
}

}  // namespace

void LevelAwareListener::OnCompactionCompleted(::rocksdb::DB* db, const ::rocksdb::CompactionJobInfo& info) {
  if (db == nullptr || !info.status.ok()) return;
  // The planner to sync: the default column family's policy's when it builds
  // for this column family (the two share it); else, found after the
  // listing, the one policy in the process that records a live file of it.
  std::shared_ptr<planner::LevelPlanner> planner;
  if (const LinebloomFilterPolicy* policy = DefaultLevelAwarePolicy(*db); policy != nullptr) {
    std::shared_ptr<planner::LevelPlanner> shared = policy->level_planner();
    if (shared->BuildsFor(info.cf_name)) planner = std::move(shared);
  }
  // No level-aware policy builds for it (another column family is
  // level-aware): nothing to list.
  if (planner == nullptr && !AnyPlannerBuildsFor(info.cf_name)) return;
  ::rocksdb::ColumnFamilyHandle* default_cf = db->DefaultColumnFamily();
  const bool is_default = info.cf_name == default_cf->GetName();

  // Filter sizes: the default column family's from its table properties;
  // another's from the tables this listener saw created.
  MutexLock sync_lock(&created_->sync_mutex);
  ::rocksdb::TablePropertiesCollection properties;
  if (is_default && !db->GetPropertiesOfAllTables(default_cf, &properties).ok()) return;

  std::vector<::rocksdb::LiveFileMetaData> metadata;
  db->GetLiveFilesMetaData(&metadata);
  std::vector<LiveSstFile> files;
  files.reserve(metadata.size());
  bool all_known = true;
  {
    MutexLock lock(&created_->mutex);
    for (const ::rocksdb::LiveFileMetaData& file : metadata) {
      if (file.column_family_name != info.cf_name || file.level < 1) continue;
      LiveSstFile live{file.level, file.smallestkey, file.largestkey, 0, 0};
      if (is_default) {
        // The metadata's name starts with '/'.
        auto it = properties.find(file.db_path + file.name);
        if (it == properties.end() || it->second == nullptr) continue;
        live.filter_entries = it->second->num_filter_entries;
        live.filter_bytes = it->second->filter_size;
      } else if (auto created = created_->by_table.find(CreatedTables::Key(db->GetName(), file.name));
                 created != created_->by_table.end()) {
        live.filter_entries = created->second.entries;
        live.filter_bytes = created->second.bytes;
      } else {
        all_known = false;
      }
      files.push_back(std::move(live));
    }
  }
  if (!all_known) return;
  if (planner == nullptr) planner = PlannerRecording(info.cf_name, files);
  if (planner != nullptr) planner->SyncLiveFiles(info.cf_name, files);
}

std::shared_ptr<LevelAwareListener> NewLevelAwareListener() { return std::make_shared<LevelAwareListener>(); }

}  // namespace linebloom::rocksdb_plugin
