// The engine's services: GPUs reserved in their node group, their draw moved through the power ledger
// interval by interval, and, for a service that absorbs the other GPUs' swings, its controller (see
// service_load.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "event_priorities.hpp"
#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::sim {
namespace {

/// Adds `rate` x the time each interval of `dt` seconds shares with [from, to) to its bin (a constant
/// power's joules, a constant lag's seconds x seconds); bins past the vector's end are beyond the horizon.
void spread_over_intervals(std::vector<double>& bins, double from, double to, double dt, double rate) {
  auto k = static_cast<std::size_t>(std::floor(from / dt));
  while (from < to && k < bins.size()) {
    const double edge = std::min(to, double(k + 1) * dt);
    bins[k] += rate * (edge - from);
    from = edge, ++k;
  }
}

}  // namespace

void Engine::start_services() {
  const auto& loads = setup_.services;
  services_.resize(loads.size());
  const auto window_intervals = [&](const ServiceLoad& load) {
    return static_cast<std::size_t>(std::ceil(setup_.horizon.seconds() / load.interval.seconds() - 1e-9));
  };
  for (std::size_t s = 0; s < loads.size(); ++s) {
    const ServiceLoad& load = loads[s];
    FLEETWATT_ASSERT(
        load.group < layout_.groups().size() && load.gpus <= layout_.gpus(load.group),
        fmt::format("service {} asks for {} GPUs of group {}", load.name, load.gpus, load.group));
    FLEETWATT_ASSERT(load.interval > Duration::zero(), fmt::format("service {} has no interval", load.name));
    ServiceGpus& held = services_[s];
    held.interval_J.assign(window_intervals(load), 0.0);
    if (load.absorb.enabled) held.interval_lag_s.assign(held.interval_J.size(), 0.0);
    const GpuIndex first = layout_.first_gpu(load.group);
    for (GpuIndex g = first; g < first + load.gpus; ++g) held.gpus.push_back(g);
    if (held.gpus.empty()) continue;
    groups_.allocate(kServiceOwner - static_cast<JobIndex>(s), held.gpus);
    site_.ledger().node_runs(held.gpus, held.runs);
    held.W = held.planned_W = held.lo_W = held.hi_W = layout_.groups()[load.group].gpu.idle_W;
    // Before zero (the warm-up) the GPUs idle; the service's series starts with the window.
    queue_.schedule_at(
        Time::zero(), [this, s] { step_service(s, 0); }, kPhasePriority);
    if (load.absorb.enabled) {
      queue_.schedule_at(
          Time::zero(), [this, s] { tick_service(s); }, kPhasePriority);
      if (load.absorb.on_change) site_.ledger().set_change_listener([this] { other_gpus_changed(); });
    }
  }
}

void Engine::other_gpus_changed() {
  if (changing_service_ || queue_.now() < Time::zero()) return;
  for (std::size_t s = 0; s < services_.size(); ++s) {
    const AbsorbConfig& a = setup_.services[s].absorb;
    if (!a.enabled || !a.on_change || services_[s].reaction_pending) continue;
    services_[s].reaction_pending = true;
    // After every change of this instant (the scheduler's pass included), or the reaction time on.
    queue_.schedule_at(
        queue_.now() + Duration::from_seconds(a.reaction_s),
        [this, s] {
          services_[s].reaction_pending = false;
          control_service(s);
        },
        kSchedulePriority + 1);
  }
}

void Engine::account_service(std::size_t s, Time now) {
  ServiceGpus& held = services_[s];
  const ServiceLoad& load = setup_.services[s];
  const Time from = std::max(held.last, Time::zero()), to = std::min(now, setup_.horizon);
  held.last = now;
  if (!(to > from)) return;
  const double gpus = static_cast<double>(held.gpus.size());
  const double total_W = held.W * gpus;
  const double dt = load.interval.seconds();
  const double a = from.seconds(), b = to.seconds();
  spread_over_intervals(held.interval_J, a, b, dt, total_W);
  // The work run ahead of (or behind) the plan, and how late that leaves it.
  const double span = b - a;
  held.bank_J += (held.W - held.planned_W) * gpus * span;
  const double planned_total = held.planned_W * gpus;
  const double lag = planned_total > 0.0 ? std::max(0.0, -held.bank_J) / planned_total : 0.0;
  held.lag_s_integral += lag * span;
  held.max_lag_s = std::max(held.max_lag_s, lag);
  if (lag > 0.0) spread_over_intervals(held.interval_lag_s, a, b, dt, lag);
}

