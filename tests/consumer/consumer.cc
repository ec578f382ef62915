// Builds a filter through an installed linebloom and checks one key each way.
#include <cstdio>

#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"

int main() {
  linebloom::FilterBuilder builder;
  builder.AddKey("installed");
  const std::string bytes = builder.Finish();
  linebloom::FilterReader reader;
  if (!linebloom::FilterReader::Parse(bytes, &reader).ok()) return 1;
  if (!reader.MayContain("installed")) return 2;
  std::puts("consumer: ok");
  return 0;
}
