// The window's edges: at its first instant what the warm-up left (occupancy, the network's draw); at the
// horizon the jobs still running settled, every meter closed and the run's totals gathered in the summary
// (each job's figures added in job order, as they leave or at the end).
#include <algorithm>

#include "engine_failures.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/fleet/network_model.hpp"

namespace fleetwatt::sim {

void Engine::open_window() {
  window_open_ = true;
  std::uint64_t allocated = 0;
  for (const JobIndex j : running_) allocated += job_at(j).gpus.size();
  summary_.occupancy_at_start = static_cast<double>(allocated) / static_cast<double>(cluster_.gpus());
  summary_.jobs_at_start = running_.size() + waiting_.size();
  if (setup_.warmup > Duration::zero()) site_.send_network_W(Time::zero());
}

void Engine::account_job(Job& job) {
  if (failures_) Failures::account(job, summary_);
  if (smoothing_any_) summary_.smoothing_energy_J += job.smoothing_J;
}

void Engine::close_at_horizon() {
  const Time h = setup_.horizon;
  // Jobs submitted at or after the horizon never arrive; they are listed (pending) all the same.
  while (draw_job()) {
  }
  std::uint64_t running = 0;
  for (auto& job : jobs_) {
    if (job.state != JobState::running) continue;
    ++running;
    if (job.controls.paused) {
      job.controls.paused_gpu_seconds +=
          static_cast<double>(job.gpus.size()) * window_seconds(job.phase_start, h);
      gpu_seconds_ += static_cast<double>(job.gpus.size()) * window_seconds(job.start, h);
      continue;
    }
    meter_.settle(job, h);
    if (job.phase == JobPhase::peak) meter_.close_peak(job);
    gpu_seconds_ += static_cast<double>(job.gpus.size()) * window_seconds(job.start, h);
  }
  for (std::size_t sv = 0; sv < services_.size(); ++sv) account_service(sv, h);
  site_.close(h);
  const PowerLedger& ledger = site_.ledger();
  auto& s = summary_;
  s.scheduler = std::string(scheduler_->name());
  s.placement = std::string(placement_->name());
  s.predictor = std::string(predictor_.name());
  s.horizon_s = h.seconds();
  s.warmup_s = setup_.warmup.seconds();
  s.jobs_total = jobs_total_;
  s.jobs_arrived = jobs_arrived_;
  s.jobs_finished = finished_;
  s.jobs_running = running;
  s.jobs_queued = waiting_.size();
  s.gpu_seconds = gpu_seconds_;
  s.gpu_utilisation = gpu_seconds_ / (static_cast<double>(cluster_.gpus()) * h.seconds());
  s.gpu_energy_J = ledger.gpu_energy_J();
  s.it_energy_J = ledger.it_energy_J();
  s.facility_energy_J = ledger.facility_energy_J();
  s.peak_facility_W = ledger.peak_facility_W();
  if (site_.facility()) {
    s.cooling = "weather";
    s.pue = s.it_energy_J > 0.0 ? s.facility_energy_J / s.it_energy_J : 0.0;
    s.pue_min_interval = ledger.min_interval_pue();
    s.pue_max_interval = ledger.max_interval_pue();
  }
  s.peak_facility_sample_W = ledger.peak_facility_sample_W();
  s.mean_facility_W = s.facility_energy_J / h.seconds();
  s.carbon_kg = site_.grid().carbon_kg();
  s.cost = site_.grid().cost();
  if (const BatteryBank* bank = site_.batteries()) {  // carbon and cost are charged on grid import
    s.battery = true;
    s.carbon_kg = bank->carbon_kg();
    s.cost = bank->cost();
    s.grid_import_J = bank->import_J();
    s.peak_grid_import_W = bank->peak_import_W();
    s.import_limit_W = setup_.import_limit_W;
    s.hours_over_import_limit = bank->hours_over_limit();
    s.storage_loss_J = bank->loss_J();
    s.storage_change_J = bank->stored_change_J();
  }
  if (const OutageMeter* outages = site_.outages()) {  // the meter through grid events: carbon on import
    s.carbon_kg = outages->carbon_kg();
    s.cost = outages->cost();
    s.grid_import_J = outages->import_J();
    s.peak_grid_import_W = outages->peak_import_W();
    s.ups_energy_J = outages->ups_J();
    s.unserved_energy_J = outages->unserved_J();
    s.load_lost_W = outages->peak_off_grid_W();
  }
  if (setup_.grid_events > 0) {
    s.grid_events = true;
    s.grid_event_count = setup_.grid_events;
    s.grid_events_ridden_through = setup_.grid_events_ridden_through;
    s.return_ramp_W_per_s = setup_.ride_through.return_ramp_W_per_s;
    s.time_off_grid_s = 0.0;
    for (const auto& o : setup_.ride_through.outages)
      s.time_off_grid_s += std::max(0.0, std::min(o.back_s, h.seconds()) - std::max(o.off_s, 0.0));
  }
  s.events = queue_.events_run();
  if (failures_) failures_->close(h, summary_);
  // The jobs still held add their figures after those already dropped: every sum runs in job order.
  for (auto& job : jobs_) account_job(job);
  // [smoothing]: on when the table or some job asks for it; the extra energy of every job (account_job).
  s.smoothing = smoothing_any_;
  if (s.smoothing) {
    s.smoothing_mode = jobs::to_string(setup_.smoothing.mode);
    s.smoothing_floor_fraction = setup_.smoothing.floor_fraction;
  }
}

}  // namespace fleetwatt::sim
