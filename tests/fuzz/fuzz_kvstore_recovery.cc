// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Fuzz target: the key-value store's recovery (KvStore::Open) on arbitrary
// log bytes, and on arbitrary MANIFEST bytes. The store lives in a MemoryEnv
// (no disk: thousands of opens a second). Input format:
// kvstore_recovery_input.h. Properties, besides no crash and no sanitizer
// report:
//
//  - Log modes: Open does exactly what an independent model of
//    docs/KVSTORE.md's recovery rules (kv_log_model.h) says: it fails with
//    Corruption (or NotSupported for another version byte), with a message,
//    exactly when the model does; when it opens, the store holds exactly the
//    model's keys and values (Scan == model, Get == model for every key the
//    log or the base run touched), and Stats() counts the replayed records
//    and dropped bytes the model counts.
//  - Structured mode, without the model: every well-formed record before the
//    first damaged byte is recovered (records replayed >= the valid prefix),
//    and a torn or zero-filled tail never fails Open and loses only itself.
//  - Reopen (flag): after one more Put and Close, the store reopens with that
//    Put and everything before it, and nothing dropped: a torn tail was cut
//    off before new records were appended.
//  - MANIFEST mode: Open fails with a Corruption/NotSupported message or
//    opens; an open store's Get agrees with its Scan, and the unmodified
//    MANIFEST gives back the base state.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_check.h"
#include "kv_log_model.h"
#include "kvstore_recovery_input.h"
#include "linebloom/kvstore/kv_store.h"
#include "memory_env.h"
#include "recovery_store.h"

