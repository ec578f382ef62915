// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "rocksdb_block_filter.h"

#include <rocksdb/filter_policy.h>

#include <vector>

#include "linebloom/rocksdb/testing/policy_filter_builder.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::harness {
namespace {

constexpr size_t kMetadataBytes = 5;

class Builder final : public sstable::BlockFilterBuilder {
 public:
  explicit Builder(const rocksdb::FilterPolicy& policy) : builder_(policy, /*format_version=*/5) {}
  void AddKey(std::string_view key) override {
    builder_.AddKey(key);
    ++keys_;
  }
  size_t NumKeys() const override { return keys_; }
  std::string Finish() override {
    keys_ = 0;
    return std::string(builder_.Finish().bytes());
  }
  // Each RocksDB filter carries its own 5-byte metadata; nothing per table.
  std::string Parameters() const override { return {}; }

 private:
  rocksdb_plugin::PolicyFilterBuilder builder_;
  size_t keys_ = 0;
};

class Reader final : public sstable::TableFilterReader {
 public:
  explicit Reader(const rocksdb::FilterPolicy& policy) : policy_(policy) {}

  // RocksDB's reader trusts its input (its SST blocks are checksummed, as
  // ours are); only the fast cache-local Bloom layout is accepted here.
  Status AddFilter(std::string_view bytes) override {
    RocksdbBloomShape shape;
    if (!ParseRocksdbBloom(bytes, &shape)) {
      return Status::Corruption("not a RocksDB format_version 5 Bloom filter");
    }
    std::unique_ptr<rocksdb::FilterBitsReader> reader(
        policy_.GetFilterBitsReader(rocksdb::Slice(bytes.data(), bytes.size())));
    if (!reader) return Status::Corruption("RocksDB refused the filter");
    readers_.push_back(std::move(reader));
    return Status::Ok();
  }
  bool MayMatch(size_t i, std::string_view key) const override {
    return readers_[i]->MayMatch(rocksdb::Slice(key.data(), key.size()));
  }

 private:
  const rocksdb::FilterPolicy& policy_;
  std::vector<std::unique_ptr<rocksdb::FilterBitsReader>> readers_;
};

class Policy final : public sstable::BlockFilterPolicy {
 public:
  explicit Policy(double bits_per_key) : policy_(rocksdb::NewBloomFilterPolicy(bits_per_key, false)) {}

  std::string Name() const override { return std::string(kRocksdbBloomPolicyName); }

  std::unique_ptr<sstable::BlockFilterBuilder> NewBuilder() const override {
    return std::make_unique<Builder>(*policy_);
  }

  Status NewTableReader(std::string_view parameters, std::unique_ptr<sstable::TableFilterReader>* out) const override {
    if (!parameters.empty()) return Status::Corruption("RocksDB Bloom filters take no table parameters");
    *out = std::make_unique<Reader>(*policy_);
    return Status::Ok();
  }

 private:
  // Shared: readers of open tables keep using it.
  std::shared_ptr<const rocksdb::FilterPolicy> policy_;
};

}  // namespace

std::shared_ptr<const sstable::BlockFilterPolicy> NewRocksdbBloomPolicy(double bits_per_key) {
  return std::make_shared<Policy>(bits_per_key);
}

bool ParseRocksdbBloom(std::string_view bytes, RocksdbBloomShape* shape) {
  if (bytes.size() < kMetadataBytes || (bytes.size() - kMetadataBytes) % 64 != 0) return false;
  const auto* meta = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - kMetadataBytes);
  // 0xFF marks the newer Bloom implementations, 0 the cache-local one; the
  // top 3 bits of the probes byte encode the line size (0 = 64 bytes).
  if (meta[0] != 0xFF || meta[1] != 0 || meta[2] == 0 || meta[2] > 30 || meta[3] != 0 || meta[4] != 0) {
    return false;
  }
  shape->num_lines = (bytes.size() - kMetadataBytes) / 64;
  shape->num_probes = meta[2];
  return true;
}

}  // namespace linebloom::harness
