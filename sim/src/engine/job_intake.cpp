// Job intake checks (job_intake.hpp): the job's size, its explicit phases and its plan, each failure bad
// input at the job's place.
#include "job_intake.hpp"

#include "fleetwatt/core/time.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace fleetwatt::sim {

namespace {

// An explicit phase power's key as its user wrote it (peak_W in a CSV column, peak_w in a scenario).
std::string phase_key(const jobs::JobSpec& spec, const char* phase) {
  return std::string(phase) + std::string(spec.power_key_suffix);
}

// Explicit phases are the user's numbers: a valley above the peak, a peak below the GPU's idle power
// (running the job would lower the node's power) or a power above what the GPU can draw is bad input.
void check_explicit_phases(const jobs::JobSpec& spec, const models::GpuHardware& gpu) {
  if (!spec.phases) return;
  if (spec.phases->valley_W > spec.phases->peak_W)
    throw jobs::ConfigError(spec.class_origin, phase_key(spec, "valley"),
                            fmt::format("job {}: valley {:g} W is above its peak {:g} W", spec.id,
                                        spec.phases->valley_W, spec.phases->peak_W));
  if (spec.phases->peak_W < gpu.idle_W)
    throw jobs::ConfigError(
        spec.class_origin, phase_key(spec, "peak"),
        fmt::format("job {}: peak {:g} W is below the {} GPU's idle power of {:g} W (running it would "
                    "lower the node's power)",
                    spec.id, spec.phases->peak_W, gpu.id, gpu.idle_W));
  for (const auto& [phase, w] : {std::pair{"peak", spec.phases->peak_W}, {"valley", spec.phases->valley_W}})
    if (w > gpu.tdp_W)
      throw jobs::ConfigError(spec.class_origin, phase_key(spec, phase),
                              fmt::format("job {}: {:g} W per GPU is above the {} GPU's TDP of {:g} W",
                                          spec.id, w, gpu.id, gpu.tdp_W));
}

}  // namespace

bool check_plan(const jobs::JobSpec& spec, jobs::EpochPlan& plan, const models::GpuHardware& gpu,
                std::string_view predictor) {
  check_explicit_phases(spec, gpu);
  bool finite = true;
  plan.each_part([&](const jobs::EpochPart& part) {
    finite = finite && part.s >= 0 && part.W >= 0 && std::isfinite(part.s) && std::isfinite(part.W);
  });
  if (!finite || !(plan.epoch_s() > 0) || !std::isfinite(plan.epoch_s())) {
    const auto p = plan.profile();
    throw jobs::ConfigError(
        spec.class_origin, "phases",
        fmt::format("job {}: predictor '{}' gave an impossible phase profile (peak {} W for "
                    "{} s, valley {} W for {} s)",
                    spec.id, predictor, p.peak_W, p.peak_s, p.valley_W, p.valley_s));
  }
  const auto p = plan.profile();
  // An epoch the clock cannot hold comes from the job's input (a dataset_samples of 1e15, say): bad input
  // at the job's place, not an internal error mid-run.
  if (!(std::max(p.peak_s, p.valley_s) <= core::kMaxInputSeconds))
    throw jobs::ConfigError(
        spec.class_origin, "dataset_samples",
        fmt::format("job {}: one epoch would last {:.3g} s, beyond the {:.0e} s a run can simulate", spec.id,
                    p.peak_s + p.valley_s, core::kMaxInputSeconds));
  if (core::Duration::from_seconds(p.peak_s) + core::Duration::from_seconds(p.valley_s) <=
      core::Duration::zero())
    throw jobs::ConfigError(spec.class_origin, "phases",
                            fmt::format("job {}: epoch shorter than 1 ns", spec.id));
  bool capped = false;
  plan.each_part([&](jobs::EpochPart& part) {
    if (part.W > gpu.tdp_W) part.W = gpu.tdp_W, capped = true;
  });
  return capped;
}

void check_whole_length(const jobs::JobSpec& spec, const jobs::EpochPlan& plan, std::uint32_t epochs) {
  const double whole_s = plan.epoch_s() * static_cast<double>(epochs);
  if (!(whole_s <= core::kMaxInputSeconds))
    throw jobs::ConfigError(
        spec.class_origin, "epochs",
        fmt::format("job {}: {} epochs of {:.3g} s would last {:.3g} s, beyond the {:.0e} s "
                    "a run can simulate: lower epochs or dataset_samples",
                    spec.id, epochs, plan.epoch_s(), whole_s, core::kMaxInputSeconds));
}

}  // namespace fleetwatt::sim
