// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "bits_builder.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "block_read_lead.h"
#include "key_hash.h"
#include "linebloom/bloom_math.h"
#include "linebloom/filter_format.h"
#include "linebloom/filter_reader.h"

namespace linebloom::rocksdb_plugin {

LinebloomBitsBuilder::LinebloomBitsBuilder(const FilterOptions& options, bool post_verify, ReadMemory read_memory)
    : builder_(options),
      seed_(options.seed),
      bits_per_key_(options.EffectiveBitsPerKey()),
      post_verify_(post_verify),
      read_memory_(std::move(read_memory)) {}

namespace {
std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }
}  // namespace

// Per key, AddKey's work is the hash, the two repeat tests and a store to
// the staging array; the post-verify copy and the hand-over of a full
// staging array are kept out of line (so every Append need not save and
// restore registers), and Append and AddKeyHash are inlined into AddKey.
// Plain form of the two:
//   void Append(uint64_t hash) {
//     builder_.AddHash(hash);
//     if (post_verify_) hashes_to_verify_.push_back(hash);
//   }
//   void AddKeyHash(uint64_t hash) {
//     if (repeats_.NewKey(hash)) Append(hash);
//   }
__attribute__((noinline)) void LinebloomBitsBuilder::KeepForVerify(uint64_t hash) { hashes_to_verify_.push_back(hash); }

__attribute__((noinline)) void LinebloomBitsBuilder::FlushStaged() {
  builder_.AddDistinctHashes(stage_.staged());
  stage_.Clear();
  if (charge_) charge_->Hold(KeyBytes());
}

size_t LinebloomBitsBuilder::KeyBytes() const {
  return (builder_.NumKeys() + stage_.size()) * sizeof(uint64_t) * (post_verify_ ? 2 : 1) + repeats_.PrefixBytes();
}

inline void LinebloomBitsBuilder::Append(uint64_t hash) {
  if (stage_.Add(hash)) [[unlikely]]
    FlushStaged();
  if (post_verify_) [[unlikely]]
    KeepForVerify(hash);
}

// A key is new unless it repeats the previous key or is a known prefix.
inline void LinebloomBitsBuilder::AddKeyHash(uint64_t hash) {
  if (repeats_.NewKey(hash)) Append(hash);
}

// Keys of 9 to 16 and of 17 to 32 bytes are hashed inline (key_hash.h,
// HashKeyTiered); `flatten` makes the compiler inline XXH3's paths for
// them, which it would otherwise call.
__attribute__((flatten)) void LinebloomBitsBuilder::AddKey(const ::rocksdb::Slice& key) {
  const std::string_view k = View(key);
  const bool multiply = builder_.options().hash_scheme == KeyHashScheme::kShortKeyMultiply;
  AddKeyHash(multiply ? internal::HashKeyTiered<KeyHashScheme::kShortKeyMultiply>(k, seed_)
                      : internal::HashKeyTiered(k, seed_));
}

// The rules are RepeatFilter::KeyAndAlt's.
void LinebloomBitsBuilder::AddKeyAndAlt(const ::rocksdb::Slice& key, const ::rocksdb::Slice& alt) {
  const KeyHashScheme scheme = builder_.options().hash_scheme;
  const uint64_t alt_hash = KeyHash(View(alt), seed_, scheme);
  const uint64_t key_hash = KeyHash(View(key), seed_, scheme);
  repeats_.KeyAndAlt(key_hash, alt_hash, [this](uint64_t hash) { Append(hash); });
}

