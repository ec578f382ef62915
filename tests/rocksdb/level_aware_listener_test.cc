// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// NewLevelAwareListener: the level-aware policy's record of the live files is
// the DB's own list after every compaction, for column families sharing the
// default's policy or holding their own.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/utilities/stackable_db.h>

#include "db_fixture.h"
#include "level_aware_test_util.h"
#include "linebloom/rocksdb/level_aware_listener.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "linebloom/rocksdb/registration.h"
#include "test_keys.h"

namespace linebloom::rocksdb_plugin {
namespace {

using testing::LevelAware;
using testing::MakeOptions;
using testing::OpenDb;
using testing::PutAll;
using testing::TempDir;

// Waits until no flush or compaction of `cf` (default: the default column
// family) is pending or running (RocksDB 7.8 has no public WaitForCompact).
void WaitForCompactions(::rocksdb::DB& db, ::rocksdb::ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db.DefaultColumnFamily();
  for (int i = 0; i < 3000; ++i) {
    uint64_t pending = 0, running = 0, flushes = 0;
    db.GetIntProperty(cf, "rocksdb.compaction-pending", &pending);
    db.GetIntProperty(cf, "rocksdb.num-running-compactions", &running);
    db.GetIntProperty(cf, "rocksdb.num-running-flushes", &flushes);
    if (pending + running + flushes == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

using FileList = std::vector<std::tuple<int, std::string, std::string, uint64_t>>;

// (level, smallest, largest, filter entries) of every live SST of `cf`
// (default: the default column family) at levels >= 1.
FileList LiveFilesOf(::rocksdb::DB& db, ::rocksdb::ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db.DefaultColumnFamily();
  ::rocksdb::TablePropertiesCollection properties;
  EXPECT_TRUE(db.GetPropertiesOfAllTables(cf, &properties).ok());
  std::vector<::rocksdb::LiveFileMetaData> metadata;
  db.GetLiveFilesMetaData(&metadata);
  FileList files;
  for (const auto& file : metadata) {
    if (file.column_family_name != cf->GetName() || file.level < 1) continue;
    const auto it = properties.find(file.db_path + file.name);
    EXPECT_NE(it, properties.end()) << file.name;
    files.emplace_back(file.level, file.smallestkey, file.largestkey,
                       it == properties.end() ? 0 : it->second->num_filter_entries);
  }
  std::sort(files.begin(), files.end());
  return files;
}

FileList RecordedFilesOf(const LinebloomFilterPolicy& policy, const std::string& column_family = "default") {
  FileList files;
  for (const LiveSstFile& file : policy.RecordedLiveFiles(column_family)) {
    files.emplace_back(file.level, file.smallest, file.largest, file.filter_entries);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Options whose small files and levels give a 60 000-key fill a tree of
// several levels with dynamic level bytes (which moves files down).
::rocksdb::Options SmallTreeOptions(std::shared_ptr<const ::rocksdb::FilterPolicy> policy) {
  ::rocksdb::Options options = MakeOptions(std::move(policy), testing::FilterMode());
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 64 << 10;
  options.max_bytes_for_level_base = 256 << 10;
  options.level_compaction_dynamic_level_bytes = true;
  return options;
}

// With the listener, the policy's record of the live files is the DB's own
// list after every compaction: files compacted away are gone, files moved
// down unrewritten (dynamic level bytes moves many) are at their new level.
// The same workload without the listener leaves the record stale.
TEST(RocksdbLevelAwareListener, RecordedFilesAreTheLiveFiles) {
  for (const bool with_listener : {true, false}) {
    SCOPED_TRACE(with_listener ? "with the listener" : "without");
    TempDir dir;
    const auto policy = NewLinebloomFilterPolicy(LevelAware(10));
    ::rocksdb::Options options = SmallTreeOptions(policy);
    if (with_listener) options.listeners.push_back(NewLevelAwareListener());
    auto db = OpenDb(options, dir.path());
    ASSERT_TRUE(db);
    std::mt19937_64 rng(11);
    std::vector<std::string> keys;
    for (int i = 0; i < 60000; ++i) keys.push_back(testing::Key(rng() % 10000000));
    PutAll(*db, keys);
    ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions()).ok());
    WaitForCompactions(*db);
    // Half the key space compacted again: deletes and rewrites files there.
    const std::string middle = testing::Key(5000000);
    ::rocksdb::Slice end(middle);
    ASSERT_TRUE(db->CompactRange(::rocksdb::CompactRangeOptions(), nullptr, &end).ok());
    WaitForCompactions(*db);

    const auto live = LiveFilesOf(*db);
    ASSERT_GE(live.size(), 8u);
    const auto recorded = RecordedFilesOf(*policy);
    if (with_listener) {
      EXPECT_EQ(recorded, live);
    } else {
      EXPECT_NE(recorded, live);
    }
  }
}

// Opens a DB at `path` with the default column family on `options` and
// "other" on `other_options` (default: `options` too, so the two share its
// table factory, and with it the policy): handles[0] is the default's,
// handles[1] the other's.
::rocksdb::Status OpenWithOtherFamily(const ::rocksdb::Options& options, const std::string& path,
                                      std::vector<::rocksdb::ColumnFamilyHandle*>* handles,
                                      std::unique_ptr<::rocksdb::DB>* db,
                                      const ::rocksdb::Options* other_options = nullptr) {
  ::rocksdb::DBOptions db_options(options);
  db_options.create_missing_column_families = true;
  const ::rocksdb::ColumnFamilyOptions cf_options(options);
  const ::rocksdb::ColumnFamilyOptions other_cf_options(other_options != nullptr ? *other_options : options);
  return OpenDB(db_options, path, {{::rocksdb::kDefaultColumnFamilyName, cf_options}, {"other", other_cf_options}},
                handles, db);
}

// Fills "other" (handles[1]) with 60 000 random keys and the default column
// family with every 20th, flushes both, then compacts the lower half of
// "other"'s key space again (deleting and rewriting files there) and
// returns "other"'s live files.
FileList FillAndCompactOther(::rocksdb::DB& db, const std::vector<::rocksdb::ColumnFamilyHandle*>& handles) {
  ::rocksdb::ColumnFamilyHandle* other = handles[1];
  std::mt19937_64 rng(13);
  ::rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  for (int i = 0; i < 60000; ++i) {
    const std::string key = testing::Key(rng() % 10000000);
    EXPECT_TRUE(db.Put(wo, other, key, testing::ValueFor(key)).ok());
    if (i % 20 == 0) {
      EXPECT_TRUE(db.Put(wo, handles[0], key, testing::ValueFor(key)).ok());
    }
  }
  EXPECT_TRUE(db.Flush(::rocksdb::FlushOptions(), handles).ok());
  WaitForCompactions(db, other);
  const std::string middle = testing::Key(5000000);
  ::rocksdb::Slice end(middle);
  EXPECT_TRUE(db.CompactRange(::rocksdb::CompactRangeOptions(), other, nullptr, &end).ok());
  WaitForCompactions(db, other);
  return LiveFilesOf(db, other);
}

// Opens a DB with the default column family on `default_policy` and
// "other" on `other_policy` (null: options copied from the default's, so
// sharing its policy), with the listener or without, fills and compacts
// "other", and checks `recorder`'s record of it: the live files with the
// listener, stale without.
void CheckOtherFamilyRecord(bool with_listener, std::shared_ptr<const ::rocksdb::FilterPolicy> default_policy,
                            std::shared_ptr<const ::rocksdb::FilterPolicy> other_policy,
                            const LinebloomFilterPolicy& recorder) {
  TempDir dir;
  ::rocksdb::Options options = SmallTreeOptions(std::move(default_policy));
  if (with_listener) options.listeners.push_back(NewLevelAwareListener());
  const ::rocksdb::Options other_options = other_policy ? SmallTreeOptions(std::move(other_policy)) : options;
  std::vector<::rocksdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<::rocksdb::DB> db;
  const ::rocksdb::Status opened = OpenWithOtherFamily(options, dir.path(), &handles, &db, &other_options);
  ASSERT_TRUE(opened.ok()) << opened.ToString();

  const FileList live = FillAndCompactOther(*db, handles);
  ASSERT_GE(live.size(), 8u);
  const FileList recorded = RecordedFilesOf(recorder, "other");
  if (with_listener) {
    EXPECT_EQ(recorded, live);
  } else {
    EXPECT_NE(recorded, live);
  }
  for (::rocksdb::ColumnFamilyHandle* handle : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
}

// A column family other than the default, whose options are copied from
// the default's and so share its policy: the listener keeps its record
// exact too, from the tables it saw created. Without the listener the
// record goes stale.
TEST(RocksdbLevelAwareListener, ColumnFamilySharingThePolicyIsSynced) {
  for (const bool with_listener : {true, false}) {
    SCOPED_TRACE(with_listener ? "with the listener" : "without");
    const auto policy = NewLinebloomFilterPolicy(LevelAware(10));
    CheckOtherFamilyRecord(with_listener, policy, nullptr, *policy);
  }
}

// A column family with a level-aware policy of its own, whose options the
// listener cannot read (it has no handle of it): it is synced through the
// policy that records its live files, whether the default column family
// has RocksDB's built-in filter or a level-aware policy of its own. Without
// the listener the record goes stale.
TEST(RocksdbLevelAwareListener, ColumnFamilyWithItsOwnPolicyIsSynced) {
  for (const bool default_level_aware : {false, true}) {
    for (const bool with_listener : {true, false}) {
      SCOPED_TRACE(std::string(default_level_aware ? "default level-aware" : "default built-in") +
                   (with_listener ? ", with the listener" : ", without"));
      const auto default_policy =
          default_level_aware ? std::shared_ptr<const ::rocksdb::FilterPolicy>(NewLinebloomFilterPolicy(LevelAware(10)))
                              : std::shared_ptr<const ::rocksdb::FilterPolicy>(::rocksdb::NewBloomFilterPolicy(10));
      const auto own_policy = NewLinebloomFilterPolicy(LevelAware(10));
      CheckOtherFamilyRecord(with_listener, default_policy, own_policy, *own_policy);
    }
  }
}

// A DB whose live-file listings show, from `live` on, a table at level 6
// of `cf` that the listener is told about separately (Created, Deleted);
// with `create_in_listing` the first listing that does not show it reports
// its creation itself, as a flush finishing during the listing would.
class ListsATableLate : public ::rocksdb::StackableDB {
 public:
  ListsATableLate(::rocksdb::DB* db, LevelAwareListener* listener, std::string cf)
      : StackableDB(db), listener_(listener), cf_(std::move(cf)) {}
  static constexpr const char* kName = "/999999.sst";
  bool live = false;
  bool create_in_listing = false;

  void Created() {
    ::rocksdb::TableFileCreationInfo created;
    created.db_name = GetName();
    created.cf_name = cf_;
    created.file_path = GetName() + kName;
    created.status = ::rocksdb::Status::OK();
    created.table_properties.num_filter_entries = 1000;
    created.table_properties.filter_size = 1296;
    listener_->OnTableFileCreated(created);
  }
  void Deleted() {
    ::rocksdb::TableFileDeletionInfo deleted;
    deleted.db_name = GetName();
    deleted.file_path = GetName() + kName;
    listener_->OnTableFileDeleted(deleted);
  }

  void GetLiveFilesMetaData(std::vector<::rocksdb::LiveFileMetaData>* metadata) override {
    if (!live && create_in_listing) {
      create_in_listing = false;
      Created();
    }
    StackableDB::GetLiveFilesMetaData(metadata);
    if (live) {
      ::rocksdb::LiveFileMetaData file;
      file.column_family_name = cf_;
      file.level = 6;
      file.db_path = GetName();
      file.name = kName;
      file.smallestkey = "zz-created-first";
      file.largestkey = "zz-created-last";
      metadata->push_back(file);
    }
  }

 private:
  LevelAwareListener* listener_;
  std::string cf_;
};

// RocksDB reports a flush's or compaction's table created before it
// installs it, so a sync can list the live files between the two, created
// before the listing or during it. The listener keeps the table's filter
// size until the table is deleted, so the next sync, which finds it live,
// records it (dropping it would leave the column family unsynced from then
// on). Once deleted, it is forgotten: a listing that still showed it would
// leave the column family as it was.
TEST(RocksdbLevelAwareListener, TableCreatedBeforeItIsLiveIsKept) {
  for (const bool during_listing : {true, false}) {
    SCOPED_TRACE(during_listing ? "created during the listing" : "created before the listing");
    TempDir dir;
    const auto policy = NewLinebloomFilterPolicy(LevelAware(10));
    const auto listener = NewLevelAwareListener();
    ::rocksdb::Options options = MakeOptions(policy, testing::FilterMode());
    options.listeners.push_back(listener);
    std::vector<::rocksdb::ColumnFamilyHandle*> handles;
    std::unique_ptr<::rocksdb::DB> db;
    const ::rocksdb::Status opened = OpenWithOtherFamily(options, dir.path(), &handles, &db);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    ::rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    for (int i = 0; i < 2000; ++i) {
      const std::string key = testing::Key(i);
      ASSERT_TRUE(db->Put(wo, handles[1], key, testing::ValueFor(key)).ok());
    }
    ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions(), handles[1]).ok());
    ::rocksdb::CompactRangeOptions to_bottom;
    to_bottom.bottommost_level_compaction = ::rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db->CompactRange(to_bottom, handles[1], nullptr, nullptr).ok());
    WaitForCompactions(*db, handles[1]);
    const size_t compacted_files = LiveFilesOf(*db, handles[1]).size();
    ASSERT_GE(compacted_files, 1u);

    ListsATableLate wrapped(db.release(), listener.get(), "other");
    if (during_listing) {
      wrapped.create_in_listing = true;
    } else {
      wrapped.Created();
    }
    ::rocksdb::CompactionJobInfo compacted;
    compacted.cf_name = "other";
    compacted.status = ::rocksdb::Status::OK();
    listener->OnCompactionCompleted(&wrapped, compacted);  // the table is not live in this listing
    wrapped.live = true;
    listener->OnCompactionCompleted(&wrapped, compacted);  // and is in this one
    const auto late =
        std::make_tuple(6, std::string("zz-created-first"), std::string("zz-created-last"), uint64_t{1000});
    FileList recorded = RecordedFilesOf(*policy, "other");
    EXPECT_NE(std::find(recorded.begin(), recorded.end(), late), recorded.end());
    EXPECT_EQ(recorded.size(), compacted_files + 1);

    wrapped.Deleted();
    wrapped.live = true;  // a listing that still showed it: its size is unknown now
    policy->SyncLiveFiles("other", {});
    listener->OnCompactionCompleted(&wrapped, compacted);
    EXPECT_TRUE(RecordedFilesOf(*policy, "other").empty());
    for (::rocksdb::ColumnFamilyHandle* handle : handles) ASSERT_TRUE(wrapped.DestroyColumnFamilyHandle(handle).ok());
  }
}

// Syncing a column family the policy has built no filter for records
// nothing: the default's policy does not take over another policy's files.
TEST(RocksdbLevelAwareListener, ColumnFamilyOfAnotherPolicyIsNotRecorded) {
  const auto policy = NewLinebloomFilterPolicy(LevelAware(10));
  const std::vector<LiveSstFile> files{LiveSstFile{6, "a", "m", 1000, 1296}, LiveSstFile{6, "n", "z", 1000, 1296}};
  policy->SyncLiveFiles("never_built", files);
  EXPECT_TRUE(policy->RecordedLiveFiles("never_built").empty());
}

TEST(RocksdbLevelAwareListener, NamedInDbOptions) {
  RegisterLinebloomWithDefaultLibrary();
  ::rocksdb::ConfigOptions config;
  ::rocksdb::DBOptions options;
  const ::rocksdb::Status s = ::rocksdb::GetDBOptionsFromString(config, ::rocksdb::DBOptions(),
                                                                "listeners={id=linebloom_level_aware}", &options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(options.listeners.size(), 1u);
  EXPECT_STREQ(options.listeners[0]->Name(), LevelAwareListener::kClassName());
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
