// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_bits_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <string_view>
#include <utility>

#include "key_hash.h"
#include "linebloom/any_filter_reader.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_format.h"
#include "linebloom/filter_reader.h"

namespace linebloom::rocksdb_plugin {

namespace {

constexpr size_t kLineBytes = 64;
constexpr double kLineBits = 512;
// Lines beyond the mean: 1/64 of them, plus kSlackLines (see
// CompactBytesBound).
constexpr double kLineMargin = 1.0 + 1.0 / 64;
constexpr size_t kSlackLines = 4;
// The layer table at its largest (8 layers of 4 bytes) and the trailer.
constexpr size_t kFixedBytes = 4 * 8 + kFilterTrailerBytes;

std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }

// Empty if `filter` (the compact filter, or the Bloom filter a compact
// build fell back to) parses and may contain every hash; the problem
// otherwise.
std::string CheckHashes(std::string_view filter, const CompactHashes& hashes) {
  AnyFilterReader reader;
  const ParseResult parsed = AnyFilterReader::Parse(filter, &reader, {.verify_checksum = true});
  if (!parsed.ok()) return std::string("built filter does not parse: ") + parsed.message();
  bool all = true;
  hashes.ForEachSpan([&](std::span<const uint64_t> span) {
    for (uint64_t h : span) all &= reader.MayContainHash(h);
  });
  if (!all) return "built filter is missing a key (filter construction corruption)";
  return {};
}

}  // namespace

size_t CompactBytesBound(size_t num_entries, double bits_per_key) {
  if (num_entries == 0) return kFilterTrailerBytes;
  const double mean_lines = static_cast<double>(num_entries) * bits_per_key / kLineBits;
  const double lines = std::ceil(mean_lines * kLineMargin) + kSlackLines;
  return static_cast<size_t>(lines) * kLineBytes + kFixedBytes;
}

size_t CompactEntriesWithin(size_t bytes, double bits_per_key) {
  if (bytes < kFixedBytes + (kSlackLines + 1) * kLineBytes) return 0;
  const double lines = static_cast<double>((bytes - kFixedBytes) / kLineBytes - kSlackLines);
  // The inverse of the bound, then down past any rounding of the doubles.
  auto n = static_cast<size_t>(std::floor(lines / kLineMargin * kLineBits / bits_per_key));
  while (n > 0 && CompactBytesBound(n, bits_per_key) > bytes) --n;
  return n;
}

CompactBitsBuilder::CompactBitsBuilder(const FilterOptions& options, bool post_verify, FallbackReport on_fallback,
                                       ReadMemory read_memory)
    : builder_(options),
      seed_(options.seed),
      bits_per_key_(EffectiveCompactBitsPerKey(options.bits_per_key)),
      post_verify_(post_verify),
      on_fallback_(std::move(on_fallback)),
      read_memory_(std::move(read_memory)) {
  builder_.SetBitsPerKey(bits_per_key_);
  builder_.KeepFinishedHashes(post_verify_);
}

void CompactBitsBuilder::SetBitsPerKey(double bits_per_key) {
  bits_per_key_ = EffectiveCompactBitsPerKey(bits_per_key);
  builder_.SetBitsPerKey(bits_per_key_);
}

// With a charge, every stage handed over checks it (the builder holds 8
// bytes per key, and its prefix set).
__attribute__((noinline)) void CompactBitsBuilder::FlushStaged() {
  builder_.AddDistinctHashes(stage_.staged());
  stage_.Clear();
  if (charge_) charge_->Hold(builder_.NumKeys() * sizeof(uint64_t) + repeats_.PrefixBytes());
}

//   simple form: builder_.AddHash(hash)
inline void CompactBitsBuilder::Append(uint64_t hash) {
  if (stage_.Add(hash)) [[unlikely]]
    FlushStaged();
}

void CompactBitsBuilder::AddKey(const ::rocksdb::Slice& key) {
  const uint64_t hash = internal::HashKeyTiered(View(key), seed_);
  if (repeats_.NewKey(hash)) Append(hash);
}

