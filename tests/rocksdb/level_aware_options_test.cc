// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// level_aware and its options, set from option strings and read back.

#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>

#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "linebloom/rocksdb/registration.h"

namespace linebloom::rocksdb_plugin {
namespace {

TEST(RocksdbLevelAwareOptions, StringsSetAndRoundTrip) {
  RegisterLinebloomWithDefaultLibrary();
  ::rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy, again;
  ASSERT_TRUE(::rocksdb::FilterPolicy::CreateFromString(
                  config, "id=linebloom;bits_per_key=10;level_aware=true;size_ratio=8", &policy)
                  .ok());
  const auto* lb = policy->CheckedCast<LinebloomFilterPolicy>();
  ASSERT_NE(lb, nullptr);
  EXPECT_TRUE(lb->options().level_aware);
  EXPECT_EQ(lb->options().size_ratio, 8.0);
  EXPECT_TRUE(lb->ValidateOptions(::rocksdb::DBOptions(), ::rocksdb::ColumnFamilyOptions()).ok());

  const std::string serialized = policy->ToString(config);
  EXPECT_NE(serialized.find("level_aware=true"), std::string::npos) << serialized;
  ASSERT_TRUE(::rocksdb::FilterPolicy::CreateFromString(config, serialized, &again).ok());
  const auto* back = again->CheckedCast<LinebloomFilterPolicy>();
  ASSERT_NE(back, nullptr);
  EXPECT_TRUE(back->options().level_aware);
  EXPECT_EQ(back->options().size_ratio, 8.0);

  // Defaults: off, ratio 10 (RocksDB's default level multiplier).
  ASSERT_TRUE(::rocksdb::FilterPolicy::CreateFromString(config, "linebloom:10", &policy).ok());
  lb = policy->CheckedCast<LinebloomFilterPolicy>();
  ASSERT_NE(lb, nullptr);
  EXPECT_FALSE(lb->options().level_aware);
  EXPECT_EQ(lb->options().size_ratio, 10.0);

  for (const char* bad :
       {"id=linebloom;size_ratio=1", "id=linebloom;size_ratio=101", "id=linebloom;level_aware=true;size_ratio=nan"}) {
    ASSERT_TRUE(::rocksdb::FilterPolicy::CreateFromString(config, bad, &policy).ok()) << bad;
    EXPECT_TRUE(policy->ValidateOptions(::rocksdb::DBOptions(), ::rocksdb::ColumnFamilyOptions()).IsInvalidArgument())
        << bad;
  }
  EXPECT_FALSE(::rocksdb::FilterPolicy::CreateFromString(config, "id=linebloom;level_aware=maybe", &policy).ok());
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
