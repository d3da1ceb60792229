// Collective algorithms as transfer phases, and their cost on routed, shared flows.
#include "fleetwatt/topologies/flows/collectives.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace fleetwatt::topologies {

namespace {

/// Writes a builder's phases into a collective in order, reusing the phases (and their transfer lists) it
/// already has; finish() drops the ones not written.
class PhaseWriter {
 public:
  PhaseWriter(Collective& c, const char* name) : c_(c) { c_.name = name; }
  CollectivePhase& add(std::size_t latency_steps, std::size_t bandwidth_steps) {
    if (used_ == c_.phases.size()) c_.phases.emplace_back();
    CollectivePhase& p = c_.phases[used_++];
    p.transfers.clear();
    p.latency_steps = static_cast<std::uint32_t>(latency_steps);
    p.bandwidth_steps = static_cast<std::uint32_t>(bandwidth_steps);
    return p;
  }
  /// Takes back the last phase added (it got no transfers).
  void drop_last() { --used_; }
  void finish() { c_.phases.resize(used_); }

 private:
  Collective& c_;
  std::size_t used_ = 0;
};

/// Appends the ring of `ranks` in order, `bytes` per transfer (nothing for fewer than two ranks).
void append_ring(const std::vector<Vertex>& ranks, double bytes, std::vector<Transfer>& out) {
  if (ranks.size() < 2) return;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    out.push_back({ranks[i], ranks[(i + 1) % ranks.size()], bytes});
}

/// One phase of a ring over `ranks`: `passes` (p-1) steps of bytes/p.
void ring_passes(const std::vector<Vertex>& ranks, double bytes, std::size_t passes, const char* name,
                 Collective& out) {
  PhaseWriter w(out, name);
  const std::size_t p = ranks.size();
  if (p >= 2) {
    CollectivePhase& phase = w.add(passes * (p - 1), passes * (p - 1));
    phase.transfers.reserve(p);
    append_ring(ranks, bytes / static_cast<double>(p), phase.transfers);
  }
  w.finish();
}

template <class Builder>
Collective built(Builder&& builder) {
  Collective c;
  builder(c);
  return c;
}

}  // namespace

void ring_all_reduce(const std::vector<Vertex>& ranks, double bytes, Collective& out) {
  ring_passes(ranks, bytes, 2, "ring_all_reduce", out);
}

void ring_all_gather(const std::vector<Vertex>& ranks, double bytes, Collective& out) {
  ring_passes(ranks, bytes, 1, "ring_all_gather", out);
}

void ring_reduce_scatter(const std::vector<Vertex>& ranks, double bytes, Collective& out) {
  ring_passes(ranks, bytes, 1, "ring_reduce_scatter", out);
}

void all_to_all(const std::vector<Vertex>& ranks, double bytes, Collective& out) {
  PhaseWriter w(out, "all_to_all");
  const std::size_t p = ranks.size();
  if (p >= 2) {
    CollectivePhase& phase = w.add(p - 1, 1);
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t j = 0; j < p; ++j)
        if (i != j) phase.transfers.push_back({ranks[i], ranks[j], bytes / static_cast<double>(p)});
  }
  w.finish();
}

void rail_ring_groups(const Topology& topo, const std::vector<std::vector<Vertex>>& groups, double bytes,
                      std::uint32_t passes, Collective& out) {
  PhaseWriter w(out, "rail_ring_groups");
  const std::size_t p = groups.empty() ? 0 : groups.front().size();
  if (p >= 2 && passes != 0) {
    CollectivePhase& phase = w.add(passes * (p - 1), passes * (p - 1));
    std::vector<Vertex> ring_k;
    for (const auto& g : groups) {
      std::map<std::int32_t, std::vector<Vertex>> by_node;
      for (const Vertex v : g) by_node[topo.vertex(v).node].push_back(v);
      if (by_node.size() < 2) continue;
      std::size_t rails = p;
      for (const auto& [node, members] : by_node) rails = std::min(rails, members.size());
      const double per_rail = bytes / (static_cast<double>(p) * rails);
      for (std::size_t k = 0; k < rails; ++k) {
        ring_k.clear();
        for (const auto& [node, members] : by_node) ring_k.push_back(members[k]);
        append_ring(ring_k, per_rail, phase.transfers);
      }
    }
    if (phase.transfers.empty()) w.drop_last();
  }
  w.finish();
}

void concurrent_sends(const std::vector<std::pair<Vertex, Vertex>>& pairs, double bytes, Collective& out) {
  PhaseWriter w(out, "concurrent_sends");
  if (!pairs.empty()) {
    CollectivePhase& phase = w.add(1, 1);
    for (const auto& [src, dst] : pairs) phase.transfers.push_back({src, dst, bytes});
  }
  w.finish();
}