void CompactBitsBuilder::AddKeyAndAlt(const ::rocksdb::Slice& key, const ::rocksdb::Slice& alt) {
  repeats_.KeyAndAlt(KeyHash(View(key), seed_), KeyHash(View(alt), seed_), [this](uint64_t hash) { Append(hash); });
}

// The exact size is known only once the keys are placed; the lead is asked
// for the model's (EstimatedSize), which is within a few lines of it: the
// allocator places buffers of both sizes alike. The layers together spend
// the bits per key, so a filter is about NumKeys * bits / 8 bytes plus two
// lines and its table; below half of kLeadFromBytes by that count it is far
// below kLeadFromBytes and gets no lead, without evaluating the model.
size_t CompactBitsBuilder::LeadBytes() const {
  const double bytes = static_cast<double>(builder_.NumKeys()) * bits_per_key_ / 8;
  if (!read_memory_.align || bytes < static_cast<double>(kLeadFromBytes) / 2) return 0;
  return LeadBytesForBlockRead(builder_.EstimatedSize() - builder_.lead_bytes(), read_memory_);
}

::rocksdb::Slice CompactBitsBuilder::Finish(std::unique_ptr<const char[]>* buf) {
  FlushStaged();
  builder_.ReleaseFinishedHashes();
  std::unique_ptr<char[]> bytes;
  size_t size = 0;
  if (builder_.NumKeys() == 0) {
    // A compact filter of no keys is written with 0 fingerprint bits, which
    // CompactFilterReader::Parse rejects; a Bloom filter of no blocks reads
    // as "no key" in every linebloom release.
    const std::string empty = FilterBuilder(builder_.options()).Finish();
    size = empty.size();
    bytes.reset(new char[size]);
    std::memcpy(bytes.get(), empty.data(), size);
  } else {
    builder_.SetLeadBytes(LeadBytes());
    // The filter is about the bits per key, plus a few lines and its table.
    if (charge_) {
      const double filter_bytes = static_cast<double>(builder_.NumKeys()) * bits_per_key_ / 8 + 4 * kLineBytes;
      charge_->Finishing(builder_.NumKeys() * sizeof(uint64_t) + repeats_.PrefixBytes(),
                         static_cast<size_t>(filter_bytes));
    }
    bytes = builder_.FinishBuffer(&size);
    if (!builder_.fallback_reason().empty() && on_fallback_) on_fallback_(builder_.fallback_reason());
  }
  repeats_.Reset();
  if (charge_) charge_->Finished(size);
  const ::rocksdb::Slice result(bytes.get(), size);
  buf->reset(bytes.release());
  return result;
}

::rocksdb::Slice CompactBitsBuilder::Finish(std::unique_ptr<const char[]>* buf, ::rocksdb::Status* status) {
  return FinishWithStatus(this, buf, status);
}

::rocksdb::Status CompactBitsBuilder::MaybePostVerify(const ::rocksdb::Slice& filter) {
  if (!post_verify_) return ::rocksdb::Status::OK();
  const std::string problem = CheckHashes(View(filter), builder_.finished_hashes());
  builder_.ReleaseFinishedHashes();
  if (problem.empty()) return ::rocksdb::Status::OK();
  return ::rocksdb::Status::Corruption("linebloom: ", problem);
}

size_t CompactBitsBuilder::ApproximateNumEntries(size_t bytes) { return CompactEntriesWithin(bytes, bits_per_key_); }

size_t CompactBitsBuilder::CalculateSpace(size_t num_entries) { return CompactBytesBound(num_entries, bits_per_key_); }

double CompactBitsBuilder::EstimatedFpRate(size_t num_entries, size_t bytes) {
  if (num_entries == 0) return 0.0;
  if (bytes < kFilterTrailerBytes + kLineBytes) return 1.0;
  const double bits = static_cast<double>(bytes - kFilterTrailerBytes) * 8 / static_cast<double>(num_entries);
  // Below the compact range no compact filter is built; the model's rate
  // at the minimum is then a lower bound.
  return CompactFpr(EffectiveCompactBitsPerKey(bits), num_entries, builder_.extra_planes(), builder_.mixed());
}

}  // namespace linebloom::rocksdb_plugin
