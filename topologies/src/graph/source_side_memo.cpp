// Source-server distances by (shape, attachment distances) in an open-addressed table over flat pools.
#include "fleetwatt/topologies/graph/source_side_memo.hpp"

#include <algorithm>
#include <bit>

#include "fleetwatt/core/random.hpp"

namespace fleetwatt::topologies {

SourceSideMemo::SourceSideMemo(std::size_t capacity)
    : slots_(2 * std::bit_ceil(std::max<std::size_t>(capacity, 1)), 0),
      capacity_(std::bit_ceil(std::max<std::size_t>(capacity, 1))) {}

std::uint64_t SourceSideMemo::hash(std::uint32_t shape, std::span<const double> attachments) noexcept {
  std::uint64_t h = core::splitmix64(shape);
  for (const double d : attachments) h = core::splitmix64(h ^ std::bit_cast<std::uint64_t>(d));
  return h;
}

bool SourceSideMemo::matches(const Entry& e, std::uint64_t h, std::uint32_t shape,
                             std::span<const double> attachments) const noexcept {
  // Bits, not values: equal bits are the same input to the same search.
  return e.hash == h && e.shape == shape && e.key_n == attachments.size() &&
         std::equal(attachments.begin(), attachments.end(), keys_.begin() + e.key_at, [](double a, double b) {
           return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
         });
}

std::optional<std::span<const double>> SourceSideMemo::find(std::uint32_t shape,
                                                            std::span<const double> attachments) const {
  const std::uint64_t h = hash(shape, attachments);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == 0) return std::nullopt;
    const Entry& e = entries_[slots_[i] - 1];
    if (matches(e, h, shape, attachments))
      return std::span<const double>(values_.data() + e.value_at, e.value_n);
  }
}

void SourceSideMemo::keep(std::uint32_t shape, std::span<const double> attachments,
                          std::span<const double> distances) {
  if (entries_.size() == capacity_) {
    // Full: start again rather than choose what to drop (a fabric's keys come back within a few routes).
    std::fill(slots_.begin(), slots_.end(), 0);
    entries_.clear();
    keys_.clear();
    values_.clear();
  }
  const std::uint64_t h = hash(shape, attachments);
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = static_cast<std::size_t>(h) & mask;
  for (; slots_[i] != 0; i = (i + 1) & mask)
    if (matches(entries_[slots_[i] - 1], h, shape, attachments)) return;
  entries_.push_back(Entry{
      h, shape, static_cast<std::uint32_t>(keys_.size()), static_cast<std::uint32_t>(attachments.size()),
      static_cast<std::uint32_t>(values_.size()), static_cast<std::uint32_t>(distances.size())});
  keys_.insert(keys_.end(), attachments.begin(), attachments.end());
  values_.insert(values_.end(), distances.begin(), distances.end());
  slots_[i] = static_cast<std::uint32_t>(entries_.size());
}

}  // namespace fleetwatt::topologies
