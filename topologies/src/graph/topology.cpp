// The interconnect graph: construction, look-ups and validation.
#include "fleetwatt/topologies/graph/topology.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <boost/graph/connected_components.hpp>

namespace fleetwatt::topologies {

namespace {
constexpr std::array<std::string_view, 8> kKindNames = {"gpu",  "nvswitch", "pcie_switch", "nic",
                                                        "leaf", "spine",    "core",        "storage"};
}

std::string_view to_string(VertexKind k) noexcept {
  return kKindNames[static_cast<std::size_t>(k)];
}

std::optional<VertexKind> vertex_kind_from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == name) return static_cast<VertexKind>(i);
  return std::nullopt;
}

bool is_network_switch(VertexKind k) noexcept {
  return k == VertexKind::leaf || k == VertexKind::spine || k == VertexKind::core;
}

Topology::NamedGraph::NamedGraph() : graph(std::make_unique<Graph>()), by_name(empty_index(graph.get())) {}

Topology::NamedGraph::NamedGraph(const NamedGraph& other)
    : graph(std::make_unique<Graph>(*other.graph)), by_name(empty_index(graph.get())) {
  // The index hashes through its own graph's names: rebuilt, not copied.
  const auto n = boost::num_vertices(*graph);
  by_name.reserve(n);
  for (Vertex v = 0; v < n; ++v) by_name.insert(v);
}

Topology::NamedGraph& Topology::NamedGraph::operator=(const NamedGraph& other) {
  if (this != &other) *this = NamedGraph(other);
  return *this;
}

// The graph object stays where it is, so the moved index's pointers to it stay right; the source is left
// with an empty graph of its own.
Topology::NamedGraph::NamedGraph(NamedGraph&& other) noexcept
    : graph(std::exchange(other.graph, std::make_unique<Graph>())),
      by_name(std::exchange(other.by_name, empty_index(other.graph.get()))) {}

Topology::NamedGraph& Topology::NamedGraph::operator=(NamedGraph&& other) noexcept {
  if (this != &other) {
    graph = std::exchange(other.graph, std::make_unique<Graph>());
    by_name = std::exchange(other.by_name, empty_index(other.graph.get()));
  }
  return *this;
}

Topology::NamedGraph::~NamedGraph() = default;

Vertex Topology::add_vertex(VertexProps props, const jobs::SourceLocation& where) {
  if (props.name.empty()) props.name = fmt::format("{}{}", to_string(props.kind), vertex_count());
  if (named_.by_name.find(std::string_view(props.name)) != named_.by_name.end())
    throw jobs::ConfigError(where, "topology", fmt::format("duplicate vertex name '{}'", props.name));
  const Vertex v = boost::add_vertex(std::move(props), *named_.graph);
  named_.by_name.insert(v);
  indexed_ = false;
  return v;
}

std::uint32_t Topology::add_link(Vertex a, Vertex b, const LinkSpec& spec) {
  const auto id = static_cast<std::uint32_t>(specs_.size());
  boost::add_edge(a, b, EdgeProps{id}, *named_.graph);  // parallel links are allowed (vecS out-edge lists)
  specs_.push_back(spec);
  ends_.emplace_back(a, b);
  indexed_ = false;
  return id;
}

std::vector<double> Topology::directed_capacities() const {
  std::vector<double> caps(2 * link_count());
  for (std::uint32_t id = 0; id < link_count(); ++id)
    caps[2 * id] = caps[2 * id + 1] = link(id).bandwidth_Bps;
  return caps;
}

std::optional<Vertex> Topology::find(std::string_view name) const {
  const auto it = named_.by_name.find(name);
  if (it == named_.by_name.end()) return std::nullopt;
  return *it;
}

void Topology::shrink_to_fit() {
  // Boost's vecS storage is a public std::vector of stored vertices, each with its vector of out-edges.
  named_.graph->m_vertices.shrink_to_fit();
  for (auto& stored : named_.graph->m_vertices) stored.m_out_edges.shrink_to_fit();
  named_.graph->m_edges.shrink_to_fit();
  specs_.shrink_to_fit();
  ends_.shrink_to_fit();
}

std::size_t Topology::count(VertexKind k) const {
  std::size_t n = 0;
  for (const Vertex v : boost::make_iterator_range(boost::vertices(*named_.graph)))
    n += (*named_.graph)[v].kind == k ? 1 : 0;
  return n;
}

