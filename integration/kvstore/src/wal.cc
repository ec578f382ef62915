// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "wal.h"

#define XXH_INLINE_ALL  // header-only XXH3, as the rest of linebloom uses it
#include <xxhash.h>

#include <algorithm>

#include "linebloom/foundation/coding.h"

namespace linebloom::kvstore::internal {
namespace {

uint32_t HeaderCheck(std::string_view length_type) {
  return static_cast<uint32_t>(XXH3_64bits(length_type.data(), length_type.size()));
}

uint64_t RecordChecksum(std::string_view length_type, std::string_view payload) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, length_type.data(), length_type.size());
  XXH3_64bits_update(&state, payload.data(), payload.size());
  return XXH3_64bits_digest(&state);
}

bool AllZero(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 0; });
}

// Offsets inside a record header.
constexpr size_t kLengthTypeSize = 5;  // length (u32) + type (u8)
constexpr size_t kChecksumOffset = 9;  // after the header check (u32)

}  // namespace

std::string WalFileHeader() {
  std::string h(kWalMagic);
  h.push_back(static_cast<char>(kWalVersion));
  return h;
}

std::string EncodeWalRecord(WalRecordType type, std::string_view payload) {
  std::string record;
  record.reserve(kWalRecordHeaderSize + payload.size());
  PutFixed32(&record, static_cast<uint32_t>(payload.size()));
  record.push_back(static_cast<char>(type));
  const std::string_view length_type(record.data(), kLengthTypeSize);
  const uint32_t check = HeaderCheck(length_type);
  const uint64_t checksum = RecordChecksum(length_type, payload);
  PutFixed32(&record, check);
  PutFixed64(&record, checksum);
  record.append(payload);
  return record;
}

Status ReplayWal(const std::string& name, std::string_view contents, const WalRecordVisitor& visit,
                 WalReplayResult* result) {
  *result = {};
  const std::string header = WalFileHeader();
  if (contents.size() < kWalHeaderSize) {
    // Only a crash while the log was being created leaves this.
    if (header.compare(0, contents.size(), contents) != 0 && !AllZero(contents)) {
      return Status::CorruptionAt(name, 0, "not a linebloom-kv log (bad header)");
    }
    result->dropped_bytes = contents.size();
    return Status::Ok();
  }
  if (contents.substr(0, kWalMagic.size()) != kWalMagic) {
    return Status::CorruptionAt(name, 0, "not a linebloom-kv log (bad magic)");
  }
  if (const auto version = static_cast<uint8_t>(contents[kWalMagic.size()]); version != kWalVersion) {
    return Status::NotSupported(std::string(name)
                                    .append(": log format version ")
                                    .append(std::to_string(version))
                                    .append(" (this build reads version 1)"));
  }

  // Where the zeros that end the file begin (its size if it ends otherwise).
  // A crash leaves a prefix of the last record, right as far as it goes, and
  // possibly zeros after it (space allocated, never filled): a check that
  // fails only because those zeros reach into the record is a tear.
  uint64_t zero_from = contents.size();
  while (zero_from > kWalHeaderSize && contents[zero_from - 1] == 0) --zero_from;
  uint64_t pos = kWalHeaderSize;
  auto torn_tail = [&] {
    result->valid_bytes = pos;
    result->dropped_bytes = contents.size() - pos;
    return Status::Ok();
  };
  while (pos < contents.size()) {
    const std::string_view rest = contents.substr(pos);
    if (pos >= zero_from) return torn_tail();
    if (rest.size() >= kChecksumOffset &&
        HeaderCheck(rest.substr(0, kLengthTypeSize)) != DecodeFixed32(rest.data() + kLengthTypeSize)) {
      if (pos + kChecksumOffset > zero_from) return torn_tail();  // header cut short by the zeros
      return Status::CorruptionAt(name, pos, "log record header check mismatch");
    }
    if (rest.size() < kWalRecordHeaderSize) return torn_tail();
    const uint32_t length = DecodeFixed32(rest.data());
    if (length > rest.size() - kWalRecordHeaderSize) return torn_tail();
    const std::string_view payload = rest.substr(kWalRecordHeaderSize, length);
    const uint64_t end = pos + kWalRecordHeaderSize + length;
    if (RecordChecksum(rest.substr(0, kLengthTypeSize), payload) != DecodeFixed64(rest.data() + kChecksumOffset)) {
      // At the very end of the log (or followed by zeros only) this is what a
      // power loss leaves when the file's size reached the disk before its
      // data did.
      if (end >= zero_from) return torn_tail();
      return Status::CorruptionAt(name, pos, "log record checksum mismatch (records follow it)");
    }
    const auto type = static_cast<uint8_t>(rest[4]);
    if (type != static_cast<uint8_t>(WalRecordType::kWriteBatch)) {
      return Status::CorruptionAt(name, pos, std::string("unknown log record type ").append(std::to_string(type)));
    }
    if (Status s = visit(WalRecordType::kWriteBatch, payload, pos); !s.ok()) return s;
    ++result->records;
    pos = end;
  }
  result->valid_bytes = pos;
  return Status::Ok();
}

Status WalWriter::Create(Env* env, const std::string& path, std::unique_ptr<WalWriter>* writer) {
  std::unique_ptr<WritableFile> file;
  if (Status s = env->NewWritableFile(path, &file); !s.ok()) return s;
  const std::string header = WalFileHeader();
  if (Status s = file->Append(header); !s.ok()) return s;
  if (Status s = file->Sync(); !s.ok()) return s;
  writer->reset(new WalWriter(path, std::move(file), header.size()));
  return Status::Ok();
}

Status WalWriter::OpenForAppend(Env* env, const std::string& path, uint64_t size, std::unique_ptr<WalWriter>* writer) {
  std::unique_ptr<WritableFile> file;
  if (Status s = env->NewAppendableFile(path, &file); !s.ok()) return s;
  writer->reset(new WalWriter(path, std::move(file), size));
  return Status::Ok();
}

Status WalWriter::AddRecord(WalRecordType type, std::string_view payload) {
  const std::string record = EncodeWalRecord(type, payload);
  if (Status s = file_->Append(record); !s.ok()) return s;
  size_ += record.size();
  return Status::Ok();
}

Status WalWriter::Sync() { return file_->Sync(); }
Status WalWriter::Close() { return file_->Close(); }

}  // namespace linebloom::kvstore::internal
