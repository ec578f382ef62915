// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Writes the seed corpus of fuzz_kvstore_recovery (tests/fuzz/corpus/
// fuzz_kvstore_recovery/): structured logs with every tail kind and flag,
// raw logs (valid, torn, zero-filled, damaged in each way the recovery rules
// name) and the store's own MANIFESTs, whole and damaged. Deterministic.
//
// Usage: fuzz_make_kvstore_seeds CORPUS_DIR

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kv_log_model.h"
#include "kvstore_recovery_input.h"
#include "recovery_store.h"

namespace {

namespace fs = std::filesystem;
using namespace linebloom::fuzz;
using recovery_input::kBaseRun;
using recovery_input::kReopen;
using recovery_input::kSmallWriteBuffer;

constexpr uint8_t kStructured = 0, kRawLog = 1, kRawManifest = 2;

void Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

kvlog::Op Put(std::string key, std::string value) { return {false, std::move(key), std::move(value)}; }
kvlog::Op Del(std::string key) { return {true, std::move(key), ""}; }

// A few batches that overwrite and delete each other's keys (and base keys).
std::vector<kvlog::Batch> SomeBatches(int n) {
  std::vector<kvlog::Batch> batches;
  for (int i = 0; i < n; ++i) {
    const std::string k = std::string("key").append(std::to_string(i % 5));
    kvlog::Batch b{Put(k, std::string("value-").append(std::to_string(i)))};
    if (i % 3 == 1) b.push_back(Del(std::string("key").append(std::to_string((i + 2) % 5))));
    if (i % 4 == 2) b.push_back(Put("base12", "overwritten"));
    if (i % 4 == 3) b.push_back(Del("base13"));
    if (i == 5) b.push_back(Put("", "empty key"));
    batches.push_back(b);
  }
  return batches;
}

std::string Structured(uint8_t flags, const std::vector<kvlog::Batch>& prefix, recovery_input::Tail tail,
                       const std::string& tail_bytes) {
  std::string out(1, static_cast<char>(flags | kStructured));
  out.push_back(static_cast<char>(prefix.size()));
  for (const auto& b : prefix) recovery_input::WriteBatchSpec(b, &out);
  out.push_back(static_cast<char>(tail));
  return out + tail_bytes;
}

std::string Log(const std::vector<kvlog::Batch>& batches) {
  std::string log = kvlog::FileHeader();
  for (const auto& b : batches) log += kvlog::EncodeRecord(kvlog::EncodeBatch(b));
  return log;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Writes fuzz_kvstore_recovery's seed corpus (deterministic).");
  std::string corpus_dir;
  app.add_option("corpus_dir", corpus_dir, "corpus root (tests/fuzz/corpus)")->required();
  CLI11_PARSE(app, argc, argv);
  const fs::path dir = fs::path(corpus_dir) / "fuzz_kvstore_recovery";
  using recovery_input::Tail;

  // Structured: valid prefix + each tail kind.
  const auto six = SomeBatches(6);
  std::string next_record;
  recovery_input::WriteBatchSpec({Put("tail-key", "tail-value"), Del("key1")}, &next_record);
  Write(dir, "structured_empty", Structured(0, {}, Tail::kDamage, ""));
  Write(dir, "structured_clean", Structured(kReopen, six, Tail::kDamage, ""));
  Write(dir, "structured_garbage_tail",
        Structured(kBaseRun, six, Tail::kDamage,
                   std::string("\x05\x00\x00\x00\x01"
                               "garbage",
                               12)));
  Write(dir, "structured_torn", Structured(kReopen, six, Tail::kTorn, next_record + "\x0c"));
  Write(dir, "structured_torn_header", Structured(kBaseRun | kReopen, six, Tail::kTorn, next_record + "\x03"));
  Write(dir, "structured_zeros", Structured(kBaseRun | kReopen, six, Tail::kZeros, "\x40"));
  Write(dir, "structured_flipped_last",
        Structured(kReopen, six, Tail::kFlipped, next_record + std::string("\x00\x14\x00\x80", 4)));
  Write(dir, "structured_flipped_then_records",
        Structured(kBaseRun, six, Tail::kFlipped,
                   next_record + std::string("\x00\x02\x00\x01", 4) + Log(SomeBatches(2)).substr(8)));
  Write(dir, "structured_small_buffer",
        Structured(kSmallWriteBuffer | kBaseRun | kReopen, SomeBatches(30), Tail::kDamage, ""));

  // Raw logs, one per recovery rule.
  const std::string raw(1, static_cast<char>(kRawLog));
  const std::string log = Log(six);
  Write(dir, "raw_header_only", raw + kvlog::FileHeader());
  Write(dir, "raw_valid", raw + log);
  Write(dir, "raw_valid_base_reopen", std::string(1, static_cast<char>(kRawLog | kBaseRun | kReopen)) + log);
  Write(dir, "raw_short_header", raw + kvlog::FileHeader().substr(0, 5));
  Write(dir, "raw_zero_header", raw + std::string(5, '\0'));
  Write(dir, "raw_bad_magic", raw + "LBKVWAX\x01" + log.substr(8));
  Write(dir, "raw_version_2", raw + "LBKVWAL\x02" + log.substr(8));
  Write(dir, "raw_torn_payload", raw + log.substr(0, log.size() - 3));
  std::string bad_check = log;
  bad_check[8 + 6] ^= 0x10;  // first record's header check
  Write(dir, "raw_bad_header_check", raw + bad_check);
  std::string bad_sum_middle = log;
  bad_sum_middle[8 + 20] ^= 0x01;  // first record's payload, records follow
  Write(dir, "raw_bad_checksum_middle", raw + bad_sum_middle);
  std::string bad_sum_last = log;
  bad_sum_last[log.size() - 1] ^= 0x01;  // last record's payload
  Write(dir, "raw_bad_checksum_last", raw + bad_sum_last);
  Write(dir, "raw_unknown_type", raw + kvlog::FileHeader() + kvlog::EncodeRecord(kvlog::EncodeBatch(six[0]), 2));
  Write(dir, "raw_bad_batch", raw + kvlog::FileHeader() + kvlog::EncodeRecord(std::string("\x02\x00\x00\x00\x01", 5)));
  Write(dir, "raw_trailing_zeros", raw + log + std::string(100, '\0'));

  // MANIFESTs: the store's own, then damaged.
  for (const bool base : {false, true}) {
    const PreparedStore store = PrepareStore(base);
    const std::string manifest = store.files.at(store.manifest_path);
    const std::string m(1, static_cast<char>(kRawManifest | (base ? kBaseRun : 0)));
    const std::string suffix = base ? "_base" : "_empty";
    Write(dir, "manifest" + suffix, m + manifest);
    Write(dir, "manifest_truncated" + suffix, m + manifest.substr(0, manifest.size() - 9));
    std::string flipped = manifest;
    flipped[20] ^= 0x01;  // the log number
    Write(dir, "manifest_flipped" + suffix, m + flipped);
  }
  return 0;
}
