// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The table format is what docs/FORMAT.md section 2 says: small tables are
// encoded here by hand from that description (no code of the library) and
// must equal the writer's output byte for byte. A golden hash pins a larger
// table with compression and per-block filters.

#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

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
  U32(&f, 2);
  U32(&f, Xxh3Low32(f));
  return f + "LBSSTABL";
}

// A data block of `entries`, stored raw.
std::string DataBlock(const std::vector<testing::Entry>& entries) {
  std::string data;
  std::vector<uint32_t> offsets;
  for (const auto& e : entries) {
    offsets.push_back(static_cast<uint32_t>(data.size()));
    Varint(&data, e.key.size()), Varint(&data, e.value.size()), data += e.key + e.value;
  }
  for (uint32_t o : offsets) U32(&data, o);
  U32(&data, static_cast<uint32_t>(entries.size()));
  return StoredRaw(data);
}

// A linebloom.linepairs filter of `bytes` bytes at `offset` in the filter
// region over `keys`, k probes, seed 0, following the text of
// docs/FORMAT.md: with r = offset mod 64, part j is bytes
// [max(0, 128j - r), min(S, 128(j+1) - r)); a key's part holds bit
// u = (low32 * 8S) >> 32, i.e. j = (u/8 + r) / 128; its bits come from the
// hash's high 32 bits.
std::string LinePairFilter(const std::vector<std::string>& keys, uint64_t bytes, uint64_t offset, int k) {
  std::string f(bytes, '\0');
  const uint64_t r = offset % 64;
  for (const std::string& key : keys) {
    const uint64_t h = XXH3_64bits_withSeed(key.data(), key.size(), 0);
    const uint64_t u = ((h & 0xFFFFFFFF) * (8 * bytes)) >> 32;
    const uint64_t j = (u / 8 + r) / 128;
    const uint64_t start = j == 0 ? 0 : 128 * j - r;
    const uint64_t end = std::min<uint64_t>(bytes, 128 * (j + 1) - r);
    const uint64_t m = 8 * (end - start);
    uint32_t a = static_cast<uint32_t>(h >> 32);
    for (int t = 0; t < k; ++t) {
      const uint64_t bit = (static_cast<uint64_t>(a) * m) >> 32;
      f[start + bit / 8] = static_cast<char>(f[start + bit / 8] | (1 << (bit % 8)));
      a = a * 0x9E3779B9u;
    }
  }
  return f;
}

std::string Meta(uint8_t mode, std::string_view policy, std::string_view parameters, uint64_t entries, uint64_t blocks,
                 uint64_t region_offset, std::string_view region) {
  std::string meta;
  meta.push_back(static_cast<char>(mode));
  Varint(&meta, policy.size()), meta += policy;
  Varint(&meta, parameters.size()), meta += parameters;
  Varint(&meta, entries), Varint(&meta, blocks);
  Varint(&meta, region_offset), Varint(&meta, region.size());
  U32(&meta, Xxh3Low32(region));
  return StoredRaw(meta);
}

std::string Parameters(int k) {
  std::string p(1, static_cast<char>(k));
  U32(&p, 0);  // seed
  return p;
}

TEST(TableFormat, BytesAreStable) {
  // Two entries in one block, no filter, no compression.
  const std::string block = DataBlock({{"a", "x"}, {"b", "yy"}});
  const std::string meta_block = Meta(0, "", "", 2, 1, block.size(), "");

  std::string index;
  Varint(&index, 1);
  Varint(&index, 1), index += "b";
  Varint(&index, 0), Varint(&index, block.size());
  Varint(&index, 0);  // filter size
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
  // Entries k10..k45 -> "v" take 6 bytes and a 4-byte offset each, so with
  // block_size 124 a block closes at 12 entries (6*12 + 4*12 + 4 = 124).
  // At 100 bits/key each block's filter is 150 bytes, at region offsets 0,
  // 150 and 300 (r = 0, 22, 44): each spans three lines, two parts.
  std::vector<testing::Entry> entries;
  // (The key is appended, not built as "k" + std::to_string(i): GCC 12
  // warns -Wrestrict on that inlined concatenation, a false positive.)
  for (int i = 10; i < 46; ++i) entries.push_back({std::string("k").append(std::to_string(i)), "v"});
  TableWriterOptions options;
  options.block_size = 124;
  options.compress = false;
  options.filter_policy = NewLinebloomLinePairPolicy({.bits_per_key = 100, .num_probes = 6});
  const std::string written = testing::BuildTable(entries, options);

  std::string data, filters, index;
  Varint(&index, 3);
  for (size_t b = 0; b < 3; ++b) {
    const std::vector<testing::Entry> in_block(entries.begin() + 12 * b, entries.begin() + 12 * (b + 1));
    std::vector<std::string> keys;
    for (const auto& e : in_block) keys.push_back(e.key);
    const std::string block = DataBlock(in_block);
    const std::string filter = LinePairFilter(keys, 150, filters.size(), 6);
    Varint(&index, keys.back().size()), index += keys.back();
    Varint(&index, data.size()), Varint(&index, block.size());
    Varint(&index, filter.size());
    Varint(&index, 12);
    data += block;
    filters += filter;
  }
  const std::string meta_block = Meta(1, "linebloom.linepairs", Parameters(6), 36, 3, data.size(), filters);
  const std::string index_block = StoredRaw(index);
  const Handle meta_at{data.size() + filters.size(), meta_block.size()};
  const Handle index_at{meta_at.offset + meta_at.size, index_block.size()};
  EXPECT_EQ(written, data + filters + meta_block + index_block + Footer(meta_at, index_at));
}

TEST(TableFormat, WholeFileFilterIsOneLinePairFilter) {
  // 100 keys at 20 bits/key: 250 bytes from region offset 0, parts of 128
  // and 122 bytes.
  std::vector<testing::Entry> entries;
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) {
    entries.push_back({"key" + std::to_string(100 + i), "v"});
    keys.push_back(entries.back().key);
  }
  TableWriterOptions options;
  options.filter_mode = FilterMode::kPerFile;
  options.compress = false;
  options.filter_policy = NewLinebloomLinePairPolicy({.bits_per_key = 20, .num_probes = 9});
  const std::string written = testing::BuildTable(entries, options);

  const std::string block = DataBlock(entries);
  const std::string filter = LinePairFilter(keys, 250, 0, 9);
  const std::string meta_block = Meta(2, "linebloom.linepairs", Parameters(9), 100, 1, block.size(), filter);
  std::string index;
  Varint(&index, 1);
  Varint(&index, 6), index += "key199";
  Varint(&index, 0), Varint(&index, block.size());
  Varint(&index, 0);
  Varint(&index, 100);
  const std::string index_block = StoredRaw(index);
  const Handle meta_at{block.size() + filter.size(), meta_block.size()};
  const Handle index_at{meta_at.offset + meta_at.size, index_block.size()};
  EXPECT_EQ(written, block + filter + meta_block + index_block + Footer(meta_at, index_at));
}

// Pins the writer's whole output for a table with LZ4 blocks and default
// per-block filters (k chosen by the writer), so that any change of the
// format, the filter layout or the choice of k shows up here.
TEST(TableFormat, GoldenTableHash) {
  const std::string written =
      testing::BuildTable(testing::MakeEntries(300, 40), testing::Options(FilterMode::kPerBlock, 1024));
  ASSERT_EQ(written.substr(written.size() - 8), "LBSSTABL");
  EXPECT_EQ(written.size(), 14875u);
  EXPECT_EQ(XXH3_64bits(written.data(), written.size()), 11317632447169528031ull);
}

}  // namespace
}  // namespace linebloom::sstable
