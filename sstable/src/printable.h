// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Keys in error messages: quoted, bytes outside printable ASCII as \xHH,
// long keys cut after 64 bytes. Internal header.

#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace linebloom::sstable::internal {

inline std::string Printable(std::string_view key) {
  constexpr size_t kMaxShown = 64;
  std::string out = "\"";
  for (size_t i = 0; i < key.size() && i < kMaxShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[5];
      std::snprintf(buf, sizeof(buf), "\\x%02X", c);
      out.append(buf);
    }
  }
  out.push_back('"');
  if (key.size() > kMaxShown) out.append("... (").append(std::to_string(key.size())).append(" bytes)");
  return out;
}

}  // namespace linebloom::sstable::internal
