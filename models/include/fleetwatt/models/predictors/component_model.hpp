// Component power model ("Explainer: Energy Modeling for Training Runs"): a GPU's draw is
// P = P_idle + P_dyn + P_mem_io, where P_dyn follows the SM utilisation (60-95 % in compute-bound phases,
// 20-40 % in I/O-bound ones) scaled by precision and kernel-fusion factors, and P_mem_io follows memory and
// I/O activity. A run's energy is E = P_avg * T, and the facility's E * PUE. Every figure carries an
// uncertainty band: +-15 % on dynamic power by default, +-25 % for communication-heavy jobs.
//
// The explainer's worked example (a 4-GPU node, 520 W per GPU, for 10 h "= 2.08 kWh") is off by a factor of
// ten: E = P * T = 4 * 520 W * 36000 s = 74.88 MJ = 20.8 kWh. The physics is used here.
#pragma once

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"

namespace fleetwatt::models {

/// Utilisation ranges the explainer gives, as fractions.
inline constexpr double kComputeBoundUtilisationLow = 0.60, kComputeBoundUtilisationHigh = 0.95;
inline constexpr double kIoBoundUtilisationLow = 0.20, kIoBoundUtilisationHigh = 0.40;

/// What a phase does to the GPU.
struct ComponentActivity {
  double utilisation = 0.8;      ///< SM busy fraction (0..1)
  double memory_activity = 0.5;  ///< fraction of the memory/I-O power budget in use (0..1)
  jobs::Precision precision = jobs::Precision::fp32;
  double fusion_factor = 1.0;    ///< < 1 when fused kernels cut the dynamic power per unit of work
  double pipeline_factor = 1.0;  ///< fraction of time the data pipeline keeps the GPU fed (0..1)
};

/// Constants of the model (defaults are assumptions stated in docs/components.md; the datasheet predictor's
/// calibration overrides them).
struct ComponentParams {
  double resident_floor_fraction = 0.18;  ///< draw above idle of a GPU holding a job, as a fraction of TDP
  double dynamic_share = 1.0;             ///< share of (TDP - floor) the SMs can draw at full utilisation
  double mem_io_share = 0.67;             ///< share of (TDP - floor) memory and I/O can draw at full activity
  double fp16_power_factor =
      1.0;  ///< dynamic power of FP16/BF16 tensor work relative to FP32 per busy second
};

/// The three terms of P, per GPU.
struct ComponentPower {
  double idle_W = 0.0;  ///< floor: idle plus what a resident job draws doing nothing
  double dynamic_W = 0.0;
  double mem_io_W = 0.0;

  [[nodiscard]] double total_W() const noexcept { return idle_W + dynamic_W + mem_io_W; }
};

/// Floor power of a GPU that holds a job: idle plus resident_floor_fraction x TDP, at most the TDP.
[[nodiscard]] double resident_floor_W(const GpuHardware& gpu, const ComponentParams& params = {}) noexcept;

/// P = P_idle + P_dyn + P_mem_io for one GPU, capped at the TDP.
[[nodiscard]] ComponentPower component_power(const GpuHardware& gpu, const ComponentActivity& activity,
                                             const ComponentParams& params = {});

/// E = P_avg * T (J).
[[nodiscard]] constexpr double run_energy_J(double avg_power_W, double seconds) noexcept {
  return avg_power_W * seconds;
}
/// Facility energy: E * PUE.
[[nodiscard]] constexpr double facility_energy_J(double it_energy_J, double pue) noexcept {
  return it_energy_J * pue;
}

/// Default relative band on dynamic power: 15 %, or 25 % for communication-heavy jobs.
[[nodiscard]] constexpr double dynamic_power_uncertainty(bool communication_heavy) noexcept {
  return communication_heavy ? 0.25 : 0.15;
}
/// Band on a run's energy when `dynamic_fraction` of its energy is dynamic (the idle floor is known).
[[nodiscard]] UncertaintyBand energy_uncertainty(double dynamic_fraction, bool communication_heavy) noexcept;

}  // namespace fleetwatt::models
