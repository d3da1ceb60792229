// Step time of a 3D-parallel (tensor x context x pipeline x data) training job as Megatron-LM and NeMo run it
// (Narayanan et al., SC'21; docs/predictors.md "Step time of LLM jobs"):
//  - one pipeline stage holds its layers (blocks / pp, or the first / last stage's own), each GPU 1/tp of
//    their work (tensor parallelism with sequence parallelism splits the GEMMs, the heads and the
//    element-wise work) and 1/cp of the sequence (context parallelism: ring attention);
//  - a transformer in a tensor-core precision (16-bit, TF32, FP8) runs each of its GEMMs (QKV, output,
//    feed-forward in and out, experts, the output head on the last stage) at the measured tensor-core
//    efficiency of its shape (models/hardware/tensor_gemm.hpp), forward once and backward twice (input and
//    weight gradients); FP8 runs the layers' linear GEMMs only in FP8 (Transformer Engine: attention, the
//    output head and the rest stay 16-bit) and casts their inputs and output gradients to FP8 and back;
//  - attention "fused" (FlashAttention, cuDNN) computes the causal half of the scores at the tensor-core
//    efficiency of a head-width GEMM, backward 2.5 x forward (FlashAttention-2 recomputes the scores), with
//    no s^2 memory traffic; "eager" keeps the scores in memory (the roofline's attention class);
//  - element-wise work (norms, activations, residuals, rotary) at the memory bandwidth, fused by the stack;
//  - recomputation: full reruns each layer's forward, selective its attention;
//  - FP32 jobs and models without a transformer shape keep the operator-class roofline's fitted constants
//    (models/hardware/roofline.hpp);
//  - m = per-replica batch / micro-batch micro-batches through a 1F1B pipeline (interleaved over vp virtual
//    stages): the slowest stage's slot sets the pace, the others fill and drain once (the bubble, / vp);
//  - tensor-parallel collectives (4 all-reduce volumes per layer and micro-batch, 6 under full
//    recomputation) at the measured NCCL bus bandwidth of the NVLink domain
//    (models/hardware/collectives.hpp), exposed; context-parallel KV blocks around the ring under the
//    attention; pipeline sends exposed in the fill and drain; the data-parallel reduction over each
//    data-parallel (x context-parallel) group of its tp x pp shard (reduce-scatter + all-gather once per
//    step; ZeRO-3 / FSDP gathers the weights in forward and backward and reduce-scatters the gradients every
//    micro-batch, within fsdp_shard_size ranks and all-reduced across replicas), hidden behind the compute as
//    far as the overlap allows;
//  - the optimiser once per step on the GPU's shard.
// Links: traffic among GPUs of one NVLink domain (gpus_per_node) uses it; traffic that leaves it uses the
// inter-node bandwidth per GPU. Which groups leave it follows from the rank order (Parallelism::order) on a
// job placed on whole domains in rank order; the plan's StepTraffic says which, for a network model to
// re-time them on the job's real placement (models/training/step_comm.hpp has the arithmetic both use).
#pragma once

#include <cstdint>
#include <string>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/training/step_calibration.hpp"
#include "fleetwatt/models/training/training_io.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {

/// How one job's step is split and where its traffic goes.
struct ParallelStepJob {
  jobs::Parallelism parallel;
  std::uint32_t n_gpus = 1;
  double global_batch = 1.0;  ///< sequences (samples) per step
  std::uint32_t seq = 0;      ///< tokens per sequence (0: the model's input size)
  StepInputs step;            ///< per-sample work inputs (precision, stack, pass factor, power limit)
  jobs::Attention attention = jobs::Attention::fused;
  std::uint32_t gpus_per_node = 8;  ///< GPUs of one NVLink domain
  double internode_Bps = 0.0;       ///< per GPU, per direction, across domains; 0: the GPU's PCIe figure
  TrainingIoConfig io;              ///< overlap, backward share, collective latency, gradient bytes
  StepCalibration calibration = default_step_calibration();  ///< in-step GEMM, attention, TP overlap
};

