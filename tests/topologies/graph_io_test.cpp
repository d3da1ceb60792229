// GraphML and DOT readers and the DOT writer: a round trip, and every user-facing error.
#include <catch2/catch.hpp>

#include <sstream>

#include <fmt/format.h>

#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/graph/builders.hpp"
#include "fleetwatt/topologies/graph/graph_io.hpp"
#include "graphml_head.hpp"
#include "test_support.hpp"

using namespace fleetwatt::topologies;
using fleetwatt::jobs::ConfigError;

namespace {
const std::string kGraphml =
    std::string(fleetwatt::test::kGraphmlHead) +
    R"(    <node id="a"><data key="k">gpu</data><data key="n">g0</data><data key="nd">0</data></node>
    <node id="b"><data key="k">gpu</data><data key="n">g1</data><data key="nd">1</data></node>
    <node id="s"><data key="k">leaf</data><data key="n">sw</data></node>
    <edge source="a" target="s"><data key="bw">400</data><data key="lat">1.5</data></edge>
    <edge source="b" target="s"><data key="bw">200</data></edge>
  </graph>
</graphml>
)";
}  // namespace

TEST_CASE("GraphML with typed attributes reads into the topology, in SI units") {
  std::istringstream in(kGraphml);
  const Topology t = read_graphml(in, "net.graphml");
  CHECK(t.vertex_count() == 3);
  CHECK(t.link_count() == 2);
  CHECK(t.gpus().size() == 2);
  CHECK(t.vertex(*t.find("sw")).kind == VertexKind::leaf);
  CHECK(t.link(0).bandwidth_Bps == Approx(400e9 / 8));
  CHECK(t.link(0).latency_s == Approx(1.5e-6));
  CHECK(t.link(1).bandwidth_Bps == Approx(25e9));
}

TEST_CASE("DOT reads vertex ids as names") {
  std::istringstream in(R"(graph g {
  g0 [kind=gpu, server=0];
  g1 [kind=gpu, server=0];
  sw [kind=nvswitch];
  g0 -- sw [bandwidth_gbps=2400];
  g1 -- sw [bandwidth_gbps=2400, latency_us=0.5];
})");
  const Topology t = read_dot(in, "n.dot");
  CHECK(t.gpus().size() == 2);
  CHECK(t.vertex(t.gpus()[1]).name == "g1");
  CHECK(t.link(1).bandwidth_Bps == Approx(300e9));
}

TEST_CASE("a written DOT file reads back to the same topology") {
  TopologyConfig c;
  c.kind = "leaf_spine";
  c.leaves = 2;
  c.hosts_per_leaf = 2;
  c.oversubscription = 2.0;
  const Topology t = build_topology(c, 4, 2);
  std::ostringstream out;
  write_dot(t, out);
  std::istringstream in(out.str());
  const Topology back = read_dot(in, "back.dot");
  REQUIRE(back.vertex_count() == t.vertex_count());
  REQUIRE(back.link_count() == t.link_count());
  for (std::uint32_t id = 0; id < t.link_count(); ++id) {
    CHECK(back.link(id).bandwidth_Bps == Approx(t.link(id).bandwidth_Bps));
    CHECK(back.link(id).latency_s == Approx(t.link(id).latency_s));
    CHECK(back.link(id).active_W == Approx(t.link(id).active_W));
  }
  for (std::size_t g = 0; g < t.gpus().size(); ++g)
    CHECK(back.vertex(back.gpus()[g]).name == t.vertex(t.gpus()[g]).name);
  CHECK(back.vertex(*back.find("storage0")).idle_W == Approx(c.storage.server_idle_W));
}

TEST_CASE("an unknown vertex kind is an error naming the vertex and its line") {
  std::istringstream in(
      "graph g {\n  a [kind=gpu, server=0];\n  r [kind=router];\n  a -- r [bandwidth_gbps=1];\n}\n");
  CHECK_THROWS_WITH(read_dot(in, "bad.dot"), Catch::Contains("bad.dot:3") && Catch::Contains("vertex 'r'") &&
                                                 Catch::Contains("unknown vertex kind 'router'"));
}

