// Nesting guards for the topology readers: Boost's GraphML and DOT parsers recurse once per nested element
// or subgraph, so a hostile file 100,000 levels deep overflows the stack. These scans measure the depth
// first (iteratively, skipping quoted text and comments) and refuse a file nested deeper than any real
// topology is, at the line and column where the limit is crossed.
#pragma once

#include <string>
#include <string_view>

namespace fleetwatt::topologies::detail {

/// Deeper than any topology file needs (GraphML: graphml > graph > node > data is 4; DOT clusters of
/// clusters rarely pass 5).
inline constexpr int kMaxMarkupDepth = 128;

/// Throws core::ConfigError at file:line:column when XML elements nest deeper than kMaxMarkupDepth.
void check_xml_depth(std::string_view text, const std::string& file);

/// Throws core::ConfigError at file:line:column when DOT braces or brackets nest deeper than
/// kMaxMarkupDepth.
void check_dot_depth(std::string_view text, const std::string& file);

}  // namespace fleetwatt::topologies::detail
