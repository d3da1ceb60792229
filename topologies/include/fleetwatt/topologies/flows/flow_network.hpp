// Flow-level network model: concurrent flows share directed links by max-min fairness, computed by
// progressive filling (every unfrozen flow's rate rises together until a link saturates or a flow reaches
// its own cap; the flows through that bottleneck freeze). Rates are recomputed only when flows start or end,
// and only for the flows coupled to the change through shared links: a flow whose links no changed flow
// touches, directly or through other flows, keeps its rate without being revisited. While no link is asked
// for more than its capacity (the sum of its flows' caps fits), every flow simply runs at its cap and only
// new flows are touched.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "fleetwatt/topologies/graph/topology.hpp"

namespace fleetwatt::topologies {

using FlowId = std::uint32_t;

class FlowNetwork {
 public:
  /// Capacity (bytes/s) of every directed link, indexed by DirectedLink.
  explicit FlowNetwork(std::vector<double> capacities_Bps);

  /// No group: nobody is told when the flow's rate changes.
  static constexpr std::uint32_t kNoGroup = ~std::uint32_t{0};

  /// Starts a flow over `path`, at most `max_rate_Bps` (a sender or receiver limit). An empty path is a
  /// local copy: its rate is its cap. Flows of one `group` (a job's collective) share a changed flag. The
  /// path is copied into a recycled flow's storage (no allocation once flows have been ended).
  FlowId add_flow(std::span<const DirectedLink> path,
                  double max_rate_Bps = std::numeric_limits<double>::infinity(),
                  std::uint32_t group = kNoGroup);
  FlowId add_flow(const std::vector<DirectedLink>& path,
                  double max_rate_Bps = std::numeric_limits<double>::infinity(),
                  std::uint32_t group = kNoGroup) {
    return add_flow(std::span<const DirectedLink>(path), max_rate_Bps, group);
  }
  /// Ends a flow; its id may be reused by a later flow.
  void remove_flow(FlowId f);

  /// Current max-min fair rate of a live flow (recomputes pending changes first).
  [[nodiscard]] double rate(FlowId f);
  /// Applies pending starts and ends; returns the number of flows whose rates were recomputed.
  std::size_t update();
  /// Whether a flow of `group` got a different rate (or started) since the last call for that group, after
  /// applying pending changes; clears the flag. Lets a group's owner keep what it derived from the rates
  /// (a collective's time) until they change, instead of reading every rate at every epoch.
  [[nodiscard]] bool take_changed(std::uint32_t group);
  /// The same flag, left set (after applying pending changes).
  [[nodiscard]] bool changed(std::uint32_t group);

  /// Live flows crossing a directed link.
  [[nodiscard]] std::size_t flows_on(DirectedLink l) const { return links_[l].flows.size(); }
  [[nodiscard]] double capacity(DirectedLink l) const { return links_[l].capacity; }
  [[nodiscard]] std::size_t live_flows() const noexcept { return live_; }
  [[nodiscard]] std::size_t link_count() const noexcept { return links_.size(); }
  /// Flows whose rates were recomputed since construction (to measure the incremental saving).
  [[nodiscard]] std::uint64_t recomputed_flows() const noexcept { return recomputed_; }

 private:
  struct Flow {
    std::vector<DirectedLink> path;
    double cap = 0.0;
    double rate = 0.0;
    std::uint32_t group = kNoGroup;
    bool alive = false;
    bool frozen = false;  ///< scratch of fill()
  };
  void fill(const std::vector<FlowId>& flows, const std::vector<DirectedLink>& links);
  /// Sets a flow's rate, flagging its group when the rate differs.
  void set_rate(Flow& flow, double rate) {
    if (flow.rate != rate && flow.group != kNoGroup) changed_[flow.group] = 1;
    flow.rate = rate;
  }
  [[nodiscard]] bool over(DirectedLink l) const noexcept {
    return links_[l].cap_sum > links_[l].capacity * (1.0 + 1e-9);
  }

  /// What starting and ending a flow reads and writes on each of its links, in one record (one cache miss
  /// per link, where four arrays cost four). Most links (a GPU's, a NIC's) carry one or two flows at a
  /// time: their flows sit inline, with no heap block per link (that was 12 MB at 40,000 GPUs).
  struct Link {
    double capacity = 0.0;
    double cap_sum = 0.0;                             ///< the sum of its flows' caps
    boost::container::small_vector<FlowId, 2> flows;  ///< in order of arrival (fill() freezes in it)
  };
  std::vector<Link> links_;
  std::size_t oversubscribed_ = 0;  ///< links whose flows' caps add up to more than the link
  bool all_at_cap_ = true;          ///< every live flow's rate is its cap
  std::vector<Flow> flows_;
  std::vector<FlowId> free_;
  std::vector<std::uint8_t> changed_;  ///< per group: a rate changed since take_changed()
  std::vector<DirectedLink> dirty_links_;
  std::vector<FlowId> dirty_flows_;
  std::size_t live_ = 0;
  std::uint64_t recomputed_ = 0;
  // Scratch, kept between updates to avoid reallocations.
  std::vector<std::uint32_t> link_mark_, flow_mark_;
  std::uint32_t epoch_ = 0;
  std::vector<DirectedLink> component_links_;  ///< update(): the links of the changed component
  std::vector<FlowId> component_flows_;        ///< update(): its flows
  std::vector<double> remaining_;
  std::vector<std::uint32_t> unfrozen_on_;
  struct LinkEvent {
    double level;
    DirectedLink link;
    bool operator>(const LinkEvent& o) const { return level > o.level; }
  };
  std::vector<LinkEvent> heap_;                  ///< fill(): saturation events, a min-heap
  std::vector<std::pair<double, FlowId>> caps_;  ///< fill(): caps, ascending
};

}  // namespace fleetwatt::topologies
