// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// What point lookups really cost, counted by the table reader as it works.
// Identities that hold for any table with a filter in use:
//   filter_probes   = filter_negatives + block_reads
//   false_positives = unneeded_block_reads
// and without a filter, every lookup inside the key range reads one block.

#pragma once

#include <cstdint>

namespace linebloom::sstable {

struct LookupStats {
  uint64_t lookups = 0;
  // Lookups whose key fell in some block's range and whose filter was asked.
  uint64_t filter_probes = 0;
  // Probes the filter answered "certainly absent": a block read avoided.
  uint64_t filter_negatives = 0;
  uint64_t block_reads = 0;
  // Bytes the I/O layer transferred for those reads (whole aligned sectors
  // with O_DIRECT).
  uint64_t bytes_read = 0;
  // The filter said "maybe", the block was read, the key was not there.
  uint64_t false_positives = 0;
  // A block was read and did not hold the key, filter or no filter.
  uint64_t unneeded_block_reads = 0;

  LookupStats& operator+=(const LookupStats& o) {
    lookups += o.lookups;
    filter_probes += o.filter_probes;
    filter_negatives += o.filter_negatives;
    block_reads += o.block_reads;
    bytes_read += o.bytes_read;
    false_positives += o.false_positives;
    unneeded_block_reads += o.unneeded_block_reads;
    return *this;
  }
};

}  // namespace linebloom::sstable
