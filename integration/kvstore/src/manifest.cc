// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "manifest.h"

#define XXH_INLINE_ALL  // header-only XXH3, as the rest of linebloom uses it
#include <xxhash.h>

#include <set>

#include "file_names.h"
#include "linebloom/foundation/coding.h"
#include "linebloom/kvstore/kv_store.h"

namespace linebloom::kvstore::internal {

std::string EncodeManifest(const ManifestState& state) {
  std::string out(kManifestMagic);
  PutFixed32(&out, kManifestVersion);
  PutFixed64(&out, state.next_file_number);
  PutFixed64(&out, state.log_number);
  PutFixed32(&out, static_cast<uint32_t>(state.runs.size()));
  for (const RunMeta& r : state.runs) {
    PutFixed64(&out, r.file_number);
    PutFixed32(&out, r.level);
    PutFixed64(&out, r.num_entries);
    PutFixed64(&out, r.table_size);
    PutFixed64(&out, r.filter_size);
    PutFixed32LengthPrefixed(&out, r.smallest);
    PutFixed32LengthPrefixed(&out, r.largest);
  }
  PutFixed64(&out, XXH3_64bits(out.data(), out.size()));
  return out;
}

Status DecodeManifest(const std::string& name, std::string_view bytes, ManifestState* state) {
  auto corrupt = [&](const std::string& why) { return Status::Corruption(name + ": " + why); };
  if (bytes.size() < kManifestMagic.size() + 4 || bytes.substr(0, kManifestMagic.size()) != kManifestMagic) {
    return corrupt("not a linebloom-kv MANIFEST (bad magic)");
  }
  // The version is checked before the checksum: a newer layout may checksum
  // differently, and "too new" is the more useful message.
  const uint32_t version = DecodeFixed32(bytes.data() + kManifestMagic.size());
  if (version != kManifestVersion) {
    return Status::NotSupported(std::string(name)
                                    .append(": MANIFEST version ")
                                    .append(std::to_string(version))
                                    .append(" (this build reads version 1)"));
  }
  if (bytes.size() < kManifestMagic.size() + 4 + 8) return corrupt("truncated");
  const std::string_view body = bytes.substr(0, bytes.size() - 8);
  if (XXH3_64bits(body.data(), body.size()) != DecodeFixed64(bytes.data() + body.size())) {
    return corrupt("checksum mismatch");
  }

  Decoder in(body.substr(kManifestMagic.size() + 4));
  ManifestState s;
  uint32_t num_runs = 0;
  if (!in.GetFixed64(&s.next_file_number) || !in.GetFixed64(&s.log_number) || !in.GetFixed32(&num_runs)) {
    return corrupt("truncated header");
  }
  if (num_runs > body.size()) return corrupt("impossible run count");
  std::set<uint64_t> numbers{s.log_number};
  for (uint32_t i = 0; i < num_runs; ++i) {
    RunMeta r;
    std::string_view smallest, largest;
    if (!in.GetFixed64(&r.file_number) || !in.GetFixed32(&r.level) || !in.GetFixed64(&r.num_entries) ||
        !in.GetFixed64(&r.table_size) || !in.GetFixed64(&r.filter_size) ||
        !in.GetFixed32LengthPrefixed(kMaxKeySize, &smallest) || !in.GetFixed32LengthPrefixed(kMaxKeySize, &largest)) {
      return corrupt(std::string("truncated run ").append(std::to_string(i)));
    }
    r.smallest.assign(smallest);
    r.largest.assign(largest);
    if (r.level >= static_cast<uint32_t>(kMaxLevels)) return corrupt("run level out of range");
    if (r.num_entries == 0 || r.largest < r.smallest) return corrupt("run with an impossible key range");
    if (!numbers.insert(r.file_number).second || r.file_number >= s.next_file_number) {
      return corrupt(std::string("run ")
                         .append(std::to_string(r.file_number))
                         .append(" has a duplicate or unallocated file number"));
    }
    s.runs.push_back(std::move(r));
  }
  if (!in.empty()) return corrupt("bytes after the last run");
  if (s.log_number >= s.next_file_number) return corrupt("log number not yet allocated");
  *state = std::move(s);
  return Status::Ok();
}

Status ReadManifest(Env* env, const std::string& dir, ManifestState* state) {
  const std::string name = ManifestFileName(dir);
  std::string bytes;
  if (Status s = env->ReadFileToString(name, &bytes); !s.ok()) return s;
  return DecodeManifest(name, bytes, state);
}

Status InstallManifest(Env* env, const std::string& dir, const ManifestState& state, bool* renamed) {
  *renamed = false;
  const std::string tmp = ManifestTempFileName(dir);
  {
    std::unique_ptr<WritableFile> file;
    if (Status s = env->NewWritableFile(tmp, &file); !s.ok()) return s;
    if (Status s = file->Append(EncodeManifest(state)); !s.ok()) return s;
    if (Status s = file->Sync(); !s.ok()) return s;
    if (Status s = file->Close(); !s.ok()) return s;
  }
  if (Status s = env->RenameFile(tmp, ManifestFileName(dir)); !s.ok()) return s;
  *renamed = true;
  return env->SyncDir(dir);
}

}  // namespace linebloom::kvstore::internal
