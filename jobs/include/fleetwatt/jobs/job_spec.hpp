// What a training job is, as the workload knows it: arrival, size, length, and the metadata a predictor
// needs. Times here are seconds (the input boundary); the engine converts them to its integer clock once.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "fleetwatt/jobs/param_set.hpp"
#include "fleetwatt/jobs/smoothing_mode.hpp"

namespace fleetwatt::jobs {

/// Numeric precision a job trains in; predictors use it for throughput and power factors.
enum class Precision { fp32, tf32, fp16, bf16, fp8 };

/// The software stack a job trains with: it shifts step time by up to 3x on the same model and GPU. eager:
/// PyTorch eager mode (the default, and what the fitting data ran); amp: automatic mixed precision in eager
/// mode; compiled: graph-compiled with fused element-wise kernels (torch.compile, XLA); optimized: a vendor
/// stack with fused attention and optimiser (Megatron, TensorRT-style kernels).
enum class SoftwareStack { eager, amp, compiled, optimized };
/// "eager", "amp", "compiled", "optimized".
[[nodiscard]] const char* to_string(SoftwareStack s) noexcept;
/// The stack named `name`; false when there is none.
[[nodiscard]] bool parse_software_stack(std::string_view name, SoftwareStack& out) noexcept;

/// Activation recomputation of a transformer job (Korthikanti et al. 2022): none keeps every activation for
/// the backward pass; selective recomputes the attention scores (the s^2 terms); full keeps only each
/// layer's input and recomputes the layer.
enum class Recompute { none, selective, full };
/// "none", "selective", "full".
[[nodiscard]] const char* to_string(Recompute r) noexcept;
/// The recomputation named `name`; false when there is none.
[[nodiscard]] bool parse_recompute(std::string_view name, Recompute& out) noexcept;

/// How a transformer's attention runs: fused (cuDNN's fused attention, FlashAttention-3: the scores never
/// reach memory, the causal half of them is computed, at the tensor cores' rate), as current training stacks
/// run it; flash2 (FlashAttention-2, the same without Hopper's asynchronous tensor cores: NeMo up to 24.07,
/// PyTorch's SDPA), slower; eager (the scores and probabilities written to memory, softmax between two
/// batched GEMMs).
enum class Attention { fused, flash2, eager };
/// "fused", "flash2", "eager".
[[nodiscard]] const char* to_string(Attention a) noexcept;
/// The attention named `name`; false when there is none.
[[nodiscard]] bool parse_attention(std::string_view name, Attention& out) noexcept;

/// The order of a job's ranks over its GPUs, innermost first (Megatron-Core's initialize_model_parallel
/// `order`): consecutive ranks differ in the first dimension. Megatron's default is tp-cp-dp-pp ("tp-cp-ep-
/// dp-pp": the pipeline outermost); tp-cp-pp-dp is its use_tp_pp_dp_mapping (a replica's stages together).
enum class RankOrder { tp_cp_dp_pp, tp_cp_pp_dp };
/// "tp-cp-dp-pp", "tp-cp-pp-dp".
[[nodiscard]] const char* to_string(RankOrder o) noexcept;
/// The order named `name`; false when there is none.
[[nodiscard]] bool parse_rank_order(std::string_view name, RankOrder& out) noexcept;

/// A rank's coordinates in the job's parallel groups.
struct RankCoords {
  std::uint32_t tp = 0, cp = 0, pp = 0, dp = 0;
};

/// How a job splits its model and batch over its GPUs (Megatron-LM 3D parallelism with context parallelism
/// and ZeRO). The job's n_gpus = tp x cp x pp x dp; experts are sharded over `ep` GPUs of the data-parallel
/// group (ep divides dp). All ones / zeros is plain data parallelism, what every job was before these keys.
struct Parallelism {
  std::uint32_t tp = 1;    ///< tensor-parallel degree (with sequence parallelism)
  std::uint32_t pp = 1;    ///< pipeline-parallel stages
  std::uint32_t ep = 1;    ///< expert-parallel degree (mixture-of-experts models)
  std::uint32_t zero = 0;  ///< ZeRO stage 0..3 (fsdp = 3)
  std::uint32_t micro_batch =
      0;  ///< sequences per micro-batch; 0: 1 with a pipeline, else the per-replica batch
  Recompute recompute = Recompute::none;
  /// Virtual stages (model chunks) per pipeline GPU: Megatron-LM's interleaved 1F1B schedule (Narayanan et
  /// al., SC'21, section 2.2.2) when above 1; needs pp >= 2.
  std::uint32_t vp = 1;
  /// Transformer layers on the first and on the last pipeline stage (Megatron-Core's
  /// decoder_first/last_pipeline_num_layers; the Llama 3 report gives them one layer fewer to offset the
  /// embedding and the output head); 0: the even share. The other stages share the rest evenly.
  std::uint32_t first_stage_layers = 0;
  std::uint32_t last_stage_layers = 0;
  /// Context-parallel degree: each sequence split over cp GPUs (ring attention, their KV blocks passed
  /// around the ring under the attention's compute; Megatron-Core's cp_comm_type "p2p").
  std::uint32_t cp = 1;
  /// ZeRO-3 / FSDP hybrid sharding: model state sharded within groups of this many data-parallel ranks and
  /// replicated across them (PyTorch HSDP, Megatron FSDP's outer groups); 0: sharded over the whole group.
  std::uint32_t fsdp_shard_size = 0;
  RankOrder order = RankOrder::tp_cp_dp_pp;
  /// Tensor-parallel traffic overlapped with the layer's GEMMs (Transformer Engine's userbuffers, NeMo's
  /// tp_comm_overlap); unset: on with the optimized stack and tp above 1.
  std::optional<bool> tp_comm_overlap = std::nullopt;

