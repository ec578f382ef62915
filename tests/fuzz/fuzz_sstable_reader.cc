// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Fuzz target: the micro-SSTable reader on bytes from a broken or hostile
// file. The first input byte picks one of two modes.
//
// Raw (even first byte): the rest of the input is the whole file (table
// format 1 or 2; the seeds hold both). Open it,
// look up keys, walk it with an iterator. Properties: no crash, no sanitizer
// report, a file that does not open is a Corruption with a message, and Get
// returns only values the iterator saw. (The seeds are valid tables, so the fuzzer starts
// past the footer; libFuzzer's comparison tracing lets it forge checksums
// and reach the decoders behind them.)
//
// Written (odd first byte): the fuzzer chooses entries and writer options;
// the target writes a real table into memory, then flips up to 8 fuzzer-
// chosen bytes of it. Properties:
//  - unflipped, the table reads back exactly: keys with their values,
//    absent keys NotFound, iteration and Seek in order, with filters in use
//    or ignored;
//  - flipped, the reader never returns wrong data: a Get that succeeds
//    returns the written value, and a written key is never NotFound (a
//    corrupt filter or block must be an error, not a false negative: the
//    filter region of format 2 has one checksum, verified at open).

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_check.h"
#include "linebloom/foundation/file.h"
#include "linebloom/sstable/table_options.h"
#include "linebloom/sstable/table_reader.h"
#include "linebloom/sstable/table_writer.h"

