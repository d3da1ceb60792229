// The torus fabric kind (fabrics/torus.hpp).
#include "fleetwatt/topologies/fabrics/torus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fabric_params.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"

namespace fleetwatt::topologies {

NetworkPorts build_torus(Topology& topo, const std::vector<std::uint32_t>& dims,
                         std::uint32_t hosts_per_router, const FabricSpec& fabric) {
  if (dims.empty() || dims.size() > 3) throw std::invalid_argument("a torus has 1 to 3 dimensions");
  for (const auto d : dims)
    if (d == 0) throw std::invalid_argument("torus dimensions must be positive");
  if (hosts_per_router == 0) throw std::invalid_argument("hosts_per_router must be positive");
  std::uint32_t total = 1;
  for (const auto d : dims) total *= d;
  NetworkPorts ports;
  std::vector<Vertex> router(total);
  for (std::uint32_t i = 0; i < total; ++i) {
    router[i] = add_switch(topo, VertexKind::leaf, fmt::format("r{}", i), static_cast<std::int32_t>(i),
                           fabric.switch_idle_W);
    for (std::uint32_t h = 0; h < hosts_per_router; ++h) ports.host_ports.push_back(router[i]);
  }
  // Router index = x + dims[0] * (y + dims[1] * z); link each router to its +1 neighbour in every
  // dimension, wrapping around. A dimension of size 2 gets one link (not two parallel ones), size 1 none.
  std::uint32_t stride = 1;
  for (const auto d : dims) {
    for (std::uint32_t i = 0; i < total; ++i) {
      const std::uint32_t c = (i / stride) % d;
      if (d == 1 || (d == 2 && c == 1)) continue;
      const std::uint32_t next = i - c * stride + ((c + 1) % d) * stride;
      topo.add_link(router[i], router[next], fabric.link);
    }
    stride *= d;
  }
  ports.storage_ports.push_back(router[0]);
  return ports;
}

FabricKindEntry torus_kind() {
  const TopologyConfig d;
  return {"torus",
          "1-, 2- or 3-D torus of routers",
          {params::computed("dims", core::ParamType::numbers, "square 2-D that fits", "",
                            "routers along each dimension"),
           params::count("hosts_per_router", d.hosts_per_router, "servers per router")},
          [](Topology& topo, const TopologyConfig& c, std::uint32_t nodes) {
            std::vector<std::uint32_t> dims = c.dims;
            if (dims.empty()) {
              // A square 2-D torus just large enough.
              const std::uint32_t routers = (nodes + c.hosts_per_router - 1) / c.hosts_per_router;
              auto side = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(routers))));
              dims = {std::max<std::uint32_t>(side, 1), std::max<std::uint32_t>(side, 1)};
            }
            return build_torus(topo, dims, c.hosts_per_router, c.fabric);
          }};
}

}  // namespace fleetwatt::topologies
