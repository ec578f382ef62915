// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/rocksdb/level_aware_listener.h"

#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin {

void LevelAwareListener::OnCompactionCompleted(::rocksdb::DB* db, const ::rocksdb::CompactionJobInfo& info) {
  if (db == nullptr || !info.status.ok()) return;
  ::rocksdb::ColumnFamilyHandle* handle = db->DefaultColumnFamily();
  if (info.cf_name != handle->GetName()) return;
  const ::rocksdb::Options options = db->GetOptions(handle);
  if (options.table_factory == nullptr) return;
  const auto* table_options = options.table_factory->GetOptions<::rocksdb::BlockBasedTableOptions>();
  if (table_options == nullptr) return;
  if (table_options->filter_policy == nullptr) return;
  // CheckedCast, not dynamic_cast: RocksDB is built without RTTI.
  const auto* policy = table_options->filter_policy->CheckedCast<LinebloomFilterPolicy>();
  if (policy == nullptr || !policy->options().level_aware) return;

  ::rocksdb::TablePropertiesCollection properties;
  if (!db->GetPropertiesOfAllTables(handle, &properties).ok()) return;
  std::vector<::rocksdb::LiveFileMetaData> metadata;
  db->GetLiveFilesMetaData(&metadata);
  std::vector<LiveSstFile> files;
  files.reserve(metadata.size());
  for (const ::rocksdb::LiveFileMetaData& file : metadata) {
    if (file.column_family_name != handle->GetName() || file.level < 1) continue;
    // Properties are keyed by the file's full path; the metadata's name
    // starts with '/'.
    auto it = properties.find(file.db_path + file.name);
    if (it == properties.end() || it->second == nullptr) continue;
    files.push_back(LiveSstFile{file.level, file.smallestkey, file.largestkey, it->second->num_filter_entries,
                                it->second->filter_size});
  }
  policy->SyncLiveFiles(handle->GetName(), files);
}

std::shared_ptr<LevelAwareListener> NewLevelAwareListener() { return std::make_shared<LevelAwareListener>(); }

}  // namespace linebloom::rocksdb_plugin
