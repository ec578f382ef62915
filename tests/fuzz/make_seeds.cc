// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Writes the seed corpora committed under tests/fuzz/corpus/:
//   fuzz_filter_parse/        valid filters of many shapes, and a few broken
//                             ones next to them (one per reader check), so
//                             the fuzzer starts on both sides of every check;
//   fuzz_filter_differential/ inputs laid out the way that target reads them
//                             (FuzzedDataProvider: keys from the front,
//                             parameters from the back);
//   fuzz_compact_filter/      compact filters (first byte 0: bytes as a
//                             filter), valid and broken in each reader
//                             check, and key sets laid out as that target
//                             reads them (first byte 1).
// Deterministic: the same program writes the same bytes.
//
// Usage: fuzz_make_seeds CORPUS_DIR   (tests/fuzz/make_seeds.sh runs it)

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_builder.h"

namespace {

namespace fs = std::filesystem;

void Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string Key(const char* prefix, int i) { return std::string(prefix).append(std::to_string(i)); }

std::string BuildFilter(int num_keys, double bits_per_key, int probes, uint32_t seed, size_t lead = 0,
                        linebloom::KeyHashScheme scheme = linebloom::KeyHashScheme::kXxh3,
                        const char* key_prefix = "key") {
  linebloom::FilterBuilder builder(
      {.bits_per_key = bits_per_key, .num_probes = probes, .seed = seed, .hash_scheme = scheme});
  builder.SetLeadBytes(lead);
  for (int i = 0; i < num_keys; ++i) builder.AddKey(Key(key_prefix, i));
  return builder.Finish();
}

void WriteParseSeeds(const fs::path& dir) {
  struct Shape {
    const char* name;
    int keys;
    double bits_per_key;
    int probes;
    uint32_t seed;
  };
  const Shape shapes[] = {
      {"empty", 0, 10, 0, 0},
      {"one_key", 1, 10, 0, 0},
      {"k1", 20, 10, 1, 1},
      {"k24", 20, 10, 24, 2},
      {"bpk1", 200, 1, 0, 3},
      {"bpk6_5", 100, 6.5, 0, 4},
      {"bpk10", 100, 10, 0, 5},
      {"bpk20", 100, 20, 0, 0xFFFFFFFF},
      {"bpk100", 30, 100, 0, 6},
      {"full", 300, 1, 24, 7},
      {"bpk10_2000_keys", 2000, 10, 0, 8},
  };
  for (const Shape& s : shapes)
    Write(dir, std::string("valid_").append(s.name), BuildFilter(s.keys, s.bits_per_key, s.probes, s.seed));
  Write(dir, "valid_lead48", BuildFilter(100, 10, 0, 10, 48));
  Write(dir, "valid_lead63_empty", BuildFilter(0, 10, 0, 11, 63));
  // Hash scheme 3, keys of 11 to 13 bytes (its own hash).
  Write(dir, "valid_scheme3",
        BuildFilter(300, 10, 0, 12, 0, linebloom::KeyHashScheme::kShortKeyMultiply, "scheme3-k-"));

  // One filter broken in each field the reader checks (trailer at size-16).
  const std::string good = BuildFilter(50, 10, 0, 9);
  const size_t t = good.size() - 16;
  auto broken = [&](const char* name, size_t at, char value) {
    std::string b = good;
    b[at] = value;
    Write(dir, std::string("broken_").append(name), b);
  };
  broken("magic", t + 8, 'X');
  broken("version", t + 7, 3);
  broken("lead_without_version2", t + 6, 48);
  {
    std::string b = BuildFilter(50, 10, 0, 9, 48);
    b[b.size() - 10] = 64;  // lead bytes past 63
    Write(dir, "broken_lead64", b);
    Write(dir, "broken_lead_cut", BuildFilter(50, 10, 0, 9, 48).substr(1));
  }
  broken("hash_scheme", t + 5, 0);
  broken("hash_scheme2", t + 5, 2);  // the compact filter's scheme on a Bloom filter
  broken("probes0", t + 4, 0);
  broken("probes25", t + 4, 25);
  broken("reserved", t + 6, 1);
  broken("checksum", t + 12, static_cast<char>(good[t + 12] ^ 1));
  broken("body_bit", 0, static_cast<char>(good[0] ^ 0x10));
  Write(dir, "broken_size", good.substr(1));
  Write(dir, "broken_too_short", good.substr(good.size() - 15));
}

// FuzzedDataProvider reads strings from the front (a backslash followed by
// any other byte ends one) and integers from the back, last byte first.
std::string DifferentialInput(const std::vector<std::string>& keys, const std::vector<uint8_t>& tail) {
  std::string in;
  for (const std::string& k : keys) in.append(k).append("\\n");
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) in.push_back(static_cast<char>(*it));
  return in;
}

void WriteDifferentialSeeds(const fs::path& dir) {
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) keys.push_back(Key("user:", i));
  // Bytes in the order the target consumes them from the back: bits-per-key
  // mode, (a double), probes, seed, bulk count, bulk state, then one
  // "what" byte per key.
  std::vector<uint8_t> plain = {200, 0x80, 0, 0, 0, 0, 0, 0, 0, 3, 0x12, 0x34, 0x56, 0x78, 0, 0};
  for (int i = 0; i < 8; ++i) plain.push_back(static_cast<uint8_t>(i));
  for (size_t i = 0; i < keys.size(); ++i) plain.push_back(static_cast<uint8_t>(i % 4));
  Write(dir, "keys_40", DifferentialInput(keys, plain));

  std::vector<uint8_t> nan_bits = {0, 0, 0, 0, 0, 0xFF, 0xFF};
  Write(dir, "nan_bits_per_key", DifferentialInput({"a", "b", "a"}, nan_bits));

  std::vector<uint8_t> bulk = {150, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 30, 1, 2, 3, 4, 0x17, 0x70};
  for (int i = 0; i < 8; ++i) bulk.push_back(static_cast<uint8_t>(0xA5 ^ i));
  Write(dir, "bulk", DifferentialInput({"x"}, bulk));

  Write(dir, "empty_input", "");
}

