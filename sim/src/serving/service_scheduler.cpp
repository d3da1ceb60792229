// The service schedulers' registry (see the header).
#include "fleetwatt/sim/serving/service_scheduler.hpp"

namespace fleetwatt::sim {

const ServiceSchedulers& service_schedulers() {
  static const ServiceSchedulers schedulers(
      "service scheduler",
      {{"fcfs",
        "default: continuous batching first come first served; each iteration runs every running sequence's "
        "next token, then prompt chunks in arrival order within max_batched_tokens (vLLM's chunked prefill)",
        {},
        ServiceScheduling::fcfs},
       {"prefill_priority",
        "prompts first: while an admitted prompt is unfinished, iterations run prompts only (in arrival "
        "order, within max_batched_tokens) and the running sequences' decodes wait (vLLM without chunked "
        "prefill): sooner first tokens, later ones stalled",
        {},
        ServiceScheduling::prefill_priority}});
  return schedulers;
}

std::string_view to_string(ServiceScheduling s) noexcept {
  return s == ServiceScheduling::prefill_priority ? "prefill_priority" : "fcfs";
}

}  // namespace fleetwatt::sim
