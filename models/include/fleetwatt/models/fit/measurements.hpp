// Measured training (or inference) runs as the predictor's validation and fitting see them: one row per
// measured configuration, whatever file layout it came from. Readers for the layouts fleetwatt knows: the
// Zeus summary CSV (time per epoch and average power vs batch and power limit), the GAISSA records CSV
// (whole Keras runs), the NeuSight label folders (per-step latency JSON files) and fleetwatt's own records
// CSV (what `fleetwatt calibrate --records` writes). `fleetwatt validate` and the joint fit read through
// here.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/fit/gemm_efficiency.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {

/// One measured configuration.
struct Measurement {
  std::string source;          ///< layout: "zeus", "gaissa", "neusight", "records"
  jobs::SourceLocation where;  ///< file and line (or the JSON file) it came from
  std::string gpu;             ///< preset id of the GPU it ran on
  std::string workload;        ///< what ran, for grouping ("resnet50/imagenet", "bert_large-train")
  /// The run as a job: model metadata (zoo name, input size, batch, samples per epoch, precision; for
  /// inference or a frozen backbone training_flops_per_sample = forward FLOPs) and GPU count. For per-step
  /// measurements dataset_samples equals the global batch (one step per "epoch").
  jobs::JobSpec job;
  bool inference = false;      ///< forward passes only
  double power_limit_W = 0.0;  ///< the GPU's power limit in the run; 0: its default (TDP)
  double step_s = 0.0;         ///< measured seconds per step; 0: not measured
  double epoch_s = 0.0;        ///< measured seconds per epoch; 0: not measured
  double avg_power_W = 0.0;    ///< measured average GPU power over the run; 0: not measured
  double tdp_W = 0.0;          ///< the board's own maximum limit where the source states it; 0: preset's
  /// The measured share of the run's time with a kernel running on the GPU (nvidia-smi's utilization.gpu,
  /// averaged over the run), where the source measured it; 0: not measured.
  double gpu_busy = 0.0;
  /// The model as the source ran it where that differs from the zoo model of the same name (NeuSight's
  /// "gpt3_xl" is 24 layers of width 3072, not the published 2048); the row is predicted with this shape.
  std::optional<TransformerShape> shape;

  /// A per-step row (NeuSight): its time is step_s; otherwise the epoch's.
  [[nodiscard]] bool per_step() const noexcept { return !(epoch_s > 0.0) && step_s > 0.0; }
  /// The measured time of the kind the row holds (0: none).
  [[nodiscard]] double time_s() const noexcept { return per_step() ? step_s : epoch_s; }
};

/// True for a row whose job fleetwatt knows only by the FLOPs its source quotes (the job's
/// known_by_flops_only, models/zoo/model_zoo.hpp) and that has no measured shape: its work at the source's
/// unstated input size is a nuisance of the fit (PredictorFit::workload_work, keyed by the row's workload).
[[nodiscard]] bool known_by_flops_only(const Measurement& m);

/// What could not be used, and why (a row of an unknown workload, a GPU without a preset, ...).
struct SkippedMeasurement {
  jobs::SourceLocation where;
  std::string why;
};

struct MeasurementSet {
  std::vector<Measurement> rows;
  std::vector<SkippedMeasurement> skipped;
  /// The traced GEMM kernels of NeuSight's per-operator CSVs (<model>-<train|inf>-<seq>-<batch>.csv beside
  /// the step files), for the fit's per-family GEMM efficiency (FitOptions::gemm_samples).
  std::vector<GemmSample> gemms;
};

/// Reads a measurement file or folder, detecting its layout: a Zeus summary CSV (header
/// dataset,network,batch_size,optimizer,power_limit,time_per_epoch,average_power; the GPU from the file name
/// summary_power_<gpu>.csv), a GAISSA records CSV, a NeuSight label folder (label/ with one folder per GPU,
/// or one GPU's folder), a fleetwatt records CSV; a folder holding several of these (../shared/data) is read
/// whole. Throws core::ConfigError (file, line or record, key) for a file it cannot read.
[[nodiscard]] MeasurementSet read_measurements(const std::filesystem::path& path);

/// A measured run as a record states it (a records CSV row, a site file's [[run]]); 0 where not stated.
struct RecordedRun {
  std::string model, gpu_type;
  double params = 0.0, flops = 0.0, data_size = 0.0;
  std::uint32_t batch_size = 0, input_size = 0, workers = 0, epochs = 0, gpus = 0;
  double epoch_s = 0.0, power_W = 0.0;                  ///< the measured epoch and mean power
  double power_limit_W = 0.0, max_power_limit_W = 0.0;  ///< the board's limits as the log read them
};

/// A recorded run's measured epoch and mean power: the epochs found in its log (`epoch_s`, `epoch_W`, 0 where
/// none were found), else one peak and one valley of its square wave.
void set_measured_epoch(RecordedRun& run, double epoch_s, double epoch_W,
                        const jobs::PhaseProfile& square_wave);

/// The GPU preset id for a record's gpu_type (a preset id, or a GPU's name as a source spells it); empty
/// where fleetwatt has no preset for it.
[[nodiscard]] std::string record_gpu(const std::string& gpu_type);

/// A recorded run as a measurement (source "records"; its GPU empty where gpu_type has no preset). A model
/// "keras-<architecture>" of GAISSA's Keras applications is described as GAISSA's own rows describe it.
[[nodiscard]] Measurement recorded_measurement(const RecordedRun& run, const jobs::SourceLocation& where);

/// The preset id for a GPU as a measurement source names it ("Tesla_V100-PCIE-32GB", "NVIDIA GeForce RTX
/// 3070", "a40", ...); empty when fleetwatt has no preset for it.
[[nodiscard]] std::string preset_for_gpu_name(const std::string& name);

}  // namespace fleetwatt::models
