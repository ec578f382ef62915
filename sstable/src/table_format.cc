// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "table_format.h"

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "linebloom/foundation/coding.h"

namespace linebloom::sstable::internal {
namespace {

constexpr size_t kFooterChecksumAt = 36;
constexpr size_t kFooterMagicAt = 40;

uint32_t FooterChecksum(const char* footer) { return static_cast<uint32_t>(XXH3_64bits(footer, kFooterChecksumAt)); }

void PutHandle(std::string* dst, const BlockHandle& h) {
  PutVarint64(dst, h.offset);
  PutVarint64(dst, h.size);
}

bool GetHandle(Decoder* d, BlockHandle* h) {
  // An end beyond 2^63 cannot be a file offset; rejecting it here keeps
  // every later offset + size computation free of overflow.
  constexpr uint64_t kMax = uint64_t{1} << 62;
  return d->GetBoundedVarint(kMax, &h->offset) && d->GetBoundedVarint(kMax, &h->size);
}

bool Fail(const char** why, const char* reason) {
  *why = reason;
  return false;
}

}  // namespace

std::string EncodeFooter(const Footer& footer) {
  std::string out;
  PutFixed64(&out, footer.meta.offset);
  PutFixed64(&out, footer.meta.size);
  PutFixed64(&out, footer.index.offset);
  PutFixed64(&out, footer.index.size);
  PutFixed32(&out, footer.version);
  PutFixed32(&out, FooterChecksum(out.data()));
  out.append(kTableMagic, sizeof(kTableMagic));
  return out;
}

bool DecodeFooter(std::string_view bytes, Footer* footer, const char** why) {
  if (bytes.size() != kFooterSize) return Fail(why, "footer has the wrong size");
  if (std::memcmp(bytes.data() + kFooterMagicAt, kTableMagic, sizeof(kTableMagic)) != 0) {
    return Fail(why, "bad magic number: not a linebloom micro-SSTable");
  }
  // The version comes before every other field: a future version may give
  // the rest of the footer another meaning.
  const uint32_t version = DecodeFixed32(bytes.data() + 32);
  if (version < kOldestTableFormatVersion || version > kTableFormatVersion) {
    return Fail(why, "unsupported table format version");
  }
  if (DecodeFixed32(bytes.data() + kFooterChecksumAt) != FooterChecksum(bytes.data())) {
    return Fail(why, "footer checksum mismatch");
  }
  footer->meta = {DecodeFixed64(bytes.data()), DecodeFixed64(bytes.data() + 8)};
  footer->index = {DecodeFixed64(bytes.data() + 16), DecodeFixed64(bytes.data() + 24)};
  footer->version = version;
  return true;
}

std::string EncodeMeta(const TableMeta& meta) {
  std::string out;
  out.push_back(static_cast<char>(meta.filter_mode));
  PutLengthPrefixed(&out, meta.filter_policy);
  PutLengthPrefixed(&out, meta.filter_parameters);
  PutVarint64(&out, meta.num_entries);
  PutVarint64(&out, meta.num_blocks);
  PutHandle(&out, meta.filter_region);
  PutFixed32(&out, meta.filter_region_checksum);
  return out;
}

uint32_t FilterRegionChecksum(std::string_view region) {
  return static_cast<uint32_t>(XXH3_64bits(region.data(), region.size()));
}

bool DecodeMeta(std::string_view contents, uint32_t version, TableMeta* meta, const char** why) {
  Decoder d(contents);
  uint8_t mode;
  std::string_view name;
  TableMeta m;
  if (!d.GetByte(&mode)) return Fail(why, "meta block is empty");
  if (mode > static_cast<uint8_t>(FilterMode::kPerFile)) return Fail(why, "unknown filter mode");
  m.filter_mode = static_cast<FilterMode>(mode);
  if (!d.GetLengthPrefixed(kMaxPolicyNameSize, &name)) return Fail(why, "bad filter policy name");
  m.filter_policy = std::string(name);
  if (version >= 2) {
    std::string_view parameters;
    if (!d.GetLengthPrefixed(kMaxFilterParametersSize, &parameters)) return Fail(why, "bad filter parameters");
    m.filter_parameters = std::string(parameters);
  }
  if (!d.GetVarint64(&m.num_entries) || !d.GetVarint64(&m.num_blocks) || !GetHandle(&d, &m.filter_region)) {
    return Fail(why, "malformed meta block");
  }
  if (version >= 2) {
    std::string_view checksum;
    if (!d.GetBytes(4, &checksum)) return Fail(why, "malformed meta block");
    m.filter_region_checksum = DecodeFixed32(checksum.data());
  }
  if (!d.empty()) return Fail(why, "malformed meta block");
  if (m.filter_mode == FilterMode::kNone && !m.filter_parameters.empty()) {
    return Fail(why, "filter parameters without a filter");
  }
  if ((m.filter_mode == FilterMode::kNone) != m.filter_policy.empty()) {
    return Fail(why, "filter mode and filter policy disagree");
  }
  *meta = std::move(m);
  return true;
}

std::string EncodeIndex(const std::vector<IndexEntry>& entries) {
  std::string out;
  PutVarint64(&out, entries.size());
  for (const IndexEntry& e : entries) {
    PutLengthPrefixed(&out, e.last_key);
    PutHandle(&out, e.data);
    PutVarint64(&out, e.filter.size);
    PutVarint64(&out, e.num_entries);
  }
  return out;
}

bool DecodeIndex(std::string_view contents, uint32_t version, std::vector<IndexEntry>* entries, const char** why) {
  Decoder d(contents);
  uint64_t count;
  // Every entry takes at least 5 bytes (6 in version 1), so a larger count
  // is a lie;
  // checking it before reserving keeps a corrupt count from allocating.
  if (!d.GetVarint64(&count) || count > d.remaining() / (version >= 2 ? 5 : 6))
    return Fail(why, "bad index entry count");
  std::vector<IndexEntry> out;
  out.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    IndexEntry e;
    std::string_view key;
    auto get_filter = [&] {
      return version >= 2 ? d.GetBoundedVarint(uint64_t{1} << 62, &e.filter.size) : GetHandle(&d, &e.filter);
    };
    if (!d.GetLengthPrefixed(kMaxKeySize, &key) || !GetHandle(&d, &e.data) || !get_filter() ||
        !d.GetVarint64(&e.num_entries)) {
      return Fail(why, "malformed index entry");
    }
    e.last_key = std::string(key);
    out.push_back(std::move(e));
  }
  if (!d.empty()) return Fail(why, "trailing bytes after the index entries");
  *entries = std::move(out);
  return true;
}

}  // namespace linebloom::sstable::internal
