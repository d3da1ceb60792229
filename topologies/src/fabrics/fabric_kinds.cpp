// The fabric kinds a [topology] may name, in the order `fleetwatt list` prints them (fabric_kinds.hpp).
#include "fleetwatt/topologies/fabrics/fabric_kinds.hpp"

#include "fabric_params.hpp"
#include "fleetwatt/topologies/fabrics/dragonfly.hpp"
#include "fleetwatt/topologies/fabrics/fat_tree.hpp"
#include "fleetwatt/topologies/fabrics/leaf_spine.hpp"
#include "fleetwatt/topologies/fabrics/ring.hpp"
#include "fleetwatt/topologies/fabrics/torus.hpp"

namespace fleetwatt::topologies {

const FabricKinds& fabric_kinds() {
  // One explicit call per file of fabrics/ (static self-registration is dropped by static libraries).
  static const FabricKinds kinds("fabric kind",
                                 {fat_tree_kind(),
                                  leaf_spine_kind(),
                                  dragonfly_kind(),
                                  torus_kind(),
                                  ring_kind(),
                                  {kFileFabric,
                                   "a fabric drawn by hand: file = \"fabric.graphml\" or \".dot\"",
                                   {params::computed("file", core::ParamType::string, "required", "",
                                                     "GraphML or DOT file, relative to the scenario")},
                                   {}}});
  return kinds;
}

}  // namespace fleetwatt::topologies