TEST_CASE("an edge naming an undeclared vertex is a dangling name") {
  std::istringstream in("graph g {\n  a [kind=gpu, server=0];\n  a -- ghost [bandwidth_gbps=1];\n}\n");
  CHECK_THROWS_WITH(read_dot(in, "d.dot"), Catch::Contains("vertex 'ghost' has no kind"));
}

TEST_CASE("a GraphML edge to an unknown node id is refused") {
  std::string text = kGraphml;
  text.replace(text.find("source=\"b\""), 10, "source=\"q\"");
  std::istringstream in(text);
  CHECK_THROWS_AS(read_graphml(in, "net.graphml"), ConfigError);
}

TEST_CASE("missing or non-positive bandwidth and unknown attributes are refused") {
  SECTION("missing") {
    std::istringstream in("graph g { a [kind=gpu, server=0]; b [kind=gpu, server=0]; a -- b; }");
    CHECK_THROWS_WITH(read_dot(in, "m.dot"), Catch::Contains("edge a -- b has no bandwidth_gbps"));
  }
  SECTION("zero") {
    std::istringstream in(
        "graph g { a [kind=gpu, server=0]; b [kind=gpu, server=0]; a -- b [bandwidth_gbps=0]; }");
    CHECK_THROWS_WITH(read_dot(in, "z.dot"), Catch::Contains("bandwidth must be positive"));
  }
  SECTION("not a number") {
    std::istringstream in(
        "graph g { a [kind=gpu, server=0]; b [kind=gpu, server=0]; a -- b [bandwidth_gbps=fast]; }");
    CHECK_THROWS_WITH(read_dot(in, "n.dot"), Catch::Contains("'fast' is not a number"));
  }
  SECTION("unknown attribute") {
    std::istringstream in("graph g { a [kind=gpu, server=0, colour=red]; }");
    CHECK_THROWS_WITH(read_dot(in, "u.dot"), Catch::Contains("unknown vertex attribute 'colour'"));
  }
}

TEST_CASE("a disconnected GPU in a file is refused, and a syntax error is reported as such") {
  std::istringstream in("graph g { a [kind=gpu, server=0]; b [kind=gpu, server=1]; }");
  CHECK_THROWS_WITH(read_dot(in, "x.dot"), Catch::Contains("disconnected"));
  std::istringstream bad("graph g { a -- ; }");
  CHECK_THROWS_WITH(read_dot(bad, "y.dot"), Catch::Contains("y.dot") && Catch::Contains("cannot parse DOT"));
}

TEST_CASE("read_topology_file dispatches on the extension and refuses others") {
  fleetwatt::test::TempDir dir;
  const auto f = dir.write("n.graphml", kGraphml);
  CHECK(read_topology_file(f).gpus().size() == 2);
  CHECK_THROWS_WITH(read_topology_file(dir.write("n.json", "{}")),
                    Catch::Contains("unknown topology file type"));
  CHECK_THROWS_WITH(read_topology_file(dir / "absent.dot"), Catch::Contains("cannot open"));
}

TEST_CASE(
    "files nested deeper than 128 levels are refused at the crossing, before Boost's recursive parsers") {
  // 100,000 nested GraphML elements or 10,000 nested DOT subgraphs once overflowed the stack (SIGSEGV).
  std::string xml = "<?xml version=\"1.0\"?>\n<!-- <not> <counted> -->\n<graphml>\n";
  for (int i = 0; i < 100000; ++i) xml += "<g a=\"x>y\">";
  std::istringstream deep_xml(xml);
  // graphml is level 1 on line 3; the 128th <g> crosses the limit (level 129), after 127 tags of 11 chars.
  CHECK_THROWS_WITH(read_graphml(deep_xml, "d.graphml"),
                    Catch::Contains("d.graphml:4:" + std::to_string(127 * 11 + 1)) &&
                        Catch::Contains("nested deeper than 128 levels"));
  std::string dot = "graph g {\n";
  for (int i = 0; i < 10000; ++i) dot += "subgraph { \"{\" ";
  std::istringstream deep_dot(dot);
  // The graph's own brace is level 1; the 128th subgraph's brace (level 129) follows 127 units of 15
  // characters (subgraph, a space, the brace, a space, a quoted "{" that does not count, a space) and 9 more.
  CHECK_THROWS_WITH(read_dot(deep_dot, "d.dot"),
                    Catch::Contains("d.dot:2:" + std::to_string(15 * 127 + 10)) &&
                        Catch::Contains("nested deeper than 128 levels"));
  // Self-closing elements and closing tags keep real files shallow.
  std::string flat = "<graphml><graph edgedefault=\"undirected\">";
  for (int i = 0; i < 1000; ++i) flat += "<node id=\"n" + std::to_string(i) + "\"/>";
  flat += "</graph></graphml>";
  std::istringstream wide(flat);
  CHECK_THROWS_WITH(read_graphml(wide, "w.graphml"), !Catch::Contains("nested deeper"));
}

