// Single-path routes by end-point pair in an open-addressed table, their links in one pool.
#include "fleetwatt/topologies/graph/single_path_memo.hpp"

#include <bit>

#include "fleetwatt/core/random.hpp"

namespace fleetwatt::topologies {

SinglePathMemo::SinglePathMemo(std::size_t capacity)
    : capacity_(std::bit_ceil(std::max<std::size_t>(capacity, 1))) {
  slots_.resize(std::min(kFirstSlots, 2 * capacity_));
}

void SinglePathMemo::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  for (const Slot& s : old) {
    if (s.pair == kEmpty) continue;
    std::size_t i = home(s.pair);
    while (slots_[i].pair != kEmpty) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = s;
  }
}

std::size_t SinglePathMemo::home(std::uint64_t pair) const noexcept {
  return static_cast<std::size_t>(core::splitmix64(pair)) & (slots_.size() - 1);
}

bool SinglePathMemo::find(Vertex a, Vertex b, std::vector<DirectedLink>& out, double& latency_s) const {
  const std::uint64_t pair = key(a, b);
  for (std::size_t i = home(pair);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& s = slots_[i];
    if (s.pair == kEmpty) return false;
    if (s.pair != pair) continue;
    out.insert(out.end(), links_.begin() + s.links_at, links_.begin() + s.links_at + s.links_n);
    latency_s = s.latency_s;
    return true;
  }
}

void SinglePathMemo::keep(Vertex a, Vertex b, std::span<const DirectedLink> links, double latency_s) {
  if (size_ == capacity_) {
    // Full: start again rather than choose what to drop (the pairs in use come back within a job or two).
    std::fill(slots_.begin(), slots_.end(), Slot{});
    links_.clear();
    size_ = 0;
  } else if (2 * (size_ + 1) > slots_.size()) {
    grow();  // at most half full, up to twice the capacity
  }
  const std::uint64_t pair = key(a, b);
  std::size_t i = home(pair);
  while (slots_[i].pair != kEmpty) {
    if (slots_[i].pair == pair) return;
    i = (i + 1) & (slots_.size() - 1);
  }
  slots_[i] = Slot{pair, static_cast<std::uint32_t>(links_.size()), static_cast<std::uint32_t>(links.size()),
                   latency_s};
  links_.insert(links_.end(), links.begin(), links.end());
  ++size_;
}

}  // namespace fleetwatt::topologies
