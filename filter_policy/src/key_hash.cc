// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/key_hash.h"

#include "key_hash.h"

namespace linebloom {

uint64_t KeyHash(std::string_view key, uint32_t seed, KeyHashScheme scheme) {
  return internal::HashKey(key, seed, scheme);
}

}  // namespace linebloom
