// The fabric kinds a [topology] table may name, in the one registry shape (core/registry.hpp): each kind
// is a file of its own under topologies/src/fabrics/ with its builder, its declared keys and how it sizes
// itself to the fleet, and a test beside it in tests/topologies/fabrics/. `fleetwatt list`, the scenario's
// key checks and the docs' tables read this one declaration. A new kind: a file there, its entry added to
// fabric_kinds() (topologies/src/fabrics/fabric_kinds.cpp), its fields in TopologyConfig.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "fleetwatt/core/registry.hpp"
#include "fleetwatt/topologies/graph/builders.hpp"

namespace fleetwatt::topologies {

struct TopologyConfig;

/// How large a kind's fabric is for a fleet, counted from its configuration before anything is built, in
/// doubles because the keys' product may exceed every integer type (three torus dimensions of 10^6).
struct FabricSize {
  double switches = 0.0;    ///< switches and routers
  double links = 0.0;       ///< links between them (for a dragonfly's global links, at most this many)
  double host_slots = 0.0;  ///< servers it can attach
  std::string key;          ///< the kind's own key that sets its size ("k", "dims", ...), for messages
};

/// A kind's builder and its count. `build` makes the switches and links for `nodes` servers as `config`
/// describes them (its sizes 0: the smallest that holds the fleet) and returns where servers and storage
/// attach; it throws std::invalid_argument for a fabric that cannot be built. `size` counts the same fabric
/// without building it, so that one too large for its fleet is refused before any work.
struct FabricFactory {
  std::function<NetworkPorts(Topology& topo, const TopologyConfig& config, std::uint32_t nodes)> build;
  std::function<FabricSize(const TopologyConfig& config, std::uint32_t nodes)> size;

  NetworkPorts operator()(Topology& topo, const TopologyConfig& config, std::uint32_t nodes) const {
    return build(topo, config, nodes);
  }
};
using FabricKindEntry = core::RegistryEntry<FabricFactory>;
using FabricKinds = core::Registry<FabricFactory>;

/// The kind of a fabric read whole from a GraphML or DOT file: no factory (the file is the graph).
inline constexpr const char* kFileFabric = "file";

/// Every kind [topology] accepts, in the order `fleetwatt list` prints them; `file` last. Each entry's
/// parameters are its own keys; every kind also takes topology_common_params().
[[nodiscard]] const FabricKinds& fabric_kinds();

}  // namespace fleetwatt::topologies
