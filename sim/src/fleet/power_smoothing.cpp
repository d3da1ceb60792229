// GPU power smoothing and burn: the smoothing rule over one period, its ramps cut into constant pieces,
// and a step's smoothed stages (see power_smoothing.hpp).
#include "fleetwatt/sim/fleet/power_smoothing.hpp"

#include <algorithm>
#include <cmath>

namespace fleetwatt::sim {

PowerSmoothing PowerSmoothing::of(const SmoothingSetup& setup, std::optional<SmoothingMode> job_mode,
                                  double tdp_W) {
  PowerSmoothing s;
  s.mode = job_mode.value_or(setup.mode);
  s.floor_W = setup.floor_fraction * tdp_W;
  s.ramp_up_W_per_s = setup.ramp_up_W_per_s;
  s.ramp_down_W_per_s = setup.ramp_down_W_per_s;
  s.hysteresis = setup.hysteresis;
  return s;
}

double PowerSmoothing::floor_under(double cap_W) const noexcept {
  return cap_W > 0.0 ? std::min(floor_W, cap_W) : floor_W;
}

double PowerSmoothing::floored(double W, double cap_W) const noexcept {
  return on() ? std::max(W, floor_under(cap_W)) : W;
}

namespace {

/// The held level between levels: f, and how long the demand has been below it (negative: not below).
struct Held {
  double f = 0.0;
  Duration below = Duration::from_ns(-1);
};

/// Seconds to the integer clock, at least 1 ns so every piece moves time on.
Duration span_of(double s) {
  return std::max(Duration::from_ns(1), Duration::from_seconds(s));
}

/// One period of the rule from `held` on; appends its pieces to `out` when given.
Held run_period(std::span<const PowerLevel> demand, const PowerSmoothing& s, double cap_W, Held h,
                std::vector<PowerRamp>* out) {
  const double floor = s.floor_under(cap_W);
  const auto emit = [out](Duration a, Duration b, double w0, double w1) {
    if (out && b > a) out->push_back({a, b, w0, w1});
  };
  Duration t = Duration::zero();
  for (const auto& level : demand) {
    const double q = std::max(level.W, floor);
    while (t < level.end) {
      const Duration left = level.end - t;
      if (h.f <= q) {
        // The work is at or above the held level: the GPU draws it, and the level climbs after it.
        emit(t, level.end, q, q);
        h.f = std::min(q, h.f + s.ramp_up_W_per_s * left.seconds());
        h.below = Duration::from_ns(-1);
        t = level.end;
        continue;
      }
      if (h.below < Duration::zero()) h.below = Duration::zero();  // a drop: the hysteresis starts
      if (h.below < s.hysteresis) {
        const Duration hold = std::min(left, s.hysteresis - h.below);
        emit(t, t + hold, h.f, h.f);
        h.below += hold;
        t = t + hold;
        continue;
      }
      // Ramp down towards q: to it, or to the level's end.
      const Duration reach = span_of((h.f - q) / s.ramp_down_W_per_s);
      const Duration run = std::min(left, reach);
      const double to = run == reach ? q : h.f - s.ramp_down_W_per_s * run.seconds();
      emit(t, t + run, h.f, to);
      h.f = std::max(q, to);
      h.below += run;
      t = t + run;
      if (h.f == q) h.below = Duration::from_ns(-1);
    }
  }
  // Past the hysteresis the time below no longer matters: states that differ only there are the same.
  if (h.below > s.hysteresis) h.below = s.hysteresis;
  return h;
}

}  // namespace

std::vector<PowerRamp> smooth_periodic(std::span<const PowerLevel> demand, const PowerSmoothing& s,
                                       double cap_W) {
  std::vector<PowerRamp> out;
  if (demand.empty()) return out;
  if (s.mode != SmoothingMode::smooth) {  // burn (or off): the floored levels
    Duration t = Duration::zero();
    for (const auto& level : demand) {
      const double w = s.floored(level.W, cap_W);
      if (level.end > t) out.push_back({t, level.end, w, w});
      t = level.end;
    }
    return out;
  }
  // The steady state: start from the period's highest floored level, run periods until the held level at
  // the period's start repeats. Each period moves it by the ramps' net until a clamp (the work above, the
  // floor below) holds it, so this ends in a few periods; a never-clamped balance is periodic already.
  Held h;
  for (const auto& level : demand) h.f = std::max(h.f, std::max(level.W, s.floor_under(cap_W)));
  for (int i = 0; i < 10000; ++i) {
    const Held next = run_period(demand, s, cap_W, h, nullptr);
    const bool same = std::abs(next.f - h.f) <= 1e-9 * std::max(1.0, std::abs(h.f)) && next.below == h.below;
    h = next;
    if (same) break;
  }
  run_period(demand, s, cap_W, h, &out);
  return out;
}

std::vector<PowerLevel> discretise(std::span<const PowerRamp> ramps, Duration max_piece) {
  std::vector<PowerLevel> out;
  const std::int64_t most = std::max<std::int64_t>(1, max_piece.ns());
  for (const auto& r : ramps) {
    const std::int64_t len = (r.end - r.begin).ns();
    if (r.W0 == r.W1 || len <= 1) {
      out.push_back({r.end, 0.5 * (r.W0 + r.W1)});
      continue;
    }
    const std::int64_t n = (len + most - 1) / most;
    const double slope = (r.W1 - r.W0) / static_cast<double>(len);  // W per ns
    std::int64_t a = 0;
    for (std::int64_t i = 1; i <= n; ++i) {
      // Equal sub-pieces on the integer clock; the value at each one's own midpoint.
      const std::int64_t b = len * i / n;
      out.push_back({r.begin + Duration::from_ns(b), r.W0 + slope * 0.5 * static_cast<double>(a + b)});
      a = b;
    }
  }
  return out;
}

void SmoothedStep::build(const StepShape& shape, const PowerSmoothing& s, double cap_W, Duration max_piece) {
  shape_ = shape;
  cap_W_ = cap_W;
  built_ = true;
  const Duration step = shape.step();
  const auto capped = [cap_W](double w) { return cap_W > 0.0 ? std::min(w, cap_W) : w; };
  stages_.assign(shape.stages, {});
  double energy = 0.0;
  std::vector<PowerLevel> demand;
  for (std::uint32_t k = 0; k < shape.stages; ++k) {
    demand.clear();
    for (Duration x = Duration::zero(); x < step;) {
      const auto seg = shape.at(k, x);
      if (seg.end > x) demand.push_back({seg.end, capped(seg.W)});
      x = seg.end;
    }
    const auto ramps = smooth_periodic(demand, s, cap_W);
    auto& pieces = stages_[k];
    Duration begin = Duration::zero();
    std::size_t level = 0;  // the demand level the piece lies in (pieces never straddle one)
    for (const auto& p : discretise(ramps, max_piece)) {
      while (demand[level].end <= begin) ++level;
      pieces.push_back({p.end, p.W, demand[level].W});
      energy += p.W * (p.end - begin).seconds();
      begin = p.end;
    }
  }
  mean_W_ = step > Duration::zero() ? energy / (step.seconds() * shape.stages) : 0.0;
}

const SmoothedStep::Piece& SmoothedStep::at(std::uint32_t k, Duration x) const {
  const auto& pieces = stages_[k];
  const auto it =
      std::upper_bound(pieces.begin(), pieces.end(), x, [](Duration v, const Piece& p) { return v < p.end; });
  return it == pieces.end() ? pieces.back() : *it;
}

}  // namespace fleetwatt::sim
