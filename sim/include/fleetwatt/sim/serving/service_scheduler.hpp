// How a replica fills each iteration from its running sequences (the service scheduler), registered once with
// its description: `fleetwatt list`, the scenario's `scheduler` key, `serve --scheduler` and Python's serve()
// all read this declaration.
#pragma once

#include <string_view>

#include "fleetwatt/core/registry.hpp"

namespace fleetwatt::sim {

enum class ServiceScheduling {
  /// Every running sequence's next token first, then prompt chunks in arrival order within the token budget
  /// (vLLM's chunked prefill): prompts ride along with the decodes.
  fcfs,
  /// While an admitted prompt is unfinished, an iteration runs prompts only (in arrival order, within the
  /// token budget) and the decodes wait (vLLM without chunked prefill): sooner first tokens, stalled later
  /// ones.
  prefill_priority,
  /// Separate pools (Splitwise, DistServe): prompt replicas run prompts only and emit each request's first
  /// token, then hand its keys and values over the link to a decode replica, which generates the rest.
  disaggregated,
};

using ServiceSchedulers = core::Registry<ServiceScheduling>;
/// Every service scheduler; the first is the default.
[[nodiscard]] const ServiceSchedulers& service_schedulers();
/// The registry's name of `s`.
[[nodiscard]] std::string_view to_string(ServiceScheduling s) noexcept;

}  // namespace fleetwatt::sim
