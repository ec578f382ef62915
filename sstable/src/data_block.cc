// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "data_block.h"

#include "linebloom/foundation/coding.h"

namespace linebloom::sstable::internal {

void DataBlockBuilder::Add(std::string_view key, std::string_view value) {
  offsets_.push_back(static_cast<uint32_t>(buffer_.size()));
  PutVarint64(&buffer_, key.size());
  PutVarint64(&buffer_, value.size());
  buffer_.append(key);
  buffer_.append(value);
}

std::string_view DataBlockBuilder::Finish() {
  for (uint32_t off : offsets_) PutFixed32(&buffer_, off);
  PutFixed32(&buffer_, static_cast<uint32_t>(offsets_.size()));
  return buffer_;
}

void DataBlockBuilder::Reset() {
  buffer_.clear();
  offsets_.clear();
}

bool DataBlock::Parse(std::string_view contents, DataBlock* block, const char** why) {
  auto fail = [why](const char* reason) {
    *why = reason;
    return false;
  };
  if (contents.size() < 4) return fail("data block shorter than its entry count");
  const uint64_t count = DecodeFixed32(contents.data() + contents.size() - 4);
  if (count == 0) return fail("data block with no entries");
  if (count > (contents.size() - 4) / 4) return fail("data block entry count exceeds its size");
  const size_t entries_end = contents.size() - 4 - 4 * static_cast<size_t>(count);
  const char* offsets = contents.data() + entries_end;

  std::string_view previous_key;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t begin = DecodeFixed32(offsets + 4 * i);
    const uint64_t end = i + 1 < count ? DecodeFixed32(offsets + 4 * (i + 1)) : entries_end;
    if (i == 0 && begin != 0) return fail("data block does not start at offset 0");
    if (begin > end || end > entries_end) return fail("data block entry offset out of range");
    Decoder d(contents.substr(begin, end - begin));
    uint64_t key_size, value_size;
    std::string_view key, value;
    if (!d.GetVarint64(&key_size) || !d.GetVarint64(&value_size) || !d.GetBytes(key_size, &key) ||
        !d.GetBytes(value_size, &value) || !d.empty()) {
      return fail("data block entry does not fit its slot");
    }
    if (i > 0 && !(previous_key < key)) return fail("data block keys out of order");
    previous_key = key;
  }
  block->contents_ = contents;
  block->offsets_ = offsets;
  block->count_ = static_cast<size_t>(count);
  return true;
}

void DataBlock::Decode(size_t i, std::string_view* key, std::string_view* value) const {
  const size_t begin = DecodeFixed32(offsets_ + 4 * i);
  Decoder d(contents_.substr(begin));
  uint64_t key_size = 0, value_size = 0;
  // Parse proved these succeed.
  d.GetVarint64(&key_size);
  d.GetVarint64(&value_size);
  d.GetBytes(key_size, key);
  d.GetBytes(value_size, value);
}

std::string_view DataBlock::key(size_t i) const {
  std::string_view k, v;
  Decode(i, &k, &v);
  return k;
}

std::string_view DataBlock::value(size_t i) const {
  std::string_view k, v;
  Decode(i, &k, &v);
  return v;
}

size_t DataBlock::LowerBound(std::string_view target) const {
  size_t lo = 0, hi = count_;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (key(mid) < target) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace linebloom::sstable::internal
