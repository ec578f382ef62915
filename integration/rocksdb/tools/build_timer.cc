// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "build_timer.h"

#include <time.h>

#include <string>
#include <utility>
#include <vector>

namespace linebloom::refilter {

uint64_t ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

namespace {

// Records the keys (and alternates) of one filter, replays them into the
// wrapped builder at Finish under the thread CPU clock.
class ReplayBuilder : public ::rocksdb::FilterBitsBuilder {
 public:
  ReplayBuilder(const TimedFilterPolicy* policy, std::unique_ptr<::rocksdb::FilterBitsBuilder> wrapped,
                uint64_t setup_ns)
      : policy_(policy), wrapped_(std::move(wrapped)), setup_ns_(setup_ns) {}

  void AddKey(const ::rocksdb::Slice& key) override { Record(key, nullptr); }
#if LINEBLOOM_ROCKSDB_LAYOUT >= 'B'
  void AddKeyAndAlt(const ::rocksdb::Slice& key, const ::rocksdb::Slice& alt) override { Record(key, &alt); }
#endif

  // Entries are counted as recorded, an adjacent repeat of a key once (as
  // the builders count them); 0 exactly when nothing was added.
  size_t EstimateEntriesAdded() override { return distinct_; }

  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override { return Finish(buf, nullptr); }
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf, ::rocksdb::Status* status) override {
    const uint64_t start = ThreadCpuNanos();
    for (const Entry& e : entries_) {
      const ::rocksdb::Slice key(bytes_.data() + e.key_at, e.key_len);
#if LINEBLOOM_ROCKSDB_LAYOUT >= 'B'
      if (e.has_alt) {
        wrapped_->AddKeyAndAlt(key, ::rocksdb::Slice(bytes_.data() + e.alt_at, e.alt_len));
        continue;
      }
#endif
      wrapped_->AddKey(key);
    }
    const uint64_t added = ThreadCpuNanos();
    const ::rocksdb::Slice filter = wrapped_->Finish(buf, status);
    const uint64_t end = ThreadCpuNanos();
    policy_->Add(end - start + setup_ns_, setup_ns_, end - added, entries_.size());
    setup_ns_ = 0;
    entries_.clear();
    bytes_.clear();
    distinct_ = 0;
    return filter;
  }

  ::rocksdb::Status MaybePostVerify(const ::rocksdb::Slice& filter) override {
    return wrapped_->MaybePostVerify(filter);
  }
  size_t ApproximateNumEntries(size_t bytes) override { return wrapped_->ApproximateNumEntries(bytes); }
#if LINEBLOOM_ROCKSDB_LAYOUT >= 'C'
  size_t CalculateSpace(size_t num_entries) override { return wrapped_->CalculateSpace(num_entries); }
  double EstimatedFpRate(size_t num_entries, size_t bytes) override {
    return wrapped_->EstimatedFpRate(num_entries, bytes);
  }
#endif

 private:
  struct Entry {
    size_t key_at, key_len, alt_at, alt_len;
    bool has_alt;
  };

  void Record(const ::rocksdb::Slice& key, const ::rocksdb::Slice* alt) {
    const bool repeat = !entries_.empty() && alt == nullptr && !entries_.back().has_alt &&
                        ::rocksdb::Slice(bytes_.data() + entries_.back().key_at, entries_.back().key_len) == key;
    Entry e{bytes_.size(), key.size(), 0, 0, alt != nullptr};
    bytes_.append(key.data(), key.size());
    if (alt != nullptr) {
      e.alt_at = bytes_.size();
      e.alt_len = alt->size();
      bytes_.append(alt->data(), alt->size());
    }
    entries_.push_back(e);
    if (!repeat) ++distinct_;
  }

  const TimedFilterPolicy* policy_;
  std::unique_ptr<::rocksdb::FilterBitsBuilder> wrapped_;
  uint64_t setup_ns_;
  std::string bytes_;
  std::vector<Entry> entries_;
  size_t distinct_ = 0;
};

}  // namespace

TimedFilterPolicy::TimedFilterPolicy(std::shared_ptr<const ::rocksdb::FilterPolicy> wrapped)
    : wrapped_(std::move(wrapped)) {}

::rocksdb::FilterBitsBuilder* TimedFilterPolicy::GetBuilderWithContext(
    const ::rocksdb::FilterBuildingContext& context) const {
  const uint64_t start = ThreadCpuNanos();
  std::unique_ptr<::rocksdb::FilterBitsBuilder> wrapped(wrapped_->GetBuilderWithContext(context));
  const uint64_t setup_ns = ThreadCpuNanos() - start;
  if (wrapped == nullptr) return nullptr;
  return new ReplayBuilder(this, std::move(wrapped), setup_ns);
}

void TimedFilterPolicy::Add(uint64_t cpu_ns, uint64_t setup_ns, uint64_t finish_ns, uint64_t keys) const {
  cpu_ns_.fetch_add(cpu_ns, std::memory_order_relaxed);
  setup_ns_.fetch_add(setup_ns, std::memory_order_relaxed);
  finish_ns_.fetch_add(finish_ns, std::memory_order_relaxed);
  keys_.fetch_add(keys, std::memory_order_relaxed);
  filters_.fetch_add(1, std::memory_order_relaxed);
}

BuildTotals TimedFilterPolicy::TakeTotals() const {
  BuildTotals t;
  t.cpu_ns = cpu_ns_.exchange(0);
  t.setup_ns = setup_ns_.exchange(0);
  t.finish_ns = finish_ns_.exchange(0);
  t.filters = filters_.exchange(0);
  t.keys = keys_.exchange(0);
  return t;
}

}  // namespace linebloom::refilter
