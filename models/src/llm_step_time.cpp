// Step time of a 3D-parallel training job: a pipeline stage's micro-batches on the roofline, the 1F1B
// bubble, and the exposed tensor-, pipeline- and data-parallel communication (see the header).
#include "fleetwatt/models/llm_step_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fleetwatt/models/gemm_efficiency.hpp"

namespace fleetwatt::models {
namespace {

/// Ring collective over `n` GPUs moving `factor` x (n - 1) / n of `bytes` per GPU, with a software latency
/// per ring step (factor 2: all-reduce = reduce-scatter + all-gather; 3: FSDP's extra all-gather).
double ring_s(double n, double bytes, double factor, double link_Bps, double alpha_s) {
  if (n <= 1.0 || link_Bps <= 0.0) return 0.0;
  return factor * (n - 1.0) / n * bytes / link_Bps + factor * (n - 1.0) * alpha_s;
}

/// One layer's output elements per sample: sequence x width for a transformer, else the mean layer output.
double layer_elements(const ModelCount& m, std::uint32_t seq) {
  if (m.blocks > 0 && m.d_model > 0) return static_cast<double>(seq) * m.d_model;
  return m.activation_elements / std::max(1u, m.weight_layers);
}

/// The size-dependent efficiencies of a transformer's GEMMs on one GPU of the stage (0 for a model without a
/// transformer shape: the roofline's constants). Per layer, with T = micro-batch x seq tokens, h the width,
/// a the attention width and tp the tensor-parallel degree: the tensor class is the QKV (T x h x 3a/tp),
/// output (T x a/tp x h) and MLP (T x h x 4h/tp, T x 4h/tp x h) GEMMs, weighted by their FLOPs; the
/// attention class is the per-head score and value GEMMs (s x d_head x s, s x s x d_head), batched over the
/// micro-batch and the GPU's heads. Their backward GEMMs have the same dimensions. 16-bit, TF32 and FP8 only.
std::array<double, kOpClasses> transformer_gemm_efficiency(const ModelCount& m, double micro_batch,
                                                           std::uint32_t seq, double tp,
                                                           const GpuHardware& gpu,
                                                           workloads::Precision precision) {
  std::array<double, kOpClasses> eta{};
  // FP32 GEMMs keep the roofline's constants: fitted on whole FP32 eager runs (NeuSight's among them), they
  // also carry what these classes do besides their GEMMs (bias and activation epilogues, the host between
  // kernels); the tensor-core paths had only a rule from small runs (half_tensor_factor).
  if (m.blocks == 0 || m.d_model == 0 || seq == 0 || precision == workloads::Precision::fp32) return eta;
  const GemmCurve curve = precision_curve(default_gemm_efficiency().curve(gpu.arch), gpu, precision);
  const double tokens = micro_batch * seq, h = m.d_model;
  const double a = m.d_attention > 0 ? m.d_attention : h;
  const double d_head = m.heads > 0 ? a / m.heads : 64.0;
  const auto gemm = [&](double rows, double inner, double cols) {
    return GemmShare{std::min({rows, inner, cols}), rows * inner * cols};
  };
  eta[static_cast<std::size_t>(OpClass::tensor)] =
      class_gemm_efficiency(curve, {gemm(tokens, h, 3.0 * a / tp), gemm(tokens, a / tp, h),
                                    gemm(tokens, h, 4.0 * h / tp), gemm(tokens, 4.0 * h / tp, h)});
  eta[static_cast<std::size_t>(OpClass::attention)] =
      class_gemm_efficiency(curve, {gemm(seq, d_head, seq), gemm(seq, seq, d_head)});
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

}  // namespace

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
                               const GpuHardware& gpu, workloads::Precision precision) {
  const double peak = gpu.peak_flops(precision);
  return step_s > 0.0 && peak > 0.0 ? model_flops / (step_s * n_gpus * peak) : 0.0;
}

ParallelStep parallel_step(const ModelCount& model, const ParallelStepJob& job, const GpuHardware& gpu,
                           const RooflineConstants& time, const UtilisationPowerConstants& power) {
  const auto& par = job.parallel;
  ParallelStep s;
  s.dp = par.dp(job.n_gpus);
  if (s.dp == 0)
    throw std::invalid_argument(
        fmt::format("n_gpus {} is not a multiple of tp x pp = {} x {}", job.n_gpus, par.tp, par.pp));
  const double per_replica = job.global_batch / s.dp;
  if (!(per_replica > 0.0)) throw std::invalid_argument("the batch gives each replica no sample");
  s.micro_batch = par.micro_batch > 0 ? std::min<double>(par.micro_batch, per_replica) : per_replica;
  s.micro_batches = per_replica / s.micro_batch;
  const double m = s.micro_batches, tp = par.tp, pp = par.pp, dp = s.dp;
  const std::uint32_t seq = job.seq > 0 ? job.seq : model.input_size;
  const bool training = job.step.pass_factor > 1.0;

  // The work of a stage of the even share of the layers; recomputation reruns the forward of its layers'
  // every class (full) or of their attention (selective). The output head is not recomputed.
  ModelCount stage = pipeline_stage(model, par.tp, par.pp, false);
  const double k = job.step.pass_factor;
  if (training && par.recompute != workloads::Recompute::none) {
    const double extra = (k + 1.0) / k;  // one forward more on top of the k passes
    for (std::size_t c = 0; c < kOpClasses; ++c) {
      if (par.recompute == workloads::Recompute::selective &&
          c != static_cast<std::size_t>(OpClass::attention))
        continue;
      auto& o = stage.ops[c];
      o.flops *= extra, o.bytes *= extra, o.kernels *= extra;
    }
  }
  StepInputs in = job.step;
  in.per_gpu_batch = s.micro_batch;
  in.updates_weights = false;
  in.host_loading = false;
  in.gemm_efficiency = transformer_gemm_efficiency(model, s.micro_batch, seq, tp, gpu, job.step.precision);

  // Links: the NVLink domain inside a node, the per-GPU inter-node bandwidth across nodes.
  const double intra = gpu.nvlink_bw_Bps > 0.0 ? gpu.nvlink_bw_Bps : gpu.pcie_bw_Bps;
  const double inter = job.internode_Bps > 0.0 ? job.internode_Bps : gpu.pcie_bw_Bps;
  const bool one_node = job.n_gpus <= job.gpus_per_node;
  s.tp_link_Bps = par.tp <= job.gpus_per_node ? intra : inter;
  s.pp_link_Bps = one_node ? intra : inter;
  s.dp_link_Bps = one_node ? intra : inter;
  const double act_bytes = gradient_element_bytes(job.step.precision);  // 16-bit or FP32 activations
  const double layers = model.blocks > 0 ? model.blocks : std::max(1u, model.weight_layers);
  s.layers_per_stage = layers / pp;
  const double boundary_bytes = s.micro_batch * layer_elements(model, seq) * act_bytes;
  const double alpha = job.io.alpha_s;

  // Tensor parallel (Megatron): two all-reduces per layer forward (after attention and after the MLP) and
  // two backward; with sequence parallelism a reduce-scatter and an all-gather of the same volume. Full
  // recomputation reruns the forward's two. Not overlapped with compute.
  double tp_per_layer = 0.0;
  if (par.tp > 1) {
    const double per_layer = training ? 4.0 + (par.recompute == workloads::Recompute::full ? 2.0 : 0.0) : 2.0;
    tp_per_layer = per_layer * ring_s(tp, boundary_bytes, 2.0, s.tp_link_Bps, alpha);
  }

  // The stages: the first, pp - 2 middle ones and the last (one stage without a pipeline), each its share
  // of the layers (the even one, or first_stage_layers / last_stage_layers), the last with the output
  // head. A stage's micro-batch slot is its work and its tensor-parallel traffic.
  const auto n = par.stage_layers(model.blocks);
  const double even = s.layers_per_stage;
  const bool head = par.pp > 1 && std::any_of(model.head_ops.begin(), model.head_ops.end(),
                                              [](const OpWork& o) { return o.kernels > 0.0; });
  struct Stage {
    RooflineStep r;
    double layers = 0.0;
    double tp_s = 0.0;
    [[nodiscard]] double slot() const { return r.work_s + tp_s; }
  };
  const auto run = [&](double stage_layers, bool with_head) {
    ModelCount st = stage;
    const double f = model.blocks > 0 ? stage_layers / even : 1.0;
    for (auto& o : st.ops) o.flops *= f, o.bytes *= f, o.weight_bytes *= f, o.kernels *= f;
    if (with_head) add_head(st.ops, model.head_ops, tp);
    const double held = model.blocks > 0 ? stage_layers : even;
    return Stage{roofline_step(st, in, gpu, time, power), held, held * tp_per_layer};
  };
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
  // The optimiser once per step on the GPU's shard of the parameters (and of the optimiser state under
  // ZeRO >= 1), at the clocks the work runs at; the same roofline call gives the replica's loading time.
  StepInputs whole = job.step;
  whole.per_gpu_batch = per_replica;
  const RooflineStep once = roofline_step(stage, whole, gpu, time, power);
  s.optimizer_s = once.optimizer_s * s.micro.stretch / (par.zero >= 1 ? dp : 1.0);
  s.data_s = once.data_s;
  s.compute_s = m * s.micro_batch_s + s.optimizer_s;
  s.tp_comm_s = m * slowest->tp_s;
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
    const double p2p_s = boundary_bytes / (tp * s.pp_link_Bps) + alpha;
    s.pp_comm_s = (training ? 2.0 : 1.0) * (pp * v - 1.0) * p2p_s;
  }
  // Data parallel: the gradients of the GPU's tp x pp shard (experts also split over ep), reduce-scattered
  // and all-gathered (= all-reduced); ZeRO-3 / FSDP gathers the weights once more for the forward pass.
  if (s.dp > 1 && training) {
    const double dense = model.params - model.expert_params;
    const double shard = dense / (tp * pp) + model.expert_params / (tp * pp * par.ep);
    const double bytes = gradient_bytes(shard, job.step.precision, job.io);
    s.dp_comm_total_s = ring_s(dp, bytes, par.zero >= 3 ? 3.0 : 2.0, s.dp_link_Bps, alpha);
    s.dp_comm_s =
        exposed_communication(s.compute_s, s.dp_comm_total_s, job.io.comm_overlap, job.io.backward_fraction);
  }
  s.comm_s = s.tp_comm_s + s.pp_comm_s + s.dp_comm_s;
  s.step_s = s.compute_s + s.bubble_s + s.comm_s;
  return s;
}

}  // namespace fleetwatt::models
