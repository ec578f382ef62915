// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The store's own byte formats, decoded from damaged bytes: the write-ahead
// log (torn tails dropped, damage before the end refused), the MANIFEST
// (every flipped byte and every truncation refused), the STATS file, file
// names and the tiering rule.

#include <gtest/gtest.h>

#include <random>

#include "compaction_picker.h"
#include "file_names.h"
#include "linebloom/kvstore/write_batch.h"
#include "manifest.h"
#include "stats_file.h"
#include "wal.h"
#include "write_batch_internal.h"

namespace linebloom::kvstore::internal {
namespace {

using kvstore::WriteBatch;

std::string BatchRecord(int i) {
  WriteBatch b;
  b.Put(std::string("key").append(std::to_string(i)), std::string(i % 5 * 3, 'v'));
  if (i % 3 == 0) b.Delete("gone");
  return EncodeWalRecord(WalRecordType::kWriteBatch, b.rep());
}

struct Replayed {
  Status status;
  WalReplayResult result;
  std::vector<uint64_t> offsets;
};

Replayed Replay(std::string_view log) {
  Replayed r;
  r.status = ReplayWal(
      "test.log", log,
      [&](WalRecordType, std::string_view payload, uint64_t offset) {
        r.offsets.push_back(offset);
        return ForEachBatchOp(payload, "test",
                              [](EntryKind, std::string_view, std::string_view) { return Status::Ok(); });
      },
      &r.result);
  return r;
}

class WalFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = WalFileHeader();
    for (int i = 0; i < 6; ++i) {
      ends_.push_back(log_.size() + BatchRecord(i).size());
      log_.append(BatchRecord(i));
    }
  }
  std::string log_;
  std::vector<size_t> ends_;  // end offset of each record
};

TEST_F(WalFormatTest, IntactLogReplaysEveryRecord) {
  const Replayed r = Replay(log_);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.result.records, 6u);
  EXPECT_EQ(r.result.valid_bytes, log_.size());
  EXPECT_EQ(r.result.dropped_bytes, 0u);
  EXPECT_EQ(r.offsets.front(), kWalHeaderSize);
}

TEST_F(WalFormatTest, EveryTruncationDropsOnlyTheTornLastRecord) {
  for (size_t len = 0; len <= log_.size(); ++len) {
    const Replayed r = Replay(std::string_view(log_).substr(0, len));
    ASSERT_TRUE(r.status.ok()) << "length " << len << ": " << r.status.ToString();
    const size_t whole =
        static_cast<size_t>(std::count_if(ends_.begin(), ends_.end(), [&](size_t e) { return e <= len; }));
    EXPECT_EQ(r.result.records, whole) << "length " << len;
    EXPECT_EQ(r.result.valid_bytes + r.result.dropped_bytes, len);
    if (len >= kWalHeaderSize) {
      EXPECT_EQ(r.result.valid_bytes, whole ? ends_[whole - 1] : kWalHeaderSize);
    }
  }
}

TEST_F(WalFormatTest, DamageBeforeTheLastRecordIsCorruption) {
  // Flip one byte in every position of records 0..4: a damaged length or
  // type fails the header check, anything else the checksum, and intact
  // records follow, so it cannot be a torn write.
  for (size_t pos = kWalHeaderSize; pos < ends_[4]; ++pos) {
    for (int bit : {0, 6}) {
      std::string bad = log_;
      bad[pos] ^= static_cast<char>(1 << bit);
      const Replayed r = Replay(bad);
      ASSERT_TRUE(r.status.IsCorruption())
          << "flip at " << pos << ": " << r.status.ToString() << ", " << r.result.records << " records replayed";
      EXPECT_NE(r.status.message().find("test.log"), std::string::npos);
    }
  }
}

TEST_F(WalFormatTest, DamageInTheLastRecordIsTornExceptInItsHeader) {
  for (size_t pos = ends_[4]; pos < ends_[5]; ++pos) {
    std::string bad = log_;
    bad[pos] ^= 0x01;
    const Replayed r = Replay(bad);
    if (pos < ends_[4] + 9) {
      // A crash leaves a prefix of what was written, never a wrong length.
      EXPECT_TRUE(r.status.IsCorruption()) << pos << ": " << r.status.ToString();
      continue;
    }
    ASSERT_TRUE(r.status.ok()) << pos << ": " << r.status.ToString();
    EXPECT_EQ(r.result.records, 5u);
    EXPECT_EQ(r.result.valid_bytes, ends_[4]);
  }
}

