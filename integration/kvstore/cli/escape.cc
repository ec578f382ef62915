// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "escape.h"

#include <cstdio>

namespace linebloom::kvstore::cli {
namespace {

void AppendHex(std::string* out, unsigned char c) {
  char buf[5];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out->append(buf);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string Escape(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char c : bytes) {
    switch (c) {
      case '\\': out.append("\\\\"); break;
      case '\t': out.append("\\t"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          AppendHex(&out, c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out;
}

bool Unescape(std::string_view text, std::string* out, std::string* error) {
  out->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out->push_back(text[i]);
      continue;
    }
    if (i + 1 == text.size()) {
      *error = "a backslash at the end (write \\\\ for a backslash)";
      return false;
    }
    switch (text[++i]) {
      case '\\': out->push_back('\\'); break;
      case 't': out->push_back('\t'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 'x': {
        const int hi = i + 1 < text.size() ? HexDigit(text[i + 1]) : -1;
        const int lo = i + 2 < text.size() ? HexDigit(text[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
          *error = "\\x needs two hex digits";
          return false;
        }
        out->push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        break;
      }
      default: *error = std::string("unknown escape \\").append(1, text[i]); return false;
    }
  }
  return true;
}

std::string EscapeBatchValue(std::string_view value) {
  std::string escaped = Escape(value);
  if (escaped == "OK" || escaped == "NOTFOUND" || escaped.starts_with("ERR")) {
    std::string out;
    AppendHex(&out, static_cast<unsigned char>(escaped[0]));
    return out.append(escaped, 1);
  }
  return escaped;
}

}  // namespace linebloom::kvstore::cli
