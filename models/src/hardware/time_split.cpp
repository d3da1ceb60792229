// A predicted time re-timed by a machine's GPU and host factors, and those factors fitted on its runs
// (models/hardware/time_split.hpp).
#include "fleetwatt/models/hardware/time_split.hpp"

#include <cmath>
#include <limits>

#include "fleetwatt/models/hardware/roofline.hpp"

namespace fleetwatt::models {

double TimeSplit::time_s(double gpu, double host) const noexcept {
  return steps * (soft_max(gpu * gpu_s, host * host_s) * stretch + other_s) + fixed_s;
}

double TimeSplit::busy_share() const noexcept {
  const double total = time_s(1.0, 1.0);
  return known() && total > 0.0 ? steps * gpu_s * stretch / total : 0.0;
}

double TimeSplit::work_scale(double gpu, double host) const noexcept {
  const double predicted = soft_max(gpu_s, host_s);
  return known() && predicted > 0.0 ? soft_max(gpu * gpu_s, host * host_s) / predicted : 1.0;
}

TimeSplit time_split(const RooflineStep& step, double steps, double step_s, double fixed_s) noexcept {
  return {steps, step.bound_s, step.launch_s, step.stretch, step_s - step.work_s, fixed_s};
}

MachineFactors fit_machine_factors(const std::vector<SplitRun>& runs, double prior) {
  std::vector<const SplitRun*> used;
  for (const SplitRun& r : runs)
    if (r.split.known() && r.measured_s > 0.0 && r.split.time_s(1.0, 1.0) > 0.0) used.push_back(&r);
  if (used.empty()) return {};
  const auto objective = [&](double lg, double lh) {
    const double g = std::exp(lg), h = std::exp(lh);
    double sum = prior * (lg * lg + lh * lh);
    for (const SplitRun* r : used) {
      const double e = std::log(r->measured_s / r->split.time_s(g, h));
      sum += e * e;
    }
    return sum;
  };
  // A coarse grid first (the objective is not convex where a factor no run speaks to is flat), then finer
  // grids about the best point; deterministic, and cheap for the few runs a machine has.
  double best_g = 0.0, best_h = 0.0, best = std::numeric_limits<double>::infinity();
  double step = 0.1, half = 4.0;
  for (int round = 0; round < 4; ++round) {
    const double cg = best_g, ch = best_h;
    const int n = static_cast<int>(std::lround(half / step));
    for (int i = -n; i <= n; ++i)
      for (int j = -n; j <= n; ++j) {
        const double lg = cg + i * step, lh = ch + j * step;
        if (const double v = objective(lg, lh); v < best) best = v, best_g = lg, best_h = lh;
      }
    half = 2.0 * step;
    step /= 10.0;
  }
  return {std::exp(best_g), std::exp(best_h)};
}

}  // namespace fleetwatt::models