TEST_F(WalFormatTest, ZerosAfterTheLastRecordAreATornTail) {
  std::string padded = log_ + std::string(100, '\0');
  Replayed r = Replay(padded);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.result.records, 6u);
  EXPECT_EQ(r.result.dropped_bytes, 100u);
  // But non-zero garbage followed by a whole record is corruption.
  std::string garbage = log_.substr(0, ends_[2]) + std::string(20, '\x55') + log_.substr(ends_[2]);
  r = Replay(garbage);
  EXPECT_TRUE(r.status.IsCorruption()) << r.status.ToString();
}

TEST_F(WalFormatTest, HeaderChecks) {
  std::string bad = log_;
  bad[0] = 'X';
  EXPECT_TRUE(Replay(bad).status.IsCorruption());
  bad = log_;
  bad[kWalHeaderSize - 1] = 2;  // a future version
  const Replayed r = Replay(bad);
  EXPECT_TRUE(r.status.IsNotSupported()) << r.status.ToString();
  // A torn header (crash while creating the log) is an empty log.
  EXPECT_TRUE(Replay(std::string_view(log_).substr(0, 3)).status.ok());
  EXPECT_TRUE(Replay(std::string(5, '\0')).status.ok());
  EXPECT_TRUE(Replay("junk").status.IsCorruption());
}

TEST_F(WalFormatTest, UnknownRecordTypeAndBadBatchAreCorruption) {
  std::string log = WalFileHeader() + EncodeWalRecord(static_cast<WalRecordType>(9), "x") + BatchRecord(1);
  EXPECT_TRUE(Replay(log).status.IsCorruption());
  // A checksummed record whose batch does not parse.
  log = WalFileHeader() + EncodeWalRecord(WalRecordType::kWriteBatch, std::string("\x05\0\0\0", 4)) + BatchRecord(1);
  const Replayed r = Replay(log);
  EXPECT_TRUE(r.status.IsCorruption()) << r.status.ToString();
}

TEST(WriteBatchFormatTest, DecodesExactlyWhatWasEncoded) {
  WriteBatch b;
  b.Put("", "empty key");
  b.Put(std::string("\0k", 2), std::string("\0v\0", 3));
  b.Delete("d");
  std::vector<std::tuple<EntryKind, std::string, std::string>> ops;
  ASSERT_TRUE(ForEachBatchOp(b.rep(), "t", [&](EntryKind k, std::string_view key, std::string_view v) {
                ops.emplace_back(k, key, v);
                return Status::Ok();
              }).ok());
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(std::get<1>(ops[1]), std::string("\0k", 2));
  EXPECT_EQ(std::get<2>(ops[1]), std::string("\0v\0", 3));
  EXPECT_EQ(std::get<0>(ops[2]), EntryKind::kDeletion);
  // Every truncation fails to parse and visits nothing.
  for (size_t len = 0; len < b.rep().size(); ++len) {
    int visited = 0;
    Status s = ForEachBatchOp(std::string_view(b.rep()).substr(0, len), "t",
                              [&](EntryKind, std::string_view, std::string_view) {
                                ++visited;
                                return Status::Ok();
                              });
    EXPECT_TRUE(s.IsCorruption()) << len;
    EXPECT_EQ(visited, 0) << len;
  }
}

ManifestState SampleState() {
  ManifestState s;
  s.next_file_number = 42;
  s.log_number = 41;
  s.runs.push_back({40, 0, 10, 4096, 80, "a", "m"});
  s.runs.push_back({33, 1, 300, 65536, 0, std::string("\0", 1), "zz"});
  return s;
}

TEST(ManifestFormatTest, RoundTrips) {
  const std::string bytes = EncodeManifest(SampleState());
  ManifestState out;
  ASSERT_TRUE(DecodeManifest("M", bytes, &out).ok());
  EXPECT_EQ(out.next_file_number, 42u);
  EXPECT_EQ(out.log_number, 41u);
  ASSERT_EQ(out.runs.size(), 2u);
  EXPECT_EQ(out.runs[1].smallest, std::string("\0", 1));
  EXPECT_EQ(out.runs[0].filter_size, 80u);
  EXPECT_EQ(out.runs[1].level, 1u);
}

TEST(ManifestFormatTest, EveryFlippedByteAndEveryTruncationIsRefused) {
  const std::string bytes = EncodeManifest(SampleState());
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    for (int bit : {0, 7}) {
      std::string bad = bytes;
      bad[pos] ^= static_cast<char>(1 << bit);
      ManifestState out;
      Status s = DecodeManifest("M", bad, &out);
      EXPECT_TRUE(s.IsCorruption() || s.IsNotSupported()) << pos << ": " << s.ToString();
    }
  }
  for (size_t len = 0; len < bytes.size(); ++len) {
    ManifestState out;
    Status s = DecodeManifest("M", std::string_view(bytes).substr(0, len), &out);
    EXPECT_FALSE(s.ok()) << len;
  }
}

