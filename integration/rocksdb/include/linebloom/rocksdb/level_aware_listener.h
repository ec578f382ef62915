// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Keeps a level-aware linebloom policy's record of the live files exact.
// The policy learns the tree from the filters it builds; it does not see
// files deleted by a compaction that wrote nothing overlapping at their
// level, nor files moved down a level without being rewritten. This
// listener, after every compaction, lists the DB's live SSTs of the default
// column family (DB::GetLiveFilesMetaData, and each file's filter entries
// and bytes from its table properties) and hands them to the policy of that
// column family's block-based table options
// (LinebloomFilterPolicy::SyncLiveFiles). Other policies are left alone.
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
  // The id under which the listener is registered.
  static const char* kClassName() { return "linebloom_level_aware"; }
  const char* Name() const override { return kClassName(); }

  void OnCompactionCompleted(::rocksdb::DB* db, const ::rocksdb::CompactionJobInfo& info) override;
};

std::shared_ptr<LevelAwareListener> NewLevelAwareListener();

}  // namespace linebloom::rocksdb_plugin
