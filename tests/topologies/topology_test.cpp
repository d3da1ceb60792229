// The graph type: names, kinds, GPU order, and validation errors.
#include <catch2/catch.hpp>

#include "fleetwatt/topologies/graph/topology.hpp"

using namespace fleetwatt::topologies;
using fleetwatt::jobs::ConfigError;
using fleetwatt::jobs::SourceLocation;

namespace {
Vertex add(Topology& t, VertexKind k, const std::string& name, int node = kNoNode) {
  VertexProps p;
  p.kind = k;
  p.name = name;
  p.node = node;
  return t.add_vertex(p);
}
const LinkSpec kLink{10e9, 1e-6, 0.0, 0.0};
}  // namespace

TEST_CASE("vertex kinds convert to and from their names") {
  for (const auto k : {VertexKind::gpu, VertexKind::nvswitch, VertexKind::pcie_switch, VertexKind::nic,
                       VertexKind::leaf, VertexKind::spine, VertexKind::core, VertexKind::storage})
    CHECK(vertex_kind_from_string(to_string(k)) == k);
  CHECK_FALSE(vertex_kind_from_string("router").has_value());
}

TEST_CASE("GPUs are numbered by node, then in the order they were added") {
  Topology t;
  const Vertex b0 = add(t, VertexKind::gpu, "b0", 1);
  const Vertex a0 = add(t, VertexKind::gpu, "a0", 0);
  const Vertex a1 = add(t, VertexKind::gpu, "a1", 0);
  const Vertex s = add(t, VertexKind::leaf, "s");
  for (const Vertex g : {a0, a1, b0}) t.add_link(g, s, kLink);
  REQUIRE(t.gpus().size() == 3);
  CHECK(t.gpus()[0] == a0);
  CHECK(t.gpus()[1] == a1);
  CHECK(t.gpus()[2] == b0);
  CHECK(t.nodes() == 2);
  CHECK(t.find("a1") == a1);
  CHECK_NOTHROW(t.validate(SourceLocation{"x.toml", 3, 1}));
}

TEST_CASE("a duplicate vertex name is refused") {
  Topology t;
  add(t, VertexKind::leaf, "s");
  CHECK_THROWS_AS(add(t, VertexKind::leaf, "s"), ConfigError);
}

TEST_CASE("validation refuses a disconnected GPU, naming it") {
  Topology t;
  const Vertex a = add(t, VertexKind::gpu, "a", 0);
  const Vertex b = add(t, VertexKind::gpu, "b", 0);
  add(t, VertexKind::gpu, "lonely", 1);
  t.add_link(a, b, kLink);
  CHECK_THROWS_WITH(t.validate(SourceLocation{"s.toml", 7, 1}),
                    Catch::Contains("s.toml:7:1") && Catch::Contains("'lonely' is disconnected"));
}

TEST_CASE("validation refuses zero or negative bandwidth") {
  const double bw = GENERATE(0.0, -5.0);
  Topology t;
  const Vertex a = add(t, VertexKind::gpu, "a", 0);
  const Vertex b = add(t, VertexKind::gpu, "b", 0);
  t.add_link(a, b, LinkSpec{bw, 0.0, 0.0, 0.0});
  CHECK_THROWS_WITH(t.validate({}),
                    Catch::Contains("link a -- b") && Catch::Contains("bandwidth must be positive"));
}

TEST_CASE("validation refuses a GPU without a node and a graph without GPUs") {
  Topology t;
  add(t, VertexKind::gpu, "g");
  CHECK_THROWS_WITH(t.validate({}), Catch::Contains("no node index"));
  Topology empty_of_gpus;
  add(empty_of_gpus, VertexKind::leaf, "s");
  CHECK_THROWS_WITH(empty_of_gpus.validate({}), Catch::Contains("no GPUs"));
}

TEST_CASE("directed links distinguish the two directions of a link") {
  Topology t;
  const Vertex a = add(t, VertexKind::gpu, "a", 0);
  const Vertex b = add(t, VertexKind::gpu, "b", 0);
  const auto id = t.add_link(a, b, kLink);
  CHECK(t.directed(id, a) == 2 * id);
  CHECK(t.directed(id, b) == 2 * id + 1);
  CHECK(t.directed_capacities() == std::vector<double>{10e9, 10e9});
}
