// Writes a micro-SSTable in memory through an installed linebloom::sstable
// and reads one key back.
#include <cstdio>
#include <memory>
#include <string>

#include "linebloom/sstable/table_reader.h"
#include "linebloom/sstable/table_writer.h"

int main() {
  using namespace linebloom::sstable;
  std::string bytes;
  std::unique_ptr<TableWriter> writer;
  if (!TableWriter::Open(linebloom::NewStringWritableFile(&bytes), TableWriterOptions(), &writer).ok()) return 1;
  if (!writer->Add("installed", "yes").ok() || !writer->Finish().ok()) return 2;
  std::unique_ptr<TableReader> reader;
  if (!TableReader::Open(linebloom::NewMemoryFile("consumer.sst", bytes), TableReaderOptions(), &reader).ok()) {
    return 3;
  }
  std::string value;
  if (!reader->Get("installed", &value).ok() || value != "yes") return 4;
  if (!reader->Get("absent", &value).IsNotFound()) return 5;
  std::puts("sstable consumer: ok");
  return 0;
}
