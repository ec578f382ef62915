// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Many small filters as RocksDB holds them -- one per SST (a full filter)
// or per partition -- each built through its policy's FilterBitsBuilder and
// read back from its own heap buffer (PolicyBackedFilter), and the query
// streams that pick a random filter for every query, as each level of a
// lookup does. Filter i holds keys [i * keys_per_filter, (i + 1) *
// keys_per_filter) of KeySet's numbering, so a present key of any filter is
// known without keeping the keys.

#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <rocksdb/filter_policy.h>

#include "key_set.h"
#include "policy_filter.h"

namespace linebloom::bench {

using FilterSet = std::vector<PolicyBackedFilter>;

// The same `num_filters` filters for each policy (format_version 5), built
// filter by filter and each time in the other order, so that no policy's
// filters all come first in the heap.
inline std::vector<FilterSet> BuildInterleaved(
    const std::vector<std::shared_ptr<const ::rocksdb::FilterPolicy>>& policies, size_t num_filters,
    size_t keys_per_filter, size_t key_length) {
  std::vector<FilterSet> sets(policies.size());
  for (FilterSet& set : sets) set.reserve(num_filters);
  for (size_t f = 0; f < num_filters; ++f) {
    const KeySet keys = KeySet::Range(f * keys_per_filter, keys_per_filter, key_length);
    for (size_t n = 0; n < policies.size(); ++n) {
      const size_t p = f % 2 == 0 ? n : policies.size() - 1 - n;
      sets[p].emplace_back(policies[p], 5);
      sets[p].back().Build(keys.views());
    }
  }
  return sets;
}

// Query keys and the filter each query (or each batch: keys [c * batch,
// (c + 1) * batch) go to filter[c]) is asked of, drawn uniformly.
struct QueryStream {
  KeySet keys;
  std::vector<uint32_t> filter;
};

// Keys no filter holds.
inline QueryStream AbsentQueries(size_t count, size_t num_filters, size_t key_length, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> filter(count);
  for (uint32_t& f : filter) f = static_cast<uint32_t>(rng() % num_filters);
  return {KeySet::Range(kAbsentBase + seed * count, count, key_length), std::move(filter)};
}

// Each query a random key of the filter it is asked of.
inline QueryStream PresentQueries(size_t count, size_t num_filters, size_t keys_per_filter, size_t key_length,
                                  uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> filter(count);
  std::vector<uint64_t> indices(count);
  for (size_t i = 0; i < count; ++i) {
    filter[i] = static_cast<uint32_t>(rng() % num_filters);
    indices[i] = filter[i] * keys_per_filter + rng() % keys_per_filter;
  }
  return {KeySet(indices, key_length), std::move(filter)};
}

}  // namespace linebloom::bench
