// GraphML and DOT readers on Boost.Graph's parsers, and a DOT writer. The parsers fill a raw graph of string
// attributes (any attribute name, any GraphML type); the conversion to a Topology then checks kinds,
// numbers and names, so every error can name the vertex or edge and, where found, its line in the file.
#include "fleetwatt/topologies/graph/graph_io.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <boost/graph/graphml.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/lexical_cast.hpp>

#include "fleetwatt/core/checked_integer.hpp"
#include "markup_depth.hpp"

namespace fleetwatt::topologies {

namespace {

using jobs::ConfigError;
using jobs::SourceLocation;

struct RawAttrs {
  std::map<std::string, std::string> attrs;
};
using RawGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, RawAttrs, RawAttrs>;
using RawVertex = boost::graph_traits<RawGraph>::vertex_descriptor;
using RawEdge = boost::graph_traits<RawGraph>::edge_descriptor;

std::string any_to_string(const boost::any& v) {
  if (const auto* s = boost::any_cast<std::string>(&v)) return *s;
  if (const auto* d = boost::any_cast<double>(&v)) return fmt::format("{}", *d);
  if (const auto* f = boost::any_cast<float>(&v)) return fmt::format("{}", *f);
  if (const auto* i = boost::any_cast<int>(&v)) return std::to_string(*i);
  if (const auto* l = boost::any_cast<long>(&v)) return std::to_string(*l);
  if (const auto* b = boost::any_cast<bool>(&v)) return *b ? "true" : "false";
  return {};
}

/// Stores any attribute, of any declared type, as a string on the raw graph's vertex or edge.
template <typename Key>
class AttributeMap final : public boost::dynamic_property_map {
 public:
  AttributeMap(RawGraph& g, std::string name) : g_(g), name_(std::move(name)) {}
  boost::any get(const boost::any& key) override { return get_string(key); }
  std::string get_string(const boost::any& key) override {
    auto& attrs = g_[boost::any_cast<Key>(key)].attrs;
    const auto it = attrs.find(name_);
    return it == attrs.end() ? std::string() : it->second;
  }
  void put(const boost::any& key, const boost::any& value) override {
    g_[boost::any_cast<Key>(key)].attrs[name_] = any_to_string(value);
  }
  const std::type_info& key() const override { return typeid(Key); }
  const std::type_info& value() const override { return typeid(std::string); }

 private:
  RawGraph& g_;
  std::string name_;
};

/// Graph-level attributes are accepted and dropped.
class IgnoredMap final : public boost::dynamic_property_map {
 public:
  explicit IgnoredMap(const std::type_info& key) : key_(key) {}
  boost::any get(const boost::any&) override { return std::string(); }
  std::string get_string(const boost::any&) override { return {}; }
  void put(const boost::any&, const boost::any&) override {}
  const std::type_info& key() const override { return key_; }
  const std::type_info& value() const override { return typeid(std::string); }

 private:
  const std::type_info& key_;
};

boost::dynamic_properties attribute_properties(RawGraph& g) {
  return boost::dynamic_properties([&g](const std::string& name, const boost::any& key,
                                        const boost::any&) -> boost::shared_ptr<boost::dynamic_property_map> {
    if (key.type() == typeid(RawVertex)) return boost::make_shared<AttributeMap<RawVertex>>(g, name);
    if (key.type() == typeid(RawEdge)) return boost::make_shared<AttributeMap<RawEdge>>(g, name);
    return boost::make_shared<IgnoredMap>(key.type());
  });
}

/// 1-based line of the first occurrence of `needle` as a whole token in `text` (not inside a longer
/// identifier such as "graph" for "r"), 0 when absent.
std::uint32_t line_of(const std::string& text, const std::string& needle) {
  if (needle.empty()) return 0;
  const auto ident = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
  };
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
    const bool starts = pos == 0 || !ident(text[pos - 1]);
    const bool ends = pos + needle.size() >= text.size() || !ident(text[pos + needle.size()]);
    if (starts && ends)
      return static_cast<std::uint32_t>(
          1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
  }
  return 0;
}

struct Converter {
  const RawGraph& raw;
  const std::string& text;
  const std::string& source;
  std::string id_key;  ///< attribute holding the file's own vertex id ("node_id" for DOT), or empty