  /// The key of a pipeline setting given without the pipeline it needs (vp, first_stage_layers,
  /// last_stage_layers need pp >= 2) and why, or {} when there is none.
  [[nodiscard]] std::pair<std::string, std::string> pipeline_key_problem() const;

  /// Layers on the first stage, on each middle stage (the even share of the rest: an average, which may be
  /// fractional) and on the last stage of a model of `blocks` layers; all `blocks` without a pipeline.
  struct StageLayers {
    double first = 0.0, middle = 0.0, last = 0.0;
  };
  [[nodiscard]] StageLayers stage_layers(std::uint32_t blocks) const noexcept;
  /// The key of a pipeline setting that `model` of `blocks` transformer layers cannot take and why, or {}:
  /// more chunks (pp x vp) than layers; layers that do not divide among the stages without first / last
  /// stage layers; stage layers on a model without layers; first / last stage layers that leave the other
  /// stages no common whole number of layers, at least one.
  [[nodiscard]] std::pair<std::string, std::string> pipeline_layers_problem(std::uint32_t blocks,
                                                                            std::string_view model) const;

  /// GPUs of one model replica: tp x cp x pp.
  [[nodiscard]] std::uint64_t replica_gpus() const noexcept {
    return static_cast<std::uint64_t>(tp) * cp * pp;
  }
  /// Data-parallel degree of a job on `n_gpus` GPUs (0 when tp x cp x pp does not divide it).
  [[nodiscard]] std::uint32_t dp(std::uint32_t n_gpus) const noexcept {
    const std::uint64_t mp = replica_gpus();
    return mp == 0 || n_gpus % mp != 0 ? 0 : static_cast<std::uint32_t>(n_gpus / mp);
  }
  /// Micro-batch in sequences for a replica batch of `per_replica` sequences: the given one (at most the
  /// replica's batch), else one sequence with a pipeline (Megatron's default), else the whole replica batch.
  [[nodiscard]] double micro_batch_of(double per_replica) const noexcept;
  /// The ZeRO-3 shard group's data-parallel ranks on a job of `dp` replicas (fsdp_shard_size, or dp).
  [[nodiscard]] std::uint32_t shard_group(std::uint32_t dp) const noexcept {
    return zero >= 3 && fsdp_shard_size > 0 && fsdp_shard_size < dp ? fsdp_shard_size : dp;
  }
  /// Coordinates of rank `r` (0 .. n_gpus - 1) under `order`, and the rank of coordinates `c`.
  [[nodiscard]] RankCoords coords(std::uint32_t r, std::uint32_t dp) const noexcept;
  [[nodiscard]] std::uint32_t rank(const RankCoords& c, std::uint32_t dp) const noexcept;
  /// The key of a context-parallel or sharding setting that this job cannot take and why, or {}: cp that
  /// does not divide the sequence (`seq` tokens; in 2 cp chunks, Megatron's load balancing of the causal
  /// mask), fsdp_shard_size without ZeRO-3 or not dividing the data-parallel degree `dp`.
  [[nodiscard]] std::pair<std::string, std::string> split_problem(std::uint32_t seq, std::uint32_t dp) const;
  friend bool operator==(const Parallelism&, const Parallelism&) = default;
};

/// How the engine draws a job whose plan has training steps (EpochPlan::steps > 0): automatic: step by
/// step when it is model-parallel (tp, cp or pp above 1) and its step period is at least the run's threshold
/// ([output] step_waveform_min_s), else as epochs; steps: always step by step; epochs: the epoch's square
/// wave, as every job before steps.
enum class Waveform { automatic, steps, epochs };
/// "auto", "steps", "epochs".
[[nodiscard]] const char* to_string(Waveform w) noexcept;
/// The waveform named `name`; false when there is none.
[[nodiscard]] bool parse_waveform(std::string_view name, Waveform& out) noexcept;

/// How a job writes its checkpoints: sync (the GPUs wait for the write), async (they wait only for the copy
/// of their shard to host memory; the write to storage proceeds beside the next steps, as NeMo's and
/// PyTorch's distributed asynchronous checkpointing do).
enum class CheckpointMode { sync, async };
/// "sync", "async".
[[nodiscard]] const char* to_string(CheckpointMode m) noexcept;
/// The mode named `name`; false when there is none.
[[nodiscard]] bool parse_checkpoint_mode(std::string_view name, CheckpointMode& out) noexcept;

/// A step-level job's schedule around its steps (docs/predictors.md "Step-level power waveform").
struct StepSchedule {
  Waveform waveform = Waveform::automatic;
  /// Training steps between checkpoints (0: one checkpoint per epoch, the plan's steps).
  std::uint32_t checkpoint_every_steps = 0;
  /// Model load and warm-up before the first step, near the floor (unset: the plan's checkpoint part,
  /// reading the checkpoint back at the bandwidth it is written at; 0 for a job matched to a recorded run
  /// time, which holds it already).
  std::optional<double> startup_s;
  CheckpointMode checkpoint = CheckpointMode::sync;
};

/// A decoder-only transformer given by its shape (a scenario's model keys, `predict --model-shape`), so any
/// GPT-like model can be predicted without a zoo entry: Llama's layout by default (RMSNorm, rotary
/// positions, no biases, untied embeddings, a gated SwiGLU feed-forward), experts when experts > 1.
struct ModelShape {
  std::uint32_t layers = 0;      ///< 0: no shape given
  std::uint32_t hidden = 0;      ///< d_model
  std::uint32_t heads = 0;       ///< attention heads (hidden / heads per head)
  std::uint32_t kv_heads = 0;    ///< key/value heads (grouped-query attention); 0: heads
  std::uint32_t ffn_hidden = 0;  ///< feed-forward width; 0: 4 x hidden
  std::uint32_t vocab = 0;       ///< vocabulary (0: no embedding or output head)
  std::uint32_t experts = 1;     ///< feed-forward experts per layer (mixture of experts when above 1)
  std::uint32_t top_k = 1;       ///< experts each token runs
  bool gated = true;             ///< gated feed-forward (3 matrices: SwiGLU, GeGLU), else 2 (GELU, ReLU^2)
  [[nodiscard]] bool given() const noexcept { return layers > 0; }
  /// The key of a shape that cannot be, and why (heads not dividing hidden, kv_heads not dividing heads,
  /// top_k above experts, a missing width); {} when it is whole.
  [[nodiscard]] std::pair<std::string, std::string> problem() const;
  friend bool operator==(const ModelShape&, const ModelShape&) = default;
};

/// Per-GPU power square wave of one epoch: a compute (peak) phase, then a checkpoint/sync/eval (valley)
/// phase.
struct PhaseProfile {
  double peak_W = 0.0;
  double peak_s = 0.0;
  double valley_W = 0.0;
  double valley_s = 0.0;

