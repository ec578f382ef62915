// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Many threads on one filter at once, the way an LSM engine uses it: readers
// query a shared filter (single and batch) while other threads build, parse,
// replace and combine filters, and another switches the probe kernel. Every
// answer is checked against one computed before the threads start, so a data
// race that corrupts a read shows up as a wrong answer even without
// ThreadSanitizer; under TSan (tests/sanitize.sh) the race itself is reported.
//
// Threads count their own failures and the test asserts the totals after
// join, so a failing run says which check broke and how often.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"
#include "linebloom/filter_set_ops.h"

#if __has_include("linebloom/kernel.h")
#include "linebloom/kernel.h"
#define LINEBLOOM_HAVE_KERNELS 1
#endif

namespace linebloom {
namespace {

// (Built with append: GCC 12 warns falsely about operator+ on to_string.)
std::string Named(std::string_view prefix, uint64_t i) { return std::string(prefix).append(std::to_string(i)); }

std::vector<std::string> Keys(std::string_view prefix, size_t n) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) keys.push_back(Named(prefix, i));
  return keys;
}

std::string Build(const std::vector<std::string>& keys, const FilterOptions& options) {
  FilterBuilder builder(options);
  for (const std::string& k : keys) builder.AddKey(k);
  return builder.Finish();
}

FilterReader MustParse(std::string_view bytes) {
  FilterReader reader;
  const ParseResult r = FilterReader::Parse(bytes, &reader);
  EXPECT_TRUE(r.ok()) << r.message();
  return reader;
}

// One shared filter plus the answers it gave single-threaded.
struct SharedFilter {
  std::vector<std::string> present = Keys("present:", 20000);
  std::vector<std::string> absent = Keys("absent:", 20000);
  std::string bytes = Build(present, {.bits_per_key = 10, .seed = 42});
  FilterReader reader = MustParse(bytes);
  std::vector<char> absent_answer;  // what the reader says about absent[i]

  SharedFilter() {
    for (const std::string& k : absent) absent_answer.push_back(reader.MayContain(k));
  }
};

struct Failures {
  std::atomic<uint64_t> false_negatives{0};
  std::atomic<uint64_t> changed_answers{0};
  std::atomic<uint64_t> batch_mismatches{0};
  std::atomic<uint64_t> parse_errors{0};
  std::atomic<uint64_t> other{0};
};

// Queries every key of `f` through every path of `reader`, in batches whose
// size varies with `salt` so chunk boundaries move between threads.
void QueryAll(const SharedFilter& f, const FilterReader& reader, size_t salt, Failures* fail) {
  for (const std::string& k : f.present) {
    if (!reader.MayContain(k)) ++fail->false_negatives;
  }
  for (size_t i = 0; i < f.absent.size(); ++i) {
    if (reader.MayContain(f.absent[i]) != static_cast<bool>(f.absent_answer[i])) ++fail->changed_answers;
  }
  const size_t batch = 1 + (salt * 37) % 100;
  std::vector<std::string_view> keys(batch);
  std::vector<uint64_t> hashes(batch);
  auto out = std::make_unique<bool[]>(batch);
  auto hash_out = std::make_unique<bool[]>(batch);
  for (size_t start = 0; start < f.absent.size(); start += batch) {
    const size_t n = std::min(batch, f.absent.size() - start);
    for (size_t i = 0; i < n; ++i) {
      keys[i] = f.absent[start + i];
      hashes[i] = KeyHash(f.present[start + i], reader.seed());
    }
    reader.MayContainBatch(std::span(keys.data(), n), std::span(out.get(), n));
    reader.MayContainHashBatch(std::span(hashes.data(), n), std::span(hash_out.get(), n));
    for (size_t i = 0; i < n; ++i) {
      if (out[i] != static_cast<bool>(f.absent_answer[start + i])) ++fail->batch_mismatches;
      if (!hash_out[i]) ++fail->false_negatives;
    }
  }
}

void ExpectNoFailures(const Failures& fail) {
  EXPECT_EQ(fail.false_negatives.load(), 0u);
  EXPECT_EQ(fail.changed_answers.load(), 0u);
  EXPECT_EQ(fail.batch_mismatches.load(), 0u);
  EXPECT_EQ(fail.parse_errors.load(), 0u);
  EXPECT_EQ(fail.other.load(), 0u);
}

constexpr int kReaders = 4;
constexpr int kRounds = 3;