namespace linebloom::fuzz {
namespace {

using kvstore::KvStore;
using recovery_input::Mode;
using recovery_input::Tail;

const PreparedStore& Prepared(bool base_run) {
  static const PreparedStore without = PrepareStore(false);
  static const PreparedStore with = PrepareStore(true);
  return base_run ? with : without;
}

kvlog::State ScanAll(const KvStore& db) {
  std::vector<std::pair<std::string, std::string>> entries;
  const Status s = db.Scan("", std::nullopt, &entries);
  FUZZ_CHECK(s.ok(), "a store that opened scans without error");
  kvlog::State state;
  for (auto& [k, v] : entries) {
    FUZZ_CHECK(state.empty() || state.rbegin()->first < k, "Scan returns keys in strictly increasing order");
    state.emplace(std::move(k), std::move(v));
  }
  return state;
}

// The store holds exactly `expected`: Scan equals it, and Get agrees for
// every key in it and for every key in `touched` (absent ones NotFound).
void CheckHolds(const KvStore& db, const kvlog::State& expected, const std::set<std::string>& touched) {
  FUZZ_CHECK(ScanAll(db) == expected, "the recovered store holds exactly the model's keys and values");
  std::string value;
  for (const std::string& key : touched) {
    const Status s = db.Get(key, &value);
    auto it = expected.find(key);
    if (it == expected.end()) {
      FUZZ_CHECK(s.IsNotFound(), "a deleted or never-written key is NotFound");
    } else {
      FUZZ_CHECK(s.ok(), "Get finds a recovered key");
      FUZZ_CHECK(value == it->second, "Get returns the recovered value");
    }
  }
}

void CheckOpenError(const Status& s) {
  FUZZ_CHECK(!s.ok(), "an error");
  FUZZ_CHECK(s.IsCorruption() || s.IsNotSupported(), "damaged store files give Corruption or NotSupported");
  FUZZ_CHECK(!s.message().empty(), "an error says what is wrong");
}

kvstore::Options StoreOptions(MemoryEnv* env, uint8_t flags) {
  kvstore::Options options;
  options.env = env;
  options.create_if_missing = false;
  if (flags & recovery_input::kSmallWriteBuffer) options.write_buffer_size = 256;
  return options;
}

void AddTouched(const std::vector<kvlog::Batch>& batches, std::set<std::string>* touched) {
  for (const kvlog::Batch& b : batches) {
    for (const kvlog::Op& op : b) touched->insert(op.key);
  }
}

// Log modes: the store against the model.
void FuzzLog(uint8_t flags, recovery_input::ByteSource* in) {
  const bool base_run = (flags & recovery_input::kBaseRun) != 0;
  const PreparedStore& prepared = Prepared(base_run);

  std::optional<recovery_input::StructuredLog> structured;
  std::string log;
  if (recovery_input::ModeOf(flags) == Mode::kStructured) {
    structured = recovery_input::ReadStructuredLog(in);
    log = structured->log;
  } else {
    log = in->Rest();
  }

  const kvlog::State base = base_run ? BaseKeys() : kvlog::State{};
  kvlog::State expected = base;
  const kvlog::Replay model = kvlog::ReplayLog(log, &expected);

  MemoryEnv env;
  env.SetFiles(prepared.files);
  env.SetFile(prepared.log_path, log);
  const kvstore::Options options = StoreOptions(&env, flags);
  std::unique_ptr<KvStore> db;
  const Status s = KvStore::Open(kStoreDir, options, &db);

  if (structured && (structured->tail == Tail::kTorn || structured->tail == Tail::kZeros)) {
    FUZZ_CHECK(s.ok(), "a torn or zero-filled last record never fails Open");
  }
  if (model.outcome != kvlog::Outcome::kOk) {
    CheckOpenError(s);
    FUZZ_CHECK(s.IsNotSupported() == (model.outcome == kvlog::Outcome::kNotSupported),
               "NotSupported exactly for another log version");
    return;
  }
  FUZZ_CHECK(s.ok(), "Open accepts a log the recovery rules accept");

  const kvstore::StoreStats stats = db->Stats();
  FUZZ_CHECK(stats.wal_records_replayed == model.records, "Stats counts the records replayed");
  FUZZ_CHECK(stats.wal_bytes_dropped == model.dropped, "Stats counts the torn bytes dropped");
  std::set<std::string> touched;
  for (const auto& [k, v] : base) touched.insert(k);
  if (structured) {
    // The model-free property: nothing well-formed before the damage is lost.
    FUZZ_CHECK(stats.wal_records_replayed >= structured->prefix.size(),
               "every well-formed record before the first damaged byte is recovered");
    AddTouched(structured->prefix, &touched);
    if (structured->tail != Tail::kDamage && structured->tail != Tail::kFlipped) {
      kvlog::State prefix_state = base;
      for (const kvlog::Batch& b : structured->prefix) kvlog::Apply(b, &prefix_state);
      FUZZ_CHECK(ScanAll(*db) == prefix_state, "a torn tail loses only itself");
    }
  }
  CheckHolds(*db, expected, touched);

  if (flags & recovery_input::kReopen) {
    const std::string key = "~after-recovery";
    FUZZ_CHECK(db->Put(key, "new").ok(), "a recovered store takes writes");
    FUZZ_CHECK(db->Close().ok(), "a recovered store closes cleanly");
    db.reset();
    expected[key] = "new";
    touched.insert(key);
    const Status again = KvStore::Open(kStoreDir, options, &db);
    FUZZ_CHECK(again.ok(), "a store reopens after a write that followed recovery");
    FUZZ_CHECK(db->Stats().wal_bytes_dropped == 0, "a torn tail was cut off before the next record");
    CheckHolds(*db, expected, touched);
  }
}

// MANIFEST mode: arbitrary bytes as the MANIFEST over a valid empty log.
void FuzzManifest(uint8_t flags, recovery_input::ByteSource* in) {
  const bool base_run = (flags & recovery_input::kBaseRun) != 0;
  const PreparedStore& prepared = Prepared(base_run);
  const std::string manifest = in->Rest();

  MemoryEnv env;
  env.SetFiles(prepared.files);
  env.SetFile(prepared.manifest_path, manifest);
  std::unique_ptr<KvStore> db;
  const Status s = KvStore::Open(kStoreDir, StoreOptions(&env, flags), &db);
  const bool unchanged = manifest == prepared.files.at(prepared.manifest_path);
  if (unchanged) FUZZ_CHECK(s.ok(), "the store's own MANIFEST opens");
  if (!s.ok()) {
    CheckOpenError(s);
    return;
  }
  const kvlog::State state = ScanAll(*db);
  if (unchanged) {
    FUZZ_CHECK(state == (base_run ? BaseKeys() : kvlog::State{}), "the store's own MANIFEST gives back its state");
  }
  // A MANIFEST with a forged checksum may name a wrong key range for a run
  // (Open does not read a whole run to check it), so a Get may miss a key
  // Scan shows; but it must never return another value.
  std::string value;
  for (const auto& [k, v] : state) {
    const Status g = db->Get(k, &value);
    FUZZ_CHECK(g.ok() || g.IsNotFound(), "Get on an open store fails only as NotFound here");
    if (g.ok()) FUZZ_CHECK(value == v, "Get and Scan agree on a key's value");
  }
}

}  // namespace
}  // namespace linebloom::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linebloom::fuzz;
  recovery_input::ByteSource in(std::span<const uint8_t>(data, size));
  const uint8_t flags = in.Byte();
  if (recovery_input::ModeOf(flags) == recovery_input::Mode::kRawManifest) {
    FuzzManifest(flags, &in);
  } else {
    FuzzLog(flags, &in);
  }
  return 0;
}