namespace linebloom::sstable {
namespace {

using Entries = std::map<std::string, std::string>;

// About 24 of the entries, spread over the table, first and last included:
// each Get re-reads (and re-validates) a whole block, so looking up every key
// of a big table costs quadratic time per input for little extra coverage.
// (The iterator still visits every entry.)
template <typename Range>
std::vector<std::pair<std::string, std::string>> Sample(const Range& entries) {
  std::vector<std::pair<std::string, std::string>> out;
  const size_t stride = entries.size() / 24 + 1;
  size_t i = 0;
  for (const auto& kv : entries) {
    if (i % stride == 0 || i + 1 == entries.size()) out.push_back(kv);
    ++i;
  }
  return out;
}

void CheckError(const Status& s, const char* what) {
  FUZZ_CHECK(!s.ok() && !s.IsNotFound(), what);
  FUZZ_CHECK(!s.message().empty(), "an error says what is wrong");
}

Status OpenBytes(const std::string& bytes, bool use_filters, std::unique_ptr<TableReader>* reader) {
  TableReaderOptions options;
  options.use_filters = use_filters;
  return TableReader::Open(NewMemoryFile("fuzz.sst", bytes), options, reader);
}

// Iterates at most `limit` entries; returns them and the iterator's status.
std::vector<std::pair<std::string, std::string>> Walk(const TableReader& table, size_t limit, Status* status) {
  std::vector<std::pair<std::string, std::string>> seen;
  auto it = table.NewIterator();
  for (it->SeekToFirst(); it->Valid() && seen.size() < limit; it->Next()) {
    seen.emplace_back(std::string(it->key()), std::string(it->value()));
  }
  *status = it->status();
  return seen;
}

// --- raw mode ---

void FuzzRawFile(const std::string& bytes) {
  for (bool use_filters : {true, false}) {
    std::unique_ptr<TableReader> table;
    const Status open = OpenBytes(bytes, use_filters, &table);
    if (!open.ok()) {
      FUZZ_CHECK(open.IsCorruption(), "a bad file is Corruption");
      FUZZ_CHECK(!open.message().empty(), "an error says what is wrong");
      continue;
    }
    FUZZ_CHECK(table->file_size() == bytes.size(), "file_size is the file's size");
    for (size_t b = 0; b < table->num_blocks(); ++b) (void)table->block(b);
    (void)table->filter_memory();

    Status walk_status;
    const auto seen = Walk(*table, 10000, &walk_status);
    if (!walk_status.ok()) CheckError(walk_status, "a failed walk reports an error");
    // A file with forged checksums may repeat a key across blocks or carry a
    // filter of other keys, so Get may miss an iterated key; but whatever
    // Get returns must be in the file.
    std::multimap<std::string, std::string> in_file(seen.begin(), seen.end());
    for (const auto& [key, value] : Sample(seen)) {
      std::string got;
      const Status s = table->Get(key, &got);
      if (s.ok()) {
        const auto [first, last] = in_file.equal_range(key);
        FUZZ_CHECK(std::any_of(first, last, [&](const auto& kv) { return kv.second == got; }),
                   "Get returns a value the iterator saw for that key");
      } else if (!s.IsNotFound()) {
        CheckError(s, "Get fails only with an error");
      }
    }
    std::string got;
    const std::string_view probes[] = {"", "\xff\xff\xff\xff", std::string_view(bytes).substr(0, 12)};
    for (std::string_view probe : probes) {
      const Status s = table->Get(probe, &got);
      if (!s.ok() && !s.IsNotFound()) CheckError(s, "Get fails only with an error");
      auto it = table->NewIterator();
      it->Seek(probe);
      if (it->Valid()) FUZZ_CHECK(it->key() >= probe, "Seek lands at or after its target");
    }
  }
}

// --- written mode ---

struct Written {
  Entries entries;
  std::vector<std::string> absent;
  TableWriterOptions options;
};

Written ChooseTable(FuzzedDataProvider& in) {
  Written w;
  w.options.block_size = in.ConsumeIntegralInRange<size_t>(1, 4096);
  w.options.compress = in.ConsumeBool();
  w.options.filter_mode = static_cast<FilterMode>(in.ConsumeIntegralInRange<uint8_t>(0, 2));
  // A linebloom format in a table of format 2: blocked512 (self-describing),
  // line pair (parameters once per table, k chosen or fixed) or the compact
  // kind (its own trailer; a build it cannot finish is a Bloom filter).
  const FilterOptions filter_options{.bits_per_key = in.ConsumeFloatingPointInRange<double>(1.0, 24.0),
                                     .num_probes = in.ConsumeIntegralInRange<int>(0, 24),
                                     .seed = in.ConsumeIntegral<uint32_t>()};
  if (in.ConsumeBool()) {
    w.options.filter_policy = NewLinebloomBlocked512Policy(filter_options);
  } else {
    w.options.filter_policy =
        in.ConsumeBool() ? NewLinebloomCompactPolicy(filter_options) : NewLinebloomLinePairPolicy(filter_options);
  }
  w.options.sync_on_finish = in.ConsumeBool();
  // Bulk entries give multi-block tables from short inputs; values repeat
  // their key so LZ4 has something to compress.
  const uint16_t bulk = in.ConsumeIntegralInRange<uint16_t>(0, 150);
  const size_t value_len = in.ConsumeIntegralInRange<size_t>(0, 100);
  for (uint16_t i = 0; i < bulk; ++i) {
    std::string key = std::string("row").append(std::to_string(i * 7));
    std::string value;
    while (value.size() < value_len) value.append(key);
    w.entries.emplace(std::move(key), std::move(value));
  }
  const size_t own = in.ConsumeIntegralInRange<size_t>(0, 64);
  for (size_t i = 0; i < own && in.remaining_bytes() > 0; ++i) {
    std::string key = in.ConsumeRandomLengthString(40);
    if (in.ConsumeBool()) w.absent.push_back(std::move(key));
    else w.entries[key] = in.ConsumeRandomLengthString(200);
  }
  std::erase_if(w.absent, [&](const std::string& k) { return w.entries.count(k) > 0; });
  w.absent.push_back("row");  // below, between and above the bulk keys
  w.absent.push_back("row35x");
  w.absent.push_back("zzz");
  std::erase_if(w.absent, [&](const std::string& k) { return w.entries.count(k) > 0; });
  return w;
}

std::string WriteTable(const Written& w) {
  std::string bytes;
  std::unique_ptr<TableWriter> writer;
  Status s = TableWriter::Open(NewStringWritableFile(&bytes, "fuzz.sst"), w.options, &writer);
  FUZZ_CHECK(s.ok(), "the writer accepts the options");
  for (const auto& [key, value] : w.entries) {
    s = writer->Add(key, value);
    FUZZ_CHECK(s.ok(), "the writer accepts sorted unique entries");
  }
  s = writer->Finish();
  FUZZ_CHECK(s.ok(), "Finish succeeds on a working file");
  FUZZ_CHECK(writer->file_size() == bytes.size(), "file_size is what was written");
  return bytes;
}

void CheckExact(const Written& w, const std::string& bytes) {
  for (bool use_filters : {true, false}) {
    std::unique_ptr<TableReader> table;
    const Status open = OpenBytes(bytes, use_filters, &table);
    FUZZ_CHECK(open.ok(), "a table just written opens");
    FUZZ_CHECK(table->num_entries() == w.entries.size(), "num_entries");
    FUZZ_CHECK(table->format_version() == 2, "the writer writes table format 2");
    if (table->filter_in_use() && !w.entries.empty()) {
      FUZZ_CHECK(table->filter_memory() > 0, "a table with filters in use accounts for their bytes");
    }
    FUZZ_CHECK(table->filter_mode() == w.options.filter_mode, "filter_mode recorded");
    FUZZ_CHECK(table->filter_in_use() == (use_filters && w.options.filter_mode != FilterMode::kNone),
               "filters in use exactly when present and wanted");
    std::string got;
    for (const auto& [key, value] : Sample(w.entries)) {
      FUZZ_CHECK(table->Get(key, &got).ok(), "every written key is found");
      FUZZ_CHECK(got == value, "with its value");
    }
    for (const std::string& key : w.absent) FUZZ_CHECK(table->Get(key, &got).IsNotFound(), "absent keys are NotFound");

    Status walk_status;
    const auto seen = Walk(*table, w.entries.size() + 1, &walk_status);
    FUZZ_CHECK(walk_status.ok(), "the walk succeeds");
    FUZZ_CHECK(seen.size() == w.entries.size(), "the walk sees every entry once");
    FUZZ_CHECK(std::equal(seen.begin(), seen.end(), w.entries.begin(),
                          [](const auto& a, const auto& b) { return a.first == b.first && a.second == b.second; }),
               "in key order, with their values");

    auto it = table->NewIterator();
    for (const std::string& target : w.absent) {
      it->Seek(target);
      const auto expected = w.entries.lower_bound(target);
      FUZZ_CHECK(it->Valid() == (expected != w.entries.end()), "Seek past the end is not Valid");
      if (it->Valid()) FUZZ_CHECK(it->key() == expected->first, "Seek finds the first key >= target");
    }
  }
}

void CheckNoWrongData(const Written& w, const std::string& bytes) {
  for (bool use_filters : {true, false}) {
    std::unique_ptr<TableReader> table;
    const Status open = OpenBytes(bytes, use_filters, &table);
    if (!open.ok()) {
      CheckError(open, "a damaged table fails to open with an error");
      continue;
    }
    std::string got;
    for (const auto& [key, value] : Sample(w.entries)) {
      const Status s = table->Get(key, &got);
      if (s.ok()) FUZZ_CHECK(got == value, "a damaged table never returns a wrong value");
      else CheckError(s, "a written key in a damaged table is found or an error, never NotFound");
    }
    Status walk_status;
    for (const auto& [key, value] : Walk(*table, w.entries.size() + 1, &walk_status)) {
      const auto expected = w.entries.find(key);
      FUZZ_CHECK(expected != w.entries.end() && expected->second == value,
                 "a damaged table's iterator yields only written entries");
    }
    if (!walk_status.ok()) CheckError(walk_status, "a failed walk reports an error");
  }
}

void FuzzWrittenTable(FuzzedDataProvider& in) {
  const Written w = ChooseTable(in);
  std::string bytes = WriteTable(w);
  CheckExact(w, bytes);
  const int flips = in.ConsumeIntegralInRange<int>(0, 8);
  for (int i = 0; i < flips; ++i) {
    const size_t at = in.ConsumeIntegralInRange<size_t>(0, bytes.size() - 1);
    const uint8_t mask = in.ConsumeIntegralInRange<uint8_t>(1, 255);
    bytes[at] = static_cast<char>(bytes[at] ^ mask);
  }
  if (flips > 0) CheckNoWrongData(w, bytes);
}

}  // namespace
}  // namespace linebloom::sstable

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linebloom::sstable;
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    FuzzRawFile(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  } else {
    FuzzedDataProvider in(data + 1, size - 1);
    FuzzWrittenTable(in);
  }
  return 0;
}