TEST(FilterConcurrency, ReadersOfOneFilterWhileOthersBuildParseAndCombine) {
  const SharedFilter f;
  Failures fail;
  std::barrier start(kReaders + 3);
  std::vector<std::thread> threads;

  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int round = 0; round < kRounds; ++round) QueryAll(f, f.reader, t * kRounds + round, &fail);
    });
  }
  // Builders: their own filters, from scratch, at the same time.
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int round = 0; round < 8; ++round) {
        const std::vector<std::string> keys = Keys(Named("b", t * 100 + round).append(":"), 3000);
        const std::string bytes = Build(keys, {.bits_per_key = 6.0 + round, .seed = static_cast<uint32_t>(round)});
        FilterReader r;
        if (!FilterReader::Parse(bytes, &r).ok()) ++fail.parse_errors;
        for (const std::string& k : keys) {
          if (!r.MayContain(k)) ++fail.false_negatives;
        }
      }
    });
  }
  // Re-parsers and combiners: only read the shared bytes.
  threads.emplace_back([&] {
    start.arrive_and_wait();
    for (int round = 0; round < 20; ++round) {
      FilterReader r;
      if (!FilterReader::Parse(f.bytes, &r).ok()) ++fail.parse_errors;
      if (r.blocks().data() != f.reader.blocks().data() || r.num_probes() != f.reader.num_probes()) ++fail.other;
      const auto united = UnionFilters(f.reader, r);
      if (!united || united->substr(0, f.bytes.size()) != f.bytes) ++fail.other;  // A u A = A
      if (CountSetBits(r) != CountSetBits(f.reader)) ++fail.other;
    }
  });
  for (auto& th : threads) th.join();
  ExpectNoFailures(fail);
}

// An LSM engine replaces a table's filter when it rewrites the table; readers
// that loaded the old one keep using it until they let go. Writers publish
// new generations (a shared_ptr swapped under a mutex, as a table cache
// would); readers take a snapshot, parse it outside the lock and check it
// holds every key of its generation while newer ones are being published.
struct Generation {
  uint64_t number;
  std::string bytes;
};

class Published {
 public:
  explicit Published(std::shared_ptr<const Generation> first) : current_(std::move(first)) {}
  std::shared_ptr<const Generation> Get() const {
    std::lock_guard lock(mu_);
    return current_;
  }
  void Set(std::shared_ptr<const Generation> g) {
    std::lock_guard lock(mu_);
    current_ = std::move(g);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Generation> current_;
};

TEST(FilterConcurrency, ReadersKeepTheirSnapshotWhileWritersPublishNewFilters) {
  auto keys_of = [](uint64_t g) { return Keys(Named("gen", g).append(":"), 2000); };
  Published current(std::make_shared<const Generation>(Generation{0, Build(keys_of(0), {})}));
  std::atomic<uint64_t> next_generation{1};
  std::atomic<bool> writers_done{false};
  Failures fail;
  std::atomic<uint64_t> snapshots_checked{0};
  std::vector<std::thread> writers, readers;

  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&] {
      for (int i = 0; i < 15; ++i) {
        const uint64_t g = next_generation.fetch_add(1);
        current.Set(
            std::make_shared<const Generation>(Generation{g, Build(keys_of(g), {.seed = static_cast<uint32_t>(g)})}));
      }
    });
  }
  for (int t = 0; t < kReaders; ++t) {
    readers.emplace_back([&] {
      // At least a few snapshots each, then until the writers stop.
      for (int i = 0; i < 5 || !writers_done.load(); ++i) {
        const std::shared_ptr<const Generation> snap = current.Get();
        FilterReader r;
        if (!FilterReader::Parse(snap->bytes, &r).ok()) {
          ++fail.parse_errors;
          continue;
        }
        for (const std::string& k : keys_of(snap->number)) {
          if (!r.MayContain(k)) ++fail.false_negatives;
        }
        ++snapshots_checked;
      }
    });
  }
  for (auto& th : writers) th.join();
  writers_done = true;
  for (auto& th : readers) th.join();
  ExpectNoFailures(fail);
  EXPECT_GE(snapshots_checked.load(), uint64_t{kReaders} * 5);
  EXPECT_GE(current.Get()->number, 1u);  // the last published generation is a new one
  EXPECT_EQ(next_generation.load(), 31u);
}

#ifdef LINEBLOOM_HAVE_KERNELS
// ForceKernel is documented as memory-safe against concurrent queries, and
// all kernels answer alike, so switching under readers must change nothing.
TEST(FilterConcurrency, SwitchingTheKernelUnderReadersChangesNoAnswer) {
  const SharedFilter f;
  const Kernel initial = ActiveKernel();
  std::vector<Kernel> kernels;
  for (Kernel k : {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512}) {
    if (KernelSupported(k)) kernels.push_back(k);
  }
  Failures fail;
  std::atomic<bool> readers_done{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < kReaders; ++t) {
    readers.emplace_back([&, t] {
      for (int round = 0; round < 2; ++round) QueryAll(f, f.reader, t * 2 + round, &fail);
    });
  }
  std::thread switcher([&] {
    for (size_t i = 0; !readers_done.load(); ++i) {
      if (!ForceKernel(kernels[i % kernels.size()])) ++fail.other;
      std::this_thread::yield();
    }
  });
  for (auto& th : readers) th.join();
  readers_done = true;
  switcher.join();
  ForceKernel(initial);
  ExpectNoFailures(fail);
}
#endif

}  // namespace
}  // namespace linebloom
