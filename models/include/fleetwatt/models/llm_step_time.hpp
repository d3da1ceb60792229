// Step time of a 3D-parallel (tensor x pipeline x data) training job, Megatron-LM style (Narayanan et al.,
// SC'21, "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM"):
//  - one pipeline stage holds blocks / pp layers, each GPU of it 1/tp of their work (tensor parallelism with
//    sequence parallelism splits the GEMMs, the attention heads and the element-wise work alike); one
//    micro-batch's forward and backward on it is the operator-class roofline (models/roofline.hpp), plus one
//    forward again under full recomputation (the attention class only under selective recomputation); off
//    FP32, a transformer's tensor and attention classes run at the efficiency of their GEMMs' size
//    (models/gemm_efficiency.hpp);
//  - m = per-replica batch / micro_batch micro-batches run through a 1F1B pipeline: the stage works m
//    micro-batches and waits (pp - 1) micro-batch times while the pipeline fills and drains, a bubble
//    fraction (pp - 1) / (m + pp - 1) of the pipelined time; the interleaved schedule (vp virtual stages
//    per GPU) shortens the fill and drain to (pp - 1) / vp micro-batch times, (pp - 1) / (vp m + pp - 1).
//    The last stage also runs the output head (final norm and vocabulary projection), so it sets the pace:
//    m of its micro-batch times, plus (pp - 1) / vp of a middle stage's for the fill and drain;
//  - tensor-parallel all-reduces (4 per layer per micro-batch, 6 under full recomputation) of b s h
//    activations inside the NVLink domain, exposed;
//  - pipeline send/recv of b s h activations per stage boundary, exposed only while the pipeline fills
//    (forward) and drains (backward), at pp - 1 boundaries (pp vp - 1 interleaved); each of the tp GPUs
//    sends 1/tp of it over its own link (Megatron's scatter/gather);
//  - data-parallel gradient traffic of the GPU's tp x pp shard (all-reduce = reduce-scatter + all-gather;
//    ZeRO-3 / FSDP adds the forward all-gather of the weights), overlapped with the backward pass as
//    exposed_communication() says;
//  - the optimiser step once per step on the GPU's shard (ZeRO >= 1 shards it over dp too).
// Links: inside a node (gpus_per_node) the GPU's NVLink (PCIe without one); across nodes the inter-node
// bandwidth per GPU (0: the GPU's PCIe link, which GPU-direct RDMA through the node's NICs cannot exceed).
#pragma once

#include <cstdint>

#include "fleetwatt/models/gpu_hardware.hpp"
#include "fleetwatt/models/model_zoo.hpp"
#include "fleetwatt/models/roofline.hpp"
#include "fleetwatt/models/training_io.hpp"
#include "fleetwatt/workloads/job_spec.hpp"

namespace fleetwatt::models {

/// How one job's step is split and where its traffic goes.
struct ParallelStepJob {
  workloads::Parallelism parallel;
  std::uint32_t n_gpus = 1;
  double global_batch = 1.0;  ///< sequences (samples) per step
  std::uint32_t seq = 0;      ///< tokens per sequence (0: the model's input size)
  StepInputs step;            ///< per-sample work inputs (precision, stack, pass factor, power limit)
  std::uint32_t gpus_per_node = 8;
  double internode_Bps = 0.0;  ///< per GPU, per direction, across nodes; 0: the GPU's PCIe figure
  TrainingIoConfig io;         ///< overlap, backward share, collective latency, gradient bytes
};

/// One training step of every GPU of the job (all GPUs of a synchronous job take the same time).
struct ParallelStep {
  std::uint32_t dp = 1;
  double micro_batch = 1.0;       ///< sequences per micro-batch
  double micro_batches = 1.0;     ///< m per step on each replica
  double layers_per_stage = 0.0;  ///< the even share, layers / pp
  double pace_layers = 0.0;       ///< layers of the slowest stage, whose micro-batch sets the pace
  RooflineStep micro;  ///< one micro-batch's forward + backward on the last stage's GPU (no optimiser)
  double micro_batch_s = 0.0;         ///< micro.work_s: the slowest stage's, which sets the pace
  double first_micro_batch_s = 0.0;   ///< the same on the first stage
  double middle_micro_batch_s = 0.0;  ///< ... on a middle stage (the first when pp = 2)
  double last_micro_batch_s = 0.0;    ///< ... on the last stage, which also runs the output head
  double optimizer_s = 0.0;           ///< the optimiser step on the GPU's shard (at the micro-batch's clocks)
  double compute_s = 0.0;             ///< m x micro_batch_s + optimizer_s
  double data_s = 0.0;                ///< host loading of the replica's batch (runs ahead of the GPU)
  double bubble_fraction = 0.0;  ///< bubble / pipelined time: (pp - 1) / (vp m + pp - 1) for equal stages
  double bubble_s = 0.0;         ///< (pp - 1) x (middle_micro_batch_s + its TP traffic) / vp
  double tp_comm_s = 0.0;        ///< exposed tensor-parallel all-reduces
  double pp_comm_s = 0.0;        ///< exposed pipeline send/recv (fill and drain)
  double dp_comm_total_s = 0.0;  ///< data-parallel traffic before overlap
  double dp_comm_s = 0.0;        ///< its exposed part
  double comm_s = 0.0;           ///< tp + pp + exposed dp
  double step_s = 0.0;           ///< compute + bubble + comm
  double tp_link_Bps = 0.0, pp_link_Bps = 0.0, dp_link_Bps = 0.0;  ///< links the traffic used
};

/// The step of `model` run as `job` on `gpu`; the roofline and power constants are the predictor's.
/// Throws std::invalid_argument when tp x pp does not divide n_gpus or the batch gives no micro-batch.
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
                                             const GpuHardware& gpu, workloads::Precision precision);

}  // namespace fleetwatt::models
