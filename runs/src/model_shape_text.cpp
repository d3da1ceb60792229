// A decoder's shape read from its one-line text (model_shape_text.hpp): one parser for every option that
// takes it, so predict, serve and Python accept and refuse the same texts.
#include "fleetwatt/runs/model_shape_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::runs {

const std::vector<std::string>& model_shape_keys() {
  static const std::vector<std::string> keys = {"layers", "hidden",  "heads", "kv_heads", "ffn_hidden",
                                                "vocab",  "experts", "top_k", "gated_mlp"};
  return keys;
}

jobs::ModelShape parse_model_shape_text(std::string_view text, const std::string& origin,
                                        const std::string& option) {
  const auto error = [&](const std::string& message) {
    return core::ConfigError({origin, 0, 0}, option, message);
  };
  jobs::ModelShape s;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string item(text.substr(at, end - at));
    at = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::uint32_t* target = key == "layers"       ? &s.layers
                            : key == "hidden"     ? &s.hidden
                            : key == "heads"      ? &s.heads
                            : key == "kv_heads"   ? &s.kv_heads
                            : key == "ffn_hidden" ? &s.ffn_hidden
                            : key == "vocab"      ? &s.vocab
                            : key == "experts"    ? &s.experts
                            : key == "top_k"      ? &s.top_k
                                                  : nullptr;
    if (key == "gated_mlp") {
      if (value != "true" && value != "false")
        throw error(fmt::format("gated_mlp is true or false, not '{}'", value));
      s.gated = value == "true";
      continue;
    }
    if (target == nullptr)
      throw error(fmt::format("unknown key '{}' (known: {})", key, fmt::join(model_shape_keys(), ", ")));
    char* stop = nullptr;
    const unsigned long long v = std::strtoull(value.c_str(), &stop, 10);
    if (value.empty() || *stop != '\0' || v > 4294967295ULL)
      throw error(fmt::format("{}: '{}' is not a whole number", key, value));
    *target = static_cast<std::uint32_t>(v);
  }
  if (!s.given()) throw error("needs layers (and hidden, heads)");
  if (const auto [key, why] = s.problem(); !key.empty()) throw error(fmt::format("{}: {}", key, why));
  return s;
}

}  // namespace fleetwatt::runs
