// One continuous-batching iteration of an LLM replica: time and power per GPU (see the header).
#include "fleetwatt/models/serving/serving_iteration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fleetwatt/models/hardware/collectives.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/hardware/tensor_gemm.hpp"
#include "fleetwatt/models/training/layer_gemms.hpp"
#include "fleetwatt/models/training/training_io.hpp"

namespace fleetwatt::models {

namespace {

/// Bytes of one 16-bit activation, key or value element.
constexpr double kElementBytes = 2.0;

void check(const ServingReplica& r, const IterationBatch& b) {
  if (const auto [key, why] = replica_problem(r); !key.empty()) throw std::invalid_argument(why);
  for (const double v : {b.prefill_tokens, b.prefill_sequences, b.prefill_attended_keys, b.decode_sequences,
                         b.decode_context_tokens})
    if (!(v >= 0.0)) throw std::invalid_argument("an iteration's counts must not be negative");
  if (!(b.prefill_tokens + b.decode_sequences > 0.0))
    throw std::invalid_argument("an iteration runs at least one token");
}

}  // namespace

std::pair<std::string, std::string> replica_problem(const ServingReplica& r) {
  const ModelCount& m = r.model;
  if (m.blocks == 0 || m.d_model == 0 || m.heads == 0 || m.d_ff == 0)
    return {"model", fmt::format("{} is not a transformer decoder with a known shape", m.name)};
  if (r.tp == 0) return {"tp", "tp must be at least 1"};
  if (r.tp > 1 && !(r.gpu.nvlink_bw_Bps > 0.0))
    return {"tp", fmt::format("{} has no NVLink: a tensor-parallel replica needs one node's NVLink domain",
                              r.gpu.id)};
  if (r.pp == 0) return {"pp", "pp must be at least 1"};
  if (r.pp > m.blocks) return {"pp", fmt::format("{} stages for {}'s {} layers", r.pp, m.name, m.blocks)};
  return {};
}

IterationCost serving_iteration(const ServingReplica& replica, const IterationBatch& batch,
                                const ServingConstants& constants, const PredictorFit& fit,
                                const TensorGemmFit& gemm_fit) {
  check(replica, batch);
  const ModelCount& m = replica.model;
  const GpuHardware& gpu = replica.gpu;
  const double tp = replica.tp, layers = m.blocks, h = m.d_model;
  const double a = m.d_attention > 0 ? m.d_attention : h, d_head = a / m.heads;
  const double kv_heads = m.kv_heads > 0 ? m.kv_heads : m.heads;
  const jobs::Precision p = replica.precision;
  const double tokens = batch.prefill_tokens + batch.decode_sequences;
  const double t0 = gemm_fit.t0_s;
  // The bandwidth the roofline fit reaches on this GPU's family (a streaming read or write).
  const double bw =
      std::min(1.0, fit.time.eta_memory * family_factor(fit.time.family_memory, arch_family(gpu))) *
      gpu.memory_bw_Bps;

  IterationCost c;
  // Linear GEMMs over every token of the batch, per layer. Each kernel's fixed time (the GEMM fit's t0:
  // launch latency and ramp, when the SMs are mostly idle) is kept apart from the work for the power.
  const std::vector<Gemm> gemms = layer_gemms(m, tokens, tp, 1.0, p, p);
  double compute_kernels = layers * static_cast<double>(gemms.size()), memory_kernels = 0.0;
  c.gemm_s = layers * time_gemms(gemms, gpu, gemm_fit).s;
  // The output projection (vocabulary-parallel) of each sequence that emits a token.
  const double emitting = batch.prefill_sequences + batch.decode_sequences;
  if (m.vocab > 0 && emitting > 0.0) {
    c.gemm_s += tensor_gemm_seconds(gemm_fit, gpu, p, emitting, m.vocab / tp, h);
    compute_kernels += 1.0;
  }

  // Prompt attention: per head, the queries against the keys they attend, as two GEMMs of width d_head (the
  // mean query block and the mean keys per query carry the batch's sum of products).
  double compute_s = c.gemm_s, memory_s = 0.0;
  if (batch.prefill_tokens > 0.0 && batch.prefill_attended_keys > 0.0) {
    const double sequences = std::max(1.0, batch.prefill_sequences);
    const double q = batch.prefill_tokens / sequences,
                 keys = batch.prefill_attended_keys / batch.prefill_tokens;
    const double heads = sequences * m.heads / tp;
    const double s = tensor_gemm_seconds(gemm_fit, gpu, p, q, keys, d_head, heads) +
                     tensor_gemm_seconds(gemm_fit, gpu, p, q, d_head, keys, heads);
    c.attention_s += layers * s;
    compute_s += layers * s;
    compute_kernels += 2.0 * layers;
  }
  // Generated tokens' attention reads their sequences' cached keys and values (a GPU holds its kv heads, at
  // least one when tp exceeds them).
  if (batch.decode_sequences > 0.0) {
    const double bytes =
        batch.decode_context_tokens * 2.0 * std::max(1.0, kv_heads / tp) * d_head * kElementBytes;
    const double s = bytes / bw + t0;
    c.attention_s += layers * s;
    memory_s += layers * s;
    memory_kernels += layers;
  }
  // Element-wise kernels over every token (each reads and writes the layer's width; replicated over tp).
  c.elementwise_s = layers * constants.elementwise_kernels * (tokens * h * 2.0 * kElementBytes / bw + t0);
  memory_s += c.elementwise_s;
  memory_kernels += layers * constants.elementwise_kernels;
  // Two all-reduces per layer of the layer's output over the tensor-parallel group.
  if (replica.tp > 1) {
    const CollectiveLink link = all_reduce_link(default_collectives(), gpu);
    const double bytes = tokens * h * kElementBytes;
    c.comm_s = layers * 2.0 * (link.alpha_s + 2.0 * (tp - 1.0) / tp * bytes / link.bus_Bps);
  }
  // Pipeline stages: each hands the next the batch's hidden states. Stages of tp GPUs fill a node's NVLink
  // domain in turn, so of the pp - 1 hand-overs, those between nodes take the inter-node link.
  if (replica.pp > 1) {
    const double bytes = tokens * h * kElementBytes;
    const double domain = gpu.nvlink_domain_gpus > 0 ? gpu.nvlink_domain_gpus : 8.0;
    const double gpus = tp * replica.pp;
    const double between_nodes = std::ceil(gpus / std::max(domain, tp)) - 1.0;
    const double alpha = TrainingIoConfig{}.alpha_s;
    const CollectiveLink within = gpu.nvlink_bw_Bps > 0.0 ? send_recv_link(default_collectives(), gpu)
                                                          : CollectiveLink{alpha, gpu.pcie_bw_Bps, "PCIe"};
    c.comm_s += (replica.pp - 1.0 - between_nodes) * (within.alpha_s + bytes / within.bus_Bps) +
                between_nodes * (alpha + bytes / gpu.pcie_bw_Bps);
  }
  const bool graphed = constants.decode_graphs && batch.prefill_tokens == 0.0;
  c.overhead_s = graphed ? 0.0 : layers * constants.layer_overhead_s;
  c.time_s = c.gemm_s + c.attention_s + c.elementwise_s + c.comm_s + c.overhead_s;

  const UtilisationPowerConstants& pc = fit.power;
  // The kernels' fixed times come off the work they are counted in (compute: the GEMMs and prompt attention;
  // memory: the rest).
  const double work = std::max(0.0, compute_s - compute_kernels * t0) +
                      pc.memory_weight * std::max(0.0, memory_s - memory_kernels * t0);
  c.busy_share = std::clamp(work / c.time_s, 0.0, 1.0);
  const double floor_W = resident_floor(gpu, pc);
  const double saturation_W = std::max(floor_W, pc.tensor_core_saturation * gpu.tdp_W);
  c.power_W = std::min(gpu.tdp_W, utilisation_power_W(floor_W, saturation_W, c.busy_share, pc));
  return c;
}

}  // namespace fleetwatt::models