TEST(ManifestFormatTest, ANewerVersionIsNotSupported) {
  std::string bytes = EncodeManifest(SampleState());
  bytes[kManifestMagic.size()] = 2;
  ManifestState out;
  Status s = DecodeManifest("M", bytes, &out);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
}

TEST(ManifestFormatTest, ImpossibleStatesAreRefusedEvenWithAGoodChecksum) {
  ManifestState s = SampleState();
  s.runs[1].file_number = 40;  // duplicate
  ManifestState out;
  EXPECT_TRUE(DecodeManifest("M", EncodeManifest(s), &out).IsCorruption());
  s = SampleState();
  s.runs[0].file_number = 50;  // not yet allocated
  EXPECT_TRUE(DecodeManifest("M", EncodeManifest(s), &out).IsCorruption());
  s = SampleState();
  s.runs[0].level = 99;
  EXPECT_TRUE(DecodeManifest("M", EncodeManifest(s), &out).IsCorruption());
  s = SampleState();
  s.runs[0].smallest = "z";  // smallest > largest
  EXPECT_TRUE(DecodeManifest("M", EncodeManifest(s), &out).IsCorruption());
}

TEST(FileNamesTest, RoundTripAndStrangers) {
  FileType type;
  uint64_t number;
  ASSERT_TRUE(ParseFileName("000012.sst", &type, &number));
  EXPECT_EQ(type, FileType::kTable);
  EXPECT_EQ(number, 12u);
  ASSERT_TRUE(ParseFileName("1234567.log", &type, &number));
  EXPECT_EQ(number, 1234567u);
  EXPECT_EQ(LogFileName("/d", 7), "/d/000007.log");
  EXPECT_EQ(RunFilterFileName("/d", 7), "/d/000007.lbf");
  for (const char* stranger : {"12.sst", "00001x.sst", "000001.txt", "README", "000001.sst.bak", "MANIFEST.old",
                               "99999999999999999999999.log"}) {
    EXPECT_FALSE(ParseFileName(stranger, &type, &number)) << stranger;
  }
}

TEST(StatsFileTest, RoundTripsAndIgnoresDamage) {
  SavedStats s;
  s.gets = 5;
  s.compactions = 2;
  s.levels[1].block_reads = 9;
  s.runs[17].hits = 3;
  const std::string text = EncodeStatsFile(s);
  SavedStats out;
  ASSERT_TRUE(DecodeStatsFile(text, &out));
  EXPECT_EQ(out.gets, 5u);
  EXPECT_EQ(out.levels[1].block_reads, 9u);
  EXPECT_EQ(out.runs[17].hits, 3u);
  for (size_t len = 0; len + 1 < text.size(); ++len) {
    SavedStats partial;
    // A truncation either still parses to a prefix of the records or fails;
    // it never throws or crashes.
    (void)DecodeStatsFile(std::string_view(text).substr(0, len), &partial);
  }
  EXPECT_FALSE(DecodeStatsFile("linebloom-kv-stats 2\n", &out));
  EXPECT_FALSE(DecodeStatsFile("linebloom-kv-stats 1\nstore 1 2\n", &out));
  EXPECT_FALSE(DecodeStatsFile("linebloom-kv-stats 1\nstore 1 2 3 4 5 6 7\nlevel -1 1 2 3 4 5 6 7 8 9 10\n", &out));
}

TEST(TieredPickerTest, MergesAFullLevelIntoTheNext) {
  using V = std::vector<uint32_t>;
  EXPECT_FALSE(PickTieredCompaction(V{0, 0, 1, 1, 2}, 3, 7));
  auto p = PickTieredCompaction(V{0, 0, 0, 1, 2}, 3, 7);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->begin, 0u);
  EXPECT_EQ(p->end, 3u);
  EXPECT_EQ(p->output_level, 1);
  EXPECT_FALSE(p->drop_tombstones);  // older runs remain
  p = PickTieredCompaction(V{0, 1, 1, 1}, 3, 7);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->begin, 1u);
  EXPECT_EQ(p->end, 4u);
  EXPECT_EQ(p->output_level, 2);
  EXPECT_TRUE(p->drop_tombstones);  // nothing older
  p = PickTieredCompaction(V{7, 7}, 2, 7);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->output_level, 7);  // the last level merges into itself
  const CompactionPick full = PickFullCompaction(V{0, 2, 3});
  EXPECT_EQ(full.end, 3u);
  EXPECT_EQ(full.output_level, 3);
  EXPECT_TRUE(full.drop_tombstones);
}

}  // namespace
}  // namespace linebloom::kvstore::internal
