// The [topology] table: keys, units, defaults, and errors located at the offending key.
#include <catch2/catch.hpp>

#include "fleetwatt/topologies/fabrics/topology_config.hpp"

using namespace fleetwatt::topologies;
using fleetwatt::jobs::ConfigError;
using fleetwatt::jobs::ParamSet;
using fleetwatt::jobs::ParamValue;
using fleetwatt::jobs::SourceLocation;

namespace {
struct TableBuilder {
  ParamSet p{"topology", SourceLocation{"s.toml", 10, 1}};
  std::uint32_t line = 11;
  template <typename T>
  TableBuilder& set(const std::string& key, T v) {
    p.set(key, ParamValue{v, SourceLocation{"s.toml", line++, 1}});
    return *this;
  }
};
}  // namespace

TEST_CASE("a fat-tree table with units in key names becomes SI values") {
  TableBuilder t;
  t.set("kind", std::string("fat_tree"))
      .set("k", std::int64_t{8})
      .set("nic_gbps", 400.0)
      .set("link_latency_us", 2.0)
      .set("storage_servers", std::int64_t{2})
      .set("storage_gbps", 200.0)
      .set("comm_overlap", 0.5)
      .set("allreduce", std::string("hierarchical"));
  const auto c = parse_topology_config(t.p, "/scen");
  CHECK(c.kind == "fat_tree");
  CHECK(c.k == 8);
  CHECK(c.nic_link.bandwidth_Bps == Approx(400e9 / 8));
  CHECK(c.fabric.link.bandwidth_Bps == Approx(400e9 / 8));  // defaults to the NIC speed
  CHECK(c.fabric.link.latency_s == Approx(2e-6));
  CHECK(c.storage.servers == 2);
  CHECK(c.storage.link.bandwidth_Bps == Approx(25e9));
  CHECK(c.training.comm_overlap == 0.5);
  CHECK(c.allreduce == AllReduceAlgorithm::hierarchical);
}

TEST_CASE("an unknown [topology] key is an error naming it") {
  TableBuilder t;
  t.set("kind", std::string("fat_tree")).set("kay", std::int64_t{4});
  CHECK_THROWS_AS(parse_topology_config(t.p, "."), ConfigError);
}

TEST_CASE("an unknown fabric kind lists the known ones, at its line") {
  TableBuilder t;
  t.set("kind", std::string("butterfly"));
  CHECK_THROWS_WITH(parse_topology_config(t.p, "."),
                    Catch::Contains("s.toml:11:1") && Catch::Contains("topology.kind") &&
                        Catch::Contains("butterfly") && Catch::Contains("leaf_spine"));
}

TEST_CASE("an odd fat-tree k, a zero bandwidth and an overlap above one are refused") {
  SECTION("odd k") {
    TableBuilder t;
    t.set("k", std::int64_t{5});
    CHECK_THROWS_WITH(parse_topology_config(t.p, "."),
                      Catch::Contains("topology.k") && Catch::Contains("even"));
  }
  SECTION("zero bandwidth") {
    TableBuilder t;
    t.set("nic_gbps", 0.0);
    CHECK_THROWS_WITH(parse_topology_config(t.p, "."), Catch::Contains("topology.nic_gbps"));
  }
  SECTION("overlap") {
    TableBuilder t;
    t.set("comm_overlap", 1.5);
    CHECK_THROWS_WITH(parse_topology_config(t.p, "."), Catch::Contains("topology.comm_overlap"));
  }
}

TEST_CASE("a relative topology file resolves against the scenario's folder") {
  TableBuilder t;
  t.set("file", std::string("net.dot"));
  const auto c = parse_topology_config(t.p, "/data/scen");
  CHECK(c.kind == "file");
  CHECK(c.file == std::filesystem::path("/data/scen/net.dot"));
}

TEST_CASE("build_topology picks the smallest fat-tree that holds the fleet") {
  TopologyConfig c;                             // fat_tree, k unset
  const Topology t = build_topology(c, 20, 4);  // k = 4 holds 16 hosts, k = 6 holds 54
  CHECK(t.count(VertexKind::core) == 9);
  CHECK(t.gpus().size() == 80);
  CHECK(t.count(VertexKind::storage) == c.storage.servers);
}

TEST_CASE("a fabric too small for the fleet is a ConfigError") {
  TopologyConfig c;
  c.kind = "leaf_spine";
  c.leaves = 2;
  c.hosts_per_leaf = 4;
  CHECK_THROWS_WITH(build_topology(c, 9, 4), Catch::Contains("8 host slots") && Catch::Contains("9 nodes"));
}

TEST_CASE("every fabric kind that fleetwatt list shows is one the [topology] table accepts") {
  // The list and the parser share one table; each generator kind parses to itself.
  for (const auto& k : fabric_kinds()) {
    if (k.name == kFileFabric) continue;
    TableBuilder t;
    t.set("kind", std::string(k.name));
    INFO(k.name);
    CHECK(parse_topology_config(t.p, "/scen").kind == k.name);
  }
  CHECK(fabric_kinds().entries().size() == 6);  // fat_tree, leaf_spine, dragonfly, torus, ring, file
}

TEST_CASE("a key of another fabric kind is an unknown key, naming its kind and the chosen kind's keys") {
  TableBuilder t;
  t.set("kind", std::string("torus")).set("dims", std::vector<double>{4, 4}).set("spines", std::int64_t{3});
  CHECK_THROWS_WITH(
      parse_topology_config(t.p, "."),
      "s.toml:13:1: topology.spines: unknown key for kind torus (a leaf_spine key; torus takes dims, "
      "hosts_per_router and the keys common to every kind)");
  TableBuilder ok;
  ok.set("kind", std::string("leaf_spine")).set("spines", std::int64_t{3}).set("nic_gbps", 100.0);
  CHECK(parse_topology_config(ok.p, ".").spines == 3);
}

TEST_CASE("the declared defaults of the common keys are the values a table without them gets") {
  TableBuilder t;
  t.set("kind", std::string("ring"));
  const auto c = parse_topology_config(t.p, ".");
  for (const auto& spec : topology_common_params()) {
    INFO(spec.name);
    if (spec.name == "nic_gbps")
      CHECK(std::get<double>(spec.value) * 1e9 / 8 == Approx(c.nic_link.bandwidth_Bps));
    if (spec.name == "comm_overlap") CHECK(std::get<double>(spec.value) == c.training.comm_overlap);
    if (spec.name == "switch_idle_w") CHECK(std::get<double>(spec.value) == c.fabric.switch_idle_W);
    if (spec.name == "storage_servers") CHECK(std::get<std::int64_t>(spec.value) == c.storage.servers);
  }
}
