// One shared capacity (a storage system's bandwidth) split max-min among clients that each have their own
// cap (a node's NICs, its data-loader workers): a water level L such that every client gets min(cap, L)
// and the grants add up to the capacity when it is oversubscribed. Caps take few distinct values in a
// fleet, so clients are counted per cap value and the level costs O(distinct caps) after a change.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace fleetwatt::topologies {

class SharedPool {
 public:
  /// `capacity_Bps` > 0.
  explicit SharedPool(double capacity_Bps);

  /// Adds a client with a positive cap (+infinity: uncapped); returns its id. `count` > 1 adds that many
  /// identical clients under one id (a job's nodes with the same NICs): the level is the same as for
  /// `count` separate clients, and each of them gets rate(id).
  std::uint32_t add(double cap_Bps, std::uint32_t count = 1);
  /// Removes a client; its id may be reused.
  void remove(std::uint32_t id);
  /// A client's current max-min grant.
  [[nodiscard]] double rate(std::uint32_t id);
  /// The water level (+infinity while the caps fit in the capacity).
  [[nodiscard]] double level();
  [[nodiscard]] std::size_t clients() const noexcept { return live_; }
  [[nodiscard]] double capacity() const noexcept { return capacity_; }

 private:
  double capacity_;
  std::vector<double> cap_;           ///< per id; 0 when free
  std::vector<std::uint32_t> count_;  ///< per id: identical clients it stands for
  std::vector<std::uint32_t> free_;
  std::map<double, std::uint32_t> by_cap_;  ///< cap -> clients with it
  std::size_t live_ = 0;
  double level_ = 0.0;
  bool dirty_ = true;
};

}  // namespace fleetwatt::topologies
