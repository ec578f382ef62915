// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Iteration reads one data block at a time; filters play no part (every
// block is visited anyway).

#include "reader_impl.h"

namespace linebloom::sstable {

class TableIterator::Impl {
 public:
  explicit Impl(const TableReader::Impl* table) : table_(table) {}

  void SeekToFirst() { LoadBlock(0, ""); }

  void Seek(std::string_view target) {
    const std::optional<size_t> b = table_->FindBlock(target);
    if (!b) {
      Invalidate();
      return;
    }
    LoadBlock(*b, target);
  }

  void Next() {
    if (!Valid()) return;
    if (++entry_ < block_.size()) return;
    LoadBlock(block_index_ + 1, "");
  }

  bool Valid() const { return valid_; }
  std::string_view key() const { return block_.key(entry_); }
  std::string_view value() const { return block_.value(entry_); }
  Status status() const { return status_; }

 private:
  void Invalidate() { valid_ = false; }

  // Positions at the first entry >= target of block b (every block holds an
  // entry >= target when b came from FindBlock, and blocks are never empty).
  void LoadBlock(size_t b, std::string_view target) {
    valid_ = false;
    block_index_ = b;
    if (b >= table_->index.size()) return;
    status_ = table_->ReadDataBlock(b, &buf_, &scratch_, &block_, nullptr);
    if (!status_.ok()) return;
    entry_ = target.empty() ? 0 : block_.LowerBound(target);
    valid_ = entry_ < block_.size();
  }

  const TableReader::Impl* table_;
  std::string buf_, scratch_;
  internal::DataBlock block_;
  size_t block_index_ = 0;
  size_t entry_ = 0;
  bool valid_ = false;
  Status status_;
};

TableIterator::TableIterator(const TableReader* table) : impl_(std::make_unique<Impl>(table->impl_.get())) {}
TableIterator::~TableIterator() = default;
void TableIterator::SeekToFirst() { impl_->SeekToFirst(); }
void TableIterator::Seek(std::string_view target) { impl_->Seek(target); }
void TableIterator::Next() { impl_->Next(); }
bool TableIterator::Valid() const { return impl_->Valid(); }
std::string_view TableIterator::key() const { return impl_->key(); }
std::string_view TableIterator::value() const { return impl_->value(); }
Status TableIterator::status() const { return impl_->status(); }

}  // namespace linebloom::sstable
