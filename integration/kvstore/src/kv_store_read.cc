// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The read path: Get, Scan, Stats. Readers take a snapshot of the memtable
// and run list and never hold a lock while they read.

#include "kv_store_impl.h"

namespace linebloom::kvstore {

using internal::EntryKind;
using internal::RunLookup;

Status KvStore::Impl::Get(std::string_view key, std::string* value) const {
  if (Status s = CheckOpen(); !s.ok()) return s;
  const ReadView view = View();
  ++gets_;
  if (std::optional<internal::MemEntry> e = view.mem->Get(key)) {
    ++memtable_hits_;
    if (e->kind == EntryKind::kDeletion) return Status::NotFound("");
    *value = std::move(e->value);
    return Status::Ok();
  }
  // Newest run first: the first run that knows the key decides.
  for (const auto& run : view.version->runs) {
    LookupCounters cost;
    RunLookup found = RunLookup::kAbsent;
    Status s = run->Get(key, &found, value, &cost);
    run->counters().Add(cost);
    level_counters_[run->meta().level].Add(cost);
    if (!s.ok()) return s;
    if (found == RunLookup::kValue) return Status::Ok();
    if (found == RunLookup::kDeleted) return Status::NotFound("");
  }
  return Status::NotFound("");
}

Status KvStore::Impl::Scan(std::string_view from, std::optional<std::string_view> to, const ScanVisitor& visit) const {
  if (Status s = CheckOpen(); !s.ok()) return s;
  if (to && !(from < *to)) return Status::Ok();
  const ReadView view = View();
  ++scans_;
  std::vector<std::unique_ptr<internal::EntrySource>> sources;
  sources.push_back(internal::NewMemSource(view.mem->Range(from, to)));
  for (const auto& run : view.version->runs) {
    if (run->Overlaps(from, to)) sources.push_back(internal::NewRunSource(*run));
  }
  internal::MergingIterator it(std::move(sources));
  for (it.Seek(from); it.Valid(); it.Next()) {
    if (to && !(it.key() < *to)) break;
    if (it.kind() == EntryKind::kDeletion) continue;
    if (!visit(it.key(), it.value())) break;
  }
  return it.status();
}

StoreStats KvStore::Impl::Stats() const {
  const ReadView view = View();
  StoreStats s;
  CopyOperationCounts(&s);
  s.memtable_entries = view.mem->Count();
  s.memtable_bytes = view.mem->ApproximateBytes();
  s.wal_records_replayed = wal_records_replayed_;
  s.wal_bytes_dropped = wal_bytes_dropped_;

  std::array<LevelStats, kMaxLevels> levels;
  for (int l = 0; l < kMaxLevels; ++l) {
    levels[l].level = l;
    levels[l].counters = level_counters_[l].Load();
    levels[l].bits_per_key = options_.filter_allocation == FilterAllocation::kRunAware ? options_.average_bits_per_key
                             : options_.bits_per_key                                   ? options_.bits_per_key(l)
                                                                                       : 10.0;
  }
  for (const auto& run : view.version->runs) {
    const internal::RunMeta& m = run->meta();
    RunStats r;
    r.file_number = m.file_number;
    r.level = static_cast<int>(m.level);
    r.entries = m.num_entries;
    r.table_bytes = m.table_size;
    r.data_blocks = run->data_blocks();
    r.filter_bytes = run->filter_bytes();
    r.filter_bits_per_key = 8.0 * static_cast<double>(r.filter_bytes) / static_cast<double>(m.num_entries);
    r.block_filter_bytes = run->block_filter_bytes();
    r.block_filter_bits_per_key = 8.0 * static_cast<double>(r.block_filter_bytes) / static_cast<double>(m.num_entries);
    r.run_filter_kind = run->run_filter_kind() == FilterKind::kCompact ? "compact"
                        : run->run_filter_kind() == FilterKind::kBloom ? "bloom"
                                                                       : "none";
    r.counters = run->counters().Load();
    s.runs.push_back(r);
    LevelStats& l = levels[m.level];
    l.runs += 1;
    l.entries += m.num_entries;
    l.table_bytes += m.table_size;
    l.filter_bytes += r.filter_bytes;
    s.filter_bytes += r.filter_bytes;
    s.run_entries += m.num_entries;
  }
  if (s.run_entries > 0)
    s.filter_bits_per_key = 8.0 * static_cast<double>(s.filter_bytes) / static_cast<double>(s.run_entries);
  for (LevelStats& l : levels) {
    if (l.entries > 0)
      l.filter_bits_per_key = 8.0 * static_cast<double>(l.filter_bytes) / static_cast<double>(l.entries);
    if (l.runs > 0 || l.counters.lookups > 0) {
      s.levels.push_back(l);
      s.total += l.counters;
    }
  }
  {
    MutexLock lock(&background_error_mu_);
    s.background_error = background_error_;
  }
  return s;
}

}  // namespace linebloom::kvstore
