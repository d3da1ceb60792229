// The service schedulers' registry (see the header).
#include "fleetwatt/sim/serving/service_scheduler.hpp"

#include "fleetwatt/sim/serving/service_run.hpp"

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
        ServiceScheduling::prefill_priority},
       {"disaggregated",
        "prompt and decode pools (Splitwise, DistServe): prefill_replicas replicas run prompts "
        "only and emit the first token, then each request's keys and values cross the link to a decode "
        "replica (in turn), which runs the rest first come first served",
        {{"prefill_replicas",
          core::ParamType::integer,
          {},
          "a quarter of the replicas, at least 1",
          "",
          "replicas that run prompts (the others decode)",
          {}},
         {"kv_link_gbytes_per_s",
          core::ParamType::number,
          ServiceConfig{}.kv_link_Bps / 1e9,
          "",
          "GB/s",
          "each GPU's link for the keys and values handed over (400 Gb/s InfiniBand per GPU, as in DGX "
          "H100)",
          {}}},
        ServiceScheduling::disaggregated}});
  return schedulers;
}

std::string_view to_string(ServiceScheduling s) noexcept {
  switch (s) {
    case ServiceScheduling::prefill_priority:
      return "prefill_priority";
    case ServiceScheduling::disaggregated:
      return "disaggregated";
    default:
      return "fcfs";
  }
}

}  // namespace fleetwatt::sim
