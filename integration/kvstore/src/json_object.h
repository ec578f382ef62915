// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A small writer for the pretty-printed JSON of `linebloom-kv DIR stats`:
// one key per line, two spaces of indent per level. Internal header.

#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace linebloom::kvstore::internal {

inline void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out->append(buf);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

// Writes "{" on construction and the fields given; Close writes "}".
class JsonObject {
 public:
  JsonObject(std::string* out, int indent) : out_(out), indent_(indent) { out_->push_back('{'); }
  void Key(std::string_view k) {
    out_->append(first_ ? "\n" : ",\n").append(indent_ + 2, ' ');
    first_ = false;
    AppendJsonString(out_, k);
    out_->append(": ");
  }
  void Field(std::string_view k, uint64_t v) {
    Key(k);
    out_->append(std::to_string(v));
  }
  void Field(std::string_view k, double v) {
    Key(k);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    out_->append(buf);
  }
  void Field(std::string_view k, std::string_view v) {
    Key(k);
    AppendJsonString(out_, v);
  }
  // A field holding an array with one object per item, one object per
  // line; write_fields(JsonObject*, const Item&) fills each object.
  template <typename Items, typename WriteFields>
  void ArrayOfObjects(std::string_view k, const Items& items, WriteFields write_fields) {
    Key(k);
    out_->append("[");
    bool first_item = true;
    for (const auto& item : items) {
      out_->append(first_item ? "\n" : ",\n").append(indent_ + 4, ' ');
      first_item = false;
      JsonObject o(out_, indent_ + 4);
      write_fields(&o, item);
      o.Close();
    }
    if (!first_item) out_->append("\n").append(indent_ + 2, ' ');
    out_->append("]");
  }
  void Close() { out_->append("\n").append(indent_, ' ').append("}"); }

 private:
  std::string* out_;
  int indent_;
  bool first_ = true;
};

}  // namespace linebloom::kvstore::internal
