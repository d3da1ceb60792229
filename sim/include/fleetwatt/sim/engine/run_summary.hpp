// Totals of one run, in SI units; results/ turns them into the human summary (kWh, kW, hours).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fleetwatt::sim {

struct RunSummary {
  std::string scheduler;
  std::string placement;
  std::string predictor;
  double horizon_s = 0.0;
  std::uint64_t jobs_total = 0;    ///< jobs in the workload, the warm-up's left out
  std::uint64_t jobs_arrived = 0;  ///< submitted in [0, horizon)
  std::uint64_t jobs_finished = 0;
  std::uint64_t jobs_running = 0;  ///< still running at the horizon
  std::uint64_t jobs_queued = 0;   ///< still waiting at the horizon
  double gpu_seconds = 0.0;        ///< allocated GPU time (GPU-s)
  double gpu_utilisation = 0.0;    ///< allocated GPU time / (GPUs * horizon)
  // The warm-up ([workload] warmup_s): simulated before 0 and left out of every other figure here (jobs
  // finished counts those that finished in [0, horizon)): arrived + jobs_at_start = finished + running +
  // queued. occupancy_at_start is allocated GPUs / GPUs at 0; its mean over the window is gpu_utilisation.
  double warmup_s = 0.0;
  std::uint64_t jobs_at_start = 0;  ///< running or queued at 0 (from the warm-up)
  double occupancy_at_start = 0.0;
  double gpu_energy_J = 0.0;
  double it_energy_J = 0.0;
  double facility_energy_J = 0.0;
  double peak_facility_W = 0.0;         ///< highest level held for a positive time
  double peak_facility_sample_W = 0.0;  ///< highest facility-interval mean
  double mean_facility_W = 0.0;
  double carbon_kg = 0.0;
  /// Weather-driven cooling ([facility] cooling = "weather"): facility energy / IT energy over the run and
  /// the lowest and highest facility-interval PUE. "constant": these stay 0 and are not written.
  std::string cooling = "constant";
  double pue = 0.0, pue_min_interval = 0.0, pue_max_interval = 0.0;
  /// On-site batteries ([[facility.battery]]): grid import (what the utility sees; carbon_kg and cost are
  /// then charged on it), its highest interval mean, the [grid] import limit, the hours an interval's import
  /// was above it, the energy lost in storage and the change of stored energy. Without batteries: not
  /// written.
  bool battery = false;
  double grid_import_J = 0.0, peak_grid_import_W = 0.0, import_limit_W = 0.0, hours_over_import_limit = 0.0;
  double storage_loss_J = 0.0, storage_change_J = 0.0;
  /// Grid events ([[grid.event]]; otherwise not written): how many, how many ridden through, the time the
  /// IT load was off the grid (transfer to return, not the ramp), the largest interval-mean load taken off
  /// the grid, the energy the UPS served and the energy left dark (UPS exhausted), the return ramp, and the
  /// jobs interrupted when a UPS ran out. grid_import_J and peak_grid_import_W above are set too.
  bool grid_events = false;
  std::uint32_t grid_event_count = 0, grid_events_ridden_through = 0;
  double time_off_grid_s = 0.0, load_lost_W = 0.0, ups_energy_J = 0.0, unserved_energy_J = 0.0;
  double return_ramp_W_per_s = 0.0;
  std::uint64_t grid_interruptions = 0;
  double cost = 0.0;  ///< electricity cost in the [grid.price] currency (0 without one)
  /// Predictions (a job on one GPU type) with a part drawing more than the GPU's TDP: capped to the TDP.
  std::uint64_t capped_predictions = 0;
  /// [failures] enabled (otherwise these stay 0 and are not written): interruptions that struck in [0,
  /// horizon), the count expected (each job's rate x its GPU time exposed: running epochs, not paused or
  /// restarting), the work redone and the restarts (GPU-seconds and GPU energy).
  bool failures = false;
  double failure_rate_per_gpu_hour = 0.0;
  std::uint64_t interruptions = 0;
  double interruptions_expected = 0.0;
  double failure_exposure_gpu_s = 0.0;
  double lost_gpu_s = 0.0, lost_J = 0.0;
  double restart_gpu_s = 0.0, restart_J = 0.0;
  /// [smoothing] on for some job (otherwise these stay 0 and are not written): the mode and floor of the
  /// [smoothing] table and the extra GPU energy of smoothing and burn over the work's own draw (all jobs).
  bool smoothing = false;
  std::string smoothing_mode;
  double smoothing_floor_fraction = 0.0;
  double smoothing_energy_J = 0.0;
  std::uint64_t events = 0;
  double wall_s = 0.0;
  /// One line per node group when the fleet has several ("G2: 549 nodes x 8 a800 (...)"); empty otherwise.
  std::vector<std::string> fleet_groups;
};

}  // namespace fleetwatt::sim
