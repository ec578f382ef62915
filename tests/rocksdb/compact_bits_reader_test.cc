// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The policy's readers answer a batch (MayMatch on num_keys keys, the
// MultiGet path) exactly as they answer its keys one by one, for every
// batch size from 1 to 100, for both filter kinds, with the filter at
// several offsets from a cache line (a compact filter's lines then straddle
// two cache lines), under every kernel the CPU has; and the compact
// reader agrees with CompactFilterReader.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>

#include "linebloom/compact_filter.h"
#include "linebloom/kernel.h"
#include "linebloom/rocksdb/filter_bits.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "test_keys.h"

namespace linebloom::rocksdb_plugin {
namespace {

using testing::Keys;

// A filter of `keys` from `policy`'s builder, for a file of level 1.
std::string Build(const ::rocksdb::FilterPolicy& policy, const std::vector<std::string>& keys) {
  ::rocksdb::BlockBasedTableOptions table;
  ::rocksdb::FilterBuildingContext context(table);
  context.level_at_creation = 1;
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder(policy.GetBuilderWithContext(context));
  for (const std::string& k : keys) builder->AddKey(k);
  std::unique_ptr<const char[]> buf;
  const ::rocksdb::Slice bytes = builder->Finish(&buf);
  return bytes.ToString();
}

// Every batch of 1..100 consecutive queries answers as the single calls do.
void ExpectBatchesAnswerAsSingles(::rocksdb::FilterBitsReader& reader, const std::vector<std::string>& queries,
                                  size_t* positives) {
  std::vector<::rocksdb::Slice> slices(queries.begin(), queries.end());
  std::vector<bool> single(queries.size());
  for (size_t i = 0; i < queries.size(); ++i) single[i] = reader.MayMatch(slices[i]);
  for (size_t i = 0; i < queries.size(); ++i) *positives += single[i];
  std::vector<::rocksdb::Slice*> pointers(queries.size());
  for (size_t i = 0; i < queries.size(); ++i) pointers[i] = &slices[i];
  std::unique_ptr<bool[]> batch(new bool[queries.size()]);
  for (size_t n = 1; n <= 100; ++n) {
    for (size_t start = 0; start + n <= queries.size(); start += n) {
      reader.MayMatch(static_cast<int>(n), pointers.data() + start, batch.get() + start);
      for (size_t i = start; i < start + n; ++i) ASSERT_EQ(batch[i], single[i]) << "batch " << n << " key " << i;
    }
  }
}

class PolicyBatches : public ::testing::TestWithParam<bool> {
 protected:
  void TearDown() override { ForceKernel(initial_); }
  const Kernel initial_ = ActiveKernel();
};

TEST_P(PolicyBatches, AnswerAsSingleQueriesAtEveryOffsetAndKernel) {
  const bool compact_kind = GetParam();
  auto policy = compact_kind ? NewLinebloomFilterPolicy(10, 0) : NewLinebloomFilterPolicy(10);
  const auto present = Keys(0, 3000, 2);
  const auto absent = Keys(1, 3000, 2);
  const std::string bytes = Build(*policy, present);
  ASSERT_EQ(DetectFilterKind(bytes), compact_kind ? FilterKind::kCompact : FilterKind::kBloom);
  std::vector<std::string> queries(present.begin(), present.begin() + 1000);
  queries.insert(queries.end(), absent.begin(), absent.end());
  CompactFilterReader compact;
  const bool is_compact = CompactFilterReader::Parse(bytes, &compact).ok();
  for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512}) {
    if (!ForceKernel(kernel)) continue;
    for (size_t offset : {0, 8, 16, 48, 63}) {
      std::unique_ptr<char[]> memory(new char[bytes.size() + 128]);
      char* at = memory.get() + (64 - reinterpret_cast<uintptr_t>(memory.get()) % 64) + offset;
      std::copy(bytes.begin(), bytes.end(), at);
      std::unique_ptr<::rocksdb::FilterBitsReader> reader(policy->GetFilterBitsReader({at, bytes.size()}));
      size_t positives = 0;
      ExpectBatchesAnswerAsSingles(*reader, queries, &positives);
      if (::testing::Test::HasFatalFailure()) return;
      // Every present key found, and few absent ones.
      EXPECT_GE(positives, 1000u);
      EXPECT_LT(positives, 1000u + absent.size() / 20) << KernelName(kernel) << " offset " << offset;
      for (size_t i = 0; is_compact && i < queries.size(); ++i) {
        ASSERT_EQ(reader->MayMatch(queries[i]), compact.MayContain(queries[i])) << i;
      }
    }
  }
}

// false: the Bloom kind; true: the compact kind (at every level).
INSTANTIATE_TEST_SUITE_P(BothKinds, PolicyBatches, ::testing::Bool());

}  // namespace
}  // namespace linebloom::rocksdb_plugin
