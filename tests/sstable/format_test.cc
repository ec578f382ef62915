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

// A linebloom.split64 filter of `bytes` bytes over `keys`, k probes, seed 0,
// following the text of docs/FORMAT.md: P = ceil(S/64) parts, the first
// S mod P of q + 1 bytes and the rest of q = floor(S/P); the part from the
// hash's low 32 bits, the bits from its high 32 bits.
std::string SplitFilter(const std::vector<std::string>& keys, uint64_t bytes, int k) {
  std::string f(bytes, '\0');
  const uint64_t parts = (bytes + 63) / 64, q = bytes / parts, r = bytes % parts;
  for (const std::string& key : keys) {
    const uint64_t h = XXH3_64bits_withSeed(key.data(), key.size(), 0);
    const uint64_t j = ((h & 0xFFFFFFFF) * parts) >> 32;
    const uint64_t start = j * q + std::min(j, r), m = 8 * (q + (j < r ? 1 : 0));
    uint32_t a = static_cast<uint32_t>(h >> 32);
    for (int t = 0; t < k; ++t) {
      const uint64_t bit = (static_cast<uint64_t>(a) * m) >> 32;
      f[start + bit / 8] = static_cast<char>(f[start + bit / 8] | (1 << (bit % 8)));
      a = a * 0x9E3779B9u;
    }
  }
  return f;
}

std::string Meta(uint8_t mode, std::string_view policy, std::string_view parameters, uint64_t entries,
                 uint64_t blocks, uint64_t region_offset, std::string_view region) {
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
  // One entry per block (block_size 1), a linebloom filter per block: one
  // key at 100 bits/key is 12.5 bytes, rounded to 13.
  const std::vector<testing::Entry> entries = {{"k1", "v1"}, {"k2", "v2"}, {"k3", "v3"}};
  TableWriterOptions options;
  options.block_size = 1;
  options.compress = false;
  options.filter_policy = NewLinebloomFilterPolicy({.bits_per_key = 100, .num_probes = 6});
  const std::string written = testing::BuildTable(entries, options);

  std::string data, filters, index;
  Varint(&index, entries.size());
  for (const auto& e : entries) {
    const std::string block = DataBlock({e});
    const std::string filter = SplitFilter({e.key}, 13, 6);
    Varint(&index, e.key.size()), index += e.key;
    Varint(&index, data.size()), Varint(&index, block.size());
    Varint(&index, filter.size());
    Varint(&index, 1);
    data += block;
    filters += filter;
  }
  const std::string meta_block = Meta(1, "linebloom.split64", Parameters(6), 3, 3, data.size(), filters);
  const std::string index_block = StoredRaw(index);
  const Handle meta_at{data.size() + filters.size(), meta_block.size()};
  const Handle index_at{meta_at.offset + meta_at.size, index_block.size()};
  EXPECT_EQ(written, data + filters + meta_block + index_block + Footer(meta_at, index_at));
}

TEST(TableFormat, WholeFileFilterIsSplitIntoParts) {
  // 40 keys at 20 bits/key: 100 bytes, two parts of 50 bytes.
  std::vector<testing::Entry> entries;
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) {
    entries.push_back({"key" + std::to_string(100 + i), "v"});
    keys.push_back(entries.back().key);
  }
  TableWriterOptions options;
  options.filter_mode = FilterMode::kPerFile;
  options.compress = false;
  options.filter_policy = NewLinebloomFilterPolicy({.bits_per_key = 20, .num_probes = 9});
  const std::string written = testing::BuildTable(entries, options);

  const std::string block = DataBlock(entries);
  const std::string filter = SplitFilter(keys, 100, 9);
  const std::string meta_block = Meta(2, "linebloom.split64", Parameters(9), 40, 1, block.size(), filter);
  std::string index;
  Varint(&index, 1);
  Varint(&index, 6), index += "key139";
  Varint(&index, 0), Varint(&index, block.size());
  Varint(&index, 0);
  Varint(&index, 40);
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
  EXPECT_EQ(written.size(), 14873u);
  EXPECT_EQ(XXH3_64bits(written.data(), written.size()), 16760788267326466102ull);
}

}  // namespace
}  // namespace linebloom::sstable
