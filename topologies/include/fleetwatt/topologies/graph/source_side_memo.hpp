// A route's source-server distances, kept by what determines them: the server's shape (its internal links
// and weights, and where it attaches to the network) and the distance from each of its attachments to the
// destination. Servers of one shape behind switches at the same distance from a destination have the same
// distances inside, bit for bit (the same search over the same weights from the same seeds), so a fat-tree
// route needs a search of its source server only for the first of a handful of such keys. Bounded: past
// its capacity the memo is emptied and refills, and no route depends on what it holds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace fleetwatt::topologies {

class SourceSideMemo {
 public:
  /// At most `capacity` keys (rounded up to a power of two).
  explicit SourceSideMemo(std::size_t capacity = std::size_t{1} << 12);

  /// The distances kept for (shape, attachment distances), valid until the next keep(); none when absent.
  [[nodiscard]] std::optional<std::span<const double>> find(std::uint32_t shape,
                                                            std::span<const double> attachments) const;
  /// Keeps `distances` (by server slot) for (shape, attachment distances).
  void keep(std::uint32_t shape, std::span<const double> attachments, std::span<const double> distances);

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    std::uint64_t hash;
    std::uint32_t shape;
    std::uint32_t key_at, key_n, value_at, value_n;
  };
  [[nodiscard]] static std::uint64_t hash(std::uint32_t shape, std::span<const double> attachments) noexcept;
  [[nodiscard]] bool matches(const Entry& e, std::uint64_t h, std::uint32_t shape,
                             std::span<const double> attachments) const noexcept;

  std::vector<std::uint32_t> slots_;  ///< 1 + index into entries_, or 0; linear probing, at most half full
  std::vector<Entry> entries_;
  std::vector<double> keys_, values_;
  std::size_t capacity_;
};

}  // namespace fleetwatt::topologies