void tree_all_reduce(const std::vector<Vertex>& ranks, double bytes, Collective& out) {
  PhaseWriter w(out, "tree_all_reduce");
  const std::size_t p = ranks.size();
  if (p >= 2) {
    // Heap-ordered binary trees: position i's parent is (i - 1) / 2; depth = floor(log2 p).
    std::uint32_t depth = 0;
    while ((std::size_t{2} << depth) <= p) ++depth;
    CollectivePhase& reduce = w.add(depth, 1);
    for (std::size_t shift = 0; shift < 2; ++shift) {
      const auto rank = [&](std::size_t pos) { return ranks[(pos + shift) % p]; };
      for (std::size_t i = 1; i < p; ++i)
        reduce.transfers.push_back({rank(i), rank((i - 1) / 2), bytes / 2.0});
    }
    CollectivePhase& broadcast = w.add(depth, 1);
    for (std::size_t shift = 0; shift < 2; ++shift) {
      const auto rank = [&](std::size_t pos) { return ranks[(pos + shift) % p]; };
      for (std::size_t i = 1; i < p; ++i)
        broadcast.transfers.push_back({rank((i - 1) / 2), rank(i), bytes / 2.0});
    }
  }
  w.finish();
}

void hierarchical_all_reduce(const Topology& topo, const std::vector<Vertex>& ranks, double bytes,
                             Collective& out) {
  PhaseWriter w(out, "hierarchical_all_reduce");
  std::map<std::int32_t, std::vector<Vertex>> by_node;
  for (const Vertex v : ranks) by_node[topo.vertex(v).node].push_back(v);
  std::size_t g = 0;
  for (const auto& [node, list] : by_node) g = std::max(g, list.size());
  const std::size_t n = by_node.size();
  if (ranks.size() >= 2) {
    const double shard = bytes / static_cast<double>(g);
    // The intra-node rings: reduce-scatter first, all-gather last (the same transfers).
    const auto intra = [&](CollectivePhase& phase) {
      for (const auto& [node, list] : by_node) append_ring(list, shard, phase.transfers);
    };
    if (g > 1) intra(w.add(g - 1, g - 1));
    if (n > 1) {
      CollectivePhase& ar = w.add(2 * (n - 1), 2 * (n - 1));
      std::vector<Vertex> across;
      for (std::size_t j = 0; j < g; ++j) {
        across.clear();
        for (const auto& [node, list] : by_node)
          if (j < list.size()) across.push_back(list[j]);
        append_ring(across, shard / static_cast<double>(n), ar.transfers);
      }
    }
    if (g > 1) intra(w.add(g - 1, g - 1));
  }
  w.finish();
}

Collective ring_all_reduce(const std::vector<Vertex>& ranks, double bytes) {
  return built([&](Collective& c) { ring_all_reduce(ranks, bytes, c); });
}
Collective tree_all_reduce(const std::vector<Vertex>& ranks, double bytes) {
  return built([&](Collective& c) { tree_all_reduce(ranks, bytes, c); });
}
Collective hierarchical_all_reduce(const Topology& topo, const std::vector<Vertex>& ranks, double bytes) {
  return built([&](Collective& c) { hierarchical_all_reduce(topo, ranks, bytes, c); });
}
Collective ring_all_gather(const std::vector<Vertex>& ranks, double bytes) {
  return built([&](Collective& c) { ring_all_gather(ranks, bytes, c); });
}
Collective ring_reduce_scatter(const std::vector<Vertex>& ranks, double bytes) {
  return built([&](Collective& c) { ring_reduce_scatter(ranks, bytes, c); });
}
Collective all_to_all(const std::vector<Vertex>& ranks, double bytes) {
  return built([&](Collective& c) { all_to_all(ranks, bytes, c); });
}
Collective rail_ring_groups(const Topology& topo, const std::vector<std::vector<Vertex>>& groups,
                            double bytes, std::uint32_t passes) {
  return built([&](Collective& c) { rail_ring_groups(topo, groups, bytes, passes, c); });
}
Collective concurrent_sends(const std::vector<std::pair<Vertex, Vertex>>& pairs, double bytes) {
  return built([&](Collective& c) { concurrent_sends(pairs, bytes, c); });
}

PlacedCollective::PlacedCollective(Collective collective, Router& router, FlowNetwork& network,
                                   std::uint64_t flow_key, std::uint32_t group)
    : collective_(std::move(collective)) {
  place(router, network, flow_key, group);
}

Collective& PlacedCollective::next() {
  if (placed()) throw std::logic_error("a placed collective is written to before it is released");
  return collective_;
}

