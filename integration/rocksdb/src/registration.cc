// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/rocksdb/registration.h"

#include <charconv>
#include <memory>
#include <mutex>
#include <string_view>

#include "linebloom/filter_options.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin {

namespace {

// "linebloom" or "linebloom:<bits_per_key>" (the pattern guarantees the
// shape; the value still has to be a sane number of bits).
const ::rocksdb::FilterPolicy* NewPolicyFromUri(
    const std::string& uri, std::unique_ptr<const ::rocksdb::FilterPolicy>* guard,
    std::string* errmsg) {
  LinebloomPolicyOptions options;
  const size_t colon = uri.find(':');
  if (colon != std::string::npos) {
    const std::string_view number = std::string_view(uri).substr(colon + 1);
    double bits = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), bits);
    if (ec != std::errc() || end != number.data() + number.size() ||
        !(bits >= kMinBitsPerKey && bits <= kMaxBitsPerKey)) {
      if (errmsg != nullptr) {
        *errmsg = "linebloom: bits per key must be a number in [1, 100]: " + uri;
      }
      return nullptr;
    }
    options.bits_per_key = bits;
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
          .AddNumber(":", /*is_int=*/false),
      NewPolicyFromUri);
  return 1;
}

void RegisterLinebloomWithDefaultLibrary() {
  static std::once_flag once;
  std::call_once(once, [] { RegisterLinebloom(*::rocksdb::ObjectLibrary::Default()); });
}

}  // namespace linebloom::rocksdb_plugin
