// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Where the plugin's filter builders collect the hashes of new keys before
// handing them to the linebloom builder in one AddDistinctHashes call: a
// store per key, where a call per key would cost about as much as hashing
// the key. Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace linebloom::rocksdb_plugin {

class HashStage {
 public:
  static constexpr size_t kCapacity = 64;

  // Stages `hash`; true once kCapacity hashes are staged, when the caller
  // hands staged() over and calls Clear().
  bool Add(uint64_t hash) {
    hashes_[size_] = hash;
    return ++size_ == kCapacity;
  }
  std::span<const uint64_t> staged() const { return {hashes_, size_}; }
  size_t size() const { return size_; }
  void Clear() { size_ = 0; }

 private:
  uint64_t hashes_[kCapacity];
  size_t size_ = 0;
};

}  // namespace linebloom::rocksdb_plugin
