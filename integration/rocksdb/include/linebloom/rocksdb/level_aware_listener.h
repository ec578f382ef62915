// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Keeps a level-aware linebloom policy's record of the live files exact.
// The policy learns the tree from the filters it builds; it does not see
// files deleted by a compaction that wrote nothing overlapping at their
// level, nor files moved down a level without being rewritten. This
// listener, after every compaction of a column family that a level-aware
// policy builds filters for, lists its live SSTs (DB::GetLiveFilesMetaData,
// and each file's filter entries and bytes) and hands them to that column
// family's level-aware linebloom policy (LinebloomFilterPolicy::
// SyncLiveFiles). Other policies are left alone.
//
// Column families. A listener gets no handle of the column families other
// than the default, so it cannot read their options; the policy is the
// default column family's, when that builds filters for the compacted
// column family (the default's own, and one whose options are copied from
// the default's, which share the table factory), else the one level-aware
// policy in the process that records a live file of it (same smallest key,
// any level). When two do -- column families of one name in two DBs of the
// process holding equal files -- neither is synced. The default's filter
// sizes come from its table properties, another's from the tables the
// listener saw created (OnTableFileCreated; forgotten when deleted,
// OnTableFileDeleted): while such a column family still has a live file
// written before the DB was opened, its record is left as the policy
// learned it.
//
//   options.listeners.push_back(linebloom::rocksdb_plugin::NewLevelAwareListener());
//
// or, where options are strings (OPTIONS files, db_bench --options_file,
// with the plugin loaded): listeners={id=linebloom_level_aware} in
// [DBOptions] (RocksDB versions whose DBOptions parse "listeners").

#pragma once

#include <memory>

#include <rocksdb/listener.h>

namespace linebloom::rocksdb_plugin {

class LevelAwareListener : public ::rocksdb::EventListener {
 public:
  LevelAwareListener();
  ~LevelAwareListener() override;

  // The id under which the listener is registered.
  static const char* kClassName() { return "linebloom_level_aware"; }
  const char* Name() const override { return kClassName(); }

  void OnTableFileCreated(const ::rocksdb::TableFileCreationInfo& info) override;
  void OnTableFileDeleted(const ::rocksdb::TableFileDeletionInfo& info) override;
  void OnCompactionCompleted(::rocksdb::DB* db, const ::rocksdb::CompactionJobInfo& info) override;

 private:
  struct CreatedTables;  // filter sizes of the tables seen created
  std::unique_ptr<CreatedTables> created_;
};

std::shared_ptr<LevelAwareListener> NewLevelAwareListener();

}  // namespace linebloom::rocksdb_plugin
