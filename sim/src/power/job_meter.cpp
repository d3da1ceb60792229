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

void JobMeter::place(Job& job) {
  job.drawn_W = job.gpu_type.idle_W;  // free GPUs draw their idle power until the job's first phase
  job.wave.stage_W.clear();
  job.wave.stage_gpus.clear();
  job.wave.stage_runs.clear();
  job.wave.stage_run_begin.clear();
  ledger_.node_runs(job.gpus, job.gpu_runs);
}

std::span<const GpuIndex> JobMeter::stage_gpus(const Job& job, std::size_t k) {
  const std::size_t per = job.gpus.size() / job.wave.stage_W.size();
  const std::span<const GpuIndex> gpus(job.wave.stage_gpus.empty() ? job.gpus : job.wave.stage_gpus);
  return gpus.subspan(k * per, per);
}

std::span<const NodeRun> JobMeter::stage_runs(const Job& job, std::size_t k) {
  const auto& w = job.wave;
  return std::span(w.stage_runs)
      .subspan(w.stage_run_begin[k], w.stage_run_begin[k + 1] - w.stage_run_begin[k]);
}

void JobMeter::draw(Job& job, Time t, double W_per_gpu, double stretch, double raw_W) {
  auto& stages = job.wave.stage_W;
  if (stages.empty() || std::all_of(stages.begin(), stages.end(), [&](double w) { return w == stages[0]; })) {
    const double from_W = stages.empty() ? job.drawn_W : stages[0];
    ledger_.change_gpu_power(t, job.gpus, job.gpu_runs, from_W, W_per_gpu);
  } else {
    // Stages drawing apart: each moves from its own draw, and the sink hears of the job as one change.
    for (std::size_t k = 0; k < stages.size(); ++k)
      ledger_.change_gpu_power(t, stage_gpus(job, k), stage_runs(job, k), stages[k], W_per_gpu, false);
    ledger_.record_gpu_power(t, job.gpus, W_per_gpu);
  }
  job.drawn_W = W_per_gpu;
  job.raw_W = std::isnan(raw_W) ? W_per_gpu : raw_W;
  job.controls.phase_stretch = stretch;
  std::fill(stages.begin(), stages.end(), W_per_gpu);
}

void JobMeter::draw_stages(Job& job, Time t, std::span<const double> stage_W, double stretch, bool record,
                           double raw_W) {
  auto& now = job.wave.stage_W;
  const std::size_t stages = stage_W.size();
  const bool first = now.size() != stages;
  if (first) {
    // The job's GPUs as one draw (its last uniform one), then cut into these stages and their servers.
    double uniform_W = job.drawn_W;
    if (!now.empty()) {  // another stage count: its stages first brought to one draw (the sink hears later)
      uniform_W = now[0];
      for (std::size_t k = 1; k < now.size(); ++k)
        ledger_.change_gpu_power(t, stage_gpus(job, k), stage_runs(job, k), now[k], uniform_W, false);
    }
    now.assign(stages, uniform_W);
    auto& w = job.wave;
    w.stage_gpus = stage_major_gpus(job, stages);
    w.stage_runs.clear();
    w.stage_run_begin.assign(1, 0);
    for (std::size_t k = 0; k < stages; ++k) {
      ledger_.node_runs(stage_gpus(job, k), scratch_runs_);
      w.stage_runs.insert(w.stage_runs.end(), scratch_runs_.begin(), scratch_runs_.end());
      w.stage_run_begin.push_back(static_cast<std::uint32_t>(w.stage_runs.size()));
    }
  }
  double sum = 0.0;
  for (std::size_t k = 0; k < stages; ++k) {
    sum += stage_W[k];
    if (!first && stage_W[k] == now[k]) continue;  // a stage that does not change costs nothing
    ledger_.change_gpu_power(t, stage_gpus(job, k), stage_runs(job, k), now[k], stage_W[k], record);
    now[k] = stage_W[k];
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
