// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Crash safety of the real binary: start `linebloom-kv DIR batch`, stream
// puts into it, SIGKILL it at a random moment (mid-write, mid-flush,
// mid-compaction: the memtable is small, so all three happen), reopen, and
// check that every put it acknowledged with OK is there with its value and
// that nothing appears that was never sent. Repeated over many rounds on the
// same directory.
//
// The kill is timed from the child's first acknowledgement (0-100 ms after
// it), not from its start: a slow start (a sanitizer build, a loaded
// machine) must not make the kill land before any put was acknowledged.
//
// CI runs 25 rounds (a few seconds). For a long run:
//   LINEBLOOM_KV_CRASH_ROUNDS=2000 LINEBLOOM_KV_CRASH_SEED=7 build/tests/kvstore/kvstore_crash_test

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include "kv_test_util.h"

#ifndef LINEBLOOM_KV_CLI
#error "LINEBLOOM_KV_CLI must name the linebloom-kv binary"
#endif

namespace linebloom::kvstore {
namespace {

using testing::TempDir;

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

std::string KeyOf(uint64_t round, uint64_t i) {
  return std::string("r").append(std::to_string(round)).append("-k").append(std::to_string(i));
}

// The value is derived from the key, so any value found can be checked.
std::string ValueOf(uint64_t round, uint64_t i) {
  return std::string("v").append(std::to_string(round * 1000003 + i)).append(std::string(i % 23, '.'));
}

struct Child {
  pid_t pid = -1;
  int to_child = -1;    // its stdin
  int from_child = -1;  // its stdout
};

Child Spawn(const std::string& dir) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) std::abort();
  Child c;
  c.pid = ::fork();
  if (c.pid == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::execl(LINEBLOOM_KV_CLI, LINEBLOOM_KV_CLI, "--write-buffer-size", "16384", "--fanout", "3", dir.c_str(), "batch",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  c.to_child = in[1];
  c.from_child = out[0];
  return c;
}

TEST(KvCrashTest, SigkillNeverLosesAnAcknowledgedPut) {
  ::signal(SIGPIPE, SIG_IGN);  // writing to a killed child must fail, not kill us
  const uint64_t rounds = EnvOr("LINEBLOOM_KV_CRASH_ROUNDS", 25);
  std::mt19937_64 rng(EnvOr("LINEBLOOM_KV_CRASH_SEED", 20240601));
  TempDir dir;
  std::map<std::string, std::string> acknowledged;
  uint64_t total_acked = 0, total_unacked_present = 0, final_runs = 0, kills_with_torn_tail = 0;

  for (uint64_t round = 0; round < rounds; ++round) {
    SCOPED_TRACE(std::string("round ").append(std::to_string(round)));
    constexpr uint64_t kPutsPerRound = 20000;
    Child child = Spawn(dir.path());
    ASSERT_GT(child.pid, 0);

    std::atomic<bool> stop{false};
    std::thread writer([&, fd = child.to_child] {
      std::mt19937_64 wrng(round);
      uint64_t i = 0;
      while (i < kPutsPerRound && !stop) {
        // Bursts of random size, so group commits vary in size.
        std::string chunk;
        for (uint64_t n = 1 + wrng() % 200; n > 0 && i < kPutsPerRound; --n, ++i) {
          chunk.append("put ").append(KeyOf(round, i)).append(" ").append(ValueOf(round, i)).append("\n");
        }
        for (std::string_view rest = chunk; !rest.empty();) {
          const ssize_t w = ::write(fd, rest.data(), rest.size());
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) return;  // the child is gone
          rest.remove_prefix(static_cast<size_t>(w));
        }
      }
    });

    // Read answers; the first OK sets the kill time (0-100 ms later); kill
    // then, and drain what the child printed before it died: those OKs were
    // all acknowledged. A child that acknowledges nothing in 60 s is killed
    // too, and fails the round below.
    using Clock = std::chrono::steady_clock;
    const auto kill_delay = std::chrono::milliseconds(rng() % 101);
    auto kill_at = Clock::now() + std::chrono::seconds(60);
    uint64_t oks = 0;
    std::string pending, unexpected;
    bool killed = false;
    for (;;) {
      const auto now = Clock::now();
      if (!killed && now >= kill_at) {
        ::kill(child.pid, SIGKILL);
        killed = true;
      }
      pollfd p{child.from_child, POLLIN, 0};
      const int timeout =
          killed ? 1000
                 : static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - now).count()) + 1;
      if (::poll(&p, 1, timeout) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(child.from_child, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EOF: the child is dead (or finished)
      pending.append(buf, static_cast<size_t>(n));
      for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
        if (pending.substr(0, nl) != "OK") {
          // Not asserted here: the writer must be joined first (a joinable
          // thread's destructor terminates). Killed now, checked below.
          if (unexpected.empty()) unexpected = pending.substr(0, nl);
          if (!killed) kill_at = now;
          continue;
        }
        if (unexpected.empty() && oks++ == 0 && !killed) kill_at = Clock::now() + kill_delay;
      }
    }
    // The child is dead (its stdout reached EOF), so the writer's pending
    // or next write fails and it returns; its pipe is closed only after it
    // has, so no write can reach a descriptor number reused meanwhile.
    stop = true;
    writer.join();
    ::close(child.to_child);
    ::close(child.from_child);
    int status = 0;
    ::waitpid(child.pid, &status, 0);
    ASSERT_EQ(unexpected, "") << "unexpected answer";
    ASSERT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) << "status " << status;

