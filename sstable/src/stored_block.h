// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Every block the table stores (data, filter, meta, index) is
//
//   payload | type (1 byte) | checksum (4 bytes)
//
// type 0: payload is the contents; type 1: payload is a u32 contents size
// followed by an LZ4 block. checksum: low 32 bits of XXH3-64 (seed 0) over
// payload and type. The checksum is verified before anything in the payload
// is trusted, so a corrupt size cannot cause an allocation or a decode.
// Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "linebloom/foundation/status.h"

namespace linebloom::sstable::internal {

inline constexpr size_t kStoredBlockTrailerSize = 5;

enum class BlockType : uint8_t { kRaw = 0, kLz4 = 1 };

// Appends `contents` as a stored block to *out: LZ4-compressed when
// `try_compress` and that saves at least 1/8, else raw.
void AppendStoredBlock(std::string_view contents, bool try_compress, std::string* out);

// Checks the trailer of `stored` (the block with its trailer, read from
// `offset` of `file`) and yields its contents: a view into `stored` for raw
// blocks, into *scratch for compressed ones. Errors are Corruption naming
// file and offset.
Status ReadStoredBlock(std::string_view stored, std::string_view file, uint64_t offset, std::string* scratch,
                       std::string_view* contents);

}  // namespace linebloom::sstable::internal
