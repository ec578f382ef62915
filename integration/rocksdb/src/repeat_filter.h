// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Which entries a filter builder keeps: the repeat rules of both RocksDB
// builders (LinebloomBitsBuilder, bits_builder.h, says why they hold), and
// the Finish overload that turns an exception into a Status.

#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <new>

#include "hash_set.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {

// Remembers the previous key and the prefixes of the current filter.
class RepeatFilter {
 public:
  // True unless `hash` repeats the previous key or is a known prefix; it
  // becomes the previous key.
  bool NewKey(uint64_t hash) {
    const bool repeat = (any_key_ && hash == last_key_) || prefixes_.Contains(hash);
    any_key_ = true;
    last_key_ = hash;
    return !repeat;
  }

  // AddKeyAndAlt: emit(key_hash) if the key is new, then emit(alt_hash) the
  // first time the alt is seen in this filter, unless it equals this key or
  // the previous one (a key that is its own prefix, whose hash is already in
  // the filter as a key).
  template <typename Emit>
  void KeyAndAlt(uint64_t key_hash, uint64_t alt_hash, Emit emit) {
    const bool had_previous = any_key_;
    const uint64_t previous = last_key_;
    if (NewKey(key_hash)) emit(key_hash);
    if (prefixes_.Insert(alt_hash) && alt_hash != key_hash && !(had_previous && alt_hash == previous)) {
      emit(alt_hash);
    }
  }

  // The bytes the prefixes of this filter take.
  size_t PrefixBytes() const { return prefixes_.MemoryBytes(); }

  // For the next filter.
  void Reset() {
    prefixes_.Clear();
    any_key_ = false;
  }

 private:
  bool any_key_ = false;   // last_key_ is set (since the last Reset)
  uint64_t last_key_ = 0;  // hash of the latest key
  HashSet prefixes_;       // hashes of the alts of this filter
};

// builder->Finish(buf), with an allocation failure or another exception
// reported in *status (OK otherwise) instead of thrown through RocksDB.
template <typename Builder>
::rocksdb::Slice FinishWithStatus(Builder* builder, std::unique_ptr<const char[]>* buf, ::rocksdb::Status* status) {
  try {
    ::rocksdb::Slice filter = builder->Finish(buf);
    if (status != nullptr) *status = ::rocksdb::Status::OK();
    return filter;
  } catch (const std::bad_alloc&) {
    if (status != nullptr) *status = ::rocksdb::Status::MemoryLimit("linebloom: cannot allocate the filter");
  } catch (const std::exception& e) {
    if (status != nullptr) *status = ::rocksdb::Status::Aborted("linebloom: filter construction failed: ", e.what());
  }
  buf->reset();
  return ::rocksdb::Slice();
}

}  // namespace linebloom::rocksdb_plugin