  [[nodiscard]] SourceLocation at(const std::string& needle) const {
    return SourceLocation{source, line_of(text, needle), 0};
  }

  static std::string get(const RawAttrs& a, const std::string& key) {
    const auto it = a.attrs.find(key);
    return it == a.attrs.end() ? std::string() : it->second;
  }

  double number(const RawAttrs& a, const std::string& key, double fallback, const std::string& what,
                const std::string& needle) const {
    const std::string s = get(a, key);
    if (s.empty()) return fallback;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0' || !std::isfinite(v))
      throw ConfigError(at(needle), key, fmt::format("{}: '{}' is not a number", what, s));
    return v;
  }

  Topology convert() const {
    static const std::set<std::string> vertex_keys = {"kind",   "name",     "server", "rack",
                                                      "idle_w", "active_w", "label"};
    static const std::set<std::string> edge_keys = {"bandwidth_gbps", "latency_us", "idle_w", "active_w",
                                                    "label"};
    Topology topo;
    std::vector<Vertex> map(boost::num_vertices(raw));
    for (const RawVertex rv : boost::make_iterator_range(boost::vertices(raw))) {
      const RawAttrs& a = raw[rv];
      VertexProps p;
      p.name = get(a, "name");
      if (p.name.empty() && !id_key.empty()) p.name = get(a, id_key);
      if (p.name.empty()) p.name = fmt::format("v{}", rv);
      const std::string what = fmt::format("vertex '{}'", p.name);
      for (const auto& [key, value] : a.attrs)
        if (key != id_key && vertex_keys.count(key) == 0)
          throw ConfigError(at(key), key, fmt::format("{}: unknown vertex attribute '{}'", what, key));
      const std::string kind = get(a, "kind");
      if (kind.empty())
        throw ConfigError(at(p.name), "kind",
                          fmt::format("{} has no kind (an edge naming an undeclared vertex?)", what));
      const auto k = vertex_kind_from_string(kind);
      if (!k)
        throw ConfigError(
            at(p.name), "kind",
            fmt::format("{}: unknown vertex kind '{}' (known: gpu, nvswitch, pcie_switch, nic, leaf, "
                        "spine, core, storage)",
                        what, kind));
      p.kind = *k;
      const double node = number(a, "server", -1.0, what, p.name);
      const double rack = number(a, "rack", -1.0, what, p.name);
      if (node != std::floor(node) || node < -1.0 || node > 1e7)
        throw ConfigError(at(p.name), "server",
                          fmt::format("{}: server must be a non-negative integer", what));
      p.node = core::checked_integer<std::int32_t>(node, at(p.name), "server");
      p.rack = core::checked_integer<std::int32_t>(rack, at(p.name), "rack", -1, 10000000);
      p.idle_W = number(a, "idle_w", 0.0, what, p.name);
      p.active_W = number(a, "active_w", 0.0, what, p.name);
      if (p.idle_W < 0.0 || p.active_W < 0.0)
        throw ConfigError(at(p.name), "idle_w", fmt::format("{}: power must be >= 0", what));
      map[rv] = topo.add_vertex(std::move(p), at(get(a, "name")));
    }
    for (const RawEdge re : boost::make_iterator_range(boost::edges(raw))) {
      const RawAttrs& a = raw[re];
      const Vertex s = map[boost::source(re, raw)], t = map[boost::target(re, raw)];
      const std::string what = fmt::format("edge {} -- {}", topo.vertex(s).name, topo.vertex(t).name);
      const std::string& needle = topo.vertex(s).name;
      for (const auto& [key, value] : a.attrs)
        if (edge_keys.count(key) == 0)
          throw ConfigError(at(key), key, fmt::format("{}: unknown edge attribute '{}'", what, key));
      if (get(a, "bandwidth_gbps").empty())
        throw ConfigError(at(needle), "bandwidth_gbps", fmt::format("{} has no bandwidth_gbps", what));
      LinkSpec l;
      l.bandwidth_Bps = number(a, "bandwidth_gbps", 0.0, what, needle) * 1e9 / 8.0;
      l.latency_s = number(a, "latency_us", 0.0, what, needle) * 1e-6;
      l.idle_W = number(a, "idle_w", 0.0, what, needle);
      l.active_W = number(a, "active_w", l.idle_W, what, needle);
      if (!(l.bandwidth_Bps > 0.0))
        throw ConfigError(
            at(needle), "bandwidth_gbps",
            fmt::format("{}: bandwidth must be positive, got {} Gb/s", what, get(a, "bandwidth_gbps")));
      topo.add_link(s, t, l);
    }
    topo.validate(SourceLocation{source, 0, 0});
    return topo;
  }
};

std::string slurp(std::istream& in) {
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// True when the first word of `text` (after blanks and // or # comment lines) opens a DOT graph.
bool looks_like_dot(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line.compare(first, 2, "//") == 0 || line[first] == '#') continue;
    for (const char* word : {"graph", "digraph", "strict"})
      if (line.compare(first, std::string_view(word).size(), word) == 0) return true;
    return false;
  }
  return false;
}

}  // namespace

