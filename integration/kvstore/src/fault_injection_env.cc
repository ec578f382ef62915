// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "fault_injection_env.h"

#include <algorithm>
#include <random>

namespace linebloom::kvstore {
namespace {

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "verb name [detail]" for the operation log.
std::string Describe(std::string_view verb, const std::string& path, std::string_view detail = {}) {
  std::string out(verb);
  out.append(" ").append(BaseName(path));
  if (!detail.empty()) out.append(" ").append(detail);
  return out;
}

}  // namespace

// A writable file whose appends, syncs and close are numbered operations.
class FaultInjectionEnv::TrackedFile final : public WritableFile {
 public:
  TrackedFile(FaultInjectionEnv* env, std::unique_ptr<WritableFile> base) : env_(env), base_(std::move(base)) {}

  Status Append(std::string_view data) override {
    const std::string what = Describe("append", name(), std::to_string(data.size()));
    const Verdict v = env_->NextOp(what);
    if (v == Verdict::kFail) return env_->Refuse(what);
    if (v == Verdict::kCrashNow) {
      // A torn write: the first half reaches the file, then the process dies.
      const std::string_view half = data.substr(0, data.size() / 2);
      if (base_->Append(half).ok()) env_->OnAppend(name(), half.size());
      return env_->Refuse(what);
    }
    Status s = base_->Append(data);
    if (s.ok()) env_->OnAppend(name(), data.size());
    return s;
  }

  Status Sync() override {
    const std::string what = Describe("sync", name());
    if (const Verdict v = env_->NextOp(what); v != Verdict::kProceed) return env_->Refuse(what);
    Status s = base_->Sync();
    if (s.ok()) env_->OnSync(name());
    return s;
  }

  Status Close() override {
    const std::string what = Describe("close", name());
    if (const Verdict v = env_->NextOp(what); v != Verdict::kProceed) {
      // The descriptor is released either way; only the result is faked.
      (void)base_->Close();
      return env_->Refuse(what);
    }
    return base_->Close();
  }

  const std::string& name() const override { return base_->name(); }

 private:
  FaultInjectionEnv* const env_;
  std::unique_ptr<WritableFile> base_;
};

FaultInjectionEnv::FaultInjectionEnv(Env* base) : base_(base) {}
FaultInjectionEnv::~FaultInjectionEnv() = default;

void FaultInjectionEnv::Arm(uint64_t nth, FaultMode mode) {
  MutexLock lock(&mu_);
  ops_ = 0;
  fail_at_ = nth;
  mode_ = mode;
  fired_ = false;
  crashed_ = false;
  log_.clear();
}

void FaultInjectionEnv::Disarm() {
  MutexLock lock(&mu_);
  ops_ = 0;
  fail_at_ = 0;
  crashed_ = false;
  log_.clear();
}

uint64_t FaultInjectionEnv::op_count() const {
  MutexLock lock(&mu_);
  return ops_;
}

bool FaultInjectionEnv::fault_fired() const {
  MutexLock lock(&mu_);
  return fired_;
}

bool FaultInjectionEnv::crashed() const {
  MutexLock lock(&mu_);
  return crashed_;
}

std::vector<std::string> FaultInjectionEnv::op_log() const {
  MutexLock lock(&mu_);
  return log_;
}

FaultInjectionEnv::Verdict FaultInjectionEnv::NextOp(const std::string& what) {
  MutexLock lock(&mu_);
  if (crashed_) return Verdict::kFail;  // a dead process does no more I/O
  ++ops_;
  log_.push_back(what);
  if (fail_at_ == 0 || ops_ != fail_at_) return Verdict::kProceed;
  fired_ = true;
  log_.back().append(mode_ == FaultMode::kCrash ? "  <- crash" : "  <- error");
  if (mode_ == FaultMode::kCrash) {
    crashed_ = true;
    return Verdict::kCrashNow;
  }
  return Verdict::kFail;
}

Status FaultInjectionEnv::Refuse(const std::string& what) const {
  MutexLock lock(&mu_);
  return Status::IOError(std::string(crashed_ ? "simulated crash" : "injected error").append(": ").append(what));
}

void FaultInjectionEnv::OnAppend(const std::string& path, uint64_t bytes) {
  MutexLock lock(&mu_);
  files_[path].size += bytes;
}

void FaultInjectionEnv::OnSync(const std::string& path) {
  MutexLock lock(&mu_);
  FileState& f = files_[path];
  f.synced = f.size;
}

// Caller holds mu_. What of `path` would survive a power loss now.
std::string FaultInjectionEnv::DurableContents(const std::string& path) {
  std::string contents;
  if (!base_->ReadFileToString(path, &contents).ok()) return {};
  if (auto it = files_.find(path); it != files_.end() && it->second.synced < contents.size()) {
    contents.resize(it->second.synced);
  }
  return contents;
}

Status FaultInjectionEnv::NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) {
  const std::string what = Describe("create", path);
  if (const Verdict v = NextOp(what); v != Verdict::kProceed) return Refuse(what);
  std::unique_ptr<WritableFile> base;
  uint64_t old_size = 0;
  const bool existed = base_->GetFileSize(path, &old_size).ok();
  if (Status s = base_->NewWritableFile(path, &base); !s.ok()) return s;
  {
    MutexLock lock(&mu_);
    // Truncating an existing file changes its inode, not the directory: after
    // a power loss it holds what was synced since (nothing yet).
    files_[path] = FileState{};
    if (!existed) dir_ops_.push_back({DirOp::Kind::kCreate, DirOf(path), path, {}, std::nullopt});
  }
  *file = std::make_unique<TrackedFile>(this, std::move(base));
  return Status::Ok();
}

