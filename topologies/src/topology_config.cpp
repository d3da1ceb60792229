// [topology] table -> TopologyConfig, and TopologyConfig -> a built, validated fleet graph.
#include "fleetwatt/topologies/topology_config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "fleetwatt/topologies/graph_io.hpp"

namespace fleetwatt::topologies {

namespace {

using workloads::ConfigError;
using workloads::ParamSet;

constexpr double kGbps = 1e9 / 8.0;  // bytes/s per Gb/s
constexpr double kMicro = 1e-6;

struct Reader {
  const ParamSet& p;

  [[nodiscard]] ConfigError error(std::string_view key, const std::string& message) const {
    return ConfigError(p.where_of(key), fmt::format("topology.{}", key), message);
  }
  std::uint32_t count(std::string_view key, std::uint32_t fallback, std::uint32_t min = 1) const {
    if (!p.has(key)) return fallback;
    const auto v = p.get_int(key, fallback);
    if (v < static_cast<std::int64_t>(min) || v > 1'000'000)
      throw error(key, fmt::format("must be an integer in [{}, 1000000], got {}", min, v));
    return static_cast<std::uint32_t>(v);
  }
  double positive(std::string_view key, double fallback, double scale = 1.0) const {
    if (!p.has(key)) return fallback;
    const double v = p.get_double(key, fallback);
    if (!(v > 0.0) || !std::isfinite(v)) throw error(key, fmt::format("must be positive, got {}", v));
    return v * scale;
  }
  double non_negative(std::string_view key, double fallback, double scale = 1.0) const {
    if (!p.has(key)) return fallback;
    const double v = p.get_double(key, fallback);
    if (!(v >= 0.0) || !std::isfinite(v)) throw error(key, fmt::format("must be >= 0, got {}", v));
    return v * scale;
  }
  double fraction(std::string_view key, double fallback) const {
    if (!p.has(key)) return fallback;
    const double v = p.get_double(key, fallback);
    if (!(v >= 0.0 && v <= 1.0)) throw error(key, fmt::format("must lie in [0, 1], got {}", v));
    return v;
  }
  template <typename E>
  E choice(std::string_view key, E fallback, const std::vector<std::pair<std::string, E>>& options) const {
    if (!p.has(key)) return fallback;
    const auto v = p.get_string(key, "");
    std::string names;
    for (const auto& [name, e] : options) {
      if (name == v) return e;
      names += (names.empty() ? "" : ", ") + name;
    }
    throw error(key, fmt::format("unknown value '{}' (known: {})", v, names));
  }
};

std::uint32_t smallest_fat_tree_k(std::uint32_t nodes) {
  std::uint32_t k = 2;
  while (static_cast<std::uint64_t>(k) * k * k / 4 < nodes) k += 2;
  return k;
}

}  // namespace

const std::vector<FabricKindInfo>& fabric_kinds() {
  static const std::vector<FabricKindInfo> kinds = {
      {"fat_tree", FabricKind::fat_tree,
       "k-ary fat-tree (k, default: the smallest even k that holds the fleet)"},
      {"leaf_spine", FabricKind::leaf_spine, "two tiers: leaves, spines, hosts_per_leaf, oversubscription"},
      {"dragonfly", FabricKind::dragonfly, "groups of routers_per_group, global_links_per_router"},
      {"torus", FabricKind::torus, "1-, 2- or 3-D torus of routers (dims, hosts_per_router)"},
      {"ring", FabricKind::ring, "a ring of routers (routers, hosts_per_router)"},
      {"file", FabricKind::file, "file = \"fabric.graphml\" or \".dot\": a fabric drawn by hand"},
  };
  return kinds;
}

const std::vector<std::string>& topology_keys() {
  static const std::vector<std::string> keys = {"kind",
                                                "file",
                                                "k",
                                                "leaves",
                                                "spines",
                                                "hosts_per_leaf",
                                                "oversubscription",
                                                "groups",
                                                "routers_per_group",
                                                "global_links_per_router",
                                                "dims",
                                                "routers",
                                                "hosts_per_router",
                                                "node_fabric",
                                                "nics_per_node",
                                                "nic_gbps",
                                                "nvlink_gbps",
                                                "pcie_gbps",
                                                "link_gbps",
                                                "link_latency_us",
                                                "nic_idle_w",
                                                "nic_active_w",
                                                "switch_idle_w",
                                                "port_idle_w",
                                                "port_active_w",
                                                "storage_servers",
                                                "storage_gbps",
                                                "storage_idle_w",
                                                "routing",
                                                "allreduce",
                                                "alpha_us",
                                                "comm_overlap",
                                                "backward_fraction",
                                                "gradient_bytes",
                                                "comm_power_fraction",
                                                "bytes_per_sample",
                                                "jpeg_ratio",
                                                "decode_rate_per_worker",
                                                "workers_per_gpu",
                                                "prefetch_depth",
                                                "checkpoint_bytes_per_param"};
  return keys;
}

TopologyConfig parse_topology_config(const ParamSet& params, const std::filesystem::path& scenario_dir) {
  params.require_known(topology_keys());
  const Reader r{params};
  TopologyConfig c;
  c.where = params.where_of("kind");
  if (params.has("file")) {
    c.kind = FabricKind::file;
    c.file = params.get_string("file", "");
    if (c.file.is_relative()) c.file = scenario_dir / c.file;
    if (params.has("kind") && params.get_string("kind", "") != "file")
      throw r.error("file", "give either a generator kind or a file, not both");
    c.where = params.where_of("file");
  } else {
    std::vector<std::pair<std::string, FabricKind>> kinds;
    for (const auto& k : fabric_kinds())
      if (k.kind != FabricKind::file) kinds.emplace_back(std::string(k.name), k.kind);
    c.kind = r.choice<FabricKind>("kind", FabricKind::fat_tree, kinds);
  }
  c.k = r.count("k", 0, 2);
  if (params.has("k") && c.k % 2 != 0)
    throw r.error("k", fmt::format("a fat-tree's k must be even, got {}", c.k));
  c.leaves = r.count("leaves", 0);
  c.spines = r.count("spines", c.spines);
  c.hosts_per_leaf = r.count("hosts_per_leaf", c.hosts_per_leaf);
  c.oversubscription = r.positive("oversubscription", c.oversubscription);
  c.groups = r.count("groups", 0);
  c.routers_per_group = r.count("routers_per_group", c.routers_per_group);
  c.global_links = r.count("global_links_per_router", c.global_links);
  if (params.has("dims")) {
    for (const double d : params.get_doubles("dims", {})) {
      if (!(d >= 1.0) || d != std::floor(d) || d > 1e6)
        throw r.error("dims", fmt::format("torus dimensions must be positive integers, got {}", d));
      c.dims.push_back(static_cast<std::uint32_t>(d));
    }
    if (c.dims.empty() || c.dims.size() > 3) throw r.error("dims", "a torus has 1, 2 or 3 dimensions");
  }
  c.routers = r.count("routers", 0);
  c.hosts_per_router = r.count("hosts_per_router", c.hosts_per_router);

  c.node.fabric = r.choice<NodeFabric>("node_fabric", NodeFabric::nvswitch,
                                       {{"nvswitch", NodeFabric::nvswitch}, {"pcie", NodeFabric::pcie}});
  c.node.nics = r.count("nics_per_node", c.node.nics);
  c.nic_link.bandwidth_Bps = r.positive("nic_gbps", c.nic_link.bandwidth_Bps, kGbps);
  c.node.nvlink.bandwidth_Bps = r.positive("nvlink_gbps", c.node.nvlink.bandwidth_Bps, kGbps);
  c.nvlink_set = params.has("nvlink_gbps");
  c.node.pcie.bandwidth_Bps = r.positive("pcie_gbps", c.node.pcie.bandwidth_Bps, kGbps);
  c.node.pcie_root.bandwidth_Bps = 2.0 * c.node.pcie.bandwidth_Bps;
  c.fabric.link.bandwidth_Bps = r.positive("link_gbps", c.nic_link.bandwidth_Bps, kGbps);
  c.fabric.link.latency_s = c.nic_link.latency_s =
      r.non_negative("link_latency_us", c.fabric.link.latency_s, kMicro);
  c.node.nic_idle_W = r.non_negative("nic_idle_w", c.node.nic_idle_W);
  c.node.nic_active_W = r.non_negative("nic_active_w", c.node.nic_active_W);
  c.fabric.switch_idle_W = r.non_negative("switch_idle_w", c.fabric.switch_idle_W);
  // Port power is per port; a link has two.
  const double port_idle = r.non_negative("port_idle_w", c.fabric.link.idle_W / 2.0);
  const double port_active = r.non_negative("port_active_w", c.fabric.link.active_W / 2.0);
  if (port_active < port_idle) throw r.error("port_active_w", "must be >= port_idle_w");
  for (LinkSpec* l : {&c.fabric.link, &c.nic_link, &c.storage.link}) {
    l->idle_W = 2.0 * port_idle;
    l->active_W = 2.0 * port_active;
  }
  c.storage.servers = r.count("storage_servers", c.storage.servers, 0);
  c.storage.link.bandwidth_Bps = r.positive("storage_gbps", c.storage.link.bandwidth_Bps, kGbps);
  c.storage.server_idle_W = r.non_negative("storage_idle_w", c.storage.server_idle_W);

  c.metric = r.choice<RouteMetric>("routing", RouteMetric::latency,
                                   {{"latency", RouteMetric::latency}, {"hops", RouteMetric::hops}});
  c.allreduce = r.choice<AllReduceAlgorithm>("allreduce", AllReduceAlgorithm::ring,
                                             {{"ring", AllReduceAlgorithm::ring},
                                              {"tree", AllReduceAlgorithm::tree},
                                              {"hierarchical", AllReduceAlgorithm::hierarchical}});
  auto& t = c.training;
  t.alpha_s = r.non_negative("alpha_us", t.alpha_s, kMicro);
  t.comm_overlap = r.fraction("comm_overlap", t.comm_overlap);
  t.backward_fraction = r.fraction("backward_fraction", t.backward_fraction);
  t.gradient_bytes = r.positive("gradient_bytes", 0.0);
  t.comm_power_fraction = r.fraction("comm_power_fraction", t.comm_power_fraction);
  t.bytes_per_sample = r.positive("bytes_per_sample", 0.0);
  t.jpeg_ratio = r.positive("jpeg_ratio", t.jpeg_ratio);
  t.decode_rate_per_worker = r.positive("decode_rate_per_worker", t.decode_rate_per_worker);
  t.default_workers = r.count("workers_per_gpu", t.default_workers);
  t.prefetch_depth = r.count("prefetch_depth", t.prefetch_depth, 0);
  t.checkpoint_bytes_per_param = r.non_negative("checkpoint_bytes_per_param", t.checkpoint_bytes_per_param);
  return c;
}

Topology build_topology(const TopologyConfig& config, std::uint32_t nodes, std::uint32_t gpus_per_node) {
  const auto fail = [&](const std::string& field, const std::string& message) {
    return ConfigError(config.where, fmt::format("topology.{}", field), message);
  };
  if (config.kind == FabricKind::file) {
    Topology topo = read_topology_file(config.file);
    if (topo.gpus().size() != static_cast<std::size_t>(nodes) * gpus_per_node)
      throw fail("file", fmt::format("{} holds {} GPUs but the fleet has {} nodes x {} GPUs",
                                     config.file.string(), topo.gpus().size(), nodes, gpus_per_node));
    topo.validate(workloads::SourceLocation{config.file.string(), 0, 0});
    return topo;
  }
  Topology topo;
  NodeSpec node = config.node;
  node.gpus = gpus_per_node;
  std::vector<NodeVertices> servers;
  servers.reserve(nodes);
  for (std::uint32_t n = 0; n < nodes; ++n) servers.push_back(build_node(topo, n, node));

  NetworkPorts ports;
  try {
    switch (config.kind) {
      case FabricKind::fat_tree:
        ports = build_fat_tree(topo, config.k != 0 ? config.k : smallest_fat_tree_k(nodes), config.fabric);
        break;
      case FabricKind::leaf_spine: {
        const std::uint32_t leaves =
            config.leaves != 0 ? config.leaves : (nodes + config.hosts_per_leaf - 1) / config.hosts_per_leaf;
        ports = build_leaf_spine(topo, leaves, config.spines, config.hosts_per_leaf,
                                 config.nic_link.bandwidth_Bps * node.nics, config.oversubscription,
                                 config.fabric);
        break;
      }
      case FabricKind::dragonfly: {
        const std::uint32_t per_group = config.routers_per_group * config.hosts_per_router;
        const std::uint32_t groups = config.groups != 0
                                         ? config.groups
                                         : std::max<std::uint32_t>(1, (nodes + per_group - 1) / per_group);
        ports = build_dragonfly(topo, groups, config.routers_per_group, config.hosts_per_router,
                                config.global_links, config.fabric);
        break;
      }
      case FabricKind::torus: {
        std::vector<std::uint32_t> dims = config.dims;
        if (dims.empty()) {
          // A square 2-D torus just large enough.
          const std::uint32_t routers = (nodes + config.hosts_per_router - 1) / config.hosts_per_router;
          auto side = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(routers))));
          dims = {std::max<std::uint32_t>(side, 1), std::max<std::uint32_t>(side, 1)};
        }
        ports = build_torus(topo, dims, config.hosts_per_router, config.fabric);
        break;
      }
      case FabricKind::ring: {
        const std::uint32_t routers = config.routers != 0
                                          ? config.routers
                                          : (nodes + config.hosts_per_router - 1) / config.hosts_per_router;
        ports = build_ring(topo, std::max<std::uint32_t>(routers, 1), config.hosts_per_router, config.fabric);
        break;
      }
      case FabricKind::file:
        break;
    }
  } catch (const std::invalid_argument& e) {
    throw fail("kind", e.what());
  }
  if (ports.host_ports.size() < nodes)
    throw fail("kind", fmt::format("the fabric has {} host slots but the fleet has {} nodes",
                                   ports.host_ports.size(), nodes));
  for (std::uint32_t n = 0; n < nodes; ++n)
    attach_node(topo, servers[n], ports.host_ports[n], config.nic_link);
  if (config.storage.servers > 0) attach_storage(topo, ports, config.storage);
  topo.validate(config.where);
  return topo;
}

}  // namespace fleetwatt::topologies
