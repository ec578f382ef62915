// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The table format is what docs/FORMAT.md section 2 says: a small table is
// encoded here by hand from that description (no code of the library) and
// must equal the writer's output byte for byte.

#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "linebloom/filter_builder.h"
#include "table_test_util.h"

namespace linebloom::sstable {
namespace {

void U32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
void U64(std::string* s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
void Varint(std::string* s, uint64_t v) {
  for (; v >= 0x80; v >>= 7) s->push_back(static_cast<char>(0x80 | (v & 0x7F)));
  s->push_back(static_cast<char>(v));
}
uint32_t Xxh3Low32(std::string_view bytes) { return static_cast<uint32_t>(XXH3_64bits(bytes.data(), bytes.size())); }

// payload | type 0 | checksum over payload and type.
std::string StoredRaw(std::string contents) {
  contents.push_back('\0');
  U32(&contents, Xxh3Low32(contents));
  return contents;
}

struct Handle {
  uint64_t offset, size;
};

std::string Footer(Handle meta, Handle index) {
  std::string f;
  U64(&f, meta.offset);
  U64(&f, meta.size);
  U64(&f, index.offset);
  U64(&f, index.size);
  U32(&f, 1);
  U32(&f, Xxh3Low32(f));
  return f + "LBSSTABL";
}

TEST(TableFormat, BytesAreStable) {
  // Two entries in one block, no filter, no compression.
  std::string data;
  Varint(&data, 1), Varint(&data, 1), data += "ax";
  Varint(&data, 1), Varint(&data, 2), data += "byy";
  U32(&data, 0), U32(&data, 4), U32(&data, 2);
  const std::string block = StoredRaw(data);

  std::string meta;
  meta.push_back(0);               // filter mode none
  Varint(&meta, 0);                // no policy name
  Varint(&meta, 2);                // entries
  Varint(&meta, 1);                // data blocks
  Varint(&meta, block.size());     // filter region offset
  Varint(&meta, 0);                // filter region size
  const std::string meta_block = StoredRaw(meta);

  std::string index;
  Varint(&index, 1);
  Varint(&index, 1), index += "b";
  Varint(&index, 0), Varint(&index, block.size());
  Varint(&index, 0), Varint(&index, 0);
  Varint(&index, 2);
  const std::string index_block = StoredRaw(index);

  const Handle meta_at{block.size(), meta_block.size()};
  const Handle index_at{meta_at.offset + meta_at.size, index_block.size()};
  const std::string expected = block + meta_block + index_block + Footer(meta_at, index_at);

  TableWriterOptions options;
  options.filter_mode = FilterMode::kNone;
  options.compress = false;
  const std::string written = testing::BuildTable({{"a", "x"}, {"b", "yy"}}, options);
  EXPECT_EQ(written, expected);
}

TEST(TableFormat, PerBlockFiltersFollowTheDataBlocks) {
  // One entry per block (block_size 1), a linebloom filter per block.
  const std::vector<testing::Entry> entries = {{"k1", "v1"}, {"k2", "v2"}};
  TableWriterOptions options;
  options.block_size = 1;
  options.compress = false;
  const std::string written = testing::BuildTable(entries, options);

  std::string expected, filters;
  std::vector<std::string> filter_bytes;
  for (const auto& e : entries) {
    std::string data;
    Varint(&data, 2), Varint(&data, 2), data += e.key + e.value;
    U32(&data, 0), U32(&data, 1);
    expected += StoredRaw(data);
    // A one-key filter: one 64-byte block, so the best k for 512 bits per
    // key is capped at linebloom's maximum of 24 probes.
    FilterBuilder fb({.bits_per_key = 10, .num_probes = 24});
    fb.AddKey(e.key);
    filter_bytes.push_back(StoredRaw(fb.Finish()));
  }
  // Filter handles are only known now that the data region is complete.
  std::string index_with_filters;
  Varint(&index_with_filters, 2);
  uint64_t filter_at = expected.size();
  uint64_t data_at = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string data;
    Varint(&data, 2), Varint(&data, 2), data += entries[i].key + entries[i].value;
    U32(&data, 0), U32(&data, 1);
    const uint64_t block_size = StoredRaw(data).size();
    Varint(&index_with_filters, 2), index_with_filters += entries[i].key;
    Varint(&index_with_filters, data_at), Varint(&index_with_filters, block_size);
    Varint(&index_with_filters, filter_at), Varint(&index_with_filters, filter_bytes[i].size());
    Varint(&index_with_filters, 1);
    data_at += block_size;
    filter_at += filter_bytes[i].size();
  }
  for (const auto& f : filter_bytes) filters += f;

  std::string meta;
  meta.push_back(1);
  Varint(&meta, kLinebloomPolicyName.size()), meta += kLinebloomPolicyName;
  Varint(&meta, 2), Varint(&meta, 2);
  Varint(&meta, expected.size()), Varint(&meta, filters.size());
  const std::string meta_block = StoredRaw(meta), index_block = StoredRaw(index_with_filters);
  const Handle meta_at{expected.size() + filters.size(), meta_block.size()};
  const Handle index_at{meta_at.offset + meta_at.size, index_block.size()};
  expected += filters + meta_block + index_block + Footer(meta_at, index_at);
  EXPECT_EQ(written, expected);
}

}  // namespace
}  // namespace linebloom::sstable
