// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "batch_session.h"

#include <unistd.h>

#include <cerrno>

#include "escape.h"

namespace linebloom::kvstore::cli {
namespace {

struct ParsedLine {
  enum class Kind { kPut, kDelete, kGet, kBad } kind = Kind::kBad;
  std::string key, value, error;
};

ParsedLine Parse(std::string_view line) {
  ParsedLine p;
  const size_t space = line.find(' ');
  const std::string_view cmd = line.substr(0, space);
  const std::string_view rest = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
  auto bad = [&p](std::string why) {
    p.kind = ParsedLine::Kind::kBad;
    p.error = std::move(why);
    return p;
  };
  std::string_view key_text, value_text;
  if (cmd == "put") {
    const size_t key_end = rest.find(' ');
    if (space == std::string_view::npos || key_end == std::string_view::npos) {
      return bad("put needs KEY VALUE");
    }
    p.kind = ParsedLine::Kind::kPut;
    key_text = rest.substr(0, key_end);
    value_text = rest.substr(key_end + 1);
  } else if (cmd == "get" || cmd == "delete") {
    if (space == std::string_view::npos) return bad(std::string(cmd) + " needs KEY");
    if (rest.find(' ') != std::string_view::npos) {
      return bad(std::string(cmd) + " takes one KEY (write a space in a key as \\x20)");
    }
    p.kind = cmd == "get" ? ParsedLine::Kind::kGet : ParsedLine::Kind::kDelete;
    key_text = rest;
  } else if (line.empty()) {
    return bad("empty line");
  } else {
    return bad(std::string("unknown command '").append(Escape(cmd)).append("' (put, get, delete)"));
  }
  std::string why;
  if (!Unescape(key_text, &p.key, &why)) return bad("KEY: " + why);
  if (!Unescape(value_text, &p.value, &why)) return bad("VALUE: " + why);
  return p;
}

// Status text on one line.
std::string OneLine(const Status& s) {
  std::string text = s.ToString();
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

BatchSession::BatchSession(KvStore* store, std::FILE* out) : store_(store), out_(out) {}

void BatchSession::Feed(std::string_view bytes) {
  carry_.append(bytes);
  const size_t last_newline = carry_.rfind('\n');
  if (last_newline == std::string::npos) return;
  const std::string lines = carry_.substr(0, last_newline + 1);
  carry_.erase(0, last_newline + 1);
  HandleLines(lines);
}

void BatchSession::Finish() {
  if (!carry_.empty()) {
    const std::string last = std::move(carry_);
    carry_.clear();
    HandleLines(last);
  }
  CommitPending();
  Flush();
}

void BatchSession::HandleLines(std::string_view lines) {
  while (!lines.empty()) {
    const size_t nl = lines.find('\n');
    std::string_view line = lines.substr(0, nl);
    lines.remove_prefix(nl == std::string_view::npos ? lines.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    Answer(line);
  }
  // Everything that arrived together is one group: commit it and answer.
  CommitPending();
  Flush();
}

void BatchSession::Answer(std::string_view line) {
  ++commands_;
  ParsedLine p = Parse(line);
  switch (p.kind) {
    case ParsedLine::Kind::kPut: pending_.Put(p.key, p.value); return;
    case ParsedLine::Kind::kDelete: pending_.Delete(p.key); return;
    case ParsedLine::Kind::kGet: {
      CommitPending();  // a get sees the puts before it
      std::string value;
      Status s = store_->Get(p.key, &value);
      if (s.ok()) {
        std::string answer = EscapeBatchValue(value);
        answer.push_back('\n');
        std::fwrite(answer.data(), 1, answer.size(), out_);
      } else if (s.IsNotFound()) {
        std::fputs("NOTFOUND\n", out_);
      } else {
        ++errors_;
        std::fprintf(out_, "ERR %s\n", OneLine(s).c_str());
      }
      return;
    }
    case ParsedLine::Kind::kBad:
      CommitPending();  // answers stay in input order
      ++errors_;
      std::fprintf(out_, "ERR %s\n", p.error.c_str());
      return;
  }
}

void BatchSession::CommitPending() {
  const uint32_t n = pending_.Count();
  if (n == 0) return;
  Status s = store_->Write(pending_);
  pending_.Clear();
  // OK is printed only now, after the write (and its fsync) returned.
  for (uint32_t i = 0; i < n; ++i) {
    if (s.ok()) {
      std::fputs("OK\n", out_);
    } else {
      ++errors_;
      std::fprintf(out_, "ERR %s\n", OneLine(s).c_str());
    }
  }
}

void BatchSession::Flush() { std::fflush(out_); }

void RunBatch(KvStore* store, int in_fd, std::FILE* out) {
  BatchSession batch(store, out);
  char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(in_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    batch.Feed(std::string_view(buf, static_cast<size_t>(n)));
  }
  batch.Finish();
}

}  // namespace linebloom::kvstore::cli
