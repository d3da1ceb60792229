// Max-min fair sharing by progressive filling, recomputed per coupled component of changed flows.
#include "fleetwatt/topologies/flows/flow_network.hpp"

#include "fleetwatt/core/assert.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>

namespace fleetwatt::topologies {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
/// Directed links of a usual long route: GPU to GPU across a three-tier fabric (GPU, PCIe switch, NIC,
/// leaf, aggregation, core, and down again).
constexpr std::size_t kRouteLinks = 10;
}  // namespace

FlowNetwork::FlowNetwork(std::vector<double> capacities_Bps)
    : links_(capacities_Bps.size()),
      link_mark_(capacities_Bps.size(), 0),
      remaining_(capacities_Bps.size(), 0.0),
      unfrozen_on_(capacities_Bps.size(), 0) {
  for (std::size_t l = 0; l < links_.size(); ++l) {
    if (!(capacities_Bps[l] > 0.0)) throw std::invalid_argument("link capacities must be positive");
    links_[l].capacity = capacities_Bps[l];
  }
}

FlowId FlowNetwork::add_flow(std::span<const DirectedLink> path, double max_rate_Bps, std::uint32_t group) {
  if (!(max_rate_Bps > 0.0)) throw std::invalid_argument("a flow's rate cap must be positive");
  for (const DirectedLink l : path)
    if (l >= links_.size()) throw std::out_of_range("flow path names an unknown link");
  FlowId f;
  if (!free_.empty()) {
    f = free_.back();
    free_.pop_back();
  } else {
    f = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
    flow_mark_.push_back(0);
  }
  Flow& flow = flows_[f];
  // A recycled flow that needs more room takes enough for a route across a fabric's tiers, so that it
  // takes later routes without allocating again.
  if (flow.path.capacity() < path.size() && flow.path.capacity() > 0)
    flow.path.reserve(std::max(path.size(), kRouteLinks));
  flow.path.assign(path.begin(), path.end());
  // A flow never exceeds its narrowest link; capping it there changes no max-min rate but makes the sum
  // of caps on each link finite, which is what the unsaturated fast path in update() checks.
  for (const DirectedLink l : flow.path) max_rate_Bps = std::min(max_rate_Bps, links_[l].capacity);
  flow.cap = max_rate_Bps;
  flow.rate = 0.0;
  flow.group = group;
  if (group != kNoGroup) {
    if (changed_.size() <= group) changed_.resize(std::size_t{group} + 1, 0);
    changed_[group] = 1;  // a new flow: its rate is still to be set
  }
  flow.alive = true;
  for (const DirectedLink l : flow.path) {
    const bool was = over(l);
    links_[l].flows.push_back(f);
    links_[l].cap_sum += flow.cap;
    if (!was && over(l)) ++oversubscribed_;
    // A link oversubscribed neither before nor after cannot bind anyone: its other flows keep their rates.
    if (was || over(l)) dirty_links_.push_back(l);
  }
  dirty_flows_.push_back(f);
  ++live_;
  return f;
}

void FlowNetwork::remove_flow(FlowId f) {
  FLEETWATT_ASSERT(f < flows_.size() && flows_[f].alive, "removing a flow that is not live");
  Flow& flow = flows_[f];
  for (const DirectedLink l : flow.path) {
    const bool was = over(l);
    Link& link = links_[l];
    auto& on = link.flows;
    on.erase(std::find(on.begin(), on.end(), f));
    link.cap_sum = on.empty() ? 0.0 : link.cap_sum - flow.cap;  // reset when empty: no drift accumulates
    if (was && !over(l)) --oversubscribed_;
    if (was) dirty_links_.push_back(l);
  }
  flow.alive = false;
  flow.path.clear();
  free_.push_back(f);
  --live_;
}

double FlowNetwork::rate(FlowId f) {
  update();
  FLEETWATT_ASSERT(f < flows_.size() && flows_[f].alive, "rate of a flow that is not live");
  return flows_[f].rate;
}

bool FlowNetwork::changed(std::uint32_t group) {
  update();
  return group >= changed_.size() || changed_[group] != 0;
}

bool FlowNetwork::take_changed(std::uint32_t group) {
  const bool was = changed(group);
  if (group < changed_.size()) changed_[group] = 0;
  return was;
}

