// [topology] table -> TopologyConfig, and TopologyConfig -> a built, validated fleet graph.
#include "fleetwatt/topologies/fabrics/topology_config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "fabric_params.hpp"
#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/topologies/graph/graph_io.hpp"

namespace fleetwatt::topologies {

namespace {

using jobs::ConfigError;
using jobs::ParamSet;
using jobs::ParamSpec;

using params::choice;
using params::computed;
using params::count;
using params::kGbps;
using params::kMicro;
using params::num;

struct Reader {
  const ParamSet& p;

  [[nodiscard]] ConfigError error(std::string_view key, const std::string& message) const {
    return ConfigError(p.where_of(key), p.dotted(key), message);
  }
  std::uint32_t count(std::string_view key, std::uint32_t fallback, std::uint32_t min = 1,
                      std::uint32_t max = 1'000'000) const {
    if (!p.has(key)) return fallback;
    const auto v = p.get_int(key, fallback);
    if (v < static_cast<std::int64_t>(min) || v > static_cast<std::int64_t>(max))
      throw error(key, fmt::format("must be an integer in [{}, {}], got {}", min, max, v));
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

}  // namespace

const jobs::ParamSpecs& topology_common_params() {
  static const jobs::ParamSpecs specs = [] {
    using jobs::ParamType;
    const TopologyConfig d;
    const TrainingIoConfig& t = d.training;
    return jobs::ParamSpecs{
        choice("kind", "fat_tree", "fat_tree, leaf_spine, dragonfly, torus, ring or file"),
        choice("node_fabric", "nvswitch", "nvswitch, or pcie (two GPUs per PCIe switch)"),
        count("nics_per_node", d.node.nics, "NICs per server"),
        num("nic_gbps", d.nic_link.bandwidth_Bps / kGbps, "Gb/s", "NIC link, per direction"),
        computed("link_gbps", ParamType::number, "nic_gbps", "Gb/s", "switch-to-switch links"),
        computed("nvlink_gbps", ParamType::number, "the GPU preset's", "Gb/s", "per GPU to the NVSwitch"),
        num("pcie_gbps", d.node.pcie.bandwidth_Bps / kGbps, "Gb/s", "GPU/NIC to PCIe switch"),
        num("link_latency_us", d.fabric.link.latency_s / kMicro, "us", "per link"),
        num("nic_idle_w", d.node.nic_idle_W, "W", "per NIC, always"),
        num("nic_active_w", d.node.nic_active_W, "W", "extra per NIC while carrying a flow"),
        num("switch_idle_w", d.fabric.switch_idle_W, "W", "per switch, always"),
        num("port_idle_w", d.fabric.link.idle_W / 2.0, "W", "per port (a link has two), always"),
        num("port_active_w", d.fabric.link.active_W / 2.0, "W", "per port while carrying a flow"),
        count("storage_servers", d.storage.servers, "storage servers linked to the top tier (0: none)"),
        num("storage_gbps", d.storage.link.bandwidth_Bps / kGbps, "Gb/s", "per storage server"),
        num("storage_idle_w", d.storage.server_idle_W, "W", "per storage server"),
        choice("routing", "latency", "latency or hops; ECMP over equal paths"),
        choice("allreduce", "ring", "ring, tree (double binary) or hierarchical"),
        num("alpha_us", t.alpha_s / kMicro, "us", "per-message software latency of a collective"),
        num("comm_overlap", t.comm_overlap, "", "share of gradient communication hidden behind backward"),
        num("backward_fraction", t.backward_fraction, "", "share of a step's compute that is backward"),
        computed("gradient_bytes", ParamType::number, "4 (fp32/tf32), 2 (16-bit, fp8)", "B",
                 "per gradient element"),
        num("comm_power_fraction", t.comm_power_fraction, "",
            "GPU power in exposed communication: idle + f x (peak - idle)"),
        computed("bytes_per_sample", ParamType::number, "3 x input_size^2 x jpeg_ratio", "B",
                 "dataset bytes per sample"),
        num("jpeg_ratio", t.jpeg_ratio, "", "stored bytes per raw pixel byte"),
        num("decode_rate_per_worker", t.decode_rate_per_worker, "samples/s", "per data-loader worker"),
        count("workers_per_gpu", t.default_workers, "data-loader workers when a job gives none"),
        {"prefetch_depth",
         ParamType::integer,
         std::int64_t{t.prefetch_depth},
         "",
         "batches",
         "loaded ahead (0: loading and compute alternate)",
         {}},
        num("checkpoint_bytes_per_param", t.checkpoint_bytes_per_param, "B", "fp32 weights + Adam moments"),
    };
  }();
  return specs;
}

// The [topology] keys of the chosen kind: its own and the common ones. A key of another kind is an unknown
// key here (it would do nothing), named with the kind it belongs to.
static ParamSet checked_for_kind(const ParamSet& raw, const FabricKindEntry& kind) {
  jobs::ParamSpecs specs = topology_common_params();
  specs.insert(specs.end(), kind.params.begin(), kind.params.end());
  for (const auto& key : raw.keys_in_source_order()) {
    const auto& value = raw.values().at(key);
    bool own = false;
    for (const auto& s : specs) own = own || s.name == key;
    if (own) continue;
    for (const auto& other : fabric_kinds())
      for (const auto& s : other.params)
        if (s.name == key) {
          std::vector<std::string> names;
          for (const auto& k : kind.params) names.push_back(k.name);
          throw ConfigError(
              value.where, raw.dotted(key),
              fmt::format("unknown key for kind {} (a {} key; {} takes {}{}the keys common to every "
                          "kind)",
                          kind.name, other.name, kind.name, fmt::join(names, ", "),
                          names.empty() ? "" : " and "));
        }
  }
  return raw.checked(specs);
}

TopologyConfig parse_topology_config(const ParamSet& raw, const std::filesystem::path& scenario_dir) {
  TopologyConfig c;
  c.where = raw.where_of("kind");
  // The kind first: it says which keys the table may hold.
  const FabricKindEntry* kind = nullptr;
  if (raw.has("file")) {
    if (raw.has("kind") && raw.get_string("kind", "") != kFileFabric)
      throw ConfigError(raw.where_of("file"), raw.dotted("file"),
                        "give either a generator kind or a file, not both");
    kind = fabric_kinds().find(kFileFabric);
    c.where = raw.where_of("file");
  } else {
    // A generator: `file` is named by its key, not as a kind.
    const std::string name = raw.get_string("kind", "fat_tree");
    std::vector<std::string> names;
    for (const auto& k : fabric_kinds()) {
      if (k.name == name && k.name != kFileFabric) kind = &k;
      if (k.name != kFileFabric) names.push_back(k.name);
    }
    if (!kind)
      throw ConfigError(raw.where_of("kind"), raw.dotted("kind"),
                        fmt::format("unknown value '{}' (known: {})", name, fmt::join(names, ", ")));
  }
  const ParamSet params = checked_for_kind(raw, *kind);
  const Reader r{params};
  c.kind = kind->name;
  if (c.kind == kFileFabric) {
    c.file = params.get_string("file", "");
    if (c.file.is_relative()) c.file = scenario_dir / c.file;
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
  c.node.nics = r.count("nics_per_node", c.node.nics, 1, kMaxNicsPerNode);
  c.nic_link.bandwidth_Bps = r.positive("nic_gbps", c.nic_link.bandwidth_Bps, kGbps);
  c.node.nvlink.bandwidth_Bps = r.positive("nvlink_gbps", c.node.nvlink.bandwidth_Bps, kGbps);
  c.nvlink_set = params.has("nvlink_gbps");
  c.pcie_set = params.has("pcie_gbps");
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

FabricSize fabric_size(const TopologyConfig& config, std::uint32_t nodes) {
  const auto& kind = fabric_kinds().at(config.kind, config.where, "topology.kind");
  return kind.make.size ? kind.make.size(config, nodes) : FabricSize{};
}

void check_fabric_size(const TopologyConfig& config, std::uint32_t nodes) {
  if (config.kind == kFileFabric) return;  // the file is the graph: as large as what it holds
  const FabricSize f = fabric_size(config, nodes);
  const auto fail = [&](const std::string& key, const std::string& message) {
    return ConfigError(config.where, fmt::format("topology.{}", key), message);
  };
  if (f.host_slots < nodes)
    throw fail(f.key, fmt::format("the {} fabric has {:.0f} host slots but the fleet has {} nodes",
                                  config.kind, f.host_slots, nodes));
  const double fabric = f.switches + f.links, storage = 2.0 * config.storage.servers;
  const double limit = std::max(kMaxFabricElements, kMaxFabricElementsPerServer * nodes);
  if (fabric + storage > limit)
    throw fail(
        fabric >= storage ? f.key : "storage_servers",
        fmt::format("the {} fabric would hold {:.4g} switches, {:.4g} links and {} storage servers for "
                    "{} servers: at most {:.0f} of them in all ({:.0f} a server in a larger fleet)",
                    config.kind, f.switches, f.links, config.storage.servers, nodes, kMaxFabricElements,
                    kMaxFabricElementsPerServer));
}

Topology build_topology(const TopologyConfig& config, std::uint32_t nodes, std::uint32_t gpus_per_node) {
  const auto fail = [&](const std::string& field, const std::string& message) {
    return ConfigError(config.where, fmt::format("topology.{}", field), message);
  };
  check_fabric_size(config, nodes);
  if (config.kind == kFileFabric) {
    Topology topo;
    try {
      topo = read_topology_file(config.file);
    } catch (const ConfigError& e) {
      // An error inside the file is located there, at its line. One about the file as a whole (missing,
      // unreadable, of no known type) is the scenario's: located at its [topology] table, naming the path.
      if (e.where().line != 0 || e.where().file != config.file.string()) throw;
      throw fail("file", fmt::format("{}: {}", config.file.string(), e.message()));
    }
    if (topo.gpus().size() != static_cast<std::size_t>(nodes) * gpus_per_node)
      throw fail("file", fmt::format("{} holds {} GPUs but the fleet has {} nodes x {} GPUs",
                                     config.file.string(), topo.gpus().size(), nodes, gpus_per_node));
    topo.validate(jobs::SourceLocation{config.file.string(), 0, 0});
    topo.shrink_to_fit();
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
    const auto& kind = fabric_kinds().at(config.kind, config.where, "topology.kind");
    ports = kind.make(topo, config, nodes);
  } catch (const std::invalid_argument& e) {
    throw fail("kind", e.what());
  }
  // check_fabric_size refused a fabric of too few host slots from the kind's own count of them.
  FLEETWATT_ASSERT(ports.host_ports.size() >= nodes,
                   fmt::format("the {} fabric built {} host slots for {} nodes, fewer than it counted",
                               config.kind, ports.host_ports.size(), nodes));
  for (std::uint32_t n = 0; n < nodes; ++n)
    attach_node(topo, servers[n], ports.host_ports[n], config.nic_link);
  if (config.storage.servers > 0) attach_storage(topo, ports, config.storage);
  topo.validate(config.where);
  topo.shrink_to_fit();
  return topo;
}

}  // namespace fleetwatt::topologies