::rocksdb::Slice LinebloomBitsBuilder::Finish(std::unique_ptr<const char[]>* buf) {
  FlushStaged();
  // The size without lead bytes (the builder still holds the previous filter's).
  const size_t plain_size = builder_.FinishedSize() - builder_.lead_bytes();
  builder_.SetLeadBytes(LeadBytesForBlockRead(plain_size, read_memory_));
  const size_t lead = builder_.lead_bytes();
  const size_t size = builder_.FinishedSize();
  // The blocks start on a 64-byte boundary of this buffer too, so that while
  // the filter is built every block is one cache line: new[] aligns to 16
  // bytes, and a block straddling two lines costs a large filter's build two
  // misses per key instead of one. RocksDB writes the returned Slice, not
  // the buffer.
  if (charge_) charge_->Finishing(KeyBytes(), size + kFilterBlockBytes - 1);
  std::unique_ptr<char[]> bytes(new char[size + kFilterBlockBytes - 1]);
  const size_t offset =
      (kFilterBlockBytes - (reinterpret_cast<uintptr_t>(bytes.get()) + lead) % kFilterBlockBytes) % kFilterBlockBytes;
  char* const start = bytes.get() + offset;
  builder_.FinishInto(std::span<char>(start, size));
  pending_verify_.clear();
  pending_verify_.swap(hashes_to_verify_);
  repeats_.Reset();
  if (charge_) charge_->Finished(size + kFilterBlockBytes - 1);
  const ::rocksdb::Slice filter(start, size);
  buf->reset(bytes.release());
  return filter;
}

::rocksdb::Slice LinebloomBitsBuilder::Finish(std::unique_ptr<const char[]>* buf, ::rocksdb::Status* status) {
  return FinishWithStatus(this, buf, status);
}

::rocksdb::Status LinebloomBitsBuilder::MaybePostVerify(const ::rocksdb::Slice& filter) {
  if (!post_verify_) {
    return ::rocksdb::Status::OK();
  }
  std::vector<uint64_t> hashes;
  hashes.swap(pending_verify_);
  FilterReader reader;
  const ParseResult parsed =
      FilterReader::Parse(std::string_view(filter.data(), filter.size()), &reader, {.verify_checksum = true});
  if (!parsed.ok()) {
    return ::rocksdb::Status::Corruption("linebloom: built filter does not parse: ", parsed.message());
  }
  constexpr size_t kChunk = 64;
  bool answers[kChunk];
  for (size_t start = 0; start < hashes.size(); start += kChunk) {
    const size_t n = std::min(kChunk, hashes.size() - start);
    reader.MayContainHashBatch(std::span<const uint64_t>(hashes.data() + start, n), std::span<bool>(answers, n));
    if (!std::all_of(answers, answers + n, [](bool b) { return b; })) {
      return ::rocksdb::Status::Corruption("linebloom: built filter is missing a key (filter construction corruption)");
    }
  }
  return ::rocksdb::Status::OK();
}

size_t LinebloomBitsBuilder::ApproximateNumEntries(size_t bytes) { return MaxKeysFor(bytes, bits_per_key_); }

void LinebloomBitsBuilder::SetBitsPerKey(double bits_per_key) {
  builder_.SetBitsPerKey(bits_per_key);
  bits_per_key_ = builder_.options().EffectiveBitsPerKey();
}

size_t LinebloomBitsBuilder::CalculateSpace(size_t num_entries) { return FilterBytesFor(num_entries, bits_per_key_); }

double LinebloomBitsBuilder::EstimatedFpRate(size_t num_entries, size_t bytes) {
  if (num_entries == 0) return 0.0;
  const size_t blocks = bytes < kFilterTrailerBytes ? 0 : (bytes - kFilterTrailerBytes) / kFilterBlockBytes;
  if (blocks == 0) return 1.0;
  const double bits_per_key = static_cast<double>(blocks) * kFilterBlockBits / static_cast<double>(num_entries);
  // Below 1/8 bit per key a block holds ~4096 keys on average: each of its
  // bits is set with probability > 1 - e^-8 even at one probe, so the rate
  // is 1 to within 4e-4, and the Poisson sum would take ~50k terms.
  if (bits_per_key < 0.125) return 1.0;
  // The k a filter of num_entries keys is built with (ProbesFor).
  return BlockedFpr(bits_per_key, ProbesFor(builder_.options(), num_entries));
}

}  // namespace linebloom::rocksdb_plugin