/// One training step of every GPU of the job (all GPUs of a synchronous job take the same time).
struct ParallelStep {
  std::uint32_t dp = 1;
  double micro_batch = 1.0;       ///< sequences per micro-batch
  double micro_batches = 1.0;     ///< m per step on each replica
  double layers_per_stage = 0.0;  ///< the even share, layers / pp
  double pace_layers = 0.0;       ///< layers of the slowest stage, whose micro-batch sets the pace
  RooflineStep micro;  ///< one micro-batch's forward + backward on the slowest stage's GPU (no optimiser)
  double micro_batch_s = 0.0;         ///< micro.work_s: the slowest stage's, which sets the pace
  double first_micro_batch_s = 0.0;   ///< the same on the first stage
  double middle_micro_batch_s = 0.0;  ///< ... on a middle stage (the first when pp = 2)
  double last_micro_batch_s = 0.0;    ///< ... on the last stage, which also runs the output head
  /// What a micro-batch on the slowest stage spends in each kind of work at full clocks (the tensor-core
  /// path; 0 on the roofline's): its GEMMs, its attention and its element-wise work (FP8 casts included).
  double gemm_s = 0.0, attention_s = 0.0, elementwise_s = 0.0;
  /// FLOP-weighted efficiency of the slowest stage's GEMMs and of its attention (of the peak they run at).
  double gemm_efficiency = 0.0, attention_efficiency = 0.0;
  std::string efficiency_rule;   ///< where the GPU's tensor-core efficiency comes from (fitted, MAMF, ...)
  double optimizer_s = 0.0;      ///< the optimiser step on the GPU's shard (at the micro-batch's clocks)
  double compute_s = 0.0;        ///< m x micro_batch_s + optimizer_s
  double data_s = 0.0;           ///< host loading of the replica's batch (runs ahead of the GPU)
  double bubble_fraction = 0.0;  ///< bubble / pipelined time: (pp - 1) / (vp m + pp - 1) for equal stages
  double bubble_s = 0.0;         ///< the other stages' slots once, / vp
  double tp_comm_s = 0.0;        ///< exposed tensor-parallel collectives
  double cp_comm_total_s = 0.0;  ///< context-parallel sends before the attention hides them
  double cp_comm_s = 0.0;        ///< their exposed part
  double pp_comm_s = 0.0;        ///< exposed pipeline send/recv (fill and drain)
  double dp_comm_total_s = 0.0;  ///< data-parallel traffic before overlap
  double dp_comm_s = 0.0;        ///< its exposed part
  double comm_s = 0.0;           ///< tp + cp + pp + exposed dp
  double step_s = 0.0;           ///< compute + bubble + comm
  /// Links the traffic used (bytes/s per GPU and direction): the NVLink domain's measured bus bandwidth or
  /// the inter-node figure.
  double tp_link_Bps = 0.0, cp_link_Bps = 0.0, pp_link_Bps = 0.0, dp_link_Bps = 0.0, dp_outer_link_Bps = 0.0;
  /// What of it leaves the NVLink domain (a network model re-times these; the rest keeps its time here).
  jobs::StepTraffic traffic;
  bool dp_crosses = false, dp_outer_crosses = false, pp_crosses = false, cp_crosses = false;
};

/// The step of `model` run as `job` on `gpu`; the roofline and power constants are the predictor's.
/// Throws std::invalid_argument when tp x cp x pp does not divide n_gpus or the batch gives no micro-batch.
[[nodiscard]] ParallelStep parallel_step(const ModelCount& model, const ParallelStepJob& job,
                                         const GpuHardware& gpu, const RooflineConstants& time,
                                         const UtilisationPowerConstants& power);

/// The stage's share of the model: every operator class's per-sample FLOPs and bytes and the weights over
/// tp x pp, kernel launches and parameter tensors over pp, parameters over tp x pp; the output head
/// (ModelCount::head_ops) runs on the `last` stage only (on the one stage when pp = 1), over tp.
[[nodiscard]] ModelCount pipeline_stage(const ModelCount& model, std::uint32_t tp, std::uint32_t pp,
                                        bool last = false);

/// Model FLOPs of one step (no recomputation counted): global batch x seq x training FLOPs per token for a
/// transformer with its shape, else global batch x training FLOPs per sample.
[[nodiscard]] double model_flops_per_step(const ModelCount& model, double global_batch, std::uint32_t seq,
                                          double training_flops_per_sample);

/// Model-FLOPs utilisation: model FLOPs per step / (step time x GPUs x the GPU's peak for the precision).
[[nodiscard]] double model_flops_utilisation(double model_flops, double step_s, std::uint32_t n_gpus,
                                             const GpuHardware& gpu, jobs::Precision precision);

/// True for a job whose GEMMs parallel_step times kernel by kernel on the tensor cores: a transformer with
/// its shape in a 16-bit, TF32 or FP8 precision. FP32 keeps the roofline's fitted constants, which also
/// carry what its classes do besides their GEMMs in eager FP32 runs (NeuSight's among them). The datasheet
/// predictor gives every such job the 3D-parallel step, whatever its split.
[[nodiscard]] bool tensor_core_step(const ModelCount& model, jobs::Precision precision) noexcept;

/// Whether a group of a job's ranks spans several NVLink domains of `domain` GPUs when the job is placed on
/// whole domains in rank order: the group of rank 0 whose members lie `stride` ranks apart, `count` of
/// them, reaches rank stride x (count - 1).
[[nodiscard]] bool group_leaves_domain(std::uint64_t stride, std::uint64_t count,
                                       std::uint32_t domain) noexcept;

}  // namespace fleetwatt::models