void Engine::apply_service_power(std::size_t s) {
  ServiceGpus& held = services_[s];
  const double W = std::clamp(held.planned_W + held.offset_W, held.lo_W, held.hi_W);
  if (W == held.W) return;
  // No GPU changes to the sink: a campus's service GPUs would write one record each per interval, as a
  // step-level job's segments.
  changing_service_ = true;
  site_.ledger().change_gpu_power(queue_.now(), held.gpus, held.runs, held.W, W, false);
  changing_service_ = false;
  held.W = W;
}

void Engine::step_service(std::size_t s, std::size_t k) {
  const ServiceLoad& load = setup_.services[s];
  ServiceGpus& held = services_[s];
  account_service(s, queue_.now());
  const bool in_series = k < load.gpu_W.size();
  held.planned_W = in_series ? load.gpu_W[k] : load.after_W;
  if (load.absorb.enabled) {
    // Serving replicas move between their floor and their limit; parked ones stay as they are.
    const double share = in_series && k < load.active_share.size() ? load.active_share[k] : 1.0;
    held.lo_W = std::min(held.planned_W, share * load.floor_W + (1.0 - share) * load.parked_W);
    held.hi_W = std::max(held.planned_W, share * load.max_W + (1.0 - share) * load.parked_W);
  } else {
    held.lo_W = held.hi_W = held.planned_W;
  }
  apply_service_power(s);
  if (in_series)
    queue_.schedule_at(
        Time::zero() + load.interval * static_cast<std::int64_t>(k + 1),
        [this, s, k] { step_service(s, k + 1); }, kPhasePriority);
}

void Engine::tick_service(std::size_t s) {
  control_service(s);
  queue_.schedule_at(
      queue_.now() + Duration::from_seconds(setup_.services[s].absorb.control_s),
      [this, s] { tick_service(s); }, kPhasePriority);
}

void Engine::control_service(std::size_t s) {
  const AbsorbConfig& a = setup_.services[s].absorb;
  ServiceGpus& held = services_[s];
  const Time now = queue_.now();
  account_service(s, now);
  const double gpus = static_cast<double>(held.gpus.size());
  // The other GPUs' (training's) recent mean: an exponential average of their draw, which held still since
  // the last action; then their draw now.
  const double dt = (now - held.last_control).seconds();
  held.last_control = now;
  const double other_W = site_.ledger().gpu_power_total_W() - held.W * gpus;
  if (held.other_mean_W < 0.0)
    held.other_mean_W = other_W;
  else
    held.other_mean_W += (held.other_W - held.other_mean_W) * (1.0 - std::exp(-dt / a.window_s));
  held.other_W = other_W;
  // Take up the departure from the mean, and drift the work back to the plan in a quarter of latency_s (a
  // service clipped at its limit in the others' deep dips but not in their highs falls behind on average;
  // this keeps that lag a small part of latency_s). No further ahead or behind than latency_s of the planned
  // power by the next periodic action; and, before all, never above the plan by more than the others are
  // below their mean (nor above it while they are above it), so the campus's peak is not raised: where the
  // two conflict the work falls further behind, and the largest lag says so.
  const double planned_total = held.planned_W * gpus;
  const double departure = held.other_mean_W - other_W;
  const double bound_J = planned_total * a.latency_s;
  double offset_total = a.gain * departure - held.bank_J / (0.25 * a.latency_s);
  offset_total = std::min(offset_total, (bound_J - held.bank_J) / a.control_s);
  offset_total = std::max(offset_total, (-bound_J - held.bank_J) / a.control_s);
  offset_total = std::min(offset_total, std::max(0.0, departure));
  held.offset_W = gpus > 0.0 ? offset_total / gpus : 0.0;
  apply_service_power(s);
}

ServiceOutcome Engine::service_outcome(std::size_t s) const {
  const ServiceGpus& held = services_.at(s);
  const ServiceLoad& load = setup_.services.at(s);
  ServiceOutcome out;
  const double dt = load.interval.seconds(), h = setup_.horizon.seconds();
  out.power_W.resize(held.interval_J.size());
  for (std::size_t k = 0; k < held.interval_J.size(); ++k) {
    out.power_W[k] = held.interval_J[k] / std::min(dt, h - double(k) * dt);
    out.energy_J += held.interval_J[k];
  }
  out.lag_s.resize(held.interval_lag_s.size());
  for (std::size_t k = 0; k < held.interval_lag_s.size(); ++k)
    out.lag_s[k] = held.interval_lag_s[k] / std::min(dt, h - double(k) * dt);
  out.mean_lag_s = h > 0.0 ? held.lag_s_integral / h : 0.0;
  out.max_lag_s = held.max_lag_s;
  out.bank_J = held.bank_J;
  return out;
}

}  // namespace fleetwatt::sim
