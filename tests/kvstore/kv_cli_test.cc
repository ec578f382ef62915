// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The linebloom-kv contract that scripts depend on: output formats, exit
// codes, batch answers, escaping. Runs the real binary.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>

#include "batch_session.h"
#include "escape.h"
#include "kv_test_util.h"

#ifndef LINEBLOOM_KV_CLI
#error "LINEBLOOM_KV_CLI must name the linebloom-kv binary"
#endif

extern char** environ;

namespace linebloom::kvstore {
namespace {

using testing::ReadBytes;
using testing::TempDir;

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

CliResult RunCli(const TempDir& scratch, std::vector<std::string> args, const std::string& input = "") {
  const std::string in_path = scratch.Sub("cli.in"), out_path = scratch.Sub("cli.out"),
                    err_path = scratch.Sub("cli.err");
  testing::WriteBytes(in_path, input);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  args.insert(args.begin(), LINEBLOOM_KV_CLI);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  CliResult r;
  if (posix_spawn(&pid, LINEBLOOM_KV_CLI, &actions, nullptr, argv.data(), environ) != 0) return r;
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadBytes(out_path);
  r.err = ReadBytes(err_path);
  return r;
}

TEST(KvCliTest, PutGetDeleteAndExitCodes) {
  TempDir scratch;
  const std::string dir = scratch.Sub("store");
  CliResult r = RunCli(scratch, {dir, "put", "greeting", "hello world"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  r = RunCli(scratch, {dir, "get", "greeting"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello world\n");
  r = RunCli(scratch, {dir, "get", "nobody"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");  // nothing on stdout when absent
  r = RunCli(scratch, {dir, "delete", "greeting"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunCli(scratch, {dir, "get", "greeting"});
  EXPECT_EQ(r.exit_code, 1);
  // Arguments are taken as given: bytes, spaces, a leading dash after "--".
  r = RunCli(scratch, {dir, "put", "--", "-k\t1", "-v\\n"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunCli(scratch, {dir, "get", "--", "-k\t1"});
  EXPECT_EQ(r.out, "-v\\n\n");
  // The empty key is a key.
  r = RunCli(scratch, {dir, "put", "", "empty"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunCli(scratch, {dir, "get", ""});
  EXPECT_EQ(r.out, "empty\n");
}

TEST(KvCliTest, ScanPrintsEscapedTabSeparatedLinesInOrder) {
  TempDir scratch;
  const std::string dir = scratch.Sub("store");
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"b", "2"}, {"a", "1"}, {"c\td", "tab\tand\nnewline"}, {"d", "back\\slash"}}) {
    ASSERT_EQ(RunCli(scratch, {dir, "put", k, v}).exit_code, 0);
  }
  ASSERT_EQ(RunCli(scratch, {dir, "flush"}).exit_code, 0);
  ASSERT_EQ(RunCli(scratch, {dir, "put", "a", "1 again"}).exit_code, 0);
  CliResult r = RunCli(scratch, {dir, "scan"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a\t1 again\nb\t2\nc\\td\ttab\\tand\\nnewline\nd\tback\\\\slash\n");
  r = RunCli(scratch, {dir, "scan", "b"});
  EXPECT_EQ(r.out, "b\t2\nc\\td\ttab\\tand\\nnewline\nd\tback\\\\slash\n");
  r = RunCli(scratch, {dir, "scan", "b", "d"});  // TO is excluded
  EXPECT_EQ(r.out, "b\t2\nc\\td\ttab\\tand\\nnewline\n");
}

TEST(KvCliTest, StatsIsJsonWithTheAvoidedReads) {
  TempDir scratch;
  const std::string dir = scratch.Sub("store");
  std::string input;
  for (int i = 0; i < 2000; ++i) input.append("put key").append(std::to_string(i)).append(" v\n");
  ASSERT_EQ(RunCli(scratch, {dir, "batch"}, input).exit_code, 0);
  ASSERT_EQ(RunCli(scratch, {dir, "compact"}).exit_code, 0);
  input.clear();
  for (int i = 0; i < 500; ++i) input.append("get absent").append(std::to_string(i)).append("\n");
  CliResult r = RunCli(scratch, {dir, "batch"}, input);
  ASSERT_EQ(r.exit_code, 0);
  r = RunCli(scratch, {dir, "stats"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_EQ(r.out.substr(r.out.size() - 2), "}\n");
  EXPECT_NE(r.out.find("\"gets\": 500"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"block_reads_avoided_by_filters\""), std::string::npos);
  EXPECT_NE(r.out.find("\"runs\": ["), std::string::npos);
}

// --compact-run-filters-from-level applies to the runs a command writes;
// stats names each run's filter kind, and a later open without the flag
// still reads the compact run.
TEST(KvCliTest, CompactRunFiltersFromALevel) {
  TempDir scratch;
  const std::string dir = scratch.Sub("store");
  std::string input;
  for (int i = 0; i < 500; ++i) input.append("put key").append(std::to_string(i)).append(" v\n");
  ASSERT_EQ(RunCli(scratch, {"--compact-run-filters-from-level", "0", dir, "batch"}, input).exit_code, 0);
  ASSERT_EQ(RunCli(scratch, {"--compact-run-filters-from-level", "0", dir, "compact"}).exit_code, 0);
  CliResult r = RunCli(scratch, {dir, "stats"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"run_filter_kind\": \"compact\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"run_filter_kind\": \"bloom\""), std::string::npos) << r.out;
  r = RunCli(scratch, {dir, "get", "key123"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "v\n");
  EXPECT_NE(RunCli(scratch, {"--compact-run-filters-from-level", "9", dir, "stats"}).exit_code, 0);
}

TEST(KvCliTest, BatchAnswersOneLinePerCommand) {
  TempDir scratch;
  const std::string dir = scratch.Sub("store");
  const std::string input =
      "put k1 v1\n"
      "put k2 two words\n"
      "get k2\n"
      "get missing\n"
      "frobnicate k\n"
      "put onlykey\n"
      "\n"
      "delete k1\n"
      "get k1\n"
      "put sp\\x20ace \\ttabbed\\n\n"
      "get sp\\x20ace\n"
      "put bad \\q\n"
      "put reserved NOTFOUND\n"
      "get reserved\n"
      "get k2 extra\n"
      "put last no-newline";
  CliResult r = RunCli(scratch, {dir, "batch"}, input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "OK\n"
            "OK\n"
            "two words\n"
            "NOTFOUND\n"
            "ERR unknown command 'frobnicate' (put, get, delete)\n"
            "ERR put needs KEY VALUE\n"
            "ERR empty line\n"
            "OK\n"
            "NOTFOUND\n"
            "OK\n"
            "\\ttabbed\\n\n"
            "ERR VALUE: unknown escape \\q\n"
            "OK\n"
            "\\x4eOTFOUND\n"
            "ERR get takes one KEY (write a space in a key as \\x20)\n"
            "OK\n");
  r = RunCli(scratch, {dir, "get", "sp ace"});
  EXPECT_EQ(r.out, "\ttabbed\n\n");
  r = RunCli(scratch, {dir, "get", "last"});
  EXPECT_EQ(r.out, "no-newline\n");
}

TEST(KvCliTest, BadCommandLinesPrintUsageAndFail) {
  TempDir scratch;
  const std::string dir = scratch.Sub("store");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {dir},
                                             {dir, "put", "k"},
                                             {dir, "explode"},
                                             {"--bogus", dir, "get", "k"},
                                             {"--bits-per-key", "0.5", dir, "get", "k"},
                                             {dir, "get"}}) {
    CliResult r = RunCli(scratch, args);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.exit_code, 1);  // 1 means "absent", not "bad usage"
    EXPECT_NE(r.err.find("Usage"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(KvCliTest, StoreErrorsExitTwoWithAMessage) {
  TempDir scratch;
  const std::string dir = scratch.Sub("store");
  ASSERT_EQ(RunCli(scratch, {dir, "put", "k", "v"}).exit_code, 0);
  {
    std::unique_ptr<KvStore> held;
    ASSERT_TRUE(KvStore::Open(dir, Options(), &held).ok());
    CliResult r = RunCli(scratch, {dir, "get", "k"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("locked"), std::string::npos) << r.err;
  }
  testing::WriteBytes(dir + "/MANIFEST", "garbage");
  CliResult r = RunCli(scratch, {dir, "get", "k"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Corruption"), std::string::npos) << r.err;
}

TEST(KvCliEscapeTest, EveryByteRoundTrips) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  const std::string escaped = cli::Escape(all);
  EXPECT_EQ(escaped.find('\n'), std::string::npos);
  EXPECT_EQ(escaped.find('\t'), std::string::npos);
  std::string back, error;
  ASSERT_TRUE(cli::Unescape(escaped, &back, &error)) << error;
  EXPECT_EQ(back, all);
  EXPECT_EQ(cli::Escape("plain text, spaces and UTF-8 \xc3\xa9"), "plain text, spaces and UTF-8 \xc3\xa9");
  for (const char* bad : {"\\", "\\x4", "\\xzz", "\\a"}) EXPECT_FALSE(cli::Unescape(bad, &back, &error)) << bad;
  ASSERT_TRUE(cli::Unescape("\\x41\\x62", &back, &error));
  EXPECT_EQ(back, "Ab");
}

TEST(KvCliEscapeTest, BatchValuesNeverLookLikeProtocolAnswers) {
  EXPECT_EQ(cli::EscapeBatchValue("OK"), "\\x4fK");
  EXPECT_EQ(cli::EscapeBatchValue("NOTFOUND"), "\\x4eOTFOUND");
  EXPECT_EQ(cli::EscapeBatchValue("ERR whatever"), "\\x45RR whatever");
  EXPECT_EQ(cli::EscapeBatchValue("OKAY"), "OKAY");
  for (const char* v : {"OK", "NOTFOUND", "ERRx", "OKAY", ""}) {
    std::string back, error;
    ASSERT_TRUE(cli::Unescape(cli::EscapeBatchValue(v), &back, &error));
    EXPECT_EQ(back, v);
  }
}

TEST(KvCliBatchSessionTest, ArrivedPutsAreCommittedAsOneGroup) {
  TempDir dir;
  testing::NoSyncEnv env;
  Options o;
  o.env = &env;
  std::unique_ptr<KvStore> store;
  ASSERT_TRUE(KvStore::Open(dir.path(), o, &store).ok());
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    cli::BatchSession batch(store.get(), out);
    batch.Feed("put a 1\nput b 2\nput c");  // "put c" is not complete yet
    batch.Feed(" 3\nget b\nput d 4\n");
    batch.Finish();
    EXPECT_EQ(batch.commands(), 5u);
    EXPECT_EQ(batch.errors(), 0u);
  }
  std::rewind(out);
  char buf[256] = {};
  const size_t n = std::fread(buf, 1, sizeof buf - 1, out);
  std::fclose(out);
  EXPECT_EQ(std::string(buf, n), "OK\nOK\nOK\n2\nOK\n");
  ASSERT_TRUE(store->Close().ok());
  ASSERT_TRUE(KvStore::Open(dir.path(), o, &store).ok());
  // {a, b} in the first feed; {c} before the get; {d}: three log records.
  EXPECT_EQ(store->Stats().wal_records_replayed, 3u);
  EXPECT_EQ(testing::Contents(*store).size(), 4u);
}

}  // namespace
}  // namespace linebloom::kvstore