std::size_t FlowNetwork::update() {
  if (dirty_links_.empty() && dirty_flows_.empty()) return 0;
  if (oversubscribed_ == 0) {
    // No link is asked for more than it carries: every flow runs at its cap, which is max-min fair. Only
    // the new flows need a rate (all of them after a time when some link was oversubscribed).
    std::size_t n = 0;
    if (!all_at_cap_) {
      for (auto& flow : flows_)
        if (flow.alive) set_rate(flow, flow.cap);
      n = live_;
      all_at_cap_ = true;
    } else {
      for (const FlowId f : dirty_flows_)
        if (flows_[f].alive) {
          set_rate(flows_[f], flows_[f].cap);
          ++n;
        }
    }
    dirty_links_.clear();
    dirty_flows_.clear();
    recomputed_ += n;
    return n;
  }
  all_at_cap_ = false;
  if (++epoch_ == 0) {  // wrapped: clear the marks once every 2^32 updates
    std::fill(link_mark_.begin(), link_mark_.end(), 0);
    std::fill(flow_mark_.begin(), flow_mark_.end(), 0);
    epoch_ = 1;
  }
  // The component: every flow on a changed link, and every flow reachable from those through shared
  // oversubscribed links. Max-min rates outside it cannot change: progressive filling couples flows only
  // through links that saturate, and a link whose flows' caps add up to no more than its capacity never
  // saturates before all of them reach their caps.
  auto& links = component_links_;
  auto& flows = component_flows_;
  links.clear();
  flows.clear();
  for (const DirectedLink l : dirty_links_) {
    if (link_mark_[l] == epoch_) continue;
    link_mark_[l] = epoch_;
    links.push_back(l);
  }
  for (const FlowId f : dirty_flows_) {
    if (!flows_[f].alive || flow_mark_[f] == epoch_) continue;
    flow_mark_[f] = epoch_;
    flows.push_back(f);
    for (const DirectedLink l : flows_[f].path) {
      if (link_mark_[l] == epoch_ || !over(l)) continue;
      link_mark_[l] = epoch_;
      links.push_back(l);
    }
  }
  for (std::size_t i = 0; i < links.size(); ++i) {
    for (const FlowId f : links_[links[i]].flows) {
      if (flow_mark_[f] == epoch_) continue;
      flow_mark_[f] = epoch_;
      flows.push_back(f);
      for (const DirectedLink l : flows_[f].path) {
        if (link_mark_[l] == epoch_ || !over(l)) continue;
        link_mark_[l] = epoch_;
        links.push_back(l);
      }
    }
  }
  dirty_links_.clear();
  dirty_flows_.clear();
  links.erase(std::remove_if(links.begin(), links.end(), [this](DirectedLink l) { return !over(l); }),
              links.end());
  fill(flows, links);
  recomputed_ += flows.size();
  return flows.size();
}

void FlowNetwork::fill(const std::vector<FlowId>& flows, const std::vector<DirectedLink>& links) {
  // Progressive filling as a sequence of saturation events: all unfrozen flows share one rising level; a
  // link with n unfrozen flows and capacity R left after its frozen flows saturates when the level reaches
  // R / n, a flow when the level reaches its cap. Each step takes the earliest event. A link's saturation
  // level never falls as flows freeze (they freeze at levels below it), so heap entries may be stale only
  // low: a popped entry is re-keyed to its current level when that is higher, and otherwise is exact.
  // Every flow freezes once: O((P + L) log L) for P path entries and L links.
  using Event = LinkEvent;
  const auto in_fill = [this](DirectedLink l) { return link_mark_[l] == epoch_ && over(l); };
  heap_.clear();
  for (const DirectedLink l : links) {
    remaining_[l] = links_[l].capacity;  // capacity minus the traffic of frozen flows
    unfrozen_on_[l] = static_cast<std::uint32_t>(links_[l].flows.size());
    if (unfrozen_on_[l] > 0) heap_.push_back({remaining_[l] / unfrozen_on_[l], l});
  }
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
  caps_.clear();
  std::size_t unfrozen = 0;
  for (const FlowId f : flows) {
    Flow& flow = flows_[f];
    if (flow.path.empty()) {
      set_rate(flow, flow.cap);
      flow.frozen = true;
    } else {
      flow.frozen = false;
      caps_.emplace_back(flow.cap, f);
      ++unfrozen;
    }
  }
  std::sort(caps_.begin(), caps_.end());
  std::size_t next_cap = 0;
  const auto freeze = [&](FlowId f, double level) {
    Flow& flow = flows_[f];
    set_rate(flow, level);
    flow.frozen = true;
    --unfrozen;
    for (const DirectedLink l : flow.path) {
      if (!in_fill(l)) continue;  // not a possible bottleneck
      remaining_[l] -= level;
      --unfrozen_on_[l];
    }
  };
  const auto current = [this](DirectedLink l) { return std::max(0.0, remaining_[l]) / unfrozen_on_[l]; };
  while (unfrozen > 0) {
    double link_level = kInf;
    while (!heap_.empty()) {
      const Event top = heap_.front();
      if (unfrozen_on_[top.link] == 0) {
        std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
        heap_.pop_back();
        continue;
      }
      const double now = current(top.link);
      if (now > top.level) {  // stale: re-key and look again
        std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
        heap_.back().level = now;
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        continue;
      }
      link_level = now;
      break;
    }
    while (next_cap < caps_.size() && flows_[caps_[next_cap].second].frozen) ++next_cap;
    const double cap_level = next_cap < caps_.size() ? caps_[next_cap].first : kInf;
    if (cap_level <= link_level) {
      FLEETWATT_ASSERT(cap_level != kInf, "progressive filling found no bound");
      freeze(caps_[next_cap++].second, cap_level);
    } else {
      const DirectedLink l = heap_.front().link;
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      heap_.pop_back();
      for (const FlowId f : links_[l].flows)
        if (!flows_[f].frozen) freeze(f, link_level);
    }
  }
}

}  // namespace fleetwatt::topologies