  [[nodiscard]] double epoch_s() const noexcept { return peak_s + valley_s; }
  /// Mean per-GPU power over one epoch.
  [[nodiscard]] double mean_W() const noexcept {
    const double t = epoch_s();
    return t > 0.0 ? (peak_W * peak_s + valley_W * valley_s) / t : 0.0;
  }
  /// Per-GPU energy of one epoch.
  [[nodiscard]] double epoch_energy_J() const noexcept { return peak_W * peak_s + valley_W * valley_s; }

  friend bool operator==(const PhaseProfile&, const PhaseProfile&) = default;
};

/// Metadata of the model and data a job trains on (what the task-metadata predictors read).
/// Zero means "not given"; predictors fill what they can from a model zoo or a job class.
struct ModelMetadata {
  std::string model;              ///< zoo name ("resnet50", "vit-b16", ...) or empty
  double params = 0.0;            ///< trainable parameters
  double flops_per_sample = 0.0;  ///< forward-pass FLOPs per sample (FLOP convention: docs/predictors.md)
  double training_flops_per_sample =
      0.0;                       ///< FLOPs of one sample's training step; 0: 3 x forward (full
                                 ///< backward); about 1 x forward when a frozen backbone is fine-tuned
  std::uint32_t batch_size = 0;  ///< global batch size, samples
  double dataset_samples = 0.0;  ///< samples per epoch
  std::uint32_t input_size = 0;  ///< image side (pixels) or sequence length (tokens)
  std::uint32_t workers = 0;     ///< data-loader workers
  Precision precision = Precision::fp32;
  SoftwareStack stack = SoftwareStack::eager;
  Parallelism parallel;  ///< model and pipeline split, ZeRO stage, micro-batch, recomputation
  Attention attention = Attention::fused;  ///< how a transformer's attention runs (others: unused)
  ModelShape shape;  ///< a model given by its shape (model names it); not given: a zoo model or FLOPs
};

/// What an epoch's time goes to, in the order the parts run: the training steps' GPU work, their
/// exposed gradient communication and exposed data loading (these three interleave step by step, far
/// faster than any power series samples them), then the epoch's end: checkpoint write and the fixed
/// end-of-epoch work (loader restart, evaluation hooks).
enum class PartKind : std::uint8_t { compute, comm, io, checkpoint };
inline constexpr std::size_t kPartKinds = 4;
/// "compute", "comm", "io", "checkpoint".
[[nodiscard]] const char* to_string(PartKind k) noexcept;

/// The parallel groups whose exposed communication a step-level plan keeps apart (EpochPlan::comm_by_group):
/// tensor-parallel collectives (inside the NVLink domain: never re-timed by a fabric), context-parallel KV
/// exchange, pipeline sends and the data-parallel reduction.
enum class CommGroup : std::uint8_t { tp, cp, pp, dp };
inline constexpr std::size_t kCommGroups = 4;
/// "tp", "cp", "pp", "dp".
[[nodiscard]] const char* to_string(CommGroup g) noexcept;

/// The traffic of one training step that may cross servers, per GPU, as the predictor planned it: what a
/// network model re-times from the job's placement (docs/interconnect.md "3D-parallel jobs on a fabric"). The
/// timing arithmetic that turns it into exposed seconds is models/training/step_comm.hpp, for the predictor
/// and the network alike.
struct StepTraffic {
  /// A ring collective over each group of `ranks` GPUs: `passes` ring passes (reduce-scatter 1, all-gather
  /// 1, all-reduce 2), each moving (ranks - 1) / ranks of `bytes` per GPU, `times` per step. `fabric`: its
  /// groups leave the NVLink domain, so a network model re-times it; otherwise it keeps `plan_s`, its
  /// seconds per step as planned (on the domain's measured collective bandwidth).
  struct Ring {
    std::uint32_t ranks = 1;
    double bytes = 0.0;
    double passes = 0.0;
    double times = 0.0;
    bool fabric = false;
    double plan_s = 0.0;
    /// On the fabric: the group's members per NVLink domain, g. NCCL runs a ring (channel) per NIC, so the
    /// traffic between domains goes over g rails at once, each carrying 1/g of it; the ring cannot be faster
    /// than `floor_s`, its traffic over the domain's NVLink bus bandwidth.
    std::uint32_t rails = 1;
    double floor_s = 0.0;
    [[nodiscard]] bool any() const noexcept {
      return ranks > 1 && bytes > 0.0 && passes > 0.0 && times > 0.0;
    }
    friend bool operator==(const Ring&, const Ring&) = default;
  };
  /// Point-to-point sends on the step's critical path, each of `bytes` per GPU; `fabric` and `plan_s` as
  /// for a ring.
  struct Sends {
    double bytes = 0.0;
    double count = 0.0;
    bool fabric = false;
    double plan_s = 0.0;
    [[nodiscard]] bool any() const noexcept { return bytes > 0.0 && count > 0.0; }
    friend bool operator==(const Sends&, const Sends&) = default;
  };
  /// The data-parallel reduction (and ZeRO-3's gathers) over each data-parallel group of tp x cp x pp-th
  /// ranks (data x context parallel: context-parallel ranks hold the same weights), or over each shard group
  /// under hybrid sharding; `dp_outer`: hybrid sharding's all-reduce of each shard across the replicas.
  Ring dp, dp_outer;
  double dp_window_s = 0.0;  ///< the step's compute the data-parallel traffic can hide behind
  double dp_overlap = 0.0;   ///< the share of the traffic that can hide at most
  Sends pp;                  ///< pipeline boundary sends of the fill and the drain
  Sends cp;                  ///< context-parallel KV (and gradient) blocks around the ring
  double cp_window_s = 0.0;  ///< the attention compute of the step they pass under
  double alpha_s = 0.0;      ///< software latency per message (per ring step, per send)
  friend bool operator==(const StepTraffic&, const StepTraffic&) = default;
};

/// One part of an epoch: how long it lasts and what each of the job's GPUs draws meanwhile.
struct EpochPart {
  double s = 0.0;
  double W = 0.0;
  friend bool operator==(const EpochPart&, const EpochPart&) = default;
};

/// A predictor's plan of one epoch on one GPU type: its parts, and the metadata the traffic comes from.
/// A network model re-times only the comm and io parts (from the job's placement and the traffic of
/// `model`: gradient bytes, samples, input size, checkpoint size); compute is never touched.
struct EpochPlan {
  std::array<EpochPart, kPartKinds> parts{};  ///< by PartKind
  /// The model and data as the predictor resolved them (zoo or class figures filled in): the one source
  /// of the job's network traffic.
  ModelMetadata model;
  /// Training steps per epoch when compute, comm, io and bubble are the totals of identical steps (LLM
  /// jobs; 0: an epoch-level plan whose parts are only known as totals). A step-level waveform repeats
  /// one step's share of each part.
  double steps = 0.0;
  /// Pipeline bubble per epoch (total over its steps): stage GPUs wait while the pipeline fills and
  /// drains, near their resident floor. Part of the peak phase; never re-timed by the network.
  EpochPart bubble{};
  /// A step-level plan's exposed communication per epoch by parallel group (CommGroup); they sum to the
  /// comm part's seconds. Zero for an epoch-level plan.
  std::array<double, kCommGroups> comm_by_group{};
  /// A step-level plan's traffic per step (what a fabric re-times), shared and never changed; null for an
  /// epoch-level plan (most jobs: a plan stays small), whose traffic the network derives from `model` (its
  /// whole gradients over all its GPUs).
  std::shared_ptr<const StepTraffic> traffic;
  /// The job's whole checkpoint (weights and optimiser state, every shard), bytes, and how many of its GPUs
  /// write a shard of it; 0 bytes: the network derives them from `model` (an epoch-level plan of another
  /// predictor).
  double checkpoint_bytes = 0.0;
  std::uint32_t checkpoint_writers = 0;
  /// The write of checkpoint_bytes at the planned storage bandwidth, and (asynchronous checkpoints) the
  /// copy of each GPU's shard to host memory. The checkpoint part is the fixed end-of-epoch work plus the
  /// write (sync) or the copy (async: the write proceeds beside the next steps).
  double checkpoint_write_s = 0.0;
  double checkpoint_copy_s = 0.0;
  bool checkpoint_async = false;
  /// The checkpoint part's fixed work (barrier, metadata, loader restart): what is not the write or copy.
  [[nodiscard]] double checkpoint_fixed_s() const noexcept;

