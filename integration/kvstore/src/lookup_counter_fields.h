// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The counters of LookupCounters as one list: name and member, in the order
// of the STATS file and of the JSON output. Summing, the atomic copy, the
// STATS file and the JSON all walk this list, so a counter added here is
// added everywhere at once. Internal header.

#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "linebloom/kvstore/stats.h"

namespace linebloom::kvstore::internal {

struct LookupCounterField {
  std::string_view name;  // its key in `linebloom-kv DIR stats`
  uint64_t LookupCounters::*member;
};

// The order and the count are part of the STATS file format (stats_file.h).
inline constexpr std::array<LookupCounterField, 10> kLookupCounterFields = {{
    {"lookups", &LookupCounters::lookups},
    {"range_skips", &LookupCounters::range_skips},
    {"run_filter_checks", &LookupCounters::run_filter_checks},
    {"run_filter_negatives", &LookupCounters::run_filter_negatives},
    {"block_filter_checks", &LookupCounters::block_filter_checks},
    {"block_filter_negatives", &LookupCounters::block_filter_negatives},
    {"block_reads", &LookupCounters::block_reads},
    {"bytes_read", &LookupCounters::bytes_read},
    {"false_positives", &LookupCounters::false_positives},
    {"hits", &LookupCounters::hits},
}};

}  // namespace linebloom::kvstore::internal
