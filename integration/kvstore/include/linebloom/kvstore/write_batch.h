// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Puts and deletes applied atomically: one write-ahead-log record and one
// fsync for the whole batch (group commit). Later operations on the same key
// win.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace linebloom::kvstore {

class WriteBatch {
 public:
  WriteBatch();
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);
  void Clear();

  uint32_t Count() const;
  // The encoded payload (docs/KVSTORE.md, "WAL"): what the log stores.
  const std::string& rep() const { return rep_; }

 private:
  std::string rep_;
};

}  // namespace linebloom::kvstore
