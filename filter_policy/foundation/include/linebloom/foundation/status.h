// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The result of an operation that can fail: a code and a human-readable
// message. Every library above the core filter (the micro-SSTable, the
// key-value store) reports errors with it. Errors are values, not
// exceptions: storage code must be able to report a corrupt file without
// unwinding through half-finished I/O.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace linebloom {

class [[nodiscard]] Status {
 public:
  enum class Code : uint8_t {
    kOk = 0,
    kNotFound,         // the key (or file) does not exist; not an error for Get
    kCorruption,       // the bytes on disk are not what was written
    kIOError,          // the operating system refused or failed an operation
    kInvalidArgument,  // the caller broke a precondition (e.g. unsorted keys)
    kNotSupported,     // e.g. O_DIRECT on a filesystem without it
  };

  Status() = default;

  static Status Ok() { return {}; }
  static Status NotFound(std::string_view msg) { return {Code::kNotFound, msg}; }
  static Status Corruption(std::string_view msg) { return {Code::kCorruption, msg}; }
  static Status IOError(std::string_view msg) { return {Code::kIOError, msg}; }
  static Status InvalidArgument(std::string_view msg) { return {Code::kInvalidArgument, msg}; }
  static Status NotSupported(std::string_view msg) { return {Code::kNotSupported, msg}; }

  // "<file>: offset <offset>: <what>", the form every corruption report takes
  // so that an operator can find the damaged bytes.
  static Status CorruptionAt(std::string_view file, uint64_t offset, std::string_view what);
  // "<context>: <strerror(errnum)>".
  static Status FromErrno(std::string_view context, int errnum);

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }

  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "OK" or "<Code>: <message>".
  std::string ToString() const;

 private:
  Status(Code code, std::string_view msg) : code_(code), message_(msg) {}

  Code code_ = Code::kOk;
  std::string message_;
};

const char* CodeName(Status::Code code);

}  // namespace linebloom
