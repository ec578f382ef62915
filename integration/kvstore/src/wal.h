// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The write-ahead log: an 8-byte header, then records of
//   length (u32) | type (u8) | header check (u32) | checksum (u64) | payload
// The header check covers length and type, so a damaged length is caught
// before it is trusted; the checksum covers length, type and payload.
// Byte layout and recovery rules: docs/KVSTORE.md, "WAL". Internal header.

#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "linebloom/kvstore/env.h"

namespace linebloom::kvstore::internal {

inline constexpr std::string_view kWalMagic = "LBKVWAL";  // then the version byte
inline constexpr uint8_t kWalVersion = 1;
inline constexpr size_t kWalHeaderSize = 8;
inline constexpr size_t kWalRecordHeaderSize = 17;
// A record's payload is a WriteBatch; larger batches are refused.
inline constexpr size_t kMaxWalPayload = size_t{1} << 30;

enum class WalRecordType : uint8_t {
  kWriteBatch = 1,
};

std::string WalFileHeader();
std::string EncodeWalRecord(WalRecordType type, std::string_view payload);

struct WalReplayResult {
  uint64_t records = 0;
  // Bytes up to the end of the last intact record (kWalHeaderSize at least
  // when the header is intact; 0 when the file holds only a torn header).
  uint64_t valid_bytes = 0;
  // Bytes after valid_bytes: a torn last record (or torn header), dropped.
  uint64_t dropped_bytes = 0;
};

using WalRecordVisitor = std::function<Status(WalRecordType type, std::string_view payload, uint64_t offset)>;

// Replays the log `contents` (read from `name`). A torn last record - one a
// crash cut short (an incomplete header, or an intact header whose payload
// runs past the end), one whose payload checksum fails with nothing after
// it, or zeros the file system left - is dropped and counted. Any other
// damage (a bad header check, a bad checksum with bytes after the record, an
// unknown record type, a bad file header) is a Corruption naming the file
// and offset; a newer log version is NotSupported.
Status ReplayWal(const std::string& name, std::string_view contents, const WalRecordVisitor& visit,
                 WalReplayResult* result);

class WalWriter {
 public:
  // Creates (or truncates) `path` and writes and syncs the header. Syncing
  // the directory entry is the caller's job.
  static Status Create(Env* env, const std::string& path, std::unique_ptr<WalWriter>* writer);
  // Appends to an existing log whose first `size` bytes are intact records.
  static Status OpenForAppend(Env* env, const std::string& path, uint64_t size, std::unique_ptr<WalWriter>* writer);

  // One Append call per record, so a process crash leaves whole records or
  // a torn last one.
  Status AddRecord(WalRecordType type, std::string_view payload);
  Status Sync();
  Status Close();
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  WalWriter(std::string path, std::unique_ptr<WritableFile> file, uint64_t size)
      : path_(std::move(path)), file_(std::move(file)), size_(size) {}

  std::string path_;
  std::unique_ptr<WritableFile> file_;
  uint64_t size_;
};

}  // namespace linebloom::kvstore::internal
