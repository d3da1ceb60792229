// The fabric kinds a [topology] table may name, in the one registry shape (core/registry.hpp): each kind
// is a file of its own under topologies/src/fabrics/ with its builder, its declared keys and how it sizes
// itself to the fleet, and a test beside it in tests/topologies/fabrics/. `fleetwatt list`, the scenario's
// key checks and the docs' tables read this one declaration. A new kind: a file there, its entry added to
// fabric_kinds() (topologies/src/fabrics/fabric_kinds.cpp), its fields in TopologyConfig.
#pragma once

#include <cstdint>
#include <functional>

#include "fleetwatt/core/registry.hpp"
#include "fleetwatt/topologies/graph/builders.hpp"

namespace fleetwatt::topologies {

struct TopologyConfig;

/// Builds a kind's switches and links for `nodes` servers as `config` describes them (its sizes 0: the
/// smallest that holds the fleet) and returns where servers and storage attach. Throws
/// std::invalid_argument for a fabric that cannot be built.
using FabricFactory =
    std::function<NetworkPorts(Topology& topo, const TopologyConfig& config, std::uint32_t nodes)>;
using FabricKindEntry = core::RegistryEntry<FabricFactory>;
using FabricKinds = core::Registry<FabricFactory>;

/// The kind of a fabric read whole from a GraphML or DOT file: no factory (the file is the graph).
inline constexpr const char* kFileFabric = "file";

/// Every kind [topology] accepts, in the order `fleetwatt list` prints them; `file` last. Each entry's
/// parameters are its own keys; every kind also takes topology_common_params().
[[nodiscard]] const FabricKinds& fabric_kinds();

}  // namespace fleetwatt::topologies
