// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/compact_hashes.h"

#include <algorithm>
#include <utility>

namespace linebloom {

// Out of line: the per-key path (push_back) stays short enough to inline.
// The next page is the last block's next one, or the first of a new block.
void CompactHashes::AddPage() {
  if (free_pages_ == 0) {
    free_pages_ = std::clamp<size_t>(size_ / kChunkHashes / kGrowthShare, 1, kMaxBlockPages);
    std::unique_ptr<uint64_t, FilterMemoryDeleter> block(
        static_cast<uint64_t*>(AllocateFilterMemory(free_pages_ * kChunkHashes * sizeof(uint64_t))));
    end_ = block.get();
    blocks_.push_back(std::move(block));
  }
  fill_ = end_;
  end_ = fill_ + kChunkHashes;
  pages_.push_back(fill_);
  --free_pages_;
}

void CompactHashes::Append(std::span<const uint64_t> hashes) {
  while (!hashes.empty()) {
    if (fill_ == end_) AddPage();
    const size_t n = std::min(hashes.size(), static_cast<size_t>(end_ - fill_));
    std::copy_n(hashes.begin(), n, fill_);
    fill_ += n;
    size_ += n;
    hashes = hashes.subspan(n);
  }
}

CompactHashes& CompactHashes::operator=(CompactHashes&& other) noexcept {
  if (this != &other) {
    blocks_ = std::move(other.blocks_);
    pages_ = std::move(other.pages_);
    free_pages_ = other.free_pages_;
    size_ = other.size_;
    fill_ = other.fill_;
    end_ = other.end_;
    other.Clear();
  }
  return *this;
}

void CompactHashes::Clear() {
  std::vector<std::unique_ptr<uint64_t, FilterMemoryDeleter>>().swap(blocks_);
  std::vector<uint64_t*>().swap(pages_);
  free_pages_ = 0;
  size_ = 0;
  fill_ = end_ = nullptr;
}

}  // namespace linebloom