    ASSERT_GT(oks, 0u) << "the child acknowledged no put before it died";
    // Answers come in order, one per put: the first `oks` puts are acked.
    for (uint64_t i = 0; i < oks; ++i) acknowledged[KeyOf(round, i)] = ValueOf(round, i);
    total_acked += oks;

    std::unique_ptr<KvStore> store;
    Options o;
    o.write_buffer_size = 16384;
    o.tier_fanout = 3;
    Status s = KvStore::Open(dir.path(), o, &store);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const std::map<std::string, std::string> contents = testing::Contents(*store);
    for (const auto& [k, v] : acknowledged) {
      auto it = contents.find(k);
      ASSERT_TRUE(it != contents.end()) << "acknowledged put lost: " << k;
      ASSERT_EQ(it->second, v) << k;
    }
    // Anything else must be a put that was sent in this round after the
    // last OK (in flight when the child died), with the value sent.
    for (const auto& [k, v] : contents) {
      if (acknowledged.count(k)) continue;
      const std::string prefix = std::string("r").append(std::to_string(round)).append("-k");
      ASSERT_EQ(k.rfind(prefix, 0), 0u) << "invented or resurrected key " << k;
      const uint64_t i = std::strtoull(k.c_str() + prefix.size(), nullptr, 10);
      ASSERT_GE(i, oks) << k;
      ASSERT_EQ(v, ValueOf(round, i)) << "invented value for " << k;
      ++total_unacked_present;
      acknowledged[k] = v;  // durable now: later rounds must keep it
    }
    const StoreStats st = store->Stats();
    final_runs = st.runs.size();
    if (st.wal_bytes_dropped > 0) ++kills_with_torn_tail;
  }
  // Reached only if no round failed: no acknowledged put was lost.
  std::printf(
      "%llu rounds: %llu puts acknowledged, 0 lost, %llu unacknowledged puts survived (in flight at the kill), "
      "%llu runs at the end, %llu recoveries dropped a torn log tail\n",
      static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(total_acked),
      static_cast<unsigned long long>(total_unacked_present), static_cast<unsigned long long>(final_runs),
      static_cast<unsigned long long>(kills_with_torn_tail));
  EXPECT_GT(total_acked, rounds);  // the kills landed while work was going on
}

}  // namespace
}  // namespace linebloom::kvstore
