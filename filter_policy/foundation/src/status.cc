// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/foundation/status.h"

#include <cstring>

namespace linebloom {

const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return "OK";
    case Status::Code::kNotFound: return "NotFound";
    case Status::Code::kCorruption: return "Corruption";
    case Status::Code::kIOError: return "IOError";
    case Status::Code::kInvalidArgument: return "InvalidArgument";
    case Status::Code::kNotSupported: return "NotSupported";
  }
  return "Unknown";
}

Status Status::CorruptionAt(std::string_view file, uint64_t offset, std::string_view what) {
  std::string msg(file);
  msg.append(": offset ").append(std::to_string(offset)).append(": ").append(what);
  return Corruption(msg);
}

Status Status::FromErrno(std::string_view context, int errnum) {
  std::string msg(context);
  msg.append(": ").append(std::strerror(errnum));
  return IOError(msg);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(CodeName(code_));
  if (!message_.empty()) out.append(": ").append(message_);
  return out;
}

}  // namespace linebloom
