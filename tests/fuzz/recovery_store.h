// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The store fuzz_kvstore_recovery writes its log (or MANIFEST) into: created
// by the store itself in a MemoryEnv, optionally holding one run of 16 base
// keys, then closed. Shared with the seed generator, which needs the real
// MANIFEST bytes.

#pragma once

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "kv_log_model.h"
#include "linebloom/kvstore/kv_store.h"
#include "memory_env.h"

namespace linebloom::fuzz {

inline constexpr const char* kStoreDir = "/db";

// The keys the base run holds (the model's state before the log).
inline kvlog::State BaseKeys() {
  kvlog::State keys;
  for (int i = 0; i < 16; ++i) {
    const std::string k = std::string("base").append(std::to_string(10 + i));
    keys[k] = std::string("v-").append(k);
  }
  return keys;
}

struct PreparedStore {
  std::map<std::string, std::string> files;
  std::string log_path;  // the log the MANIFEST names
  std::string manifest_path;
};

// Aborts on failure: nothing the fuzzer chose is involved yet.
inline PreparedStore PrepareStore(bool base_run) {
  MemoryEnv env;
  kvstore::Options options;
  options.env = &env;
  auto must = [](const Status& s, const char* what) {
    if (!s.ok()) {
      std::fprintf(stderr, "PrepareStore: %s: %s\n", what, s.ToString().c_str());
      std::abort();
    }
  };
  {
    std::unique_ptr<kvstore::KvStore> db;
    must(kvstore::KvStore::Open(kStoreDir, options, &db), "open");
    if (base_run) {
      for (const auto& [k, v] : BaseKeys()) must(db->Put(k, v), "put");
      must(db->Flush(), "flush");
    }
    must(db->Close(), "close");
  }
  PreparedStore out;
  out.files = env.Files();
  out.manifest_path = std::string(kStoreDir) + "/MANIFEST";
  for (const auto& [path, contents] : out.files) {
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".log") == 0) {
      if (!out.log_path.empty()) must(Status::Corruption("two logs"), "find log");
      out.log_path = path;
    }
  }
  if (out.log_path.empty()) must(Status::Corruption("no log"), "find log");
  return out;
}

}  // namespace linebloom::fuzz
