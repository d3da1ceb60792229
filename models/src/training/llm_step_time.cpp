// Step time of a 3D-parallel training job: a pipeline stage's micro-batches (its GEMMs, attention and
// element-wise work kernel by kernel on tensor cores, or the operator-class roofline), the 1F1B bubble, and
// the exposed tensor-, context-, pipeline- and data-parallel communication (see the header).
#include "fleetwatt/models/training/llm_step_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "fleetwatt/models/hardware/collectives.hpp"
#include "fleetwatt/models/hardware/tensor_gemm.hpp"
#include "fleetwatt/models/training/layer_gemms.hpp"
#include "fleetwatt/models/training/step_comm.hpp"

namespace fleetwatt::models {
namespace {

using jobs::Precision;
using jobs::Recompute;
using jobs::StepTraffic;

/// Bytes per element of activations and of their gradients on the wire: 16-bit for every tensor-core
/// training precision (FP8 keeps 16-bit activations between layers), FP32 otherwise.
double activation_element_bytes(Precision p) noexcept {
  return gradient_element_bytes(p);
}

/// One layer's output elements per sample: sequence x width for a transformer, else the mean layer output.
double layer_elements(const ModelCount& m, std::uint32_t seq) {
  if (m.blocks > 0 && m.d_model > 0) return static_cast<double>(seq) * m.d_model;
  return m.activation_elements / std::max(1u, m.weight_layers);
}

bool tensor_core_path(const ModelCount& m, Precision p) {
  return tensor_core_step(m, p);
}

/// The size-dependent efficiencies of a transformer's GEMMs on one GPU of the stage for the roofline path's
/// eager attention (0 elsewhere): the per-head score and value GEMMs (s x d_head x s) on the tensor cores.
std::array<double, kOpClasses> eager_attention_efficiency(const ModelCount& m, const GpuHardware& gpu,
                                                          Precision precision) {
  std::array<double, kOpClasses> eta{};
  if (!tensor_core_path(m, precision)) return eta;
  const TensorGemmFit& fit = default_tensor_gemm();
  const double a = m.d_attention > 0 ? m.d_attention : m.d_model;
  const double d_head = a / m.heads;
  const Precision p16 = precision == Precision::fp8 ? Precision::bf16 : precision;
  eta[static_cast<std::size_t>(OpClass::attention)] =
      tensor_gemm_efficiency(fit, gpu, p16).eta_max * d_head / (d_head + fit.d_half);
  return eta;
}

/// Adds the output head's work on one of tp GPUs (Megatron's vocabulary-parallel projection) to a stage.
void add_head(std::array<OpWork, kOpClasses>& ops, const std::array<OpWork, kOpClasses>& head, double tp) {
  for (std::size_t c = 0; c < kOpClasses; ++c) {
    const OpWork& h = head[c];
    OpWork& o = ops[c];
    o.flops += h.flops / tp, o.bytes += h.bytes / tp, o.weight_bytes += h.weight_bytes / tp;
    o.kernels += h.kernels;
  }
}

/// The element-wise bytes Transformer Engine's FP8 adds per layer and micro-batch for a training step: each
/// linear GEMM's input cast to FP8 in the forward pass (read 16-bit, write FP8 and its transpose for the
/// weight gradient: 4 bytes per element) and its output gradient likewise in the backward pass.
double fp8_cast_bytes(const std::vector<Gemm>& gemms, bool training) {
  double bytes = 0.0;
  for (const Gemm& g : gemms)
    if (g.precision == Precision::fp8) bytes += g.count * 4.0 * g.m * (g.k + (training ? g.n : 0.0));
  return bytes;
}

/// Ring collective seconds inside an NVLink domain on the measured NCCL link: each pair of passes one
/// all-reduce volume at the fitted intercept and bus bandwidth, `times` per step.
double domain_ring_s(const StepTraffic::Ring& r, const CollectiveLink& link) {
  if (!r.any() || !(link.bus_Bps > 0.0)) return 0.0;
  const double n = r.ranks;
  return r.times * r.passes / 2.0 * (link.alpha_s + 2.0 * (n - 1.0) / n * r.bytes / link.bus_Bps);
}

/// Rank 0's group of a job: members `stride` ranks apart at each level (innermost first), `count` at each.
struct GroupLevel {
  std::uint64_t stride = 1, count = 1;
};
/// Its members in the first NVLink domain of `domain` GPUs (ranks below it), and whether it leaves it.
struct DomainSpan {
  std::uint32_t per_domain = 1;
  bool leaves = false;
};
DomainSpan domain_span(const std::vector<GroupLevel>& levels, std::uint32_t domain) {
  std::uint64_t members = 1, reach = 0;
  for (const auto& l : levels) reach += l.stride * (l.count - 1);
  // Members below the domain's end: the levels are nested progressions from rank 0.
  std::vector<std::uint64_t> ranks{0};
  for (const auto& l : levels) {
    std::vector<std::uint64_t> next;
    for (const auto r : ranks)
      for (std::uint64_t i = 0; i < l.count && r + i * l.stride < domain; ++i)
        next.push_back(r + i * l.stride);
    ranks = std::move(next);
  }
  members = ranks.size();
  return {static_cast<std::uint32_t>(std::max<std::uint64_t>(members, 1)), reach >= domain};
}

/// A ring's planned seconds: on the fabric, its g members per domain as g rails of the inter-node rate
/// (NCCL's channels over the domain's NICs), never faster than the domain's own bus (the arithmetic a
/// network model repeats on the job's placement, models/training/step_comm.hpp); inside one domain at its
/// measured bus bandwidth.
double plan_ring(StepTraffic::Ring& r, const DomainSpan& span, double inter_Bps, double alpha_s,
                 const CollectiveLink& link) {
  r.fabric = span.leaves && r.any();
  if (r.fabric) {
    r.rails = span.per_domain;
    r.floor_s = r.times * r.passes * (r.ranks - 1.0) / r.ranks * r.bytes / link.bus_Bps;
    r.plan_s = fabric_ring_seconds(r, inter_Bps, alpha_s);
  } else {
    r.plan_s = domain_ring_s(r, link);
  }
  return r.plan_s;
}

double plan_sends(StepTraffic::Sends& s, bool fabric, double inter_Bps, double alpha_s,
                  const CollectiveLink& link) {
  s.fabric = fabric && s.any();
  if (!s.any()) return s.plan_s = 0.0;
  s.plan_s = s.fabric ? sends_seconds(s, inter_Bps, alpha_s)
                      : s.count * (link.alpha_s + s.bytes / std::max(link.bus_Bps, 1.0));
  return s.plan_s;
}

}  // namespace

bool tensor_core_step(const ModelCount& m, Precision p) noexcept {
  return m.blocks > 0 && m.d_model > 0 && m.heads > 0 && m.d_ff > 0 && p != Precision::fp32;
}

bool group_leaves_domain(std::uint64_t stride, std::uint64_t count, std::uint32_t domain) noexcept {
  return count > 1 && stride * (count - 1) >= std::max<std::uint32_t>(domain, 1);
}

ModelCount pipeline_stage(const ModelCount& model, std::uint32_t tp, std::uint32_t pp, bool last) {
  ModelCount s = model;
  const double mp = static_cast<double>(tp) * pp;
  // The zoo's split (or the generic one for a model known only by its FLOPs), shared out: tensor
  // parallelism splits the GEMMs by columns/rows, attention by heads and, with sequence parallelism, the
  // element-wise work by tokens; each GPU still launches every kernel of its stage's layers. The output
  // head runs on the last stage only (split over tp: Megatron's vocabulary-parallel projection).
  s.ops = operator_work(model);
  for (std::size_t c = 0; c < kOpClasses; ++c) {
    OpWork& o = s.ops[c];
    const OpWork& h = model.head_ops[c];  // none for a model known only by its FLOPs (the generic split)
    o.flops = (o.flops - h.flops) / mp, o.bytes = (o.bytes - h.bytes) / mp;
    o.weight_bytes = (o.weight_bytes - h.weight_bytes) / mp, o.kernels = (o.kernels - h.kernels) / pp;
  }
  if (last || pp == 1) add_head(s.ops, model.head_ops, tp);
  s.head_ops = {};
  s.params = model.params / mp;
  s.forward_flops = model.forward_flops / mp;
  s.forward_macs = model.forward_macs / mp;
  s.activation_elements = model.activation_elements / mp;
  s.param_tensors = static_cast<std::uint32_t>(std::ceil(model.param_tensors / static_cast<double>(pp)));
  s.weight_layers = static_cast<std::uint32_t>(std::ceil(model.weight_layers / static_cast<double>(pp)));
  return s;
}

double model_flops_per_step(const ModelCount& model, double global_batch, std::uint32_t seq,
                            double training_flops_per_sample) {
  if (model.blocks > 0 && seq > 0)
    return global_batch * static_cast<double>(seq) * model.training_flops_per_token(seq);
  return global_batch * training_flops_per_sample;
}

double model_flops_utilisation(double model_flops, double step_s, std::uint32_t n_gpus,
                               const GpuHardware& gpu, jobs::Precision precision) {
  const double peak = gpu.peak_flops(precision);
  return step_s > 0.0 && peak > 0.0 ? model_flops / (step_s * n_gpus * peak) : 0.0;
}

ParallelStep parallel_step(const ModelCount& model, const ParallelStepJob& job, const GpuHardware& gpu,
                           const RooflineConstants& time, const UtilisationPowerConstants& power) {
  const auto& par = job.parallel;
  ParallelStep s;
  s.dp = par.dp(job.n_gpus);
  if (s.dp == 0)
    throw std::invalid_argument(fmt::format("n_gpus {} is not a multiple of tp x cp x pp = {} x {} x {}",
                                            job.n_gpus, par.tp, par.cp, par.pp));
  const double per_replica = job.global_batch / s.dp;
  if (!(per_replica > 0.0)) throw std::invalid_argument("the batch gives each replica no sample");
  s.micro_batch = par.micro_batch_of(per_replica);
  s.micro_batches = per_replica / s.micro_batch;
  const double m = s.micro_batches, tp = par.tp, pp = par.pp, cp = par.cp;
  const std::uint32_t seq = job.seq > 0 ? job.seq : model.input_size;
  const bool training = job.step.pass_factor > 1.0;
  const Precision precision = job.step.precision;
  const bool tensor_cores = tensor_core_path(model, precision);
  const Precision p16 = precision == Precision::fp8 ? Precision::bf16 : precision;
  const double k = job.step.pass_factor;

  // The work of a stage of the even share of the layers; on the roofline path recomputation reruns the
  // forward of its layers' every class (full) or of their attention (selective). The output head is not
  // recomputed.
  ModelCount stage = pipeline_stage(model, par.tp, par.pp, false);
  if (!tensor_cores && training && par.recompute != Recompute::none) {
    const double extra = (k + 1.0) / k;  // one forward more on top of the k passes
    for (std::size_t c = 0; c < kOpClasses; ++c) {
      if (par.recompute == Recompute::selective && c != static_cast<std::size_t>(OpClass::attention))
        continue;
      auto& o = stage.ops[c];
      o.flops *= extra, o.bytes *= extra, o.kernels *= extra;
    }
  }
  StepInputs in = job.step;
  // Each GPU of a context-parallel group works on 1/cp of its micro-batch's tokens.
  in.per_gpu_batch = s.micro_batch / cp;
  in.updates_weights = false;
  in.host_loading = false;
  in.tensor_cores = tensor_cores;
  if (job.attention == jobs::Attention::eager)
    in.gemm_efficiency = eager_attention_efficiency(model, gpu, precision);

  // Links: the NVLink domain (its measured NCCL bus bandwidth) and the inter-node bandwidth per GPU.
  const std::uint32_t domain = std::max(1u, job.gpus_per_node);
  const double inter = job.internode_Bps > 0.0 ? job.internode_Bps : gpu.pcie_bw_Bps;
  const double alpha = job.io.alpha_s;
  const CollectiveFit& nccl = default_collectives();
  CollectiveLink ar_link = all_reduce_link(nccl, gpu), p2p_link = send_recv_link(nccl, gpu);
  if (!(gpu.nvlink_bw_Bps > 0.0)) {
    // Without NVLink the domain's GPUs talk over PCIe (a switch or the host): its figure, 5 us a message.
    ar_link = {alpha, gpu.pcie_bw_Bps, "PCIe"}, p2p_link = {alpha, gpu.pcie_bw_Bps, "PCIe"};
  }
  const double act_bytes = activation_element_bytes(precision);
  const double layers = model.blocks > 0 ? model.blocks : std::max(1u, model.weight_layers);
  s.layers_per_stage = layers / pp;
  const double tokens = s.micro_batch * seq / cp;  // per GPU and micro-batch
  const double boundary_bytes = s.micro_batch * layer_elements(model, seq) / cp * act_bytes;
  // Ranks apart of consecutive members of each group (Parallelism::order; tp innermost, then cp).
  const bool dp_inner = par.order == jobs::RankOrder::tp_cp_dp_pp;
  const std::uint64_t cp_stride = par.tp,
                      dp_stride = par.tp * static_cast<std::uint64_t>(par.cp) * (dp_inner ? 1 : par.pp),
                      pp_stride = par.tp * static_cast<std::uint64_t>(par.cp) * (dp_inner ? s.dp : 1);

  // Tensor parallel (Megatron with sequence parallelism): per layer and micro-batch two all-gathers and two
  // reduce-scatters of the layer's T h activations forward and as many backward (4 all-reduce volumes;
  // full recomputation reruns the forward's 2), exposed unless overlapped with the GEMMs. Inside the domain
  // at the measured NCCL bus bandwidth; a tensor-parallel group larger than the domain at the inter-node
  // figure.
  double tp_per_layer = 0.0;
  if (par.tp > 1) {
    // Transformer Engine's comm overlap hides the calibrated share behind the layer's GEMMs.
    const bool overlap = par.tp_comm_overlap.value_or(in.stack == jobs::SoftwareStack::optimized);
    const double count = (training ? 4.0 + (par.recompute == Recompute::full ? 2.0 : 0.0) : 2.0) *
                         (overlap ? 1.0 - job.calibration.tp_overlap : 1.0);
    const double bytes = tokens * model.d_model * act_bytes;
    if (par.tp <= domain) {
      s.tp_link_Bps = ar_link.bus_Bps;
      tp_per_layer = count * (ar_link.alpha_s + 2.0 * (tp - 1.0) / tp * bytes / ar_link.bus_Bps);
    } else {
      s.tp_link_Bps = inter;
      tp_per_layer = count * 2.0 * (tp - 1.0) / tp * bytes / inter + count * 2.0 * (tp - 1.0) * alpha;
    }
  }

  // A stage of `stage_layers` layers (the output head on the last): its micro-batch on the roofline, with
  // the tensor-core path's class times worked out kernel by kernel.
  const double bw = std::min(1.0, time.eta_memory * family_factor(time.family_memory, arch_family(gpu))) *
                    gpu.memory_bw_Bps;
  const double act_scale = act_bytes / 4.0;  // the zoo counts FP32 elements
  const double stack_factor = time.stack_factor[static_cast<std::size_t>(in.stack)];
  const TensorGemmFit& gemm_fit = default_tensor_gemm();
  const Precision linear = precision;  // FP8 under Transformer Engine; the others as they are
  const std::vector<Gemm> layer =
      tensor_cores ? layer_gemms(model, tokens, tp, par.ep, linear, p16) : std::vector<Gemm>{};
  const GemmTime layer_t = tensor_cores ? time_gemms(layer, gpu) : GemmTime{};
  const GemmTime head_t =
      tensor_cores && model.vocab > 0
          ? time_gemms({{tokens, model.vocab / tp, static_cast<double>(model.d_model), 1.0, p16}}, gpu)
          : GemmTime{};
  // Fused causal attention per layer and micro-batch: the GPU's heads / tp over its s / cp queries against
  // the keys before them (half of s on average: the causal mask, balanced over the cp ranks), two GEMMs of
  // width d_head; backward 2.5 x forward.
  GemmTime attn_t;
  const bool fused = job.attention != jobs::Attention::eager;
  if (tensor_cores && fused) {
    const double a = model.d_attention > 0 ? model.d_attention : model.d_model, d_head = a / model.heads;
    const double batch = s.micro_batch * model.heads / tp, q = static_cast<double>(seq) / cp, kv = seq / 2.0;
    attn_t.s = tensor_gemm_seconds(gemm_fit, gpu, p16, q, kv, d_head, batch) +
               tensor_gemm_seconds(gemm_fit, gpu, p16, q, d_head, kv, batch);
    attn_t.flops = 2.0 * 2.0 * batch * q * kv * d_head;
    attn_t.at_peak_s = attn_t.flops / matmul_peak_flops(gpu, p16);
  }
  const double attn_passes = training ? 1.0 + 2.5 * (k - 1.0) / 2.0 : 1.0;
  const double recompute_layer = training && par.recompute == Recompute::full ? 1.0 : 0.0;
  const double recompute_attn = training && par.recompute != Recompute::none ? 1.0 : 0.0;
  const double cast_bytes = fp8_cast_bytes(layer, training);

  const double even = s.layers_per_stage;
  const bool head = par.pp > 1 && std::any_of(model.head_ops.begin(), model.head_ops.end(),
                                              [](const OpWork& o) { return o.kernels > 0.0; });
  struct Stage {
    RooflineStep r;
    double layers = 0.0;
    double tp_s = 0.0;
    double gemm_s = 0.0, attention_s = 0.0, elementwise_s = 0.0, gemm_flops = 0.0, gemm_peak_s = 0.0;
    [[nodiscard]] double slot() const { return r.work_s + tp_s; }
  };
  const auto run = [&](double stage_layers, bool with_head) {
    ModelCount st = stage;
    const double f = model.blocks > 0 ? stage_layers / even : 1.0;
    for (auto& o : st.ops) o.flops *= f, o.bytes *= f, o.weight_bytes *= f, o.kernels *= f;
    if (with_head) add_head(st.ops, model.head_ops, tp);
    const double held = model.blocks > 0 ? stage_layers : even;
    Stage out{{}, held, held * tp_per_layer};
    StepInputs sin = in;
    if (tensor_cores) {
      // GEMMs: forward, input gradient and weight gradient (same dimensions), plus the recomputed forward.
      GemmTime g;
      g.add(layer_t, held * (k + recompute_layer));
      if (with_head || par.pp == 1) g.add(head_t, k);
      out.gemm_s = g.s * job.calibration.gemm_factor, out.gemm_flops = g.flops, out.gemm_peak_s = g.at_peak_s;
      // Element-wise work: the stage's memory-class bytes (16-bit elements, fused by the stack) per pass,
      // plus FP8's casts; the scores' softmax lives inside the fused attention kernel.
      const auto mem = static_cast<std::size_t>(OpClass::memory);
      const double elementwise_bytes =
          (k + recompute_layer) * in.per_gpu_batch * st.ops[mem].bytes * act_scale * stack_factor +
          held * (1.0 + recompute_layer / k) * cast_bytes;
      out.elementwise_s = elementwise_bytes / bw;
      sin.known_class_s[static_cast<std::size_t>(OpClass::tensor)] = out.gemm_s;
      sin.known_class_s[mem] = out.elementwise_s;
      if (fused) {
        const double kernel = job.attention == jobs::Attention::flash2 ? job.calibration.flash2_factor
                                                                       : job.calibration.attention_factor;
        out.attention_s = held * (attn_passes + recompute_attn) * attn_t.s * kernel;
        sin.known_class_s[static_cast<std::size_t>(OpClass::attention)] = out.attention_s;
      }
    }
    out.r = roofline_step(st, sin, gpu, time, power);
    // Eager attention's score GEMMs, softmax and masking are the roofline's attention class.
    if (tensor_cores && !fused) out.attention_s = out.r.class_s[static_cast<std::size_t>(OpClass::attention)];
    return out;
  };
  const auto n = par.stage_layers(model.blocks);
  const Stage middle = run(model.blocks > 0 ? n.middle : even, false);
  const Stage first = par.pp > 1 && model.blocks > 0 && n.first != n.middle ? run(n.first, false) : middle;
  const Stage last = par.pp > 1 && (head || (model.blocks > 0 && n.last != n.middle))
                         ? run(model.blocks > 0 ? n.last : even, head)
                         : middle;
  // 1F1B's steady state runs at the slowest stage's pace, and the fill and drain pass once through the
  // others: a step is m slowest slots + the sum of the other stages' slots.
  const Stage* slowest = &middle;
  double all_slots = middle.slot();
  if (par.pp > 1) {
    slowest = first.slot() >= last.slot() ? &first : &last;
    if (par.pp > 2 && middle.slot() > slowest->slot()) slowest = &middle;
    all_slots = first.slot() + (pp - 2.0) * middle.slot() + last.slot();
  }
  s.micro = slowest->r;
  s.pace_layers = slowest->layers;
  s.micro_batch_s = s.micro.work_s;
  s.first_micro_batch_s = first.r.work_s, s.last_micro_batch_s = last.r.work_s;
  s.middle_micro_batch_s = (par.pp > 2 ? middle : first).r.work_s;
  s.gemm_s = slowest->gemm_s, s.attention_s = slowest->attention_s, s.elementwise_s = slowest->elementwise_s;
  s.gemm_efficiency = slowest->gemm_s > 0.0 ? slowest->gemm_peak_s / slowest->gemm_s : 0.0;
  s.attention_efficiency = attn_t.s > 0.0 ? attn_t.at_peak_s / attn_t.s : 0.0;
  if (tensor_cores) s.efficiency_rule = tensor_gemm_efficiency(gemm_fit, gpu, linear).rule;
  // The optimiser once per step on the GPU's shard of the parameters (and of the optimiser state under
  // ZeRO >= 1, sharded over the data- and context-parallel group), at the clocks the work runs at; the same
  // roofline call gives the replica's loading time.
  StepInputs whole = job.step;
  whole.per_gpu_batch = per_replica;
  const RooflineStep once = roofline_step(stage, whole, gpu, time, power);
  const double optimizer_shards = par.zero >= 1 ? static_cast<double>(par.shard_group(s.dp)) * cp : 1.0;
  s.optimizer_s = once.optimizer_s * s.micro.stretch / optimizer_shards;
  s.data_s = once.data_s;
  s.compute_s = m * s.micro_batch_s + s.optimizer_s;
  s.tp_comm_s = m * slowest->tp_s;
  auto& traffic = s.traffic;
  traffic.alpha_s = alpha;
  // The bubble: the other stages' slots, once. Interleaved over v virtual stages, each GPU holds v chunks
  // of its layers / v, and the fill and drain take chunk slots, 1/v of a micro-batch's slot each
  // (Narayanan et al., section 2.2.2: bubble time fraction (pp - 1) / (v m) for equal stages).
  const double v = std::max(par.vp, 1u);
  if (par.pp > 1) {
    s.bubble_s = (all_slots - slowest->slot()) / v;
    s.bubble_fraction = s.bubble_s / (m * slowest->slot() + s.bubble_s);
    // Pipeline send/recv of one micro-batch's boundary activations (each tensor-parallel GPU sends 1/tp):
    // in the steady state it runs under the neighbours' work; the fill (forward) and drain (backward)
    // wait for it at each boundary the first micro-batch crosses, pp - 1 of them, or pp v - 1 between
    // the chunks of the interleaved schedule (which sends v times as often).
    traffic.pp = {boundary_bytes / tp, (training ? 2.0 : 1.0) * (pp * v - 1.0)};
    s.pp_crosses = group_leaves_domain(pp_stride, par.pp, domain);
    s.pp_link_Bps = s.pp_crosses ? inter : p2p_link.bus_Bps;
    s.pp_comm_s = plan_sends(traffic.pp, s.pp_crosses, inter, alpha, p2p_link);
  }
  // Context parallel (ring attention, Megatron-Core's "p2p"): per layer and micro-batch each GPU passes its
  // K and V block (s / cp tokens of the kv heads on its tp slice) cp - 1 times forward, and K, V and their
  // gradients (twice the bytes) cp - 1 times backward, under the layer's attention compute.
  if (par.cp > 1 && model.blocks > 0) {
    const double a = model.d_attention > 0 ? model.d_attention : model.d_model;
    const double kv_width = (model.kv_heads > 0 ? model.kv_heads : model.heads) * a / model.heads;
    const double block = 2.0 * tokens * kv_width / tp * act_bytes;
    const double per_layer = (cp - 1.0) * (training ? 3.0 : 1.0);
    traffic.cp = {block, m * s.pace_layers * per_layer};
    const double attention_layer_s =
        s.attention_s > 0.0
            ? s.attention_s / std::max(s.pace_layers, 1.0)
            : s.micro.class_s[static_cast<std::size_t>(OpClass::attention)] / std::max(s.pace_layers, 1.0);
    traffic.cp_window_s = m * s.pace_layers * attention_layer_s * s.micro.stretch;
    s.cp_crosses = group_leaves_domain(cp_stride, par.cp, domain);
    s.cp_link_Bps = s.cp_crosses ? inter : p2p_link.bus_Bps;
    s.cp_comm_total_s = plan_sends(traffic.cp, s.cp_crosses, inter, alpha, p2p_link);
    s.cp_comm_s = exposed_cp_seconds(traffic, s.cp_comm_total_s);
  }
  // Data parallel: the gradients of the GPU's tp x pp shard (experts also split over ep), over the data- and
  // context-parallel group (context-parallel ranks hold the same weights). Reduce-scatter and all-gather
  // once per step (an all-reduce; the distributed optimizer's reduce-scatter of gradients and all-gather of
  // parameters); ZeRO-3 / FSDP gathers the weights forward and backward and reduce-scatters the gradients
  // at every micro-batch, within its shard group, and hybrid sharding all-reduces each shard across the
  // replicas once per step. The reduction hides behind the backward pass; ZeRO-3's prefetched gathers
  // behind the whole compute.
  if (s.dp * par.cp > 1 && training) {
    const double dense = model.params - model.expert_params;
    const double shard = dense / (tp * pp) + model.expert_params / (tp * pp * par.ep);
    const double bytes = gradient_bytes(shard, precision, job.io);
    const std::uint32_t shard_dp = par.shard_group(s.dp);
    if (par.zero >= 3) {
      // FSDP prefetches each layer's gather under the layer before it and reduce-scatters under the layer
      // after: only the first gather and the last reduce-scatter of a micro-batch wait.
      traffic.dp = {shard_dp * par.cp, bytes, 3.0, m};
      if (shard_dp < s.dp) traffic.dp_outer = {s.dp / shard_dp, bytes / (shard_dp * cp), 2.0, 1.0};
      traffic.dp_window_s = s.compute_s;
      traffic.dp_overlap = model.blocks > 1 ? (layers - 1.0) / layers : job.io.comm_overlap;
    } else {
      traffic.dp = {s.dp * par.cp, bytes, 2.0, 1.0};
      traffic.dp_window_s = job.io.backward_fraction * s.compute_s;
      traffic.dp_overlap = job.io.comm_overlap;
    }
    const DomainSpan inner = domain_span({{cp_stride, par.cp}, {dp_stride, shard_dp}}, domain);
    const DomainSpan outer = domain_span({{dp_stride * shard_dp, s.dp / shard_dp}}, domain);
    s.dp_crosses = inner.leaves, s.dp_outer_crosses = outer.leaves;
    s.dp_link_Bps = s.dp_crosses ? std::min(ar_link.bus_Bps, inner.per_domain * inter) : ar_link.bus_Bps;
    s.dp_outer_link_Bps =
        s.dp_outer_crosses ? std::min(ar_link.bus_Bps, outer.per_domain * inter) : ar_link.bus_Bps;
    s.dp_comm_total_s = plan_ring(traffic.dp, inner, inter, alpha, ar_link) +
                        plan_ring(traffic.dp_outer, outer, inter, alpha, ar_link);
    s.dp_comm_s = exposed_dp_seconds(traffic, s.dp_comm_total_s);
  }
  s.comm_s = s.tp_comm_s + s.cp_comm_s + s.pp_comm_s + s.dp_comm_s;
  s.step_s = s.compute_s + s.bubble_s + s.comm_s;
  return s;
}

}  // namespace fleetwatt::models
