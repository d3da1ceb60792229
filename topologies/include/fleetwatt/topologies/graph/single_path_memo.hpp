// Routes between two vertices that have one shortest path only: kept by end-point pair, so that a pair
// asked again (the same GPUs' ring neighbours in the next job placed there) is a copy, not a search. A
// route with a choice among equal paths depends on its flow key and is not kept here. Bounded: past its
// capacity the memo is emptied and refills, and no route depends on what it holds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetwatt/topologies/graph/topology.hpp"

namespace fleetwatt::topologies {

class SinglePathMemo {
 public:
  /// At most `capacity` pairs (rounded up to a power of two); the table starts small and doubles.
  explicit SinglePathMemo(std::size_t capacity = std::size_t{1} << 16);

  /// The links of a's single path to b and its latency, or false when the pair is not held.
  bool find(Vertex a, Vertex b, std::vector<DirectedLink>& out, double& latency_s) const;
  /// Keeps `links` (with its summed latency) as the one shortest path from a to b.
  void keep(Vertex a, Vertex b, std::span<const DirectedLink> links, double latency_s);

  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  struct Slot {
    std::uint64_t pair = kEmpty;
    std::uint32_t links_at = 0, links_n = 0;
    double latency_s = 0.0;
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static constexpr std::size_t kFirstSlots = 1024;
  void grow();
  [[nodiscard]] static std::uint64_t key(Vertex a, Vertex b) noexcept {
    return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint64_t>(b);
  }
  [[nodiscard]] std::size_t home(std::uint64_t pair) const noexcept;

  std::vector<Slot> slots_;  ///< open addressing, linear probing, at most half full
  std::vector<DirectedLink> links_;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace fleetwatt::topologies
