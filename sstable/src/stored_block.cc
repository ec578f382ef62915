// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "stored_block.h"

#include <lz4.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "linebloom/foundation/coding.h"

namespace linebloom::sstable::internal {
namespace {

uint32_t BlockChecksum(std::string_view payload_and_type) {
  return static_cast<uint32_t>(XXH3_64bits(payload_and_type.data(), payload_and_type.size()));
}

void AppendTrailer(BlockType type, size_t block_start, std::string* out) {
  out->push_back(static_cast<char>(type));
  const std::string_view covered(out->data() + block_start, out->size() - block_start);
  PutFixed32(out, BlockChecksum(covered));
}

// LZ4 cannot expand more than ~255x (a match token of 255-byte length
// increments covers 255 output bytes per input byte); anything claiming more
// is corrupt.
constexpr uint64_t kMaxLz4Expansion = 256;

}  // namespace

void AppendStoredBlock(std::string_view contents, bool try_compress, std::string* out) {
  const size_t start = out->size();
  if (try_compress && !contents.empty() && contents.size() <= LZ4_MAX_INPUT_SIZE) {
    const int src_size = static_cast<int>(contents.size());
    const int bound = LZ4_compressBound(src_size);
    out->resize(start + 4 + static_cast<size_t>(bound));
    char* dst = out->data() + start + 4;
    const int n = LZ4_compress_default(contents.data(), dst, src_size, bound);
    // Decompression costs CPU on every read: only worth it for a real saving.
    if (n > 0 && static_cast<size_t>(n) + 4 <= contents.size() - contents.size() / 8) {
      out->resize(start + 4 + static_cast<size_t>(n));
      const uint32_t raw = static_cast<uint32_t>(contents.size());
      for (int i = 0; i < 4; ++i) (*out)[start + i] = static_cast<char>((raw >> (8 * i)) & 0xFF);
      AppendTrailer(BlockType::kLz4, start, out);
      return;
    }
    out->resize(start);
  }
  out->append(contents);
  AppendTrailer(BlockType::kRaw, start, out);
}

Status ReadStoredBlock(std::string_view stored, std::string_view file, uint64_t offset, std::string* scratch,
                       std::string_view* contents) {
  if (stored.size() < kStoredBlockTrailerSize) {
    return Status::CorruptionAt(file, offset, "block shorter than its 5-byte trailer");
  }
  const size_t covered = stored.size() - 4;
  if (DecodeFixed32(stored.data() + covered) != BlockChecksum(stored.substr(0, covered))) {
    return Status::CorruptionAt(file, offset, "block checksum mismatch");
  }
  const std::string_view payload = stored.substr(0, covered - 1);
  switch (static_cast<BlockType>(static_cast<uint8_t>(stored[covered - 1]))) {
    case BlockType::kRaw: *contents = payload; return Status::Ok();
    case BlockType::kLz4: {
      if (payload.size() < 4) return Status::CorruptionAt(file, offset, "LZ4 block without its size");
      const uint64_t raw = DecodeFixed32(payload.data());
      const std::string_view compressed = payload.substr(4);
      if (raw > LZ4_MAX_INPUT_SIZE || raw > compressed.size() * kMaxLz4Expansion) {
        return Status::CorruptionAt(file, offset, "impossible LZ4 block size");
      }
      scratch->resize(static_cast<size_t>(raw));
      const int n = LZ4_decompress_safe(compressed.data(), scratch->data(), static_cast<int>(compressed.size()),
                                        static_cast<int>(raw));
      if (n < 0 || static_cast<uint64_t>(n) != raw) {
        return Status::CorruptionAt(file, offset, "LZ4 block does not decompress");
      }
      *contents = *scratch;
      return Status::Ok();
    }
  }
  return Status::CorruptionAt(file, offset, "unknown block type");
}

}  // namespace linebloom::sstable::internal
