// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "merging_iterator.h"

#include <algorithm>

namespace linebloom::kvstore::internal {
namespace {

class MemSource final : public EntrySource {
 public:
  explicit MemSource(std::vector<std::pair<std::string, MemEntry>> entries) : entries_(std::move(entries)) {}

  void Seek(std::string_view target) override {
    pos_ = static_cast<size_t>(
        std::lower_bound(entries_.begin(), entries_.end(), target,
                         [](const auto& e, std::string_view t) { return std::string_view(e.first) < t; }) -
        entries_.begin());
  }
  bool Valid() const override { return pos_ < entries_.size(); }
  void Next() override { ++pos_; }
  std::string_view key() const override { return entries_[pos_].first; }
  EntryKind kind() const override { return entries_[pos_].second.kind; }
  std::string_view value() const override { return entries_[pos_].second.value; }
  Status status() const override { return Status::Ok(); }

 private:
  std::vector<std::pair<std::string, MemEntry>> entries_;
  size_t pos_ = 0;
};

class RunSource final : public EntrySource {
 public:
  explicit RunSource(const Run& run) : it_(run.NewIterator()), name_(std::to_string(run.meta().file_number)) {}

  void Seek(std::string_view target) override {
    it_->Seek(target);
    Decode();
  }
  bool Valid() const override { return status_.ok() && it_->Valid(); }
  void Next() override {
    it_->Next();
    Decode();
  }
  std::string_view key() const override { return it_->key(); }
  EntryKind kind() const override { return kind_; }
  std::string_view value() const override { return value_; }
  Status status() const override { return status_.ok() ? it_->status() : status_; }

 private:
  void Decode() {
    if (!it_->Valid()) return;
    if (!DecodeTableValue(it_->value(), &kind_, &value_)) {
      status_ = Status::Corruption("run " + name_ + ": entry is not a tagged value");
    }
  }

  std::unique_ptr<sstable::TableIterator> it_;
  std::string name_;
  EntryKind kind_ = EntryKind::kValue;
  std::string_view value_;
  Status status_;
};

}  // namespace

std::unique_ptr<EntrySource> NewMemSource(std::vector<std::pair<std::string, MemEntry>> entries) {
  return std::make_unique<MemSource>(std::move(entries));
}

std::unique_ptr<EntrySource> NewRunSource(const Run& run) { return std::make_unique<RunSource>(run); }

MergingIterator::MergingIterator(std::vector<std::unique_ptr<EntrySource>> sources) : sources_(std::move(sources)) {}

void MergingIterator::Seek(std::string_view target) {
  for (auto& s : sources_) s->Seek(target);
  FindSmallest();
}

void MergingIterator::Next() {
  // Step every source past the current key: older versions of it are shadowed.
  const std::string done(key());
  for (auto& s : sources_) {
    if (s->Valid() && s->key() == done) s->Next();
  }
  FindSmallest();
}

void MergingIterator::FindSmallest() {
  current_ = -1;
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (!sources_[i]->Valid()) {
      if (Status s = sources_[i]->status(); !s.ok()) {
        status_ = s;
        current_ = -1;
        return;
      }
      continue;
    }
    // Strictly smaller only: on a tie the earlier (newer) source wins.
    if (current_ < 0 || sources_[i]->key() < sources_[current_]->key()) current_ = static_cast<int>(i);
  }
}

}  // namespace linebloom::kvstore::internal
