// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "bits_builder.h"

#include <algorithm>
#include <exception>
#include <new>
#include <span>
#include <string_view>

#include "linebloom/filter_reader.h"

namespace linebloom::rocksdb_plugin {

LinebloomBitsBuilder::LinebloomBitsBuilder(const FilterOptions& options,
                                           bool post_verify)
    : builder_(options),
      seed_(options.seed),
      bits_per_key_(options.EffectiveBitsPerKey()),
      post_verify_(post_verify) {}

void LinebloomBitsBuilder::AddKey(const ::rocksdb::Slice& key) {
  const uint64_t hash = KeyHash(std::string_view(key.data(), key.size()), seed_);
  builder_.AddHash(hash);
  if (post_verify_ &&
      (hashes_to_verify_.empty() || hashes_to_verify_.back() != hash)) {
    hashes_to_verify_.push_back(hash);
  }
}

::rocksdb::Slice LinebloomBitsBuilder::Finish(std::unique_ptr<const char[]>* buf) {
  const size_t size = builder_.FinishedSize();
  std::unique_ptr<char[]> bytes(new char[size]);
  builder_.FinishInto(std::span<char>(bytes.get(), size));
  pending_verify_.clear();
  pending_verify_.swap(hashes_to_verify_);
  const ::rocksdb::Slice filter(bytes.get(), size);
  buf->reset(bytes.release());
  return filter;
}

::rocksdb::Slice LinebloomBitsBuilder::Finish(std::unique_ptr<const char[]>* buf,
                                              ::rocksdb::Status* status) {
  try {
    ::rocksdb::Slice filter = Finish(buf);
    if (status != nullptr) *status = ::rocksdb::Status::OK();
    return filter;
  } catch (const std::bad_alloc&) {
    if (status != nullptr) {
      *status = ::rocksdb::Status::MemoryLimit("linebloom: cannot allocate the filter");
    }
  } catch (const std::exception& e) {
    if (status != nullptr) {
      *status = ::rocksdb::Status::Aborted("linebloom: filter construction failed: ",
                                           e.what());
    }
  }
  buf->reset();
  return ::rocksdb::Slice();
}

::rocksdb::Status LinebloomBitsBuilder::MaybePostVerify(const ::rocksdb::Slice& filter) {
  if (!post_verify_) {
    return ::rocksdb::Status::OK();
  }
  std::vector<uint64_t> hashes;
  hashes.swap(pending_verify_);
  FilterReader reader;
  const ParseResult parsed = FilterReader::Parse(
      std::string_view(filter.data(), filter.size()), &reader, {.verify_checksum = true});
  if (!parsed.ok()) {
    return ::rocksdb::Status::Corruption("linebloom: built filter does not parse: ",
                                         parsed.message());
  }
  constexpr size_t kChunk = 64;
  bool answers[kChunk];
  for (size_t start = 0; start < hashes.size(); start += kChunk) {
    const size_t n = std::min(kChunk, hashes.size() - start);
    reader.MayContainHashBatch(std::span<const uint64_t>(hashes.data() + start, n),
                               std::span<bool>(answers, n));
    if (!std::all_of(answers, answers + n, [](bool b) { return b; })) {
      return ::rocksdb::Status::Corruption(
          "linebloom: built filter is missing a key (filter construction corruption)");
    }
  }
  return ::rocksdb::Status::OK();
}

size_t LinebloomBitsBuilder::ApproximateNumEntries(size_t bytes) {
  return MaxKeysFor(bytes, bits_per_key_);
}

}  // namespace linebloom::rocksdb_plugin
