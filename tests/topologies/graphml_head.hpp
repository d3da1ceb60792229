// The opening of the GraphML files the topology tests write: the keys their graphs use (a vertex's kind,
// name and server; a link's bandwidth and latency), up to the <graph> element.
#pragma once

namespace fleetwatt::test {

inline constexpr const char* kGraphmlHead = R"(<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="k" for="node" attr.name="kind" attr.type="string"/>
  <key id="n" for="node" attr.name="name" attr.type="string"/>
  <key id="nd" for="node" attr.name="server" attr.type="int"/>
  <key id="bw" for="edge" attr.name="bandwidth_gbps" attr.type="double"/>
  <key id="lat" for="edge" attr.name="latency_us" attr.type="double"/>
  <graph id="G" edgedefault="undirected">
)";

}  // namespace fleetwatt::test
