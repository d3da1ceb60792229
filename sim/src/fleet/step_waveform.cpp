// One training step's segments per pipeline stage (see step_waveform.hpp).
#include "fleetwatt/sim/fleet/step_waveform.hpp"

#include <algorithm>

#include "fleetwatt/sim/fleet/job.hpp"

namespace fleetwatt::sim {

StepShape StepShape::of(const PeakSplit& split, double steps, std::uint32_t pp, std::uint32_t n_gpus) {
  StepShape s;
  const double n = std::max(steps, 1.0);
  s.compute = Duration::from_seconds(split.compute_s / n);
  s.bubble = Duration::from_seconds(split.bubble_s / n);
  s.comm = Duration::from_seconds(split.comm_s / n);
  s.io = Duration::from_seconds(split.io_s / n);
  s.compute_W = split.compute_W, s.bubble_W = split.bubble_W;
  s.comm_W = split.comm_W, s.io_W = split.io_W;
  // Stages only differ when there is a bubble to shift them by.
  s.stages = s.bubble > Duration::zero() && pp > 1 && n_gpus % pp == 0 ? pp : 1;
  s.slot = s.stages > 1 ? Duration::from_ns(s.bubble.ns() / (s.stages - 1)) : Duration::zero();
  return s;
}

StepShape::Segment StepShape::at(std::uint32_t k, Duration x) const {
  const Duration lead = slot * k;  // stage k waits k slots for its first micro-batch
  if (x < lead) return {bubble_W, lead};
  if (x < lead + compute) return {compute_W, lead + compute};
  const Duration drained = compute + bubble;  // every stage's compute and bubble end here
  if (x < drained) return {bubble_W, drained};
  if (x < drained + comm) return {comm_W, drained + comm};
  return {io_W, step()};
}

double StepShape::mean_W(double cap_W) const {
  const auto capped = [cap_W](double w) { return cap_W > 0.0 ? std::min(w, cap_W) : w; };
  const double t = step().seconds();
  if (!(t > 0.0)) return capped(compute_W);
  return (capped(compute_W) * compute.seconds() + capped(bubble_W) * bubble.seconds() +
          capped(comm_W) * comm.seconds() + capped(io_W) * io.seconds()) /
         t;
}

}  // namespace fleetwatt::sim
