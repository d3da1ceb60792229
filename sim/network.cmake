# Network-aware parts of the simulator (issue 5): the engine's bridge to topologies/ and rack-aware placement.
target_sources(fleetwatt_sim PRIVATE
  src/network_model.cpp
  src/topology_placement.cpp
)
