// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/rocksdb/registration.h"

#include <charconv>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "linebloom/filter_options.h"
#include "linebloom/rocksdb/c.h"
#include "linebloom/rocksdb/level_aware_listener.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin {

namespace {

// Parses all of `text` as a T; nullopt if it is not one.
template <typename T>
std::optional<T> ParseNumber(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "linebloom", "linebloom:<bits per key>" or "linebloom:<bits per
// key>:<compact_from_level>" (as RocksDB's "ribbonfilter:<bits>:<bloom
// before level>"): bits per key in [1, 100], the level >= -1. (The pattern
// takes any suffix so that a bad one reaches this function and is reported,
// not just "could not load".)
const ::rocksdb::FilterPolicy* NewPolicyFromUri(const std::string& uri,
                                                std::unique_ptr<const ::rocksdb::FilterPolicy>* guard,
                                                std::string* errmsg) {
  LinebloomPolicyOptions options;
  const size_t colon = uri.find(':');
  if (colon != std::string::npos) {
    std::string_view bits_text = std::string_view(uri).substr(colon + 1);
    std::optional<int> level = options.compact_from_level;
    const size_t second = bits_text.find(':');
    if (second != std::string_view::npos) {
      level = ParseNumber<int>(bits_text.substr(second + 1));
      bits_text = bits_text.substr(0, second);
    }
    const std::optional<double> bits = ParseNumber<double>(bits_text);
    if (!bits || !(*bits >= kMinBitsPerKey && *bits <= kMaxBitsPerKey) || !level || *level < -1) {
      // RocksDB reports a factory's failure as "Could not load FilterPolicy"
      // from FilterPolicy::CreateFromString, but swallows it inside table
      // options (the table then gets no filter): say why on stderr too.
      const std::string message =
          "linebloom: expected linebloom:<bits per key in [1, 100]>[:<compact_from_level >= -1>]: " + uri;
      std::fprintf(stderr, "%s\n", message.c_str());
      if (errmsg != nullptr) *errmsg = message;
      return nullptr;
    }
    options.bits_per_key = *bits;
    options.compact_from_level = *level;
  }
  guard->reset(new LinebloomFilterPolicy(options));
  return guard->get();
}

}  // namespace

int RegisterLinebloom(::rocksdb::ObjectLibrary& library, const std::string& /*arg*/) {
  // optional=true: the bare id matches too (needed for "id=linebloom;...").
  library.AddFactory<const ::rocksdb::FilterPolicy>(
      ::rocksdb::ObjectLibrary::PatternEntry(LinebloomFilterPolicy::kClassName(),
                                             /*optional=*/true)
          .AddSeparator(":", /*at_least_one=*/true),
      NewPolicyFromUri);
  library.AddFactory<::rocksdb::EventListener>(
      LevelAwareListener::kClassName(),
      [](const std::string& /*uri*/, std::unique_ptr<::rocksdb::EventListener>* guard, std::string* /*errmsg*/) {
        guard->reset(new LevelAwareListener());
        return guard->get();
      });
  return 2;
}

void RegisterLinebloomWithDefaultLibrary() {
  static std::once_flag once;
  std::call_once(once, [] { RegisterLinebloom(*::rocksdb::ObjectLibrary::Default()); });
}

}  // namespace linebloom::rocksdb_plugin

extern "C" void linebloom_rocksdb_register(void) { linebloom::rocksdb_plugin::RegisterLinebloomWithDefaultLibrary(); }
