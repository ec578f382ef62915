// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// `linebloom-kv DIR batch`: commands on stdin, one per line, one answer line
// per command on stdout (docs/KVSTORE.md, "CLI"):
//   put KEY VALUE   ->  OK once the put is durable
//   delete KEY      ->  OK once the delete is durable
//   get KEY         ->  the value, or NOTFOUND
//   anything else   ->  ERR <reason>, and the batch goes on
// KEY ends at the first space; VALUE is the rest of the line (spaces
// included). Both are unescaped (escape.h); values are escaped in answers.
//
// Group commit: consecutive puts and deletes that have already arrived are
// written as one atomic batch with one fsync, then answered together.

#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "linebloom/kvstore/kv_store.h"

namespace linebloom::kvstore::cli {

class BatchSession {
 public:
  // Answers go to `out`, flushed after each group.
  BatchSession(KvStore* store, std::FILE* out);

  // Handles every complete line of the input received so far.
  void Feed(std::string_view bytes);
  // End of input: handles a last line without a newline.
  void Finish();

  uint64_t commands() const { return commands_; }
  uint64_t errors() const { return errors_; }

 private:
  void HandleLines(std::string_view lines);
  void Answer(std::string_view line);
  void CommitPending();
  void Flush();

  KvStore* const store_;
  std::FILE* const out_;
  std::string carry_;   // an incomplete last line
  WriteBatch pending_;  // puts and deletes not yet committed
  uint64_t commands_ = 0;
  uint64_t errors_ = 0;
};

// Reads `in_fd` to its end through a BatchSession.
void RunBatch(KvStore* store, int in_fd, std::FILE* out);

}  // namespace linebloom::kvstore::cli
