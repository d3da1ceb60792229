// The interconnect graph: one Boost.Graph adjacency_list whose vertices are GPUs, node-internal switches
// (NVSwitch, PCIe), NICs, network switches (leaf, spine, core) and storage servers, and whose edges are
// full-duplex links with a bandwidth per direction, a latency and port power. Every builder, reader,
// router and flow model works on this one type.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "fleetwatt/jobs/param_set.hpp"  // jobs::SourceLocation and ConfigError (core's types)

namespace fleetwatt::topologies {

enum class VertexKind { gpu, nvswitch, pcie_switch, nic, leaf, spine, core, storage };

/// "gpu", "nvswitch", "pcie_switch", "nic", "leaf", "spine", "core", "storage".
[[nodiscard]] std::string_view to_string(VertexKind k) noexcept;
/// The kind named by `name`, or nothing when the name is unknown.
[[nodiscard]] std::optional<VertexKind> vertex_kind_from_string(std::string_view name) noexcept;
/// Network switches: leaf, spine and core.
[[nodiscard]] bool is_network_switch(VertexKind k) noexcept;

/// Node index of vertices that belong to no server (switches, storage).
inline constexpr std::int32_t kNoNode = -1;

struct VertexProps {
  VertexKind kind = VertexKind::gpu;
  std::string name;
  std::int32_t node = kNoNode;  ///< server the vertex sits in (GPU, NVSwitch, PCIe switch, NIC)
  std::int32_t rack = -1;       ///< rack / pod / group of a switch that hosts attach to, -1 when none
  double idle_W = 0.0;          ///< chassis or device power drawn always (switch base, NIC, storage server)
  double active_W = 0.0;        ///< extra power while any of its links carries a flow (NIC)
};

/// What a link is made of: both directions get the same bandwidth.
struct LinkSpec {
  double bandwidth_Bps = 0.0;  ///< bytes/s in each direction
  double latency_s = 0.0;
  double idle_W = 0.0;    ///< both ports together, while carrying nothing
  double active_W = 0.0;  ///< both ports together, while carrying a flow
};

/// Edges carry only their dense link index; the specs live in the Topology, so copies stay valid.
struct EdgeProps {
  std::uint32_t id = 0;  ///< link index, in insertion order
};

/// The edge list is a vector too (Boost's default is a std::list): links are never removed, and a list node
/// per link was a third of the graph's memory at fleet scale (232,000 links at 40,000 GPUs).
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps,
                                    boost::no_property, boost::vecS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;
/// One direction of a link: 2 * link id + 0 from the link's first end to its second, + 1 back.
using DirectedLink = std::uint32_t;

class Topology {
 public:
  /// Copies copy the graph; moves hand it over without copying it (see NamedGraph). A moved-from
  /// Topology is empty.
  Topology() = default;

  /// Adds a vertex; names must be unique (a duplicate is a ConfigError at `where`).
  Vertex add_vertex(VertexProps props, const jobs::SourceLocation& where = {});
  /// Adds a full-duplex link; returns its id.
  std::uint32_t add_link(Vertex a, Vertex b, const LinkSpec& spec);

  [[nodiscard]] const Graph& graph() const noexcept { return *named_.graph; }
  [[nodiscard]] std::size_t vertex_count() const noexcept { return boost::num_vertices(*named_.graph); }
  [[nodiscard]] std::size_t link_count() const noexcept { return ends_.size(); }
  [[nodiscard]] const VertexProps& vertex(Vertex v) const { return (*named_.graph)[v]; }
  [[nodiscard]] const LinkSpec& link(std::uint32_t id) const { return specs_[id]; }
  /// The two ends of a link, in the order they were added.
  [[nodiscard]] std::pair<Vertex, Vertex> link_ends(std::uint32_t id) const { return ends_[id]; }
  /// The directed link from `from` over link `id`.
  [[nodiscard]] DirectedLink directed(std::uint32_t id, Vertex from) const {
    return 2 * id + (ends_[id].first == from ? 0u : 1u);
  }
  /// Bandwidth of every directed link, indexed by DirectedLink.
  [[nodiscard]] std::vector<double> directed_capacities() const;

  [[nodiscard]] std::optional<Vertex> find(std::string_view name) const;
  [[nodiscard]] std::size_t count(VertexKind k) const;
  [[nodiscard]] std::vector<Vertex> vertices_of(VertexKind k) const;

  /// GPUs in the simulator's global order: by node, then in the order they were added.
  [[nodiscard]] const std::vector<Vertex>& gpus() const;
  /// Number of servers (largest node index + 1).
  [[nodiscard]] std::uint32_t nodes() const;
  /// NICs of a node, in the order they were added.
  [[nodiscard]] std::vector<Vertex> nics_of(std::uint32_t node) const;
  /// Rack of a node: the rack of the first switch its first NIC links to, or -1.
  [[nodiscard]] std::int32_t rack_of_node(std::uint32_t node) const;

  /// Releases the spare capacity that building left in the graph's vectors (their doubling growth held up
  /// to twice the vertices: 11 MB of 23 at 40,000 GPUs). Call once the topology is built.
  void shrink_to_fit();

  /// Checks that every link has positive bandwidth and non-negative latency and power, that the GPUs and
  /// storage servers are all connected to each other, and that GPUs carry node indices. Throws ConfigError
  /// naming `where` and the offending vertex or link.
  void validate(const jobs::SourceLocation& where) const;

 private:
  void index_gpus() const;

  /// Vertices by name, hashed through the graph's own names (no second copy of each name).
  struct NameHash {
    using is_transparent = void;
    const Graph* g;
    std::size_t operator()(std::string_view n) const noexcept { return std::hash<std::string_view>{}(n); }
    std::size_t operator()(Vertex v) const noexcept { return (*this)(std::string_view((*g)[v].name)); }
  };
  struct NameEq {
    using is_transparent = void;
    const Graph* g;
    std::string_view name(Vertex v) const noexcept { return (*g)[v].name; }
    std::string_view name(std::string_view n) const noexcept { return n; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const noexcept {
      return name(a) == name(b);
    }
  };
  using NameIndex = std::unordered_set<Vertex, NameHash, NameEq>;
  [[nodiscard]] static NameIndex empty_index(const Graph* g) { return NameIndex(0, NameHash{g}, NameEq{g}); }
  /// The graph with its name index, which hashes through that graph's names, so the two are copied and
  /// moved together. The graph lives behind a pointer because Boost 1.74's adjacency_list has no move
  /// constructor and its swap copies: a Topology holding it directly was copied whenever it was moved
  /// (37 MB at 40,000 GPUs).
  struct NamedGraph {
    NamedGraph();
    NamedGraph(const NamedGraph& other);
    NamedGraph& operator=(const NamedGraph& other);
    NamedGraph(NamedGraph&& other) noexcept;
    NamedGraph& operator=(NamedGraph&& other) noexcept;
    ~NamedGraph();
    std::unique_ptr<Graph> graph;
    NameIndex by_name;
  };

  NamedGraph named_;
  std::vector<LinkSpec> specs_;
  std::vector<std::pair<Vertex, Vertex>> ends_;
  mutable std::vector<Vertex> gpus_;
  mutable std::vector<std::vector<Vertex>> nics_;
  mutable bool indexed_ = false;
};

}  // namespace fleetwatt::topologies
