// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom as a RocksDB filter: a rocksdb::FilterPolicy whose filter blocks
// (full, or one per partition) are linebloom filters (docs/FORMAT.md).
//
//   BlockBasedTableOptions t;
//   t.filter_policy = linebloom::rocksdb_plugin::NewLinebloomFilterPolicy(10);
//
// or, after RegisterLinebloom (registration.h), from a string:
//   "linebloom:10"  or  "id=linebloom;bits_per_key=10;verify_checksum=true"
//
// Options (registered with RocksDB, so they are written to and read back from
// OPTIONS files):
//   bits_per_key     double in [1, 100], default 10 (fractional allowed)
//   num_probes       int in [0, 24], 0 = best k for bits_per_key (default)
//   verify_checksum  bool, default true: check the filter's own XXH3 checksum
//                    when RocksDB loads a filter block (see below)
//
// A filter block that does not parse (corrupt, truncated, a future format
// version, another policy's bytes) gets a reader that answers "may match"
// for every key -- never a false negative -- and the reason is reported once
// per kind of problem: to the info log set with SetInfoLog, or else to
// stderr. GetFilterBitsReader is handed only the bytes, not the DB's logger,
// which is why the logger has to be given to the policy.

#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>

namespace linebloom::rocksdb_plugin {

struct LinebloomPolicyOptions {
  static const char* kName() { return "LinebloomPolicyOptions"; }

  double bits_per_key = 10.0;
  int num_probes = 0;
  // RocksDB already checksums every block it reads (unless a ReadOptions
  // turns verify_checksums off), so this second check costs one XXH3 pass
  // (~10 GB/s) per filter load and guards against the remaining cases:
  // blocks read without verification and bytes damaged in memory.
  bool verify_checksum = true;
};

class LinebloomFilterPolicy : public ::rocksdb::FilterPolicy {
 public:
  // The id under which the policy is registered, and its Name() and
  // CompatibilityName(): SSTs name their filter block "fullfilter.linebloom"
  // (or "partitionedfilter.linebloom") and their filter_policy property
  // "linebloom".
  static const char* kClassName() { return "linebloom"; }

  explicit LinebloomFilterPolicy(const LinebloomPolicyOptions& options = {});
  ~LinebloomFilterPolicy() override;
  LinebloomFilterPolicy(const LinebloomFilterPolicy&) = delete;
  LinebloomFilterPolicy& operator=(const LinebloomFilterPolicy&) = delete;

  const char* Name() const override { return kClassName(); }
  const char* CompatibilityName() const override { return kClassName(); }

  ::rocksdb::FilterBitsBuilder* GetBuilderWithContext(
      const ::rocksdb::FilterBuildingContext& context) const override;
  ::rocksdb::FilterBitsReader* GetFilterBitsReader(
      const ::rocksdb::Slice& contents) const override;

  // Rejects bits_per_key outside [1, 100] (or NaN) and num_probes outside
  // [0, 24]. RocksDB calls it from DB::Open.
  ::rocksdb::Status ValidateOptions(
      const ::rocksdb::DBOptions& db_opts,
      const ::rocksdb::ColumnFamilyOptions& cf_opts) const override;

  const LinebloomPolicyOptions& options() const { return options_; }

  // Where malformed filter blocks are reported; pass the DB's
  // Options::info_log. Policies are shared as `const`, hence const.
  void SetInfoLog(std::shared_ptr<::rocksdb::Logger> info_log) const;

  // Filter blocks that failed to parse since the policy was created, and the
  // reason for the latest one ("" if none).
  uint64_t num_malformed_filters() const;
  std::string last_malformed_reason() const;

 private:
  struct Diagnostics;  // logger, counters, warn-once flags

  void WarnOnceAboutContext(const ::rocksdb::FilterBuildingContext& context) const;

  LinebloomPolicyOptions options_;
  std::unique_ptr<Diagnostics> diagnostics_;
};

// A policy with `bits_per_key` and default options otherwise.
std::shared_ptr<const LinebloomFilterPolicy> NewLinebloomFilterPolicy(
    double bits_per_key = 10.0);
std::shared_ptr<const LinebloomFilterPolicy> NewLinebloomFilterPolicy(
    const LinebloomPolicyOptions& options);

}  // namespace linebloom::rocksdb_plugin