Status FaultInjectionEnv::NewAppendableFile(const std::string& path, std::unique_ptr<WritableFile>* file) {
  std::unique_ptr<WritableFile> base;
  uint64_t size = 0;
  if (Status s = base_->GetFileSize(path, &size); !s.ok()) return s;
  if (Status s = base_->NewAppendableFile(path, &base); !s.ok()) return s;
  {
    MutexLock lock(&mu_);
    // Bytes already there are taken as durable unless this Env wrote them.
    auto [it, inserted] = files_.try_emplace(path, FileState{size, size});
    if (!inserted) it->second.size = size;
  }
  *file = std::make_unique<TrackedFile>(this, std::move(base));
  return Status::Ok();
}

Status FaultInjectionEnv::NewRandomAccessFile(const std::string& path, IoMode mode,
                                              std::unique_ptr<RandomAccessFile>* file) {
  return base_->NewRandomAccessFile(path, mode, file);
}

Status FaultInjectionEnv::ReadFileToString(const std::string& path, std::string* contents) {
  return base_->ReadFileToString(path, contents);
}

Status FaultInjectionEnv::GetFileSize(const std::string& path, uint64_t* size) {
  return base_->GetFileSize(path, size);
}

Status FaultInjectionEnv::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  return base_->GetChildren(dir, names);
}

Status FaultInjectionEnv::CreateDirIfMissing(const std::string& dir) { return base_->CreateDirIfMissing(dir); }

Status FaultInjectionEnv::RenameFile(const std::string& from, const std::string& to) {
  const std::string what = Describe("rename", from, BaseName(to));
  if (const Verdict v = NextOp(what); v != Verdict::kProceed) return Refuse(what);
  std::optional<std::string> lost;
  uint64_t size = 0;
  {
    MutexLock lock(&mu_);
    if (base_->GetFileSize(to, &size).ok()) lost = DurableContents(to);
  }
  if (Status s = base_->RenameFile(from, to); !s.ok()) return s;
  MutexLock lock(&mu_);
  if (auto it = files_.find(from); it != files_.end()) {
    files_[to] = it->second;
    files_.erase(from);
  } else {
    files_.erase(to);
  }
  dir_ops_.push_back({DirOp::Kind::kRename, DirOf(to), to, from, std::move(lost)});
  return Status::Ok();
}

