// Maximum flow on the interconnect with Boost's push-relabel algorithm.
#include "fleetwatt/topologies/graph/analysis.hpp"

#include <boost/graph/push_relabel_max_flow.hpp>

namespace fleetwatt::topologies {

double max_flow_Bps(const Topology& topo, const std::vector<Vertex>& sources,
                    const std::vector<Vertex>& sinks) {
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, double,
                      boost::property<boost::edge_residual_capacity_t, double,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const auto n = topo.vertex_count();
  FlowGraph g(n + 2);
  auto cap = boost::get(boost::edge_capacity, g);
  auto rev = boost::get(boost::edge_reverse, g);
  const auto arc = [&](std::size_t u, std::size_t v, double c) {
    const auto e = boost::add_edge(u, v, g).first;
    const auto r = boost::add_edge(v, u, g).first;
    cap[e] = c;
    cap[r] = 0.0;
    rev[e] = r;
    rev[r] = e;
  };
  // Each direction of a full-duplex link is its own arc of the link's bandwidth.
  for (std::uint32_t id = 0; id < topo.link_count(); ++id) {
    const auto [a, b] = topo.link_ends(id);
    arc(a, b, topo.link(id).bandwidth_Bps);
    arc(b, a, topo.link(id).bandwidth_Bps);
  }
  // "Unlimited" super-source and super-sink arcs: more than every link together, yet finite so that the
  // algorithm's excess arithmetic stays exact.
  double unlimited = 1.0;
  for (std::uint32_t id = 0; id < topo.link_count(); ++id) unlimited += 2.0 * topo.link(id).bandwidth_Bps;
  const std::size_t s = n, t = n + 1;
  for (const Vertex v : sources) arc(s, v, unlimited);
  for (const Vertex v : sinks) arc(v, t, unlimited);
  return boost::push_relabel_max_flow(g, s, t);
}

}  // namespace fleetwatt::topologies
