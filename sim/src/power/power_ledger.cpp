// Exact integration of piecewise-constant power and its cutting into interval means.
#include "fleetwatt/sim/power/power_ledger.hpp"

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/power/facility_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fleetwatt::sim {

void EnergySum::add(double x) noexcept {
  const double t = sum_ + x;
  if (std::fabs(sum_) >= std::fabs(x)) {
    compensation_ += (sum_ - t) + x;
  } else {
    compensation_ += (x - t) + sum_;
  }
  sum_ = t;
}

PowerLedger::PowerLedger(const LedgerConfig& config, PowerSink* sink)
    : config_(config), sink_(sink), load_(1.0 + config.node_load_fraction) {
  if (config.facility_interval <= Duration::zero() || config.node_interval <= Duration::zero())
    throw std::invalid_argument("sampling intervals must be positive");
  if (config_.groups.empty())
    config_.groups.push_back({config.nodes, config.gpus_per_node, config.gpu_idle_W, config.node_base_W});
  std::uint32_t nodes = 0;
  for (const auto& grp : config_.groups) {
    for (std::uint32_t i = 0; i < grp.nodes; ++i, ++nodes) {
      first_gpu_.push_back(static_cast<GpuIndex>(gpu_W_.size()));
      node_of_gpu_.insert(node_of_gpu_.end(), grp.gpus_per_node, nodes);
      gpu_W_.insert(gpu_W_.end(), grp.gpus_per_node, grp.gpu_idle_W);
      node_W_.push_back(grp.node_base_W + load_ * grp.gpus_per_node * grp.gpu_idle_W);
      node_base_W_.push_back(grp.node_base_W);
    }
    gpu_total_W_ += static_cast<double>(std::uint64_t{grp.nodes} * grp.gpus_per_node) * grp.gpu_idle_W;
    base_total_W_ += grp.nodes * grp.node_base_W;
  }
  first_gpu_.push_back(static_cast<GpuIndex>(gpu_W_.size()));
  config_.nodes = nodes;
  node_interval_J_.assign(nodes, 0.0);
  node_last_.assign(nodes, Time::zero());
  node_touched_.assign(nodes, 0);
  node_sample_W_.resize(nodes);
  for (NodeIndex n = 0; n < nodes; ++n) node_sample_W_[n] = whole_interval_mean_W(n);
  it_W_ = base_total_W_ + load_ * gpu_total_W_;
  if (config_.facility) weather_step_ = config_.facility->step_at(Time::zero());
  PowerSink* s = sink_;
  sink_ = nullptr;
  attach(s);
}

void PowerLedger::attach(PowerSink* sink) {
  FLEETWATT_ASSERT(last_ <= Time::zero() && !closed_, "a power sink must be attached before the run starts");
  sink_ = sink;
  if (!sink_) return;
  state_pending_ = config_.start < Time::zero();
  if (state_pending_) return;
  GpuIndex next = 0;
  for (const auto& grp : config_.groups) {
    std::vector<GpuIndex> gpus(std::uint64_t{grp.nodes} * grp.gpus_per_node);
    for (auto& g : gpus) g = next++;
    sink_->gpu_change(Time::zero(), gpus, grp.gpu_idle_W);
  }
}

Time PowerLedger::window(Time t) {
  if (t < Time::zero()) return Time::zero();
  if (state_pending_) send_state();
  return t;
}

void PowerLedger::send_state() {
  state_pending_ = false;
  // One change per run of GPUs drawing the same power, all at zero: the state the warm-up left.
  std::vector<GpuIndex> run;
  for (GpuIndex g = 0; g < gpu_W_.size(); ++g) {
    if (!run.empty() && gpu_W_[g] != gpu_W_[run.front()]) {
      sink_->gpu_change(Time::zero(), run, gpu_W_[run.front()]);
      run.clear();
    }
    run.push_back(g);
  }
  if (!run.empty()) sink_->gpu_change(Time::zero(), run, gpu_W_[run.front()]);
}

double PowerLedger::whole_interval_mean_W(NodeIndex n) const {
  // As a cut computes it for a node untouched all interval: (0 + W x dt) / dt, to the last bit.
  const double dt = config_.node_interval.seconds();
  return node_W_[n] * dt / dt;
}

void PowerLedger::cut_node_samples(Time b, double dt) {
  // A node untouched since the interval began drew node_W_ throughout: its mean, (0 + W x dt) / dt, is
  // already in node_sample_W_ (set when it was last touched), so only the nodes touched since are visited.
  for (const NodeIndex n : touched_) {
    node_sample_W_[n] = (node_interval_J_[n] + node_W_[n] * (b - node_last_[n]).seconds()) / dt;
  }
}

void PowerLedger::restart_node_interval(Time b) {
  // Touched nodes start the next interval untouched: their sample becomes the full interval's mean at
  // their present power, the value the next cut keeps unless they are touched again.
  for (const NodeIndex n : touched_) {
    node_sample_W_[n] = whole_interval_mean_W(n);
    node_touched_[n] = 0;
  }
  touched_.clear();
  node_start_ = b;
}

void PowerLedger::cut_final_node_samples(Time end, double dt) {
  // A partial interval: every node's mean over its own length (the untouched nodes' kept samples assume a
  // full interval).
  for (NodeIndex n = 0; n < node_W_.size(); ++n) {
    const double joules = node_touched_[n] != 0
                              ? node_interval_J_[n] + node_W_[n] * (end - node_last_[n]).seconds()
                              : node_W_[n] * (end - node_start_).seconds();
    node_sample_W_[n] = joules / dt;
  }
}

double PowerLedger::facility_power_W() const {
  if (!config_.facility) return it_W_ * config_.pue;
  return config_.facility->power_W(it_W_, config_.facility->step_at(last_));
}

double PowerLedger::facility_J(Time a, Time b) {
  const FacilityModel& m = *config_.facility;
  double joules = 0.0;
  while (a < b) {
    while (m.step_end(weather_step_) <= a) ++weather_step_;  // time only moves forward
    const Time e = std::min(b, m.step_end(weather_step_));
    const double w = m.power_W(it_W_, weather_step_);
    joules += w * (e - a).seconds();
    peak_facility_W_ = std::max(peak_facility_W_, w);
    a = e;
  }
  return joules;
}

void PowerLedger::note_interval_pue(double mean_it, double mean_facility) {
  if (!(mean_it > 0.0)) return;
  const double pue = mean_facility / mean_it;
  const bool first = pue_max_ == 0.0;
  pue_min_ = first ? pue : std::min(pue_min_, pue);
  pue_max_ = first ? pue : std::max(pue_max_, pue);
}

void PowerLedger::advance(Time now) {
  FLEETWATT_ASSERT(!closed_, "power ledger used after close");
  FLEETWATT_ASSERT(now >= last_, "power ledger asked to go back in time");
  // Facility intervals that end by `now`.
  Time cursor = last_;
  for (;;) {
    const Time b = facility_start_ + config_.facility_interval;
    if (b > now) break;
    facility_interval_J_ += it_W_ * (b - cursor).seconds();
    const double mean_it = facility_interval_J_ / config_.facility_interval.seconds();
    if (config_.facility) {
      const double joules = facility_J(cursor, b);
      facility_energy_.add(joules);
      facility_interval_fJ_ += joules;
      const double mean = facility_interval_fJ_ / config_.facility_interval.seconds();
      peak_sample_W_ = std::max(peak_sample_W_, mean);
      note_interval_pue(mean_it, mean);
      if (sink_) sink_->facility_sample(facility_start_, mean_it, mean, facility_energy_.value());
      facility_interval_fJ_ = 0.0;
    } else {
      const double cumulative = (it_energy_.value() + it_W_ * (b - last_).seconds()) * config_.pue;
      peak_sample_W_ = std::max(peak_sample_W_, mean_it * config_.pue);
      if (sink_) sink_->facility_sample(facility_start_, mean_it, mean_it * config_.pue, cumulative);
    }
    facility_start_ = b;
    facility_interval_J_ = 0.0;
    cursor = b;
  }
  facility_interval_J_ += it_W_ * (now - cursor).seconds();
  if (config_.facility && cursor < now) {
    const double joules = facility_J(cursor, now);
    facility_energy_.add(joules);
    facility_interval_fJ_ += joules;
  }
  // Node intervals that end by `now`.
  for (;;) {
    const Time b = node_start_ + config_.node_interval;
    if (b > now) break;
    cut_node_samples(b, config_.node_interval.seconds());
    if (sink_) sink_->node_samples(node_start_, node_sample_W_);
    restart_node_interval(b);
  }
  const double dt = (now - last_).seconds();
  if (dt > 0.0)
    for (const auto& observe : observers_) observe(last_, now, it_W_);
  if (dt > 0.0) {
    gpu_energy_.add(gpu_total_W_ * dt);
    it_energy_.add(it_W_ * dt);
    peak_it_W_ = std::max(peak_it_W_, it_W_);
  }
  last_ = now;
}

void PowerLedger::first_touch(NodeIndex n) {
  // First change in this interval: its energy so far is counted from the interval's start.
  node_touched_[n] = 1;
  touched_.push_back(n);
  node_interval_J_[n] = 0.0;
  node_last_[n] = node_start_;
}

inline void PowerLedger::touch_node(NodeIndex n, Time now) {
  if (node_touched_[n] == 0) first_touch(n);
  node_interval_J_[n] += node_W_[n] * (now - node_last_[n]).seconds();
  node_last_[n] = now;
}

void PowerLedger::set_gpu_power(Time at, std::span<const GpuIndex> gpus, double power_W, bool to_sink) {
  const Time now = window(at);
  advance(now);
  // Run by run of GPUs on one server (a job's GPUs come server by server): the node's energy up to now,
  // then its GPUs, then its power recomputed from its GPUs rather than by deltas, so it never drifts.
  // The running total in a local: the same additions in the same order, without a store and reload of the
  // member after every GPU's (possibly aliasing) store.
  double gpu_total_W = gpu_total_W_;
  double* const gpu_W = gpu_W_.data();
  const NodeIndex* const node_of_gpu = node_of_gpu_.data();
  for_each_node_run(
      gpus, [node_of_gpu](GpuIndex g) { return node_of_gpu[g]; }, [&](NodeIndex n) { touch_node(n, now); },
      [&](GpuIndex g) {
        gpu_total_W += power_W - gpu_W[g];
        gpu_W[g] = power_W;
      },
      [&](NodeIndex n, std::uint32_t) {
        double node_gpus_W = 0.0;
        for (GpuIndex k = first_gpu_[n]; k < first_gpu_[n + 1]; ++k) node_gpus_W += gpu_W[k];
        node_W_[n] = node_base_W_[n] + load_ * node_gpus_W;
      });
  gpu_total_W_ = gpu_total_W;
  it_W_ = base_total_W_ + load_ * gpu_total_W_ + other_it_W_;
  if (to_sink && sink_ && at >= Time::zero()) sink_->gpu_change(now, gpus, power_W);
}

void PowerLedger::record_gpu_power(Time at, std::span<const GpuIndex> gpus, double power_W) {
  const Time now = window(at);
  advance(now);  // the series up to now first, as for a real change
  if (sink_ && at >= Time::zero()) sink_->gpu_change(now, gpus, power_W);
}

void PowerLedger::add_other_it_power(Time at, double delta_W) {
  const Time now = window(at);
  advance(now);
  other_it_W_ += delta_W;
  it_W_ = base_total_W_ + load_ * gpu_total_W_ + other_it_W_;
}

void PowerLedger::set_node_base_power(Time at, NodeIndex n, double base_W) {
  const Time now = window(at);
  advance(now);
  touch_node(n, now);
  base_total_W_ += base_W - node_base_W_[n];
  node_base_W_[n] = base_W;
  double gpus = 0.0;
  for (GpuIndex i = first_gpu_[n]; i < first_gpu_[n + 1]; ++i) gpus += gpu_W_[i];
  node_W_[n] = base_W + load_ * gpus;
  it_W_ = base_total_W_ + load_ * gpu_total_W_ + other_it_W_;
}

void PowerLedger::close(Time at) {
  const Time end = window(at);
  advance(end);
  // A final partial interval (a horizon that is not a multiple of the interval) is the mean over its span.
  if (facility_start_ < end) {
    const double mean_it = facility_interval_J_ / (end - facility_start_).seconds();
    const double mean =
        config_.facility ? facility_interval_fJ_ / (end - facility_start_).seconds() : mean_it * config_.pue;
    peak_sample_W_ = std::max(peak_sample_W_, mean);
    if (config_.facility) note_interval_pue(mean_it, mean);
    if (sink_) sink_->facility_sample(facility_start_, mean_it, mean, facility_energy_J());
  }
  if (node_start_ < end) {
    cut_final_node_samples(end, (end - node_start_).seconds());
    if (sink_) sink_->node_samples(node_start_, node_sample_W_);
  }
  closed_ = true;
}

}  // namespace fleetwatt::sim