TEST_CASE("a GraphML rack of 1e300 is a located error, not an integer cast of an out-of-range value") {
  // The rack was cast to int32 unchecked (undefined behaviour under UBSan); the server was range-checked.
  std::string text = kGraphml;
  text.replace(text.find("<graph id"), 0,
               "<key id=\"r\" for=\"node\" attr.name=\"rack\" attr.type=\"double\"/>\n  ");
  text.replace(text.find("<data key=\"nd\">1</data>"), 0, "<data key=\"r\">1e300</data>");
  std::istringstream in(text);
  CHECK_THROWS_WITH(
      read_graphml(in, "r.graphml"),
      Catch::Contains("r.graphml:11: rack: must be an integer from -1 to 10000000, got 1e+300"));
}

TEST_CASE("every numeric DOT attribute with an edge value is refused at the vertex's line or read as given") {
  // ±1e300, NaN and 2^63 in each numeric field of a vertex and an edge: each is either a located error or a
  // finite value the reader documents; none reaches an integer cast out of range.
  struct Case {
    const char* field;
    const char* value;
    const char* error;  ///< the expected message's tail, or nullptr when the value is accepted
  };
  const Case cases[] = {
      {"server", "1e300", "server must be a non-negative integer"},
      {"server", "-1e300", "server must be a non-negative integer"},
      {"server", "nan", "'nan' is not a number"},
      {"server", "9223372036854775808", "server must be a non-negative integer"},
      {"rack", "1e300", "rack: must be an integer from -1 to 10000000, got 1e+300"},
      {"rack", "-1e300", "rack: must be an integer from -1 to 10000000, got -1e+300"},
      {"rack", "nan", "'nan' is not a number"},
      {"rack", "9223372036854775808",
       "rack: must be an integer from -1 to 10000000, got 9.223372036854776e+18"},
      {"idle_w", "-1e300", "power must be >= 0"},
      {"idle_w", "nan", "'nan' is not a number"},
      {"active_w", "-1e300", "power must be >= 0"},
      {"active_w", "inf", "'inf' is not a number"},
      {"idle_w", "9223372036854775808", nullptr},
  };
  for (const auto& c : cases) {
    INFO(c.field << " = " << c.value);
    std::istringstream in(
        fmt::format("graph g {{\n  a [kind=gpu, server=0];\n  b [kind=gpu, server=0, {}=\"{}\"];\n"
                    "  a -- b [bandwidth_gbps=1];\n}}\n",
                    c.field, c.value));
    if (c.error == nullptr) {
      CHECK(read_dot(in, "e.dot").gpus().size() == 2);
    } else {
      CHECK_THROWS_WITH(read_dot(in, "e.dot"), Catch::StartsWith("e.dot:3: ") && Catch::Contains(c.error));
    }
  }
  const Case edge_cases[] = {
      {"bandwidth_gbps", "-1e300", "bandwidth must be positive"},
      {"bandwidth_gbps", "nan", "'nan' is not a number"},
      {"latency_us", "-inf", "'-inf' is not a number"},
  };
  for (const auto& c : edge_cases) {
    INFO(c.field << " = " << c.value);
    std::istringstream in(fmt::format(
        "graph g {{\n  a [kind=gpu, server=0];\n  b [kind=gpu, server=0];\n  a -- b [{}{}=\"{}\"];\n}}\n",
        std::string(c.field) == "bandwidth_gbps" ? "" : "bandwidth_gbps=1, ", c.field, c.value));
    CHECK_THROWS_WITH(read_dot(in, "e.dot"), Catch::Contains("e.dot:2: ") && Catch::Contains(c.error));
  }
}
