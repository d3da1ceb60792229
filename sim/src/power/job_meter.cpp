// Job energy: the draws handed to the ledger, integrated once per job and split by epoch part.
#include "fleetwatt/sim/power/job_meter.hpp"

#include <algorithm>
#include <cmath>

namespace fleetwatt::sim {
namespace {

/// The job's GPUs stage by stage, when its rank order does not already keep each pipeline stage contiguous
/// (tp-cp-pp-dp: a stage's GPUs repeat every tp x cp x pp ranks); empty when it does.
std::vector<GpuIndex> stage_major_gpus(const Job& job, std::size_t stages) {
  const auto& par = job.spec.meta.parallel;
  if (par.order != jobs::RankOrder::tp_cp_pp_dp || stages != par.pp || stages < 2) return {};
  const std::uint32_t dp = par.dp(static_cast<std::uint32_t>(job.gpus.size()));
  if (dp == 0) return {};
  std::vector<GpuIndex> out;
  out.reserve(job.gpus.size());
  for (std::uint32_t k = 0; k < stages; ++k)
    for (std::uint32_t r = 0; r < job.gpus.size(); ++r)
      if (par.coords(r, dp).pp == k) out.push_back(job.gpus[r]);
  return out;
}

}  // namespace

void JobMeter::draw(Job& job, Time t, double W_per_gpu, double stretch, double raw_W) {
  job.drawn_W = W_per_gpu;
  job.raw_W = std::isnan(raw_W) ? W_per_gpu : raw_W;
  job.controls.phase_stretch = stretch;
  std::fill(job.wave.stage_W.begin(), job.wave.stage_W.end(), W_per_gpu);
  ledger_.set_gpu_power(t, job.gpus, W_per_gpu);
}

void JobMeter::draw_stages(Job& job, Time t, std::span<const double> stage_W, double stretch, bool record,
                           double raw_W) {
  auto& now = job.wave.stage_W;
  const std::size_t stages = stage_W.size();
  if (now.size() != stages) {
    now.assign(stages, -1.0);
    job.wave.stage_gpus = stage_major_gpus(job, stages);
  }
  const std::size_t per = job.gpus.size() / stages;
  const std::span<const GpuIndex> gpus(job.wave.stage_gpus.empty() ? job.gpus : job.wave.stage_gpus);
  double sum = 0.0;
  for (std::size_t k = 0; k < stages; ++k) {
    sum += stage_W[k];
    if (stage_W[k] == now[k]) continue;  // a stage that does not change costs nothing
    now[k] = stage_W[k];
    ledger_.set_gpu_power(t, gpus.subspan(k * per, per), stage_W[k], record);
  }
  job.drawn_W = sum / static_cast<double>(stages);  // stages are equal in size
  job.raw_W = std::isnan(raw_W) ? job.drawn_W : raw_W;
  job.controls.phase_stretch = stretch;
}

void JobMeter::record(const Job& job, Time t, double W_per_gpu) {
  ledger_.record_gpu_power(t, job.gpus, W_per_gpu);
}

void JobMeter::settle(Job& job, Time t) const {
  if (job.controls.paused || job.phase == JobPhase::none) return;
  const double n = static_cast<double>(job.gpus.size());
  // Only the window [0, horizon) counts: a job running through the warm-up is metered from 0 on.
  const double dt = (std::max(t, Time::zero()) - std::max(job.phase_start, Time::zero())).seconds();
  const double energy = n * job.drawn_W * dt;
  job.energy_J += energy;
  job.smoothing_J += n * (job.drawn_W - job.raw_W) * dt;  // exactly 0 without smoothing
  if (job.phase == JobPhase::peak) {
    job.peak_phase_s += dt;
    job.peak_phase_J += energy;
  } else if (job.phase == JobPhase::restart) {  // [failures]: a restart's delay and reload
    job.failures.restart_s += dt;
    job.failures.restart_J += energy;
  } else if (job.phase == JobPhase::startup) {
    job.parts.startup_s += dt;
    job.parts.startup_J += energy;
  } else {
    job.parts.checkpoint_s += dt;
    job.parts.checkpoint_J += energy;
  }
  // Under a cap the phase's work takes `stretch` times longer: the rest of the time is lost to the cap.
  if (job.controls.phase_stretch > 1.0)
    job.controls.capped_gpu_seconds += n * dt * (1.0 - 1.0 / job.controls.phase_stretch);
  job.phase_start = t;
}

void JobMeter::close_peak(Job& job) const {
  const double t = job.peak_phase_s, e = job.peak_phase_J;
  job.peak_phase_s = job.peak_phase_J = 0.0;
  const PeakSplit& s = job.epoch.parts();
  const double total_s = s.duration_s();
  const double total_J = s.energy_J();
  if (!(total_s > 0.0) || !(total_J > 0.0)) {  // an empty split: all of it is compute
    job.parts.compute_s += t;
    job.parts.compute_J += e;
    return;
  }
  job.parts.compute_s += t * s.compute_s / total_s;
  job.parts.bubble_s += t * s.bubble_s / total_s;
  job.parts.comm_s += t * s.comm_s / total_s;
  for (std::size_t g = 0; g < jobs::kCommGroups; ++g)
    job.parts.comm_group_s[g] += t * s.comm_by_group[g] / total_s;
  job.parts.io_s += t * s.io_s / total_s;
  job.parts.compute_J += e * s.compute_W * s.compute_s / total_J;
  job.parts.bubble_J += e * s.bubble_W * s.bubble_s / total_J;
  job.parts.comm_J += e * s.comm_W * s.comm_s / total_J;
  job.parts.io_J += e * s.io_W * s.io_s / total_J;
}

}  // namespace fleetwatt::sim
