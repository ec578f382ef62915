// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Writes the seed corpus of fuzz_sstable_reader (tests/fuzz/corpus/
// fuzz_sstable_reader/): valid micro-SSTables (table format 2) of every
// filter mode and both linebloom filter formats, with and without
// compression, behind the raw-mode byte (0x00), and a few inputs for the
// written mode (first byte 0x01). Deterministic. The table format 1 seeds
// (raw_v1_*) are the committed tests/sstable/testdata tables behind 0x00;
// this writer no longer writes that format and leaves them alone.
//
// Usage: fuzz_make_sstable_seeds CORPUS_DIR

#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "linebloom/foundation/file.h"
#include "linebloom/sstable/block_filter.h"
#include "linebloom/sstable/table_writer.h"

namespace {

namespace fs = std::filesystem;
using namespace linebloom::sstable;

std::string Table(int rows, FilterMode mode, bool compress, size_t block_size, bool blocked512 = false) {
  TableWriterOptions options;
  if (blocked512) options.filter_policy = NewLinebloomBlocked512Policy();
  options.filter_mode = mode;
  options.compress = compress;
  options.block_size = block_size;
  std::string bytes;
  std::unique_ptr<TableWriter> writer;
  if (!TableWriter::Open(linebloom::NewStringWritableFile(&bytes, "fuzz.sst"), options, &writer).ok()) std::abort();
  for (int i = 0; i < rows; ++i) {
    const std::string key = std::string("row").append(std::to_string(1000 + i));
    if (!writer->Add(key, std::string("value-of-").append(key)).ok()) std::abort();
  }
  if (!writer->Finish().ok()) std::abort();
  return bytes;
}

void Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Writes fuzz_sstable_reader's seed corpus (deterministic).");
  std::string corpus_dir;
  app.add_option("corpus_dir", corpus_dir, "corpus root (tests/fuzz/corpus)")->required();
  CLI11_PARSE(app, argc, argv);
  const fs::path dir = fs::path(corpus_dir) / "fuzz_sstable_reader";

  const std::string raw(1, '\0');
  Write(dir, "raw_empty_table", raw + Table(0, FilterMode::kPerBlock, true, 4096));
  Write(dir, "raw_per_block", raw + Table(60, FilterMode::kPerBlock, false, 256));
  Write(dir, "raw_per_block_lz4", raw + Table(60, FilterMode::kPerBlock, true, 512));
  Write(dir, "raw_per_file", raw + Table(40, FilterMode::kPerFile, false, 256));
  Write(dir, "raw_no_filter", raw + Table(40, FilterMode::kNone, true, 256));
  Write(dir, "raw_one_row", raw + Table(1, FilterMode::kPerBlock, false, 4096));
  Write(dir, "raw_per_block_16k", raw + Table(600, FilterMode::kPerBlock, false, 16384));
  Write(dir, "raw_blocked512_per_block", raw + Table(60, FilterMode::kPerBlock, false, 256, true));
  Write(dir, "raw_blocked512_per_file", raw + Table(40, FilterMode::kPerFile, true, 256, true));

  // Written mode reads parameters from the back of the input (libFuzzer's
  // FuzzedDataProvider), keys and values from the front.
  Write(dir, "written_small",
        std::string("\x01"
                    "alpha\\nbeta\\ngamma\\n",
                    20) +
            std::string(16, '\x07'));
  Write(dir, "written_bulk",
        std::string("\x01"
                    "k\\nv\\n",
                    7) +
            std::string("\x00\x00\x02\x40\x01\x90\x01\x01\x00", 9));
  return 0;
}
