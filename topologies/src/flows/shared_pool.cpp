// Max-min water level of one shared capacity among capped clients.
#include "fleetwatt/topologies/flows/shared_pool.hpp"

#include "fleetwatt/core/assert.hpp"

#include <limits>
#include <stdexcept>

namespace fleetwatt::topologies {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

SharedPool::SharedPool(double capacity_Bps) : capacity_(capacity_Bps) {
  if (!(capacity_Bps > 0.0)) throw std::invalid_argument("a shared pool needs a positive capacity");
}

std::uint32_t SharedPool::add(double cap_Bps, std::uint32_t count) {
  if (!(cap_Bps > 0.0)) throw std::invalid_argument("a pool client's cap must be positive");
  if (count == 0) throw std::invalid_argument("a pool client stands for at least one");
  std::uint32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<std::uint32_t>(cap_.size());
    cap_.push_back(0.0);
    count_.push_back(0);
  }
  cap_[id] = cap_Bps;
  count_[id] = count;
  by_cap_[cap_Bps] += count;
  live_ += count;
  dirty_ = true;
  return id;
}

void SharedPool::remove(std::uint32_t id) {
  FLEETWATT_ASSERT(id < cap_.size() && cap_[id] != 0.0, "removing a pool client that is not live");
  const auto it = by_cap_.find(cap_[id]);
  it->second -= count_[id];
  if (it->second == 0) by_cap_.erase(it);
  live_ -= count_[id];
  cap_[id] = 0.0;
  count_[id] = 0;
  free_.push_back(id);
  dirty_ = true;
}

double SharedPool::level() {
  if (!dirty_) return level_;
  // Walk the caps upwards: clients below the level run at their caps; the rest split what is left.
  double left = capacity_;
  std::size_t above = live_;
  level_ = kInf;
  for (const auto& [cap, n] : by_cap_) {
    const double share = left / static_cast<double>(above);
    if (cap >= share) {
      level_ = share;
      break;
    }
    left -= cap * n;
    above -= n;
  }
  dirty_ = false;
  return level_;
}

double SharedPool::rate(std::uint32_t id) {
  FLEETWATT_ASSERT(id < cap_.size() && cap_[id] != 0.0, "rate of a pool client that is not live");
  return std::min(cap_[id], level());
}

}  // namespace fleetwatt::topologies
