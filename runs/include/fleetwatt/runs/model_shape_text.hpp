// A decoder given by its shape as one line of text, "layers=80,hidden=8192,heads=64,kv_heads=8": how
// `fleetwatt predict --model-shape`, `fleetwatt serve --model-shape` and Python's model_shape= take it, with
// the keys a scenario's job or service table takes for the same shape.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::runs {

/// The keys of a model given by its shape (jobs::ModelShape): layers, hidden, heads, kv_heads, ffn_hidden,
/// vocab, experts, top_k, gated_mlp.
[[nodiscard]] const std::vector<std::string>& model_shape_keys();

/// The shape `text` writes as comma-separated key=value pairs (whole numbers; gated_mlp true or false), the
/// keys left out at jobs::ModelShape's defaults. A ConfigError from `origin` at `option` (the flag or keyword
/// that carried the text) for an unknown key, a value that is not a whole number, no layers, or a shape that
/// cannot be (ModelShape::problem).
[[nodiscard]] jobs::ModelShape parse_model_shape_text(std::string_view text, const std::string& origin,
                                                      const std::string& option);

}  // namespace fleetwatt::runs
