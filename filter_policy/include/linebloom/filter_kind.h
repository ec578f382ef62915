// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The kinds of linebloom filter: the blocked Bloom filter (filter_builder.h,
// the default) and the compact filter (compact_filter.h).

#pragma once

namespace linebloom {

enum class FilterKind { kUnknown, kBloom, kCompact };

}  // namespace linebloom
