// Rack-aware placement policies.
#include "fleetwatt/sim/policies/topology_placement.hpp"

#include <algorithm>
#include <map>

namespace fleetwatt::sim {

namespace {

/// The tightest node (fewest free GPUs >= k, lowest index) not in `excluded`; with `preferred_racks`, the
/// tightest in those racks if there is one (fewer racks beat a tighter fit).
std::optional<NodeIndex> best_fit_node(const Cluster& c, std::uint32_t k, const std::vector<bool>& excluded,
                                       const std::vector<std::uint32_t>& racks,
                                       const std::vector<bool>* preferred_racks) {
  for (int pass = preferred_racks != nullptr ? 0 : 1; pass < 2; ++pass)
    for (std::uint32_t free = k; free <= c.gpus_per_node(); ++free)
      for (const NodeIndex n : c.nodes_with_free(free))
        if (!excluded[n] && (pass == 1 || (*preferred_racks)[racks[n]])) return n;
  return std::nullopt;
}

void take(const Cluster& c, NodeIndex n, std::uint32_t k, Placement& out) {
  c.append_free_gpus(n, k, out);
}

std::uint32_t rack_count(const std::vector<std::uint32_t>& racks) {
  return racks.empty() ? 0 : *std::max_element(racks.begin(), racks.end()) + 1;
}

}  // namespace

const std::vector<std::uint32_t>& RackAwarePlacement::racks(const Cluster& cluster) const {
  const NodeIndex offset = cluster.node_offset();
  if (racks_.size() != cluster.nodes() || racks_offset_ != offset) {
    racks_.resize(cluster.nodes());
    racks_offset_ = offset;
    for (NodeIndex n = 0; n < cluster.nodes(); ++n) {
      const NodeIndex fleet_node = offset + n;
      racks_[n] = fleet_node < fleet_racks_.size() ? fleet_racks_[fleet_node]
                                                   : fleet_node / std::max<std::uint32_t>(nodes_per_rack_, 1);
    }
  }
  return racks_;
}

std::optional<Placement> PackPlacement::place(const Cluster& c, std::uint32_t n_gpus) const {
  if (n_gpus == 0 || n_gpus > c.free_gpus()) return std::nullopt;
  const auto& rack = racks(c);
  const std::uint32_t g = c.gpus_per_node();
  std::vector<bool> used(c.nodes(), false);
  Placement out;
  if (n_gpus <= g) {
    const auto n = best_fit_node(c, n_gpus, used, rack, nullptr);
    if (!n) return std::nullopt;
    take(c, *n, n_gpus, out);
    return out;
  }
  // Whole free servers, from the racks holding the most of them.
  std::map<std::uint32_t, std::vector<NodeIndex>> whole_by_rack;
  for (const NodeIndex n : c.nodes_with_free(g)) whole_by_rack[rack[n]].push_back(n);
  std::vector<std::pair<std::uint32_t, const std::vector<NodeIndex>*>> order;
  for (const auto& [r, list] : whole_by_rack) order.emplace_back(r, &list);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second->size() > b.second->size(); });
  std::uint32_t whole = n_gpus / g;
  const std::uint32_t rest = n_gpus % g;
  std::vector<bool> chosen_rack(rack_count(rack), false);
  for (const auto& [r, list] : order) {
    for (const NodeIndex n : *list) {
      if (whole == 0) break;
      take(c, n, g, out);
      used[n] = true;
      chosen_rack[r] = true;
      --whole;
    }
  }
  if (whole == 0) {
    if (rest == 0) return out;
    if (const auto n = best_fit_node(c, rest, used, rack, &chosen_rack)) {
      take(c, *n, rest, out);
      std::sort(out.begin(), out.end());
      return out;
    }
  }
  // Not enough whole servers: the fullest-free servers first (fewest servers), grouped by rack.
  out.clear();
  std::vector<NodeIndex> nodes;
  for (NodeIndex n = 0; n < c.nodes(); ++n)
    if (c.free_gpus(n) > 0) nodes.push_back(n);
  std::stable_sort(nodes.begin(), nodes.end(), [&](NodeIndex a, NodeIndex b) {
    if (c.free_gpus(a) != c.free_gpus(b)) return c.free_gpus(a) > c.free_gpus(b);
    return rack[a] < rack[b];
  });
  std::uint32_t need = n_gpus;
  for (const NodeIndex n : nodes) {
    const std::uint32_t k = std::min(need, c.free_gpus(n));
    take(c, n, k, out);
    need -= k;
    if (need == 0) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<Placement> SpreadPlacement::place(const Cluster& c, std::uint32_t n_gpus) const {
  if (n_gpus == 0 || n_gpus > c.free_gpus()) return std::nullopt;
  const auto& rack = racks(c);
  std::vector<std::vector<NodeIndex>> by_rack(rack_count(rack));
  for (NodeIndex n = 0; n < c.nodes(); ++n)
    if (c.free_gpus(n) > 0) by_rack[rack[n]].push_back(n);
  std::vector<std::uint32_t> taken(c.nodes(), 0);
  std::vector<std::size_t> cursor(by_rack.size(), 0);
  Placement out;
  std::uint32_t need = n_gpus;
  // Rounds over the racks; each rack gives one GPU per round, from its servers in turn.
  while (need > 0) {
    bool progress = false;
    for (std::size_t r = 0; r < by_rack.size() && need > 0; ++r) {
      auto& list = by_rack[r];
      while (!list.empty()) {
        const std::size_t i = cursor[r] % list.size();
        const NodeIndex n = list[i];
        if (taken[n] < c.free_gpus(n)) {
          out.push_back(c.free_gpus_of(n)[taken[n]]);
          ++taken[n];
          ++cursor[r];
          --need;
          progress = true;
          break;
        }
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    if (!progress) return std::nullopt;
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<Placement> TopologyAwarePlacement::place(const Cluster& c, std::uint32_t n_gpus) const {
  if (n_gpus == 0 || n_gpus > c.free_gpus()) return std::nullopt;
  const auto& rack = racks(c);
  std::vector<bool> used(c.nodes(), false);
  Placement out;
  if (n_gpus <= c.gpus_per_node()) {
    if (const auto n = best_fit_node(c, n_gpus, used, rack, nullptr)) {
      take(c, *n, n_gpus, out);
      return out;
    }
  }
  std::vector<std::uint32_t> free_in(rack_count(rack), 0);
  std::vector<std::vector<NodeIndex>> nodes_in(free_in.size());
  for (NodeIndex n = 0; n < c.nodes(); ++n) {
    if (c.free_gpus(n) == 0) continue;
    free_in[rack[n]] += c.free_gpus(n);
    nodes_in[rack[n]].push_back(n);
  }
  // The rack that fits most tightly; else the racks with the most free GPUs first.
  std::vector<std::uint32_t> order(free_in.size());
  for (std::uint32_t r = 0; r < order.size(); ++r) order[r] = r;
  std::optional<std::uint32_t> best;
  for (const auto r : order)
    if (free_in[r] >= n_gpus && (!best || free_in[r] < free_in[*best])) best = r;
  if (best) {
    order = {*best};
  } else {
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return free_in[a] > free_in[b]; });
  }
  std::uint32_t need = n_gpus;
  for (const auto r : order) {
    auto& list = nodes_in[r];
    std::stable_sort(list.begin(), list.end(),
                     [&](auto a, auto b) { return c.free_gpus(a) > c.free_gpus(b); });
    for (const NodeIndex n : list) {
      const std::uint32_t k = std::min(need, c.free_gpus(n));
      take(c, n, k, out);
      need -= k;
      if (need == 0) break;
    }
    if (need == 0) break;
  }
  if (need != 0) return std::nullopt;
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fleetwatt::sim
