// A set of node indices as one bit per node, visited in ascending order: what the cluster's free-count
// buckets need (insert, erase, lowest member, ascending walk) without a tree node allocated and freed each
// time a job takes or gives back a server's GPUs.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>
#include <vector>

namespace fleetwatt::sim {

class NodeSet {
 public:
  using value_type = std::uint32_t;

  NodeSet() = default;
  /// Room for nodes 0 .. nodes - 1.
  explicit NodeSet(std::uint32_t nodes) : words_((nodes + 63) / 64, 0) {}

  void insert(std::uint32_t n) {
    std::uint64_t& w = words_[n / 64];
    const std::uint64_t bit = std::uint64_t{1} << (n % 64);
    size_ += (w & bit) == 0 ? 1 : 0;
    w |= bit;
    first_word_ = std::min<std::size_t>(first_word_, n / 64);
  }
  void erase(std::uint32_t n) {
    std::uint64_t& w = words_[n / 64];
    const std::uint64_t bit = std::uint64_t{1} << (n % 64);
    size_ -= (w & bit) != 0 ? 1 : 0;
    w &= ~bit;
  }
  [[nodiscard]] bool contains(std::uint32_t n) const { return (words_[n / 64] >> (n % 64) & 1) != 0; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  /// Ascending walk over the members.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::uint32_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::uint32_t*;
    using reference = std::uint32_t;

    const_iterator() = default;
    const_iterator(const std::vector<std::uint64_t>* words, std::size_t word) : words_(words), word_(word) {
      if (word_ < words_->size()) bits_ = (*words_)[word_];
      settle();
    }
    std::uint32_t operator*() const {
      return static_cast<std::uint32_t>(word_ * 64 + static_cast<std::size_t>(std::countr_zero(bits_)));
    }
    const_iterator& operator++() {
      bits_ &= bits_ - 1;  // drop the lowest member
      settle();
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const const_iterator& o) const { return word_ == o.word_ && bits_ == o.bits_; }

   private:
    void settle() {
      while (bits_ == 0 && ++word_ < words_->size()) bits_ = (*words_)[word_];
      if (word_ >= words_->size()) word_ = words_->size(), bits_ = 0;
    }
    const std::vector<std::uint64_t>* words_ = nullptr;
    std::size_t word_ = 0;
    std::uint64_t bits_ = 0;
  };

  [[nodiscard]] const_iterator begin() const {
    // No member lies below first_word_ (an insert moves it down), so the walk starts there; the empty
    // words an erase left are skipped once, here, not by every walk.
    while (first_word_ < words_.size() && words_[first_word_] == 0) ++first_word_;
    return const_iterator(&words_, first_word_);
  }
  [[nodiscard]] const_iterator end() const { return const_iterator(&words_, words_.size()); }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
  mutable std::size_t first_word_ = ~std::size_t{0} >> 1;  ///< no member lies in an earlier word
};

}  // namespace fleetwatt::sim
