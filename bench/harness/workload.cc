// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "workload.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>

namespace linebloom::harness {
namespace {

std::string HexKey(uint64_t x) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "user%016llx", static_cast<unsigned long long>(x));
  return buf;
}

bool Contains(const std::vector<std::string>& sorted, const std::string& key) {
  return std::binary_search(sorted.begin(), sorted.end(), key);
}

void SamplePresent(Workload* w, size_t num_lookups, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, w->keys.size() - 1);
  w->present.reserve(num_lookups);
  for (size_t i = 0; i < num_lookups; ++i) w->present.push_back(pick(rng));
}

}  // namespace

Workload GenerateWorkload(size_t num_keys, size_t num_lookups, uint64_t seed) {
  Workload w;
  w.source = "generated (seed " + std::to_string(seed) + ")";
  std::mt19937_64 rng(seed);
  w.keys.reserve(num_keys);
  while (w.keys.size() < num_keys) {
    const size_t want = num_keys - w.keys.size();
    for (size_t i = 0; i < want; ++i) w.keys.push_back(HexKey(rng()));
    std::sort(w.keys.begin(), w.keys.end());
    w.keys.erase(std::unique(w.keys.begin(), w.keys.end()), w.keys.end());
  }
  w.absent.reserve(num_lookups);
  while (w.absent.size() < num_lookups) {
    std::string key = HexKey(rng());
    if (!Contains(w.keys, key)) w.absent.push_back(std::move(key));
  }
  if (num_keys > 0) SamplePresent(&w, num_lookups, rng);
  return w;
}

bool LoadWorkload(const std::string& path, size_t num_lookups, uint64_t seed, Workload* w, std::string* error) {
  *w = Workload{};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open key file " + path;
    return false;
  }
  w->source = path;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) w->keys.push_back(line);
  }
  if (in.bad()) {
    *error = "error reading key file " + path;
    return false;
  }
  std::sort(w->keys.begin(), w->keys.end());
  w->keys.erase(std::unique(w->keys.begin(), w->keys.end()), w->keys.end());
  if (w->keys.empty()) {
    *error = "key file " + path + " holds no keys";
    return false;
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, w->keys.size() - 1);
  w->absent.reserve(num_lookups);
  for (uint64_t attempt = 0; w->absent.size() < num_lookups; ++attempt) {
    if (attempt > 100 * num_lookups + 1000) {
      *error = "could not make absent keys from " + path;
      return false;
    }
    std::string key = w->keys[pick(rng)];
    key.append("#absent").append(std::to_string(rng() % 1000000));
    if (!Contains(w->keys, key)) w->absent.push_back(std::move(key));
  }
  SamplePresent(w, num_lookups, rng);
  return true;
}

std::string ValueFor(size_t i, size_t size) {
  static constexpr char kBoilerplate[] = "{\"status\":\"active\",\"region\":\"eu-west\",\"tier\":\"standard\"}";
  std::string v;
  v.reserve(size);
  uint64_t x = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  while (v.size() < size / 2) {
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
    v.push_back(static_cast<char>('0' + (x % 75)));
  }
  while (v.size() < size) v.push_back(kBoilerplate[v.size() % (sizeof(kBoilerplate) - 1)]);
  return v;
}

}  // namespace linebloom::harness
