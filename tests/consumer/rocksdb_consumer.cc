// Opens a RocksDB database whose table filters come from an installed
// linebloom::rocksdb, flushes one key into an SST (built with the linebloom
// filter) and reads it back; and names the policy in a string after the
// installed C entry point registered it.
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "linebloom/rocksdb/c.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

int main() {
  char dir_template[] = "/tmp/linebloom_consumer_XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) return 1;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = linebloom::rocksdb_plugin::NewLinebloomFilterPolicy(10);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  int rc = 0;
  const std::string path = std::string(dir_template) + "/db";
  std::unique_ptr<rocksdb::DB> db;
#if ROCKSDB_MAJOR >= 11  // DB::Open fills a unique_ptr from 11.0 on
  if (!rocksdb::DB::Open(options, path, &db).ok()) rc = 2;
#else
  rocksdb::DB* raw = nullptr;
  if (!rocksdb::DB::Open(options, path, &raw).ok()) rc = 2;
  db.reset(raw);
#endif
  std::string value;
  if (rc == 0 && !db->Put(rocksdb::WriteOptions(), "installed", "yes").ok()) rc = 3;
  if (rc == 0 && !db->Flush(rocksdb::FlushOptions()).ok()) rc = 4;
  if (rc == 0 && (!db->Get(rocksdb::ReadOptions(), "installed", &value).ok() || value != "yes")) rc = 5;
  if (rc == 0 && !db->Get(rocksdb::ReadOptions(), "absent", &value).IsNotFound()) rc = 6;
  db.reset();
  std::filesystem::remove_all(dir_template);
  linebloom_rocksdb_register();
  std::shared_ptr<const rocksdb::FilterPolicy> by_name;
  if (rc == 0 && (!rocksdb::FilterPolicy::CreateFromString(rocksdb::ConfigOptions(), "linebloom:10", &by_name).ok() ||
                  by_name == nullptr || std::string(by_name->Name()) != "linebloom")) {
    rc = 7;
  }
  if (rc == 0) std::puts("rocksdb consumer: ok");
  return rc;
}
