// Published LLM pre-training step times with their full parallel configurations: the development set of the
// 3D-parallel step model (models/training/llm_step_time.hpp). Readers for the layouts in ../shared/data:
//  - NVIDIA NeMo's performance summary (nemo-performance/performance_summary_24.07.md): a Markdown table of
//    FP8 pre-training runs on DGX-H100 (model, GPUs, GBS, MBS, sequence, TP, PP, CP, VP, tokens/s/GPU);
//  - NeMo's long-sequence table (nemo-performance/performance_long_sequence.md): HTML tables of Llama 2 7B
//    (H100) and Llama 3 8B (B200), FP8, model TFLOP/s per GPU at 4K-1M tokens with context parallelism;
//  - Megatron-Bridge's performance summaries (megatron-bridge-performance/*.md): Markdown tables per NeMo
//    container release, by model or by system, with precision, FSDP, EP and gradient accumulation columns.
// A published step time is the global batch's tokens over the run's tokens per second (tokens/s/GPU x GPUs);
// where a source gives only model TFLOP/s, over its own FLOP count (NeMo's formula of that release).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/training/step_calibration.hpp"

namespace fleetwatt::models {

/// One published pre-training run.
struct PublishedStep {
  core::SourceLocation where;  ///< file and line of its row
  std::string source;          ///< "NeMo 24.07", "Megatron-Bridge 25.11", ...
  std::string model;           ///< the source's name ("LLAMA3_70B", "GPT3-175B")
  std::string zoo;             ///< fleetwatt's zoo name ("llama3_70b"); empty when the zoo has no such model
  std::string system;          ///< the source's system ("DGX-H100")
  std::string gpu;             ///< fleetwatt's preset ("h100-sxm"); empty when none
  std::string precision_name;  ///< as printed ("FP8-CS", "BF16", "MXFP8")
  jobs::Precision precision = jobs::Precision::bf16;
  bool precision_supported = false;  ///< BF16 and FP8 (current or delayed scaling): what fleetwatt models
  std::uint32_t gpus = 0;
  std::uint32_t global_batch = 0;  ///< sequences
  std::uint32_t seq = 0;
  jobs::Parallelism parallel;  ///< tp, pp, cp, vp, ep, micro_batch, zero 3 with fsdp_shard_size for FSDP
  double tokens_per_s_per_gpu = 0.0;  ///< 0 when the source gives only TFLOP/s
  double model_tflops_per_gpu = 0.0;
  double step_s = 0.0;  ///< the published step time (see the header)
  /// Why fleetwatt cannot express the run (an unknown model, system or precision); empty when it can.
  std::string unsupported;
};

/// Reads the published-step files under `path` (a folder, read recursively, or one file); files of other
/// layouts are ignored. Rows come in file order, files in path order. Throws core::ConfigError (file:line)
/// for a table row of a known layout that does not parse.
[[nodiscard]] std::vector<PublishedStep> read_published_steps(const std::filesystem::path& path);

/// The zoo name of a model as NeMo and Megatron-Bridge print it ("LLAMA3.1_405B", "GPT3-175B",
/// "Nemotron-340B"); empty when the zoo has none.
[[nodiscard]] std::string zoo_name_for_published_model(const std::string& name);
/// The GPU preset of a system as they print it ("DGX-H100" -> "h100-sxm"); empty when none.
[[nodiscard]] std::string preset_for_system(const std::string& system);

/// A published run as a fleetwatt job: its model (the zoo's, or the zoo model's shape beyond its trained
/// context for NeMo's long-sequence runs), GPUs, global batch as one step per epoch, sequence, precision,
/// the optimized stack (Transformer Engine, fused kernels), its split with the distributed optimizer (ZeRO
/// 1; FSDP rows ZeRO-3 over the data-parallel group) and no recomputation (the benchmark recipes' default).
[[nodiscard]] jobs::JobSpec published_step_job(const PublishedStep& row);

/// One published step time beside the datasheet predictor's.
struct StepComparison {
  const PublishedStep* row = nullptr;
  double predicted_s = 0.0;
  double error = 0.0;  ///< predicted / published - 1
  double mfu = 0.0;    ///< the prediction's model-FLOPs utilisation
  /// The predicted step's parts: compute, bubble, exposed tensor-, context-, pipeline- and data-parallel
  /// communication (seconds per step).
  double compute_s = 0.0, bubble_s = 0.0, tp_s = 0.0, cp_s = 0.0, pp_s = 0.0, dp_s = 0.0;
  /// Memory per GPU the model counts, and whether it fits the GPU: a published run that does not fit ran
  /// with means the table does not state (activation offloading, recomputation); its step is compared all
  /// the same, and the table says so.
  double memory_bytes = 0.0;
  bool fits = true;
  std::string refused;  ///< the predictor's refusal, empty when predicted
};

/// The systems' links as the predictor sees them: one 400 Gb/s NIC per GPU across servers (DGX H100, B200,
/// GB200 compute trays: 50 GB/s), the GPU preset's NVLink domain inside (8 GPUs, 72 on GB200).
[[nodiscard]] double published_system_internode_Bps();

/// Predicts every row fleetwatt can express (PublishedStep::unsupported empty) with the default datasheet
/// predictor on its system's links and `calibration`; the others are left out.
[[nodiscard]] std::vector<StepComparison> compare_published_steps(
    const std::vector<PublishedStep>& rows, const StepCalibration& calibration = default_step_calibration());

/// The source a row's calibration error is reported by: "NeMo 24.07", "NeMo long-sequence", "Megatron-Bridge
/// H100", "Megatron-Bridge Blackwell".
[[nodiscard]] std::string calibration_group(const PublishedStep& row);

/// The step model's calibration fitted on the rows fleetwatt can express: the gemm, attention and
/// tensor-parallel overlap factors of least mean |ln(predicted / published)|, by coordinate descent from
/// (1, 1, 0.5) with halving steps (deterministic), within gemm 0.8-2, attention 0.5-3, overlap 0-1; and
/// each calibration group's mean |error| fitted without it. Throws std::invalid_argument without rows.
[[nodiscard]] StepCalibration fit_step_calibration(const std::vector<PublishedStep>& rows);

}  // namespace fleetwatt::models