Status FaultInjectionEnv::RemoveFile(const std::string& path) {
  const std::string what = Describe("remove", path);
  if (const Verdict v = NextOp(what); v != Verdict::kProceed) return Refuse(what);
  std::optional<std::string> lost;
  {
    MutexLock lock(&mu_);
    lost = DurableContents(path);
  }
  if (Status s = base_->RemoveFile(path); !s.ok()) return s;
  MutexLock lock(&mu_);
  files_.erase(path);
  dir_ops_.push_back({DirOp::Kind::kRemove, DirOf(path), path, {}, std::move(lost)});
  return Status::Ok();
}

Status FaultInjectionEnv::TruncateFile(const std::string& path, uint64_t size) {
  const std::string what = Describe("truncate", path, std::to_string(size));
  if (const Verdict v = NextOp(what); v != Verdict::kProceed) return Refuse(what);
  if (Status s = base_->TruncateFile(path, size); !s.ok()) return s;
  MutexLock lock(&mu_);
  files_[path] = FileState{size, size};  // the base Env makes truncation durable
  return Status::Ok();
}

Status FaultInjectionEnv::SyncDir(const std::string& dir) {
  const std::string what = Describe("syncdir", dir);
  if (const Verdict v = NextOp(what); v != Verdict::kProceed) return Refuse(what);
  if (Status s = base_->SyncDir(dir); !s.ok()) return s;
  MutexLock lock(&mu_);
  std::erase_if(dir_ops_, [&](const DirOp& op) { return op.dir == dir; });
  return Status::Ok();
}

Status FaultInjectionEnv::LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) {
  return base_->LockFile(path, lock);
}

Status FaultInjectionEnv::SimulatePowerLoss(PowerLossMode mode, uint64_t seed) {
  MutexLock lock(&mu_);
  // 1. Unsynced appends are lost.
  for (const auto& [path, state] : files_) {
    uint64_t size = 0;
    if (state.synced < state.size && base_->GetFileSize(path, &size).ok() && size > state.synced) {
      if (Status s = base_->TruncateFile(path, state.synced); !s.ok()) return s;
    }
  }
  // 2. Unsynced directory entries are undone, newest first.
  std::mt19937_64 rng(seed);
  auto write_file = [&](const std::string& path, const std::string& contents) -> Status {
    std::unique_ptr<WritableFile> f;
    if (Status s = base_->NewWritableFile(path, &f); !s.ok()) return s;
    if (Status s = f->Append(contents); !s.ok()) return s;
    return f->Close();
  };
  for (auto it = dir_ops_.rbegin(); it != dir_ops_.rend(); ++it) {
    if (mode == PowerLossMode::kUndoRandomDirOps && (rng() & 1) == 0) continue;
    uint64_t size = 0;
    switch (it->kind) {
      case DirOp::Kind::kCreate:
        if (base_->GetFileSize(it->path, &size).ok()) {
          if (Status s = base_->RemoveFile(it->path); !s.ok()) return s;
        }
        break;
      case DirOp::Kind::kRename:
        if (base_->GetFileSize(it->path, &size).ok()) {
          if (Status s = base_->RenameFile(it->path, it->from); !s.ok()) return s;
        }
        if (it->lost_contents) {
          if (Status s = write_file(it->path, *it->lost_contents); !s.ok()) return s;
        }
        break;
      case DirOp::Kind::kRemove:
        if (it->lost_contents) {
          if (Status s = write_file(it->path, *it->lost_contents); !s.ok()) return s;
        }
        break;
    }
  }
  files_.clear();
  dir_ops_.clear();
  crashed_ = false;
  fail_at_ = 0;
  return Status::Ok();
}

}  // namespace linebloom::kvstore
