// Collective operations as phases of concurrent transfers between placed GPUs, and their alpha-beta cost on
// the actual routed, shared links: a phase takes latency_steps * (alpha + path latency) plus
// bandwidth_steps * (bytes of its slowest transfer / that transfer's max-min fair rate).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fleetwatt/topologies/flows/flow_network.hpp"
#include "fleetwatt/topologies/graph/routing.hpp"
#include "fleetwatt/topologies/graph/topology.hpp"

namespace fleetwatt::topologies {

struct Transfer {
  Vertex src = 0;
  Vertex dst = 0;
  double bytes = 0.0;  ///< bytes per bandwidth step
};

struct CollectivePhase {
  std::vector<Transfer> transfers;    ///< run concurrently
  std::uint32_t latency_steps = 0;    ///< sequential message latencies paid
  std::uint32_t bandwidth_steps = 0;  ///< sequential steps that each move `bytes` over every transfer
};

struct Collective {
  std::string name;
  std::vector<CollectivePhase> phases;
};

// Each builder writes into `out`, replacing what it held but keeping its buffers (a network that places
// and removes jobs' collectives reuses one object per job slot without allocating); the overload without
// `out` returns a new collective.

/// Ring all-reduce of `bytes` per rank: 2(p-1) steps of bytes/p around the ring of `ranks` in order.
void ring_all_reduce(const std::vector<Vertex>& ranks, double bytes, Collective& out);
/// Double-binary-tree all-reduce (NCCL): two binary trees, the second with ranks shifted by one, each
/// reducing then broadcasting half the buffer, pipelined: 2 * depth latencies, bytes/2 per tree edge each
/// way.
void tree_all_reduce(const std::vector<Vertex>& ranks, double bytes, Collective& out);
/// Hierarchical all-reduce: ring reduce-scatter inside each node, ring all-reduce of the 1/g shards across
/// nodes (one ring per local rank), ring all-gather inside each node. Ranks are grouped by the node
/// index of their vertices.
void hierarchical_all_reduce(const Topology& topo, const std::vector<Vertex>& ranks, double bytes,
                             Collective& out);
/// Ring all-gather producing `bytes` on every rank: p-1 steps of bytes/p.
void ring_all_gather(const std::vector<Vertex>& ranks, double bytes, Collective& out);
/// Ring reduce-scatter of `bytes` per rank: p-1 steps of bytes/p.
void ring_reduce_scatter(const std::vector<Vertex>& ranks, double bytes, Collective& out);
/// All-to-all: every rank sends bytes/p to every other rank at once; p-1 message latencies.
void all_to_all(const std::vector<Vertex>& ranks, double bytes, Collective& out);
/// Rings over several groups of p ranks at once (a job's data-parallel groups), `passes` ring passes each
/// (reduce-scatter and all-gather 1, all-reduce 2, ZeRO-3's step 3), as NCCL runs them across servers: each
/// group's members by server; with g of them on every server, g rails (member k of each server to member k of
/// the next, one NIC each) carry the traffic between servers, 1/g of it each: passes (p - 1) steps of bytes /
/// (p g) per rail link. The traffic inside a server (NVLink) is not put on the fabric. Groups on one server
/// give no transfers.
void rail_ring_groups(const Topology& topo, const std::vector<std::vector<Vertex>>& groups, double bytes,
                      std::uint32_t passes, Collective& out);
/// Concurrent point-to-point sends of `bytes` each (a pipeline's stage boundaries, a context-parallel
/// ring's step): one latency, one bandwidth step at the slowest pair's rate.
void concurrent_sends(const std::vector<std::pair<Vertex, Vertex>>& pairs, double bytes, Collective& out);

[[nodiscard]] Collective ring_all_reduce(const std::vector<Vertex>& ranks, double bytes);
[[nodiscard]] Collective tree_all_reduce(const std::vector<Vertex>& ranks, double bytes);
[[nodiscard]] Collective hierarchical_all_reduce(const Topology& topo, const std::vector<Vertex>& ranks,
                                                 double bytes);
[[nodiscard]] Collective ring_all_gather(const std::vector<Vertex>& ranks, double bytes);
[[nodiscard]] Collective ring_reduce_scatter(const std::vector<Vertex>& ranks, double bytes);
[[nodiscard]] Collective all_to_all(const std::vector<Vertex>& ranks, double bytes);
[[nodiscard]] Collective rail_ring_groups(const Topology& topo,
                                          const std::vector<std::vector<Vertex>>& groups, double bytes,
                                          std::uint32_t passes);
[[nodiscard]] Collective concurrent_sends(const std::vector<std::pair<Vertex, Vertex>>& pairs, double bytes);

/// A collective's transfers routed and registered as flows; the flows leave the network when it is
/// released or destroyed. One object can place one collective after another, keeping its buffers.
class PlacedCollective {
 public:
  /// Nothing placed.
  PlacedCollective() = default;
  /// Places `collective` (see place()).
  PlacedCollective(Collective collective, Router& router, FlowNetwork& network, std::uint64_t flow_key = 0,
                   std::uint32_t group = FlowNetwork::kNoGroup);
  ~PlacedCollective() { release(); }
  PlacedCollective(PlacedCollective&& other) noexcept;
  PlacedCollective& operator=(PlacedCollective&&) = delete;
  PlacedCollective(const PlacedCollective&) = delete;
  PlacedCollective& operator=(const PlacedCollective&) = delete;

  /// The collective to place next, for a builder to write into; only while nothing is placed.
  [[nodiscard]] Collective& next();
  /// Routes each distinct (src, dst) pair of next() once and registers the flows on `network`; `flow_key`
  /// seeds ECMP so different jobs spread. With a `group` (one per live collective), time() is kept until
  /// one of its flows' rates changes.
  void place(Router& router, FlowNetwork& network, std::uint64_t flow_key = 0,
             std::uint32_t group = FlowNetwork::kNoGroup);
  /// Removes the flows from the network (their order is their order of creation); keeps the buffers.
  void release() noexcept;
  [[nodiscard]] bool placed() const noexcept { return network_ != nullptr; }

  /// Duration at the current fair rates, with `alpha_s` software latency per message (recomputed only
  /// when the rates or alpha changed, with a group; the same number either way).
  [[nodiscard]] double time(double alpha_s);
  /// Slowest current rate among the transfers (bytes/s); +infinity without transfers.
  [[nodiscard]] double bottleneck_rate();
  [[nodiscard]] const Collective& collective() const noexcept { return collective_; }
  [[nodiscard]] const std::vector<FlowId>& flows() const noexcept { return flows_; }
  /// The route of flows()[i].
  [[nodiscard]] std::span<const DirectedLink> path(std::size_t i) const noexcept {
    return {links_.data() + path_at_[i], links_.data() + path_at_[i + 1]};
  }

 private:
  Collective collective_;
  FlowNetwork* network_ = nullptr;                   ///< where the flows are; null while nothing is placed
  std::vector<FlowId> flows_;                        ///< one per distinct pair
  std::vector<DirectedLink> links_;                  ///< the flows' routes, one after another
  std::vector<std::uint32_t> path_at_;               ///< per flow: its route's start; one more at the end
  std::vector<double> latency_;                      ///< per flow
  std::vector<std::vector<std::uint32_t>> flow_of_;  ///< [phase][transfer] -> index into flows_
  std::uint32_t group_ = FlowNetwork::kNoGroup;
  bool cached_ = false;  ///< time() below is valid for alpha below
  double cached_alpha_s_ = 0.0, cached_time_s_ = 0.0;
};

}  // namespace fleetwatt::topologies
