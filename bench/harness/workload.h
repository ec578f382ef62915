// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The keys and values of a harness run: N present keys (generated from a
// seed, or read from a file one per line), M absent keys guaranteed not to be
// among them, and M present keys to look up, all reproducible from the seed.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace linebloom::harness {

struct Workload {
  std::vector<std::string> keys;    // sorted, distinct: the table's keys
  std::vector<std::string> absent;  // lookups of keys not in the table
  std::vector<size_t> present;      // lookups of keys[present[i]]
  std::string source;               // "generated (seed S)" or the file name
};

// N keys "user" + 16 hex digits of a seeded 64-bit generator (20 bytes),
// absent keys of the same form: they interleave with the present ones
// uniformly, so lookups land in every block.
Workload GenerateWorkload(size_t num_keys, size_t num_lookups, uint64_t seed);

// Keys from `path`, one per line (a trailing '\r' is dropped, empty lines
// and duplicates are skipped). Absent keys are present keys with a suffix,
// so they land next to real keys, inside their blocks' ranges. Returns false
// with *error set if the file cannot be read or holds no key.
bool LoadWorkload(const std::string& path, size_t num_lookups, uint64_t seed, Workload* workload, std::string* error);

// The value stored with key number i: `size` bytes, half of them shared
// boilerplate (as rows of a table often are) so that LZ4 finds something.
std::string ValueFor(size_t i, size_t size);

}  // namespace linebloom::harness
