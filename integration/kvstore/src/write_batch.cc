// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/kvstore/write_batch.h"

#include <vector>

#include "linebloom/foundation/coding.h"
#include "write_batch_internal.h"

namespace linebloom::kvstore {

using internal::EntryKind;

// rep: count (u32), then per operation: kind (u8), key (u32 length + bytes),
// and for a put the value (u32 length + bytes).
WriteBatch::WriteBatch() { Clear(); }

void WriteBatch::Clear() {
  rep_.clear();
  PutFixed32(&rep_, 0);
}

uint32_t WriteBatch::Count() const { return DecodeFixed32(rep_.data()); }

void WriteBatch::Put(std::string_view key, std::string_view value) {
  rep_.push_back(static_cast<char>(EntryKind::kValue));
  PutFixed32LengthPrefixed(&rep_, key);
  PutFixed32LengthPrefixed(&rep_, value);
  std::string count;
  PutFixed32(&count, Count() + 1);
  rep_.replace(0, 4, count);
}

void WriteBatch::Delete(std::string_view key) {
  rep_.push_back(static_cast<char>(EntryKind::kDeletion));
  PutFixed32LengthPrefixed(&rep_, key);
  std::string count;
  PutFixed32(&count, Count() + 1);
  rep_.replace(0, 4, count);
}

namespace internal {

Status ForEachBatchOp(std::string_view rep, std::string_view where, const BatchOpVisitor& visit) {
  struct Op {
    EntryKind kind;
    std::string_view key, value;
  };
  // Parse everything first so a damaged batch applies nothing.
  std::vector<Op> ops;
  Decoder in(rep);
  uint32_t count = 0;
  auto corrupt = [&](const char* why) {
    return Status::Corruption(std::string(where).append(": write batch: ").append(why));
  };
  if (!in.GetFixed32(&count)) return corrupt("shorter than its count");
  if (count > rep.size()) return corrupt("count larger than the batch could hold");
  ops.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t kind = 0;
    Op op{};
    if (!in.GetByte(&kind)) return corrupt("fewer operations than its count");
    if (!in.GetFixed32LengthPrefixed(rep.size(), &op.key)) return corrupt("bad key length");
    if (kind == static_cast<uint8_t>(EntryKind::kValue)) {
      op.kind = EntryKind::kValue;
      if (!in.GetFixed32LengthPrefixed(rep.size(), &op.value)) return corrupt("bad value length");
    } else if (kind == static_cast<uint8_t>(EntryKind::kDeletion)) {
      op.kind = EntryKind::kDeletion;
    } else {
      return corrupt("unknown operation kind");
    }
    ops.push_back(op);
  }
  if (!in.empty()) return corrupt("bytes after the last operation");
  for (const Op& op : ops) {
    if (Status s = visit(op.kind, op.key, op.value); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace internal
}  // namespace linebloom::kvstore
