// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "wal.h"

#define XXH_INLINE_ALL  // header-only XXH3, as the rest of linebloom uses it
#include <xxhash.h>

#include <algorithm>

#include "coding.h"

namespace linebloom::kvstore::internal {
namespace {

uint64_t RecordChecksum(std::string_view length_type_payload) {
  return XXH3_64bits(length_type_payload.data(), length_type_payload.size());
}

bool AllZero(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 0; });
}

}  // namespace

std::string WalFileHeader() {
  std::string h(kWalMagic);
  h.push_back(static_cast<char>(kWalVersion));
  return h;
}

std::string EncodeWalRecord(WalRecordType type, std::string_view payload) {
  std::string body;
  body.reserve(5 + payload.size());
  PutFixed32(&body, static_cast<uint32_t>(payload.size()));
  body.push_back(static_cast<char>(type));
  body.append(payload);
  std::string record;
  record.reserve(8 + body.size());
  PutFixed64(&record, RecordChecksum(body));
  record.append(body);
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
  if (static_cast<uint8_t>(contents[kWalMagic.size()]) != kWalVersion) {
    return Status::NotSupported(name + ": log format version " +
                                std::to_string(static_cast<uint8_t>(contents[kWalMagic.size()])) +
                                " (this build reads version 1)");
  }

  uint64_t pos = kWalHeaderSize;
  auto torn_tail = [&] {
    result->valid_bytes = pos;
    result->dropped_bytes = contents.size() - pos;
    return Status::Ok();
  };
  while (pos < contents.size()) {
    const std::string_view rest = contents.substr(pos);
    if (rest.size() < kWalRecordHeaderSize) return torn_tail();
    const uint64_t checksum = DecodeFixed64(rest.data());
    const uint32_t length = DecodeFixed32(rest.data() + 8);
    if (length > rest.size() - kWalRecordHeaderSize) return torn_tail();
    const std::string_view body = rest.substr(8, 5 + size_t{length});
    const uint64_t end = pos + kWalRecordHeaderSize + length;
    if (RecordChecksum(body) != checksum) {
      // A damaged record is indistinguishable from a torn write only at the
      // very end of the log (or when only zeros follow: space the file
      // system allocated but the crash never filled).
      if (end == contents.size() || AllZero(rest)) return torn_tail();
      return Status::CorruptionAt(name, pos, "log record checksum mismatch (records follow it)");
    }
    const auto type = static_cast<uint8_t>(body[4]);
    if (type != static_cast<uint8_t>(WalRecordType::kWriteBatch)) {
      return Status::CorruptionAt(name, pos, std::string("unknown log record type ").append(std::to_string(type)));
    }
    if (Status s = visit(WalRecordType::kWriteBatch, body.substr(5), pos); !s.ok()) return s;
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

Status WalWriter::OpenForAppend(Env* env, const std::string& path, uint64_t size,
                                std::unique_ptr<WalWriter>* writer) {
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