  [[nodiscard]] EpochPart& operator[](PartKind k) noexcept { return parts[static_cast<std::size_t>(k)]; }
  [[nodiscard]] const EpochPart& operator[](PartKind k) const noexcept {
    return parts[static_cast<std::size_t>(k)];
  }
  /// Calls f on every part and the bubble, for code that treats them alike (band scaling, checks).
  template <class F>
  void each_part(F&& f) {
    for (auto& p : parts) f(p);
    f(bubble);
  }
  template <class F>
  void each_part(F&& f) const {
    for (const auto& p : parts) f(p);
    f(bubble);
  }
  [[nodiscard]] double epoch_s() const noexcept;
  /// Per-GPU energy of one epoch.
  [[nodiscard]] double epoch_energy_J() const noexcept;
  /// The square-wave view: peak = the training steps (compute, comm, io and bubble at their
  /// time-weighted mean power), valley = the checkpoint part.
  [[nodiscard]] PhaseProfile profile() const noexcept;
  /// A plan from a measured or given square wave: its peak is all compute, its valley the checkpoint.
  [[nodiscard]] static EpochPlan from_profile(const PhaseProfile& p, ModelMetadata model = {});
};

/// How a job ended in the trace it came from (generated jobs draw one from the cluster's shares).
enum class JobStatus : std::uint8_t {
  unknown,    ///< the source does not say
  completed,  ///< finished normally
  failed,     ///< stopped by an error
  cancelled,  ///< stopped by its user or the operator
  running,    ///< still running when the trace ended: the recorded run time is a lower bound
  pending,    ///< never started before the trace ended
};

/// "completed", "failed", ...
[[nodiscard]] const char* to_string(JobStatus s) noexcept;

/// Bits of JobSpec::inferred: which fields were not in the source and were drawn from a documented,
/// seeded distribution (or, for epochs and dataset size, chosen to match a recorded run time).
namespace inferred {
inline constexpr std::uint32_t job_class = 1u << 0;
inline constexpr std::uint32_t model = 1u << 1;
inline constexpr std::uint32_t batch_size = 1u << 2;
inline constexpr std::uint32_t dataset_samples = 1u << 3;
inline constexpr std::uint32_t epochs = 1u << 4;
inline constexpr std::uint32_t precision = 1u << 5;
inline constexpr std::uint32_t n_gpus = 1u << 6;
inline constexpr std::uint32_t status = 1u << 7;
inline constexpr std::uint32_t deferrable = 1u << 8;
}  // namespace inferred

/// Comma-separated names of the set bits of an `inferred` mask ("model,batch_size,epochs"); "" for none.
[[nodiscard]] std::string inferred_names(std::uint32_t mask);

/// One job of the workload.
struct JobSpec {
  std::int64_t id = 0;
  std::string job_class;        ///< job class for class-based predictors; empty when phases are explicit
  SourceLocation class_origin;  ///< where job_class was written, for "unknown job class" errors
  double submit_s = 0.0;
  std::uint32_t n_gpus = 1;
  std::uint32_t epochs = 1;
  ModelMetadata meta;
  std::optional<PhaseProfile> phases;  ///< explicit per-epoch phases; overrides any predictor
  /// How the job's source spells a phase power's unit suffix, so that a complaint about `phases` names the
  /// key as its user wrote it: "_w" in a scenario (keys are lower case), "_W" in a CSV column (peak_W).
  std::string_view power_key_suffix = "_w";
  StepSchedule schedule;  ///< waveform, checkpoint interval and start-up of step-level plans

