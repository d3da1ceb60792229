// The torus fabric kind (fabrics/torus.hpp).
#include "fleetwatt/topologies/fabrics/torus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
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
  // Counted in double first: the product of three 32-bit dimensions may not fit any integer type.
  if (torus_size(dims, 1, "").switches > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("a torus of more than 2^32 routers");
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

FabricSize torus_size(const std::vector<std::uint32_t>& dims, std::uint32_t hosts_per_router,
                      std::string key) {
  double routers = 1.0;
  for (const auto d : dims) routers *= d;
  // As build_torus links them: a link per router along each dimension longer than 2, half as many along
  // one of 2, none along one of 1.
  double links = 0.0;
  for (const auto d : dims) links += d > 2 ? routers : d == 2 ? routers / 2 : 0.0;
  return FabricSize{routers, links, routers * hosts_per_router, std::move(key)};
}

namespace {
/// The dimensions given, or a square 2-D torus just large enough.
std::vector<std::uint32_t> dims_for(const TopologyConfig& c, std::uint32_t nodes) {
  if (!c.dims.empty()) return c.dims;
  const auto routers = (std::uint64_t{nodes} + c.hosts_per_router - 1) / c.hosts_per_router;
  const auto side = std::max<std::uint32_t>(
      static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(routers)))), 1);
  return {side, side};
}
}  // namespace

FabricKindEntry torus_kind() {
  const TopologyConfig d;
  return {"torus",
          "1-, 2- or 3-D torus of routers",
          {params::computed("dims", core::ParamType::numbers, "square 2-D that fits", "",
                            "routers along each dimension"),
           params::count("hosts_per_router", d.hosts_per_router, "servers per router")},
          {[](Topology& topo, const TopologyConfig& c, std::uint32_t nodes) {
             return build_torus(topo, dims_for(c, nodes), c.hosts_per_router, c.fabric);
           },
           [](const TopologyConfig& c, std::uint32_t nodes) {
             return torus_size(dims_for(c, nodes), c.hosts_per_router,
                               c.dims.empty() ? "hosts_per_router" : "dims");
           }}};
}

}  // namespace fleetwatt::topologies