std::string BuildCompact(int num_keys, double bits_per_key, uint32_t seed, size_t lead = 0) {
  linebloom::CompactFilterBuilder builder({.bits_per_key = bits_per_key, .seed = seed});
  builder.SetLeadBytes(lead);
  for (int i = 0; i < num_keys; ++i) builder.AddKey(Key("key", i));
  return builder.Finish();
}

// Mode (a) of fuzz_compact_filter: a 0 byte, then the filter.
void WriteCompactFilterSeeds(const fs::path& dir) {
  struct Shape {
    const char* name;
    int keys;
    double bits_per_key;
    uint32_t seed;
  };
  const Shape shapes[] = {
      {"one_key", 1, 10, 0},
      {"keys50_bpk6", 50, 6, 1},
      {"keys2000_bpk6", 2000, 6, 2},
      {"keys300_bpk16", 300, 16, 3},
      {"keys200_bpk5_5", 200, 5.5, 4},
      {"keys100_bpk30", 100, 30, 5},
      {"keys5000_bpk7_75", 5000, 7.75, 6},
  };
  for (const Shape& s : shapes) {
    Write(dir, std::string("filter_").append(s.name), '\0' + BuildCompact(s.keys, s.bits_per_key, s.seed));
  }
  Write(dir, "filter_bloom_v1", '\0' + BuildFilter(100, 10, 0, 1));
  // One filter of two layers broken in each field the reader checks.
  const std::string good = BuildCompact(2000, 6, 9);
  const size_t t = good.size() - 16;
  auto broken = [&](const char* name, size_t at, char value) {
    std::string b = good;
    b[at] = value;
    Write(dir, std::string("broken_").append(name), '\0' + b);
  };
  broken("magic", t + 8, 'X');
  broken("version2", t + 7, 2);
  broken("hash_scheme1", t + 5, 1);
  broken("r4", t + 4, 4);
  broken("r28", t + 4, 28);
  broken("layers9", t + 6, 9);
  broken("zero_lines", t - 8, 0);  // L_0's low byte: L_0 < 256 here
  broken("checksum", t + 12, static_cast<char>(good[t + 12] ^ 1));
  broken("body_bit", 0, static_cast<char>(good[0] ^ 0x10));
  broken("threshold0", 63, static_cast<char>(good[63] & 0x80));
  Write(dir, "broken_size", '\0' + good.substr(1));
  Write(dir, "broken_no_layer_table", '\0' + good.substr(t));
  Write(dir, "broken_too_short", '\0' + good.substr(t + 1));
  // Format version 4: lead bytes before the lines; a lead beyond 63 bytes;
  // a version-3 filter labelled 4 (a lead of 0, which parses).
  const std::string lead = BuildCompact(2000, 6, 9, 48);
  Write(dir, "filter_lead48", '\0' + lead);
  Write(dir, "broken_lead64", '\0' + std::string(16, '\0') + lead);
  std::string relabelled = good;
  relabelled[t + 7] = 4;
  Write(dir, "filter_version4_lead0", '\0' + relabelled);
}

// Mode (b): a 1 byte, then keys from the front and, from the back: bits-
// per-key mode, (a double), seed, layer limit, bulk count, bulk state, one
// "what" byte per key.
void WriteCompactBuildSeeds(const fs::path& dir) {
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) keys.push_back(Key("user:", i));
  std::vector<uint8_t> plain = {200, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0xFF, 0x03, 0xE8};
  for (int i = 0; i < 8; ++i) plain.push_back(static_cast<uint8_t>(0x11 * i));
  for (size_t i = 0; i < keys.size(); ++i) plain.push_back(static_cast<uint8_t>(i % 4));
  Write(dir, "build_keys_40", '\x01' + DifferentialInput(keys, plain));
  // 5.49 bits per key (clamped to 5.5), 1,200 bulk hashes.
  std::vector<uint8_t> low = {5, 0, 0, 0, 4, 0xFF, 0x04, 0xB0, 1, 2, 3, 4, 5, 6, 7, 8};
  Write(dir, "build_bulk_low_bits", '\x01' + DifferentialInput({"a"}, low));
  // A limit of one layer: the build falls back to a Bloom filter.
  std::vector<uint8_t> one_layer = {200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0x04, 0xB0, 9, 9, 9, 9, 9, 9, 9, 9};
  Write(dir, "build_one_layer", '\x01' + DifferentialInput({"x", "y"}, one_layer));
  std::vector<uint8_t> nan_bits = {0, 0, 0, 0, 0, 0xFF, 0, 0};
  Write(dir, "build_nan_bits_per_key", '\x01' + DifferentialInput({"a", "b", "a"}, nan_bits));
  Write(dir, "build_empty", "\x01");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Writes the fuzz targets' seed corpora (deterministic).");
  std::string corpus_dir;
  app.add_option("corpus_dir", corpus_dir, "corpus root (tests/fuzz/corpus)")->required();
  CLI11_PARSE(app, argc, argv);
  const fs::path corpus = corpus_dir;
  WriteParseSeeds(corpus / "fuzz_filter_parse");
  WriteDifferentialSeeds(corpus / "fuzz_filter_differential");
  WriteCompactFilterSeeds(corpus / "fuzz_compact_filter");
  WriteCompactBuildSeeds(corpus / "fuzz_compact_filter");
  return 0;
}
