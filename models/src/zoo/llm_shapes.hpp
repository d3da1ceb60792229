// The zoo's Llama-layout LLMs by name (llm_zoo.cpp), so count_model can resolve them beside the GPT family.
#pragma once

#include <optional>
#include <string_view>

#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models::detail {

/// The published shape of a Llama-layout zoo model ("llama2_7b", "mixtral_8x7b", ...); nullopt otherwise.
[[nodiscard]] std::optional<DecoderShape> llm_shape(std::string_view name);

}  // namespace fleetwatt::models::detail
