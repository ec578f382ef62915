// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// An independent model of the linebloom-kv write-ahead log, written from
// docs/KVSTORE.md ("WAL byte layout", "Recovery rules") and not from the
// store's code: an encoder for building logs and a reference replay that says
// what Open must do with any log bytes. fuzz_kvstore_recovery compares the
// store with it.

#pragma once

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linebloom::fuzz::kvlog {

inline constexpr std::string_view kMagic = "LBKVWAL";
inline constexpr size_t kFileHeaderSize = 8;
inline constexpr size_t kRecordHeaderSize = 17;
inline constexpr uint8_t kWriteBatchType = 1;

struct Op {
  bool is_delete = false;
  std::string key;
  std::string value;  // puts only
};
using Batch = std::vector<Op>;

// The store's contents: key -> value (deleted keys absent).
using State = std::map<std::string, std::string>;

inline void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
inline void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
inline uint64_t GetLe(std::string_view bytes, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(bytes[i])} << (8 * i);
  return v;
}

inline std::string FileHeader() { return std::string(kMagic) + '\x01'; }

inline std::string EncodeBatch(const Batch& batch) {
  std::string out;
  PutU32(&out, static_cast<uint32_t>(batch.size()));
  for (const Op& op : batch) {
    out.push_back(op.is_delete ? '\0' : '\1');
    PutU32(&out, static_cast<uint32_t>(op.key.size()));
    out += op.key;
    if (!op.is_delete) {
      PutU32(&out, static_cast<uint32_t>(op.value.size()));
      out += op.value;
    }
  }
  return out;
}

// length (u32) | type (u8) | header check (u32) | checksum (u64) | payload.
inline std::string EncodeRecord(std::string_view payload, uint8_t type = kWriteBatchType) {
  std::string out;
  PutU32(&out, static_cast<uint32_t>(payload.size()));
  out.push_back(static_cast<char>(type));
  const uint64_t check = XXH3_64bits(out.data(), 5);
  std::string covered = out + std::string(payload);
  const uint64_t checksum = XXH3_64bits(covered.data(), covered.size());
  PutU32(&out, static_cast<uint32_t>(check));
  PutU64(&out, checksum);
  out += payload;
  return out;
}

// Parses a write-batch payload exactly (count, then operations, nothing
// after); nullopt if it does not.
inline std::optional<Batch> DecodeBatch(std::string_view p) {
  if (p.size() < 4) return std::nullopt;
  const uint64_t count = GetLe(p, 4);
  p.remove_prefix(4);
  Batch batch;
  auto bytes32 = [&p](std::string* out) {
    if (p.size() < 4) return false;
    const uint64_t n = GetLe(p, 4);
    if (n > p.size() - 4) return false;
    out->assign(p.substr(4, n));
    p.remove_prefix(4 + n);
    return true;
  };
  for (uint64_t i = 0; i < count; ++i) {
    if (p.empty()) return std::nullopt;
    const uint8_t kind = static_cast<uint8_t>(p[0]);
    p.remove_prefix(1);
    if (kind > 1) return std::nullopt;
    Op op;
    op.is_delete = kind == 0;
    if (!bytes32(&op.key)) return std::nullopt;
    if (!op.is_delete && !bytes32(&op.value)) return std::nullopt;
    batch.push_back(std::move(op));
  }
  if (!p.empty()) return std::nullopt;
  return batch;
}

inline void Apply(const Batch& batch, State* state) {
  for (const Op& op : batch) {
    if (op.is_delete) {
      state->erase(op.key);
    } else {
      (*state)[op.key] = op.value;
    }
  }
}

enum class Outcome { kOk, kCorruption, kNotSupported };

struct Replay {
  Outcome outcome = Outcome::kOk;
  uint64_t records = 0;  // records applied (when kOk)
  uint64_t dropped = 0;  // bytes of a torn tail (when kOk)
};

// What Open must make of `log` on top of `*state` (which it updates when the
// outcome is kOk). The rules, in the documentation's words:
//  - fewer than 8 bytes that are a prefix of the header, or zeros: empty log;
//  - bad magic: corruption; another version byte: not supported;
//  - the last record may be torn: fewer than 17 header bytes, a payload
//    running past the end, a checksum mismatch with nothing after the record,
//    or only zero bytes from some point on: dropped. "Nothing after" and
//    "from some point on" are read as the documentation's reason for them
//    says (a crash leaves a prefix of the record, right as far as it goes,
//    then zeros the file system allocated but never filled): a check that
//    fails only because the file's trailing zeros reach into the record is a
//    tear, not damage;
//  - anything else (bad header check, checksum mismatch with bytes after,
//    unknown type, a payload that does not parse exactly): corruption.
inline Replay ReplayLog(std::string_view log, State* state) {
  Replay r;
  const auto all_zero = [](std::string_view b) {
    return std::all_of(b.begin(), b.end(), [](char c) { return c == 0; });
  };
  const std::string header = FileHeader();
  if (log.size() < kFileHeaderSize) {
    if (header.compare(0, log.size(), log) == 0 || all_zero(log)) {
      r.dropped = log.size();
    } else {
      r.outcome = Outcome::kCorruption;
    }
    return r;
  }
  if (log.substr(0, kMagic.size()) != kMagic) return {Outcome::kCorruption};
  if (log[7] != '\x01') return {Outcome::kNotSupported};
  // Where the run of zero bytes that ends the file starts.
  size_t zero_from = log.size();
  while (zero_from > 0 && log[zero_from - 1] == 0) --zero_from;
  State next = *state;
  size_t pos = kFileHeaderSize;
  while (pos < log.size()) {
    const std::string_view rest = log.substr(pos);
    if (zero_from <= pos) break;
    // The header check (bytes 5-8) is verified as soon as it is all there,
    // so a damaged length is never trusted; a header cut short by the
    // trailing zeros is a tear.
    if (rest.size() >= 9 && static_cast<uint32_t>(XXH3_64bits(rest.data(), 5)) != GetLe(rest.substr(5), 4)) {
      if (zero_from < pos + 9) break;
      return {Outcome::kCorruption};
    }
    if (rest.size() < kRecordHeaderSize) break;
    const uint64_t length = GetLe(rest, 4);
    if (length > rest.size() - kRecordHeaderSize) break;
    const size_t end = pos + kRecordHeaderSize + length;
    std::string covered(rest.substr(0, 5));
    covered.append(rest.substr(kRecordHeaderSize, length));
    if (XXH3_64bits(covered.data(), covered.size()) != GetLe(rest.substr(9), 8)) {
      if (end == log.size() || zero_from <= end) break;
      return {Outcome::kCorruption};
    }
    if (static_cast<uint8_t>(rest[4]) != kWriteBatchType) return {Outcome::kCorruption};
    const std::optional<Batch> batch = DecodeBatch(rest.substr(kRecordHeaderSize, length));
    if (!batch) return {Outcome::kCorruption};
    Apply(*batch, &next);
    ++r.records;
    pos = end;
  }
  r.dropped = log.size() - pos;
  *state = std::move(next);
  return r;
}

}  // namespace linebloom::fuzz::kvlog