  // What a recorded trace says about the job (all optional; generators fill some of them too).
  std::string trace_id;  ///< the job's id in its source trace ("" if none)
  std::string user;      ///< (hashed) user name, "" if unknown
  JobStatus status = JobStatus::unknown;
  double gpu_fraction = 1.0;                 ///< share of each of its GPUs it asked for (GPU sharing), (0, 1]
  std::optional<double> recorded_runtime_s;  ///< run time the trace recorded (end - start)
  std::optional<double> recorded_wait_s;     ///< queueing delay the trace recorded (start - submit)
  std::optional<double> user_estimate_s;     ///< the user's requested wall time (SWF field 9, ...)
  /// The run time its epochs (and inferred dataset size) were chosen to match (match_runtime). On a fleet
  /// of several GPU types the engine matches it again on the type the job gets.
  std::optional<double> matched_runtime_s;
  /// Run-time limit: the engine stops the job this long after it starts, even mid-epoch (failed and
  /// cancelled jobs end early and draw power until then). Unset: the job runs all its epochs.
  std::optional<double> limit_s;
  /// [[workload.jobs]] failure_rate_per_gpu_hour: this job's interruption rate when [failures] is enabled
  /// (unset: the [failures] rate; 0: never interrupted).
  std::optional<double> failure_rate_per_gpu_hour;
  /// [[workload.jobs]] smoothing: this job's smoothing mode ("off", "smooth", "burn"; unset: [smoothing]'s),
  /// with the [smoothing] figures.
  std::optional<SmoothingMode> smoothing;
  bool deferrable = false;           ///< carbon-aware policies may delay its start
  std::optional<double> deadline_s;  ///< absolute time by which a deferrable job must finish
  std::uint32_t inferred = 0;        ///< bits from namespace `inferred`
};

}  // namespace fleetwatt::jobs