std::vector<Vertex> Topology::vertices_of(VertexKind k) const {
  std::vector<Vertex> out;
  for (const Vertex v : boost::make_iterator_range(boost::vertices(*named_.graph)))
    if ((*named_.graph)[v].kind == k) out.push_back(v);
  return out;
}

void Topology::index_gpus() const {
  if (indexed_) return;
  gpus_.clear();
  nics_.clear();
  std::int32_t max_node = -1;
  for (const Vertex v : boost::make_iterator_range(boost::vertices(*named_.graph)))
    max_node = std::max(max_node, (*named_.graph)[v].node);
  nics_.resize(static_cast<std::size_t>(max_node + 1));
  std::vector<std::vector<Vertex>> per_node(static_cast<std::size_t>(max_node + 1));
  for (const Vertex v : boost::make_iterator_range(boost::vertices(*named_.graph))) {
    const auto& p = (*named_.graph)[v];
    if (p.node < 0) continue;
    if (p.kind == VertexKind::gpu) per_node[static_cast<std::size_t>(p.node)].push_back(v);
    if (p.kind == VertexKind::nic) nics_[static_cast<std::size_t>(p.node)].push_back(v);
  }
  for (const auto& list : per_node) gpus_.insert(gpus_.end(), list.begin(), list.end());
  indexed_ = true;
}

const std::vector<Vertex>& Topology::gpus() const {
  index_gpus();
  return gpus_;
}

std::uint32_t Topology::nodes() const {
  index_gpus();
  return static_cast<std::uint32_t>(nics_.size());
}

std::vector<Vertex> Topology::nics_of(std::uint32_t node) const {
  index_gpus();
  return node < nics_.size() ? nics_[node] : std::vector<Vertex>{};
}

std::int32_t Topology::rack_of_node(std::uint32_t node) const {
  for (const Vertex nic : nics_of(node))
    for (const Vertex u : boost::make_iterator_range(boost::adjacent_vertices(nic, *named_.graph)))
      if (is_network_switch((*named_.graph)[u].kind)) return (*named_.graph)[u].rack;
  return -1;
}

void Topology::validate(const jobs::SourceLocation& where) const {
  for (std::uint32_t id = 0; id < link_count(); ++id) {
    const auto& s = link(id);
    // Not a structured binding: clang 14 cannot capture one in the lambda below.
    const Vertex a = ends_[id].first, b = ends_[id].second;
    const auto name = [&] {
      return fmt::format("link {} -- {}", (*named_.graph)[a].name, (*named_.graph)[b].name);
    };
    if (!(s.bandwidth_Bps > 0.0) || !std::isfinite(s.bandwidth_Bps))
      throw jobs::ConfigError(where, "bandwidth",
                              fmt::format("{}: bandwidth must be positive, got {}", name(), s.bandwidth_Bps));
    if (!(s.latency_s >= 0.0))
      throw jobs::ConfigError(where, "latency",
                              fmt::format("{}: latency must be >= 0, got {}", name(), s.latency_s));
    if (!(s.idle_W >= 0.0) || !(s.active_W >= 0.0))
      throw jobs::ConfigError(where, "power", fmt::format("{}: port power must be >= 0", name()));
  }
  std::vector<int> component(vertex_count());
  if (vertex_count() == 0) throw jobs::ConfigError(where, "topology", "the topology has no vertices");
  boost::connected_components(*named_.graph, component.data());
  std::optional<int> main_component;
  for (const Vertex v : boost::make_iterator_range(boost::vertices(*named_.graph))) {
    const auto& p = (*named_.graph)[v];
    if (p.kind != VertexKind::gpu && p.kind != VertexKind::storage) continue;
    if (p.kind == VertexKind::gpu && p.node < 0)
      throw jobs::ConfigError(where, "node", fmt::format("GPU '{}' has no node index", p.name));
    if (!main_component) {
      main_component = component[v];
    } else if (component[v] != *main_component) {
      throw jobs::ConfigError(
          where, "topology",
          fmt::format("{} '{}' is disconnected from the other GPUs and storage", to_string(p.kind), p.name));
    }
  }
  if (!main_component) throw jobs::ConfigError(where, "topology", "the topology has no GPUs");
}

}  // namespace fleetwatt::topologies
