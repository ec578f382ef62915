// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Damaged tables: every truncation, every single-byte change in every region
// (data, filter, meta, index, footer), and changes whose checksums have been
// recomputed so that only the structural checks stand between the bytes and
// the decoder. Every case must end in a clean Corruption status or a correct
// answer: never a crash (these run under ASan/UBSan in CI), never a wrong
// value, never a present key reported absent.

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "linebloom/foundation/coding.h"
#include "data_block.h"
#include "stored_block.h"
#include "table_format.h"
#include "table_test_util.h"

namespace linebloom::sstable {
namespace {

using testing::AbsentKey;
using testing::BuildTable;
using testing::Entry;
using testing::MakeEntries;
using testing::OpenTable;
using testing::Options;

struct Region {
  std::string name;
  uint64_t begin, end;
  bool stored_block;    // ends in the 5-byte type + checksum trailer
  bool filter = false;  // in the filter region (checksummed by the meta block)
};

// The regions of a well-formed table, from its own footer, meta and index.
std::vector<Region> Regions(const std::string& bytes) {
  std::vector<Region> out;
  const uint64_t footer_at = bytes.size() - internal::kFooterSize;
  internal::Footer footer;
  internal::TableMeta meta;
  std::vector<internal::IndexEntry> index;
  const char* why = nullptr;
  EXPECT_TRUE(internal::DecodeFooter(std::string_view(bytes).substr(footer_at), &footer, &why));
  // Meta and index are stored raw or LZ4; tables here are small enough that
  // the meta block stays raw. Decode the index through a reader instead.
  const std::string_view meta_payload =
      std::string_view(bytes).substr(footer.meta.offset, footer.meta.size - internal::kStoredBlockTrailerSize);
  EXPECT_TRUE(internal::DecodeMeta(meta_payload, footer.version, &meta, &why)) << why;
  std::unique_ptr<TableReader> table;
  EXPECT_TRUE(OpenTable(bytes, {}, &table).ok());
  for (size_t i = 0; i < table->num_blocks(); ++i) {
    const BlockInfo b = table->block(i);
    out.push_back({"data block " + std::to_string(i), b.offset, b.offset + b.size, true});
  }
  // Table format 2: filters back to back without framing.
  if (meta.filter_mode == FilterMode::kPerFile) {
    out.push_back({"file filter", meta.filter_region.offset, meta.filter_region.end(), false, true});
  } else if (meta.filter_mode == FilterMode::kPerBlock) {
    uint64_t at = meta.filter_region.offset;
    for (size_t i = 0; i < table->num_blocks(); ++i) {
      const uint64_t size = table->block(i).filter.size();
      out.push_back({"filter " + std::to_string(i), at, at + size, false, true});
      at += size;
    }
  }
  out.push_back({"meta block", footer.meta.offset, footer.meta.end(), true});
  out.push_back({"index block", footer.index.offset, footer.index.end(), true});
  out.push_back({"footer", footer_at, bytes.size(), false});
  return out;
}

const Region& RegionAt(const std::vector<Region>& regions, uint64_t pos) {
  for (const Region& r : regions) {
    if (pos >= r.begin && pos < r.end) return r;
  }
  static const Region none{"(no region)", 0, 0, false};
  return none;
}

void ExpectCleanCorruption(const Status& s, const std::string& what) {
  EXPECT_TRUE(s.IsCorruption()) << what << ": " << s.ToString();
  EXPECT_NE(s.message().find("mem.sst: offset "), std::string::npos) << what << ": " << s.message();
}

// Opens and exercises damaged `bytes`. Returns true if a Corruption was
// reported. With `forged` (checksums recomputed over the change), a value may
// legitimately differ or a key go missing: only memory safety and clean
// statuses are checked then.
bool Exercise(std::string bytes, const std::vector<Entry>& entries, bool forged, const std::string& what) {
  std::unique_ptr<TableReader> table;
  Status s = OpenTable(std::move(bytes), {}, &table);
  if (!s.ok()) {
    ExpectCleanCorruption(s, what);
    return true;
  }
  bool corrupt = false;
  std::string value;
  for (size_t i = 0; i < entries.size(); ++i) {
    s = table->Get(entries[i].key, &value);
    if (s.IsCorruption()) {
      ExpectCleanCorruption(s, what);
      corrupt = true;
    } else if (!forged) {
      EXPECT_TRUE(s.ok()) << what << ": present key " << i << ": " << s.ToString();
      if (s.ok()) {
        EXPECT_EQ(value, entries[i].value) << what << ": wrong value for key " << i;
      }
    } else {
      EXPECT_TRUE(s.ok() || s.IsNotFound()) << what << ": " << s.ToString();
    }
    s = table->Get(AbsentKey(i), &value);
    if (s.IsCorruption()) {
      ExpectCleanCorruption(s, what);
      corrupt = true;
    } else if (!forged) {
      EXPECT_TRUE(s.IsNotFound()) << what << ": absent key " << i << ": " << s.ToString();
    }
  }
  auto it = table->NewIterator();
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    if (forged) continue;
    if (n >= entries.size()) {
      ADD_FAILURE() << what << ": iterator yields more entries than written";
      break;
    }
    EXPECT_EQ(it->key(), entries[n].key) << what;
    EXPECT_EQ(it->value(), entries[n].value) << what;
  }
  if (!it->status().ok()) {
    ExpectCleanCorruption(it->status(), what);
    corrupt = true;
  } else if (!forged) {
    EXPECT_EQ(n, entries.size()) << what;
  }
  return corrupt;
}

class CorruptionTest : public ::testing::TestWithParam<FilterMode> {
 protected:
  void SetUp() override {
    entries_ = MakeEntries(40, 20);
    bytes_ = BuildTable(entries_, Options(GetParam(), 200));
    regions_ = Regions(bytes_);
    ASSERT_GT(regions_.size(), 4u);
  }
  std::vector<Entry> entries_;
  std::string bytes_;
  std::vector<Region> regions_;
};

TEST_P(CorruptionTest, IntactTableIsReadCorrectly) { EXPECT_FALSE(Exercise(bytes_, entries_, false, "intact")); }

// Every length, so in particular every region boundary.
TEST_P(CorruptionTest, EveryTruncationIsCorruptionAtOpen) {
  for (const Region& r : regions_) {
    for (uint64_t len : {r.begin, r.end - 1}) {
      std::unique_ptr<TableReader> table;
      ExpectCleanCorruption(OpenTable(bytes_.substr(0, len), {}, &table),
                            "truncated at the boundary of " + r.name + " (" + std::to_string(len) + " bytes)");
    }
  }
  for (size_t len = 0; len < bytes_.size(); ++len) {
    std::unique_ptr<TableReader> table;
    ExpectCleanCorruption(OpenTable(bytes_.substr(0, len), {}, &table), "truncated to " + std::to_string(len));
  }
  std::unique_ptr<TableReader> table;
  ExpectCleanCorruption(OpenTable(bytes_ + "garbage", {}, &table), "with trailing garbage");
}

// Every byte of the file is covered by a checksum or compared against a
// constant, so every single-byte change must be reported, at open or when
// the damaged block is read, and never turn into a wrong answer.
TEST_P(CorruptionTest, EveryChangedByteIsDetected) {
  std::map<std::string, int> cases_per_region;
  for (size_t pos = 0; pos < bytes_.size(); ++pos) {
    const Region& region = RegionAt(regions_, pos);
    for (unsigned char mask : {0x01, 0xFF}) {
      std::string damaged = bytes_;
      damaged[pos] = static_cast<char>(damaged[pos] ^ mask);
      const std::string what = "byte " + std::to_string(pos) + " (" + region.name + ") ^ " + std::to_string(mask);
      EXPECT_TRUE(Exercise(std::move(damaged), entries_, false, what)) << what << ": change went unnoticed";
      ++cases_per_region[region.name.substr(0, region.name.find(' '))];
    }
  }
  EXPECT_EQ(cases_per_region.count("(no"), 0u) << "bytes outside every known region";
  EXPECT_GT(cases_per_region["data"], 0);
  EXPECT_GT(cases_per_region["meta"], 0);
  EXPECT_GT(cases_per_region["index"], 0);
  EXPECT_GT(cases_per_region["footer"], 0);
  if (GetParam() != FilterMode::kNone) {
    EXPECT_GT(cases_per_region["filter"] + cases_per_region["file"], 0);
  }
}

// Changes that carry a valid checksum reach the structural checks (offsets,
// counts, lengths, order). The answers may be wrong by construction; the
// reader must still never crash or read out of bounds.
TEST_P(CorruptionTest, ChangesWithForgedChecksumsNeverCrash) {
  for (const Region& r : regions_) {
    if (r.filter) continue;  // FilterChangesWithForgedChecksumsNeverCrash
    const uint64_t covered_end = r.stored_block ? r.end - 4 : r.begin + 36;
    for (uint64_t pos = r.begin; pos < covered_end; ++pos) {
      for (unsigned char mask : {0x01, 0x80, 0xFF}) {
        std::string damaged = bytes_;
        damaged[pos] = static_cast<char>(damaged[pos] ^ mask);
        const uint32_t sum = static_cast<uint32_t>(XXH3_64bits(damaged.data() + r.begin, covered_end - r.begin));
        for (int i = 0; i < 4; ++i) damaged[covered_end + i] = static_cast<char>((sum >> (8 * i)) & 0xFF);
        Exercise(std::move(damaged), entries_, true,
                 "forged byte " + std::to_string(pos) + " (" + r.name + ") ^ " + std::to_string(mask));
      }
    }
  }
}

// Recomputes the filter region checksum in the (raw) meta block of `bytes`.
void ForgeFilterRegionChecksum(std::string* bytes) {
  internal::Footer footer;
  internal::TableMeta meta;
  const char* why = nullptr;
  ASSERT_TRUE(internal::DecodeFooter(std::string_view(*bytes).substr(bytes->size() - 48), &footer, &why));
  const uint64_t payload = footer.meta.size - internal::kStoredBlockTrailerSize;
  ASSERT_EQ((*bytes)[footer.meta.offset + payload], 0) << "meta block not raw";
  ASSERT_TRUE(
      internal::DecodeMeta(std::string_view(*bytes).substr(footer.meta.offset, payload), footer.version, &meta, &why));
  meta.filter_region_checksum = internal::FilterRegionChecksum(
      std::string_view(*bytes).substr(meta.filter_region.offset, meta.filter_region.size));
  std::string stored;
  internal::AppendStoredBlock(internal::EncodeMeta(meta), false, &stored);
  ASSERT_EQ(stored.size(), footer.meta.size);
  bytes->replace(footer.meta.offset, stored.size(), stored);
}

// A filter changed behind a matching region checksum: answers may be wrong
// (a cleared bit is a false negative), but the reader must never crash or
// read outside the filter.
TEST_P(CorruptionTest, FilterChangesWithForgedChecksumsNeverCrash) {
  int cases = 0;
  for (const Region& r : regions_) {
    if (!r.filter) continue;
    for (uint64_t pos = r.begin; pos < r.end; ++pos) {
      for (unsigned char mask : {0x01, 0xFF}) {
        std::string damaged = bytes_;
        damaged[pos] = static_cast<char>(damaged[pos] ^ mask);
        ForgeFilterRegionChecksum(&damaged);
        const std::string what = "forged byte " + std::to_string(pos) + " (" + r.name + ")";
        std::unique_ptr<TableReader> table;
        ASSERT_TRUE(OpenTable(damaged, {}, &table).ok()) << what;
        Exercise(std::move(damaged), entries_, true, what);
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases > 0, GetParam() != FilterMode::kNone);
}

INSTANTIATE_TEST_SUITE_P(Modes, CorruptionTest,
                         ::testing::Values(FilterMode::kNone, FilterMode::kPerBlock, FilterMode::kPerFile),
                         [](const auto& param_info) {
                           return param_info.param == FilterMode::kPerBlock  ? std::string("PerBlock")
                                  : param_info.param == FilterMode::kPerFile ? std::string("PerFile")
                                                                             : std::string("NoFilter");
                         });

// A compact filter checks its own checksum at open, so a changed byte of
// it is Corruption at open even behind a forged region checksum, in both
// filter modes.
TEST(CompactFilter, ForgedFilterBytesAreCorruptionAtOpen) {
  const auto entries = MakeEntries(40, 20);
  for (FilterMode mode : {FilterMode::kPerBlock, FilterMode::kPerFile}) {
    TableWriterOptions options = Options(mode, 200);
    options.filter_policy = NewLinebloomCompactPolicy({.bits_per_key = 10});
    const std::string bytes = BuildTable(entries, options);
    EXPECT_FALSE(Exercise(bytes, entries, false, "intact compact table"));
    int cases = 0;
    for (const Region& r : Regions(bytes)) {
      if (!r.filter) continue;
      for (uint64_t pos = r.begin; pos < r.end; ++pos) {
        std::string damaged = bytes;
        damaged[pos] = static_cast<char>(damaged[pos] ^ 0x01);
        ForgeFilterRegionChecksum(&damaged);
        std::unique_ptr<TableReader> table;
        const Status s = OpenTable(damaged, {}, &table);
        ExpectCleanCorruption(s, "forged byte " + std::to_string(pos) + " (" + r.name + ")");
        EXPECT_NE(s.message().find("linebloom.compact"), std::string::npos) << s.message();
        ++cases;
      }
    }
    EXPECT_GE(cases, 84) << FilterModeName(mode);  // at least one line and the trailer
  }
}

// Rewrites the footer with valid checksum but the given handles.
std::string WithFooter(const std::string& bytes, const internal::Footer& footer) {
  return bytes.substr(0, bytes.size() - internal::kFooterSize) + internal::EncodeFooter(footer);
}

TEST(ImpossibleOffsets, FooterHandlesOutsideTheFileAreCorruption) {
  const auto entries = MakeEntries(100, 20);
  const std::string bytes = BuildTable(entries, Options(FilterMode::kPerBlock, 256));
  internal::Footer good;
  const char* why = nullptr;
  ASSERT_TRUE(internal::DecodeFooter(std::string_view(bytes).substr(bytes.size() - 48), &good, &why));

  std::vector<std::pair<std::string, internal::Footer>> cases;
  auto add = [&](const std::string& name, auto mutate) {
    internal::Footer f = good;
    mutate(f);
    cases.push_back({name, f});
  };
  add("meta beyond the end", [&](auto& f) { f.meta.offset = bytes.size() + 100; });
  add("index beyond the end", [&](auto& f) { f.index.offset = bytes.size() * 2; });
  add("huge index size", [](auto& f) { f.index.size = uint64_t{1} << 40; });
  add("max offset", [](auto& f) { f.meta.offset = ~uint64_t{0}; });
  add("overflowing end", [](auto& f) {
    f.index.offset = ~uint64_t{0} - 2;
    f.index.size = 10;
  });
  add("zero sizes", [](auto& f) {
    f.meta.size = 0;
    f.index.size = 0;
  });
  add("overlapping meta and index", [](auto& f) { f.meta.offset += 1; });
  add("meta pointing at a data block", [](auto& f) { f.meta.offset = 0; });
  add("unknown version", [](auto& f) { f.version = 3; });
  add("version zero", [](auto& f) { f.version = 0; });
  for (const auto& [name, footer] : cases) {
    std::unique_ptr<TableReader> table;
    ExpectCleanCorruption(OpenTable(WithFooter(bytes, footer), {}, &table), name);
  }
}

// Re-encodes the index with `mutate` applied and a valid checksum.
std::string WithIndex(const std::string& bytes, void (*mutate)(std::vector<internal::IndexEntry>*)) {
  internal::Footer footer;
  const char* why = nullptr;
  EXPECT_TRUE(internal::DecodeFooter(std::string_view(bytes).substr(bytes.size() - 48), &footer, &why));
  std::unique_ptr<TableReader> table;
  EXPECT_TRUE(OpenTable(bytes, {}, &table).ok());
  std::vector<internal::IndexEntry> index;
  for (size_t i = 0; i < table->num_blocks(); ++i) {
    const BlockInfo b = table->block(i);
    // Version 2 stores a filter's size, not its offset.
    index.push_back({std::string(b.last_key), {b.offset, b.size}, {0, b.filter.size()}, b.num_entries});
  }
  mutate(&index);
  std::string stored;
  internal::AppendStoredBlock(internal::EncodeIndex(index), false, &stored);
  std::string out = bytes.substr(0, footer.index.offset) + stored;
  footer.index.size = stored.size();
  return out + internal::EncodeFooter(footer);
}

TEST(ImpossibleOffsets, IndexEntriesOutsideTheirRegionsAreCorruption) {
  const auto entries = MakeEntries(100, 20);
  const std::string bytes = BuildTable(entries, Options(FilterMode::kPerBlock, 256));
  {
    // The helper itself reproduces a valid table.
    std::unique_ptr<TableReader> table;
    ASSERT_TRUE(OpenTable(WithIndex(bytes, [](auto*) {}), {}, &table).ok());
    std::string v;
    ASSERT_TRUE(table->Get(entries[50].key, &v).ok());
  }
  using Mutation = void (*)(std::vector<internal::IndexEntry>*);
  const std::pair<const char*, Mutation> cases[] = {
      {"data offset beyond the file", [](auto* ix) { (*ix)[1].data.offset = uint64_t{1} << 40; }},
      {"data size beyond the file", [](auto* ix) { ix->back().data.size = uint64_t{1} << 40; }},
      {"gap between data blocks", [](auto* ix) { (*ix)[2].data.offset += 1; }},
      {"data block size zero", [](auto* ix) { (*ix)[0].data.size = 0; }},
      {"swapped data blocks", [](auto* ix) { std::swap((*ix)[0].data, (*ix)[1].data); }},
      {"filter beyond its region", [](auto* ix) { ix->back().filter.size += 1000; }},
      {"filter one byte longer", [](auto* ix) { (*ix)[0].filter.size += 1; }},
      {"filters not filling the region", [](auto* ix) { (*ix)[2].filter.size -= 1; }},
      {"entry count too high", [](auto* ix) { (*ix)[0].num_entries += 1; }},
      {"entry count zero", [](auto* ix) { (*ix)[0].num_entries = 0; }},
      {"keys out of order", [](auto* ix) { std::swap((*ix)[0].last_key, (*ix)[1].last_key); }},
      {"block missing", [](auto* ix) { ix->pop_back(); }},
  };
  for (const auto& [name, mutate] : cases) {
    std::unique_ptr<TableReader> table;
    ExpectCleanCorruption(OpenTable(WithIndex(bytes, mutate), {}, &table), name);
  }

  // A plausible but wrong last key passes the index checks; reading the
  // block then shows the mismatch.
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(WithIndex(bytes, [](auto* ix) { (*ix)[3].last_key += "~"; }), {}, &table).ok());
  std::string v;
  std::string key_in_block_3(table->block(3).last_key);
  key_in_block_3.pop_back();  // the real last key, which the block holds
  ExpectCleanCorruption(table->Get(key_in_block_3, &v), "wrong last key");
}

TEST(StoredBlocks, MalformedLz4PayloadsAreCorruption) {
  // A stored block claiming LZ4 whose payload is not LZ4, with a valid
  // checksum: the decoder must refuse it.
  auto forge = [](std::string payload, uint8_t type) {
    payload.push_back(static_cast<char>(type));
    const uint32_t sum = static_cast<uint32_t>(XXH3_64bits(payload.data(), payload.size()));
    PutFixed32(&payload, sum);
    return payload;
  };
  std::string scratch;
  std::string_view contents;
  const std::string garbage = "\x10\x00\x00\x00garbage-not-lz4";
  EXPECT_TRUE(internal::ReadStoredBlock(forge(garbage, 1), "f", 7, &scratch, &contents).IsCorruption());
  EXPECT_TRUE(internal::ReadStoredBlock(forge("\xff\xff\xff\x7f"
                                              "ab",
                                              1),
                                        "f", 7, &scratch, &contents)
                  .IsCorruption());  // claims 2 GiB from 2 bytes
  EXPECT_TRUE(internal::ReadStoredBlock(forge("ab", 1), "f", 7, &scratch, &contents).IsCorruption());
  EXPECT_TRUE(internal::ReadStoredBlock(forge("abc", 9), "f", 7, &scratch, &contents).IsCorruption());
  Status s = internal::ReadStoredBlock("abcd", "f", 7, &scratch, &contents);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message().rfind("f: offset 7: ", 0), 0u) << s.message();
  // An uncompressed block's contents point into the stored bytes, which
  // must outlive `contents`.
  const std::string stored = forge("abc", 0);
  ASSERT_TRUE(internal::ReadStoredBlock(stored, "f", 7, &scratch, &contents).ok());
  EXPECT_EQ(contents, "abc");
}

TEST(Decoders, RandomBytesAreRejectedOrDecodedSafely) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20000; ++round) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 4 == 0 ? rng() % 4 : rng());
    internal::DataBlock block;
    const char* why = nullptr;
    if (internal::DataBlock::Parse(bytes, &block, &why)) {
      size_t total = 0;
      for (size_t i = 0; i < block.size(); ++i) total += block.key(i).size() + block.value(i).size();
      EXPECT_LE(total, bytes.size());
      (void)block.LowerBound("k");
    }
    for (uint32_t version : {1u, 2u}) {
      std::vector<internal::IndexEntry> index;
      if (internal::DecodeIndex(bytes, version, &index, &why)) {
        EXPECT_LE(index.size(), bytes.size());
      }
      internal::TableMeta meta;
      if (internal::DecodeMeta(bytes, version, &meta, &why)) {
        EXPECT_LE(meta.filter_policy.size() + meta.filter_parameters.size(), bytes.size());
      }
    }
    internal::Footer footer;
    if (bytes.size() >= internal::kFooterSize) {
      (void)internal::DecodeFooter(std::string_view(bytes).substr(0, internal::kFooterSize), &footer, &why);
    }
  }
}

}  // namespace
}  // namespace linebloom::sstable
