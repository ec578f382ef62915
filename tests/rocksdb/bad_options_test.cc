// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A bad linebloom option string is never silent. RocksDB returns the error
// from FilterPolicy::CreateFromString, but swallows it where the policy is
// one option of the table options (an OPTIONS file) and keeps a policy with
// default options; the policy then warns on stderr naming the option and
// DB::Open refuses it. Checked the same way on every RocksDB version.

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>

#include "db_fixture.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "linebloom/rocksdb/registration.h"

namespace linebloom::rocksdb_plugin {
namespace {

using namespace testing;  // NOLINT: the fixture helpers

struct BadSpec {
  const char* name;
  const char* policy;  // the filter_policy value
  const char* option;  // what every message must name
};

class RocksdbBadOptions : public ::testing::TestWithParam<BadSpec> {
 protected:
  void SetUp() override { RegisterLinebloomWithDefaultLibrary(); }
};

TEST_P(RocksdbBadOptions, CreateFromStringRefusesNamingTheOption) {
  const BadSpec spec = GetParam();
  ::rocksdb::ConfigOptions config;
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy;
  ::testing::internal::CaptureStderr();
  const ::rocksdb::Status s = ::rocksdb::FilterPolicy::CreateFromString(config, spec.policy, &policy);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(s.ok()) << spec.policy;
  EXPECT_NE(err.find(spec.option), std::string::npos) << "stderr: " << err;
}

// Through an OPTIONS file, the path db_bench --options_file and every
// LoadOptionsFromFile user take: either loading fails naming the option, or
// the loaded policy makes DB::Open fail naming it. Either way stderr names it.
TEST_P(RocksdbBadOptions, OptionsFileIsRefusedOrOpenFailsNamingTheOption) {
  const BadSpec spec = GetParam();
  TempDir dir;
  const std::string path = dir.path() + "/OPTIONS";
  {
    std::ofstream f(path);
    f << "[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n"
      << "[DBOptions]\n  create_if_missing=true\n"
      << "[CFOptions \"default\"]\n"
      << "[TableOptions/BlockBasedTable \"default\"]\n"
      << "  filter_policy={" << spec.policy << "}\n";
  }
  ::rocksdb::ConfigOptions config;
  config.env = ::rocksdb::Env::Default();
  config.input_strings_escaped = true;
  ::rocksdb::DBOptions db_options;
  std::vector<::rocksdb::ColumnFamilyDescriptor> families;
  ::testing::internal::CaptureStderr();
  const ::rocksdb::Status loaded = ::rocksdb::LoadOptionsFromFile(config, path, &db_options, &families);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(spec.option), std::string::npos) << "stderr: " << err;
  if (!loaded.ok()) {
    std::printf("  %s: LoadOptionsFromFile refuses: %s\n", spec.name, loaded.ToString().c_str());
    EXPECT_NE(loaded.ToString().find(spec.option), std::string::npos) << loaded.ToString();
    return;
  }
  ASSERT_EQ(families.size(), 1u);
  ::rocksdb::Options options(db_options, families[0].options);
  std::unique_ptr<::rocksdb::DB> db;
  const ::rocksdb::Status open = OpenDB(options, dir.path() + "/db", &db);
  std::printf("  %s: loaded; DB::Open refuses: %s\n", spec.name, open.ToString().c_str());
  EXPECT_TRUE(open.IsInvalidArgument()) << open.ToString();
  EXPECT_NE(open.ToString().find(spec.option), std::string::npos) << open.ToString();
}

INSTANTIATE_TEST_SUITE_P(Rocksdb, RocksdbBadOptions,
                         ::testing::Values(BadSpec{"bad_value", "id=linebloom;bits_per_key=abc", "bits_per_key"},
                                           BadSpec{"unknown_option", "id=linebloom;bogus=1", "bogus"},
                                           BadSpec{"bad_probes", "id=linebloom;num_probes=x", "num_probes"}),
                         [](const ::testing::TestParamInfo<BadSpec>& param_info) { return param_info.param.name; });

// "linebloom:<bits>" with a suffix that is not a sane number: RocksDB only
// says "could not load" (and inside table options says nothing and builds no
// filter), so the factory says why on stderr.
TEST(RocksdbBadOptionsUri, BadBitsSuffixIsExplainedOnStderr) {
  RegisterLinebloomWithDefaultLibrary();
  for (const char* uri : {"linebloom:abc", "linebloom:0.5"}) {
    ::rocksdb::ConfigOptions config;
    std::shared_ptr<const ::rocksdb::FilterPolicy> policy;
    ::testing::internal::CaptureStderr();
    const ::rocksdb::Status s = ::rocksdb::FilterPolicy::CreateFromString(config, uri, &policy);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_FALSE(s.ok()) << uri;
    EXPECT_NE(err.find(uri), std::string::npos) << "stderr: " << err;
  }
}

// Good strings stay quiet and open.
TEST(RocksdbBadOptionsGood, GoodStringsAreQuietAndOpen) {
  RegisterLinebloomWithDefaultLibrary();
  // A bare id goes unbraced; braces hold an option map.
  for (const char* spec : {"filter_policy=linebloom", "filter_policy=linebloom:9.5",
                           "filter_policy={id=linebloom;bits_per_key=12;num_probes=0}"}) {
    ::rocksdb::ConfigOptions config;
    ::rocksdb::BlockBasedTableOptions table;
    ::testing::internal::CaptureStderr();
    const ::rocksdb::Status s =
        ::rocksdb::GetBlockBasedTableOptionsFromString(config, ::rocksdb::BlockBasedTableOptions(), spec, &table);
    const std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_NE(table.filter_policy, nullptr) << spec;
    EXPECT_STREQ(table.filter_policy->Name(), "linebloom");
    EXPECT_EQ(err, "") << spec;
    TempDir dir;
    ::rocksdb::Options options;
    options.create_if_missing = true;
    options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
    std::unique_ptr<::rocksdb::DB> db;
    EXPECT_TRUE(OpenDB(options, dir.path(), &db).ok()) << spec;
  }
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
