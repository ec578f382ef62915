// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The false-positive rate a filter of a given shape should have, for the
// harness's "predicted" column.
//
// A 512-bit-blocked Bloom filter with n keys in N blocks and k probes per key
// puts each key in a uniformly random block, so block occupancy i is
// Binomial(n, 1/N). Given i keys, the block has had k*i uniform bit throws;
// with X the number of distinct bits they set, an absent key's k independent
// probes all hit set bits with probability E[(X/512)^k]. Hence
//
//     FPR(n, N, k) = sum_i Binom(i; n, 1/N) * E[(X_{k i} / 512)^k]
//
// where the law of X_m follows exactly from the chain X_{m+1} = X_m + 1 with
// probability (512 - X_m)/512. For large N this is the Poisson mixture of
// linebloom::BlockedFpr; for the small filters of per-block mode it is not:
// a one-block filter holds exactly n keys, not Poisson(n) of them, and the
// Poisson form overstates its rate by 10-30 %.

#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace linebloom::harness {

class BlockedFprModel {
 public:
  // Expected FPR of a filter with `num_keys` distinct keys in `num_blocks`
  // 512-bit blocks and `num_probes` probes per key. 0 for an empty filter.
  double Fpr(uint64_t num_keys, uint64_t num_blocks, int num_probes);

  // E[(X_{k i}/512)^k]: the rate of one block holding exactly i keys.
  double BlockFpr(uint64_t keys_in_block, int num_probes);

 private:
  struct Chain {
    std::vector<double> bits_set;   // law of X after `throws` throws
    std::vector<double> hit_power;  // (x/512)^k
    std::vector<double> fpr_given;  // fpr_given[i] = E[(X_{k i}/512)^k]
  };
  Chain& ChainFor(int num_probes);
  void Extend(Chain& chain, int num_probes, uint64_t keys_in_block);

  std::map<int, Chain> chains_;
};

}  // namespace linebloom::harness
