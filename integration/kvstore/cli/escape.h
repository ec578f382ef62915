// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How linebloom-kv puts arbitrary bytes into line formats (scan output and
// batch mode; docs/KVSTORE.md, "Escaping"). Printable bytes, spaces and
// bytes >= 0x80 (UTF-8) stand for themselves; a backslash, tab, newline and
// carriage return are written \\ \t \n \r; any other byte below 0x20, and
// 0x7f, as \xHH. Text without backslashes or control bytes is unchanged.

#pragma once

#include <string>
#include <string_view>

namespace linebloom::kvstore::cli {

std::string Escape(std::string_view bytes);

// The inverse of Escape; also accepts \xHH for any byte (e.g. \x20 for a
// space in a batch-mode key). False, with *error set, on a bad escape.
bool Unescape(std::string_view text, std::string* out, std::string* error);

// A value as batch mode answers `get`: escaped, and if that would read as
// one of the protocol's own answers (OK, NOTFOUND, ERR...), with its first
// byte written as \xHH, so every answer line has one meaning.
std::string EscapeBatchValue(std::string_view value);

}  // namespace linebloom::kvstore::cli