void PlacedCollective::place(Router& router, FlowNetwork& network, std::uint64_t flow_key,
                             std::uint32_t group) {
  if (placed()) throw std::logic_error("a collective is placed twice without release");
  group_ = group;
  cached_ = false;
  flows_.clear();
  links_.clear();
  path_at_.clear();
  latency_.clear();
  // Phases run one after another, so a pair that talks in several phases (the intra-node rings of a
  // hierarchical all-reduce) is one flow; within a phase, each transfer is its own flow even when two share
  // a pair (the two trees of a double binary tree), so that they compete for the path.
  const auto add = [&](const Transfer& t) {
    const auto i = static_cast<std::uint32_t>(flows_.size());
    latency_.push_back(router.append_path(t.src, t.dst, flow_key + i, links_));
    path_at_.push_back(static_cast<std::uint32_t>(links_.size()));
    flows_.push_back(network.add_flow(path(i), std::numeric_limits<double>::infinity(), group));
    return i;
  };
  std::size_t transfers = 0;
  for (const auto& phase : collective_.phases) transfers += phase.transfers.size();
  flows_.reserve(transfers);
  latency_.reserve(transfers);
  path_at_.reserve(transfers + 1);
  path_at_.push_back(0);
  links_.reserve(transfers * 4);  // most transfers of a ring stay in a server (two or three links)
  flow_of_.resize(collective_.phases.size());
  for (auto& map : flow_of_) map.clear();
  try {
    if (collective_.phases.size() == 1) {
      // One phase (a ring, the usual all-reduce): every transfer is its own flow, in order, as the general
      // case below makes them, without its two maps' allocation per transfer.
      auto& map = flow_of_.front();
      map.reserve(transfers);
      for (const auto& t : collective_.phases.front().transfers) map.push_back(add(t));
    } else {
      std::map<std::tuple<Vertex, Vertex, std::uint32_t>, std::uint32_t> index;
      for (std::size_t ph = 0; ph < collective_.phases.size(); ++ph) {
        auto& map = flow_of_[ph];
        std::map<std::pair<Vertex, Vertex>, std::uint32_t> seen_in_phase;
        for (const auto& t : collective_.phases[ph].transfers) {
          const auto key = std::make_tuple(t.src, t.dst, seen_in_phase[{t.src, t.dst}]++);
          auto it = index.find(key);
          if (it == index.end()) it = index.emplace(key, add(t)).first;
          map.push_back(it->second);
        }
      }
    }
  } catch (...) {
    for (const FlowId f : flows_) network.remove_flow(f);
    flows_.clear();
    throw;
  }
  network_ = &network;
}

void PlacedCollective::release() noexcept {
  if (network_ == nullptr) return;
  for (const FlowId f : flows_) network_->remove_flow(f);
  network_ = nullptr;
}

PlacedCollective::PlacedCollective(PlacedCollective&& other) noexcept
    : collective_(std::move(other.collective_)),
      network_(other.network_),
      flows_(std::move(other.flows_)),
      links_(std::move(other.links_)),
      path_at_(std::move(other.path_at_)),
      latency_(std::move(other.latency_)),
      flow_of_(std::move(other.flow_of_)),
      group_(other.group_),
      cached_(other.cached_),
      cached_alpha_s_(other.cached_alpha_s_),
      cached_time_s_(other.cached_time_s_) {
  other.network_ = nullptr;
}

double PlacedCollective::time(double alpha_s) {
  // Rates change only when flows start or end somewhere coupled to ours; epochs ask far more often.
  if (group_ != FlowNetwork::kNoGroup) {
    const bool changed = network_->take_changed(group_);
    if (!changed && cached_ && alpha_s == cached_alpha_s_) return cached_time_s_;
  }
  double total = 0.0;
  for (std::size_t ph = 0; ph < collective_.phases.size(); ++ph) {
    const auto& phase = collective_.phases[ph];
    double slowest = 0.0, lat = 0.0;
    for (std::size_t i = 0; i < phase.transfers.size(); ++i) {
      const std::uint32_t f = flow_of_[ph][i];
      slowest = std::max(slowest, phase.transfers[i].bytes / network_->rate(flows_[f]));
      lat = std::max(lat, latency_[f]);
    }
    total += phase.latency_steps * (alpha_s + lat) + phase.bandwidth_steps * slowest;
  }
  cached_ = true;
  cached_alpha_s_ = alpha_s;
  cached_time_s_ = total;
  return total;
}

double PlacedCollective::bottleneck_rate() {
  double r = std::numeric_limits<double>::infinity();
  for (const FlowId f : flows_) r = std::min(r, network_->rate(f));
  return r;
}

}  // namespace fleetwatt::topologies
