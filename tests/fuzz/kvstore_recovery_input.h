// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The input format of fuzz_kvstore_recovery, shared with its seed generator
// (make_kvstore_seeds.cc) so both read and write the same bytes.
//
//   byte 0: flags
//     bits 0-1  mode: 0 or 3 structured log, 1 raw log, 2 raw MANIFEST
//     bit 2     the store already holds a run (16 "base" keys) under the log
//     bit 3     small write buffer: Open flushes what it replays
//     bit 4     after Open: one more Put, Close, reopen, check again
//   raw log:      the rest is the whole log file
//   raw MANIFEST: the rest is the whole MANIFEST (the log is a valid empty one)
//   structured:   a valid prefix of records chosen by the fuzzer, then a tail
//     [records] (mod 33), each: [ops] (mod 9), each op:
//         [kind/key length]  bit 7 = delete, bits 0-3 = key length
//         key bytes, and for a put: [value length] (mod 64), value bytes
//     [tail kind] (mod 4)
//       0 damage:  the rest of the input, verbatim
//       1 torn:    one more record (as above) cut short at
//                  1 + [cut] mod (length - 1) bytes; nothing after it
//       2 zeros:   1 + [n] zero bytes; nothing after them
//       3 flipped: one more record, then 1 + [flips] mod 4 flips, each
//                  [position lo][position hi] mod length and [xor mask]
//                  (0 taken as 1); then the rest of the input, verbatim
// A byte read past the end of the input reads as 0.

#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kv_log_model.h"

namespace linebloom::fuzz::recovery_input {

enum class Mode { kStructured, kRawLog, kRawManifest };
enum class Tail { kDamage = 0, kTorn = 1, kZeros = 2, kFlipped = 3 };

inline constexpr uint8_t kModeMask = 0x03;
inline constexpr uint8_t kBaseRun = 0x04;
inline constexpr uint8_t kSmallWriteBuffer = 0x08;
inline constexpr uint8_t kReopen = 0x10;

inline Mode ModeOf(uint8_t flags) {
  switch (flags & kModeMask) {
    case 1: return Mode::kRawLog;
    case 2: return Mode::kRawManifest;
    default: return Mode::kStructured;
  }
}

// Reads the input front to back; past the end every byte is 0.
class ByteSource {
 public:
  explicit ByteSource(std::span<const uint8_t> data) : data_(data) {}
  uint8_t Byte() { return pos_ < data_.size() ? data_[pos_++] : 0; }
  std::string Bytes(size_t n) {
    std::string out;
    while (out.size() < n && pos_ < data_.size()) out.push_back(static_cast<char>(data_[pos_++]));
    out.resize(n, '\0');
    return out;
  }
  std::string Rest() {
    std::string out(data_.begin() + static_cast<std::ptrdiff_t>(pos_), data_.end());
    pos_ = data_.size();
    return out;
  }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
};

inline kvlog::Batch ReadBatch(ByteSource* in) {
  kvlog::Batch batch(in->Byte() % 9);
  for (kvlog::Op& op : batch) {
    const uint8_t kind_len = in->Byte();
    op.is_delete = (kind_len & 0x80) != 0;
    op.key = in->Bytes(kind_len & 0x0f);
    if (!op.is_delete) op.value = in->Bytes(in->Byte() % 64);
  }
  return batch;
}

// The inverse of ReadBatch, for the seed generator (keys <= 15 bytes,
// values <= 63 bytes, <= 8 operations).
inline void WriteBatchSpec(const kvlog::Batch& batch, std::string* out) {
  out->push_back(static_cast<char>(batch.size()));
  for (const kvlog::Op& op : batch) {
    out->push_back(static_cast<char>((op.is_delete ? 0x80 : 0) | op.key.size()));
    *out += op.key;
    if (!op.is_delete) {
      out->push_back(static_cast<char>(op.value.size()));
      *out += op.value;
    }
  }
}

struct StructuredLog {
  std::string log;                   // the whole log file
  std::vector<kvlog::Batch> prefix;  // the well-formed records it starts with
  Tail tail = Tail::kDamage;
};

inline StructuredLog ReadStructuredLog(ByteSource* in) {
  StructuredLog out;
  out.log = kvlog::FileHeader();
  const size_t records = in->Byte() % 33;
  for (size_t i = 0; i < records; ++i) {
    out.prefix.push_back(ReadBatch(in));
    out.log += kvlog::EncodeRecord(kvlog::EncodeBatch(out.prefix.back()));
  }
  out.tail = static_cast<Tail>(in->Byte() % 4);
  switch (out.tail) {
    case Tail::kDamage: out.log += in->Rest(); break;
    case Tail::kTorn: {
      const std::string record = kvlog::EncodeRecord(kvlog::EncodeBatch(ReadBatch(in)));
      out.log += record.substr(0, 1 + in->Byte() % (record.size() - 1));
      break;
    }
    case Tail::kZeros: out.log += std::string(1 + size_t{in->Byte()}, '\0'); break;
    case Tail::kFlipped: {
      std::string record = kvlog::EncodeRecord(kvlog::EncodeBatch(ReadBatch(in)));
      const int flips = 1 + in->Byte() % 4;
      for (int f = 0; f < flips; ++f) {
        const size_t lo = in->Byte();
        const size_t pos = (lo | size_t{in->Byte()} << 8) % record.size();
        const uint8_t mask = in->Byte();
        record[pos] = static_cast<char>(record[pos] ^ (mask == 0 ? 1 : mask));
      }
      out.log += record;
      out.log += in->Rest();
      break;
    }
  }
  return out;
}

}  // namespace linebloom::fuzz::recovery_input
