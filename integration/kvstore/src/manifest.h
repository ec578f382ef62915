// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The MANIFEST names the live runs (newest first), the log to replay and the
// next file number. It is replaced whole: write MANIFEST.tmp, fsync, rename
// over MANIFEST, fsync the directory; so a crash at any point leaves the old
// or the new state. Byte layout: docs/KVSTORE.md, "MANIFEST". Internal header.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/kvstore/env.h"

namespace linebloom::kvstore::internal {

inline constexpr std::string_view kManifestMagic = "LBKVMANI";
inline constexpr uint32_t kManifestVersion = 1;

// What the MANIFEST records about one run.
struct RunMeta {
  uint64_t file_number = 0;
  uint32_t level = 0;
  uint64_t num_entries = 0;
  uint64_t table_size = 0;   // bytes of NNNNNN.sst
  uint64_t filter_size = 0;  // bytes of NNNNNN.lbf; 0 = the run has no run filter
  std::string smallest;      // first and last key of the run
  std::string largest;
};

struct ManifestState {
  uint64_t next_file_number = 1;
  uint64_t log_number = 0;    // the one log to replay
  std::vector<RunMeta> runs;  // newest first
};

std::string EncodeManifest(const ManifestState& state);
// Corruption (naming `name`) for bad magic, checksum, lengths or an
// impossible state; NotSupported for a newer version.
Status DecodeManifest(const std::string& name, std::string_view bytes, ManifestState* state);

// NotFound when the directory has no MANIFEST.
Status ReadManifest(Env* env, const std::string& dir, ManifestState* state);

// Atomically replaces the MANIFEST. *renamed tells whether the rename over
// MANIFEST happened: after a failure with *renamed true the directory may hold
// the old or the new state, so neither's files may be deleted.
Status InstallManifest(Env* env, const std::string& dir, const ManifestState& state, bool* renamed);

}  // namespace linebloom::kvstore::internal