Topology read_graphml(std::istream& in, const std::string& name) {
  const std::string text = slurp(in);
  detail::check_xml_depth(text, name);
  RawGraph raw;
  auto dp = attribute_properties(raw);
  try {
    std::istringstream s(text);
    boost::read_graphml(s, raw, dp);
  } catch (const std::exception& e) {
    // The parser's message quotes the text it stumbled on: only for a file that is GraphML at all, never
    // for an unrelated file a path names by mistake (or by a hostile scenario).
    throw ConfigError(SourceLocation{name, 0, 0}, "graphml",
                      text.find("<graphml") != std::string::npos
                          ? fmt::format("cannot parse GraphML: {}", e.what())
                          : std::string("cannot parse GraphML: the file has no <graphml> element"));
  }
  return Converter{raw, text, name, ""}.convert();
}

Topology read_dot(std::istream& in, const std::string& name) {
  const std::string text = slurp(in);
  detail::check_dot_depth(text, name);
  RawGraph raw;
  auto dp = attribute_properties(raw);
  try {
    boost::read_graphviz(text, raw, dp, "node_id");
  } catch (const std::exception& e) {
    // As for GraphML: the parser's message is quoted only for a file that begins as a DOT graph does.
    throw ConfigError(SourceLocation{name, 0, 0}, "dot",
                      looks_like_dot(text)
                          ? fmt::format("cannot parse DOT: {}", e.what())
                          : std::string("cannot parse DOT: the file does not begin with graph, digraph or "
                                        "strict"));
  }
  return Converter{raw, text, name, "node_id"}.convert();
}

Topology read_topology_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError(SourceLocation{file.string(), 0, 0}, "file", "cannot open the topology file");
  const auto ext = file.extension().string();
  if (ext == ".graphml" || ext == ".xml") return read_graphml(in, file.string());
  if (ext == ".dot" || ext == ".gv") return read_dot(in, file.string());
  throw ConfigError(SourceLocation{file.string(), 0, 0}, "file",
                    fmt::format("unknown topology file type '{}' (use .graphml, .xml, .dot or .gv)", ext));
}

void write_dot(const Topology& topo, std::ostream& out) {
  const auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (const char c : s) {
      if (c == '"' || c == '\\') q += '\\';
      q += c;
    }
    return q + '"';
  };
  out << "graph fleet {\n";
  const Graph& g = topo.graph();
  for (const Vertex v : boost::make_iterator_range(boost::vertices(g))) {
    const auto& p = g[v];
    out << "  " << quote(p.name) << " [kind=" << to_string(p.kind);
    if (p.node >= 0) out << ", server=" << p.node;
    if (p.rack >= 0) out << ", rack=" << p.rack;
    if (p.idle_W > 0.0) out << fmt::format(", idle_w={}", p.idle_W);
    if (p.active_W > 0.0) out << fmt::format(", active_w={}", p.active_W);
    out << "];\n";
  }
  for (std::uint32_t id = 0; id < topo.link_count(); ++id) {
    const auto [a, b] = topo.link_ends(id);
    const auto& l = topo.link(id);
    out << "  " << quote(g[a].name) << " -- " << quote(g[b].name)
        << fmt::format(" [bandwidth_gbps={}, latency_us={}, idle_w={}, active_w={}];\n",
                       l.bandwidth_Bps / 1.25e8, l.latency_s / 1e-6, l.idle_W, l.active_W);
  }
  out << "}\n";
}

}  // namespace fleetwatt::topologies
