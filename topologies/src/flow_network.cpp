// Max-min fair sharing by progressive filling, recomputed per coupled component of changed flows.
#include "fleetwatt/topologies/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fleetwatt::topologies {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSaturated = 1e-12;  // relative slack under which a link counts as full
}  // namespace

FlowNetwork::FlowNetwork(std::vector<double> capacities_Bps)
    : capacity_(std::move(capacities_Bps)),
      on_link_(capacity_.size()),
      link_mark_(capacity_.size(), 0),
      remaining_(capacity_.size(), 0.0),
      unfrozen_on_(capacity_.size(), 0) {
  for (const double c : capacity_)
    if (!(c > 0.0)) throw std::invalid_argument("link capacities must be positive");
}

FlowId FlowNetwork::add_flow(std::vector<DirectedLink> path, double max_rate_Bps) {
  if (!(max_rate_Bps > 0.0)) throw std::invalid_argument("a flow's rate cap must be positive");
  for (const DirectedLink l : path)
    if (l >= capacity_.size()) throw std::out_of_range("flow path names an unknown link");
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
  flow.path = std::move(path);
  flow.cap = max_rate_Bps;
  flow.rate = 0.0;
  flow.alive = true;
  for (const DirectedLink l : flow.path) {
    on_link_[l].push_back(f);
    dirty_links_.push_back(l);
  }
  dirty_flows_.push_back(f);
  ++live_;
  return f;
}

void FlowNetwork::remove_flow(FlowId f) {
  if (f >= flows_.size() || !flows_[f].alive) throw std::logic_error("removing a flow that is not live");
  Flow& flow = flows_[f];
  for (const DirectedLink l : flow.path) {
    auto& on = on_link_[l];
    on.erase(std::find(on.begin(), on.end(), f));
    dirty_links_.push_back(l);
  }
  flow.alive = false;
  flow.path.clear();
  free_.push_back(f);
  --live_;
}

double FlowNetwork::rate(FlowId f) {
  update();
  if (f >= flows_.size() || !flows_[f].alive) throw std::logic_error("rate of a flow that is not live");
  return flows_[f].rate;
}

std::size_t FlowNetwork::update() {
  if (dirty_links_.empty() && dirty_flows_.empty()) return 0;
  if (++epoch_ == 0) {  // wrapped: clear the marks once every 2^32 updates
    std::fill(link_mark_.begin(), link_mark_.end(), 0);
    std::fill(flow_mark_.begin(), flow_mark_.end(), 0);
    epoch_ = 1;
  }
  // The component: every flow reachable from a changed link through shared links. Max-min rates of flows
  // outside it cannot change, because progressive filling never couples flows that share no link.
  std::vector<DirectedLink> links;
  std::vector<FlowId> flows;
  for (const DirectedLink l : dirty_links_) {
    if (link_mark_[l] == epoch_) continue;
    link_mark_[l] = epoch_;
    links.push_back(l);
  }
  for (const FlowId f : dirty_flows_) {
    if (!flows_[f].alive || flow_mark_[f] == epoch_ || !flows_[f].path.empty()) continue;
    flow_mark_[f] = epoch_;  // local copies touch no link: their rate is their cap
    flows.push_back(f);
  }
  for (std::size_t i = 0; i < links.size(); ++i) {
    for (const FlowId f : on_link_[links[i]]) {
      if (flow_mark_[f] == epoch_) continue;
      flow_mark_[f] = epoch_;
      flows.push_back(f);
      for (const DirectedLink l : flows_[f].path) {
        if (link_mark_[l] == epoch_) continue;
        link_mark_[l] = epoch_;
        links.push_back(l);
      }
    }
  }
  dirty_links_.clear();
  dirty_flows_.clear();
  fill(flows, links);
  recomputed_ += flows.size();
  return flows.size();
}

void FlowNetwork::fill(const std::vector<FlowId>& flows, const std::vector<DirectedLink>& links) {
  for (const DirectedLink l : links) {
    remaining_[l] = capacity_[l];
    unfrozen_on_[l] = static_cast<std::uint32_t>(on_link_[l].size());
  }
  std::vector<FlowId> active;
  active.reserve(flows.size());
  for (const FlowId f : flows) {
    Flow& flow = flows_[f];
    if (flow.path.empty()) {
      flow.rate = flow.cap;
    } else {
      flow.rate = 0.0;
      active.push_back(f);
    }
  }
  std::vector<DirectedLink> busy(links.begin(), links.end());
  std::vector<FlowId> still;
  while (!active.empty()) {
    // The common increment: the smallest fair share left on a link, or the smallest headroom to a cap.
    double inc = kInf;
    for (const DirectedLink l : busy)
      if (unfrozen_on_[l] > 0) inc = std::min(inc, remaining_[l] / unfrozen_on_[l]);
    for (const FlowId f : active) inc = std::min(inc, flows_[f].cap - flows_[f].rate);
    inc = std::max(inc, 0.0);
    for (const FlowId f : active) flows_[f].rate += inc;
    std::size_t keep = 0;
    for (const DirectedLink l : busy) {
      remaining_[l] = std::max(0.0, remaining_[l] - inc * unfrozen_on_[l]);
      if (unfrozen_on_[l] > 0) busy[keep++] = l;
    }
    busy.resize(keep);
    // Freeze the flows that reached their cap or cross a saturated link.
    still.clear();
    for (const FlowId f : active) {
      const Flow& flow = flows_[f];
      bool frozen = flow.rate >= flow.cap * (1.0 - kSaturated);
      for (std::size_t i = 0; !frozen && i < flow.path.size(); ++i) {
        const DirectedLink l = flow.path[i];
        frozen = remaining_[l] <= kSaturated * capacity_[l];
      }
      if (frozen) {
        for (const DirectedLink l : flow.path) --unfrozen_on_[l];
      } else {
        still.push_back(f);
      }
    }
    if (still.size() == active.size()) throw std::logic_error("progressive filling made no progress");
    active.swap(still);
  }
}

}  // namespace fleetwatt::topologies
