// The scenario's [topology] table as a typed struct: which fabric generator (or which GraphML/DOT file), its
// parameters, the servers' internals, storage, routing, the collective algorithm and the I/O and
// data-parallel parameters. The scenario parser hands the table over as a ParamSet; this file validates it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/jobs/param_set.hpp"
#include "fleetwatt/models/training/training_io.hpp"
#include "fleetwatt/topologies/fabrics/fabric_kinds.hpp"
#include "fleetwatt/topologies/graph/builders.hpp"
#include "fleetwatt/topologies/graph/routing.hpp"
#include "fleetwatt/topologies/graph/topology.hpp"

namespace fleetwatt::topologies {

/// The [topology] keys every kind takes: servers' internals, link power, storage, routing, collectives, I/O.
[[nodiscard]] const jobs::ParamSpecs& topology_common_params();
enum class AllReduceAlgorithm { ring, tree, hierarchical };

/// The training-I/O parameters ([topology] keys) are the predictors' own set
/// (models/training/training_io.hpp).
using models::TrainingIoConfig;

struct TopologyConfig {
  std::string kind = "fat_tree";  ///< a fabric_kinds() name (kFileFabric: read from `file`)
  jobs::SourceLocation where;     ///< the [topology] table, for messages
  std::filesystem::path file;     ///< GraphML (.graphml/.xml) or DOT (.dot/.gv), kind = file
  // Fabric generators. 0 means "the smallest that holds the fleet".
  std::uint32_t k = 0;                                        ///< fat_tree
  std::uint32_t leaves = 0, spines = 4, hosts_per_leaf = 16;  ///< leaf_spine
  double oversubscription = 1.0;
  std::uint32_t groups = 0, routers_per_group = 4, global_links = 2;  ///< dragonfly
  std::vector<std::uint32_t> dims;                                    ///< torus
  std::uint32_t routers = 0;                                          ///< ring
  std::uint32_t hosts_per_router = 1;                                 ///< dragonfly, torus, ring
  NodeSpec node;
  bool nvlink_set = false;  ///< nvlink_gbps given; otherwise the caller may use the GPU preset's
  bool pcie_set = false;    ///< pcie_gbps given; otherwise the caller may use the GPU preset's
  FabricSpec fabric;
  LinkSpec nic_link{50e9, 1e-6, 20.0, 26.0};  ///< NIC to its switch
  StorageSpec storage;
  RouteMetric metric = RouteMetric::latency;
  AllReduceAlgorithm allreduce = AllReduceAlgorithm::ring;
  TrainingIoConfig training;
};

/// Reads the [topology] table; keys the chosen kind does not take (its own and the common ones) and bad
/// values are ConfigErrors at the key's location.
/// `scenario_dir` anchors a relative `file`.
[[nodiscard]] TopologyConfig parse_topology_config(const jobs::ParamSet& params,
                                                   const std::filesystem::path& scenario_dir);

/// The most switches, links and storage servers a generated fabric may hold: this many, or this many a
/// server in a larger fleet. A fabric in use needs at most about 16 a server (a fat-tree 2 to 3, a 3-D
/// torus 4, a dragonfly of 32-router groups 16), so this allows one several times larger than its fleet,
/// while a 10 kB scenario cannot ask for 10^7 routers (seconds and gigabytes to build, before the run can
/// be stopped). It also keeps the fabric within the per-server memory estimate (runs/output_estimate.cpp).
inline constexpr double kMaxFabricElements = 65'536;
inline constexpr double kMaxFabricElementsPerServer = 32;
/// The most NICs a server may have (today's GPU servers have 8 to 12).
inline constexpr std::uint32_t kMaxNicsPerNode = 64;

/// The configured fabric's size for `nodes` servers, counted without building it (zeros for kind = file).
[[nodiscard]] FabricSize fabric_size(const TopologyConfig& config, std::uint32_t nodes);

/// Refuses, as a ConfigError at the [topology] table naming the key that sizes the fabric, a generated
/// fabric with fewer host slots than `nodes` or more switches, links and storage servers than the limits
/// above. build_topology checks it too; a run checks it before its jobs are prepared.
void check_fabric_size(const TopologyConfig& config, std::uint32_t nodes);

/// Builds and validates the fleet: `nodes` servers of `gpus_per_node` GPUs on the configured fabric, plus
/// storage. A file-based topology must hold exactly nodes * gpus_per_node GPUs.
[[nodiscard]] Topology build_topology(const TopologyConfig& config, std::uint32_t nodes,
                                      std::uint32_t gpus_per_node);

}  // namespace fleetwatt::topologies
