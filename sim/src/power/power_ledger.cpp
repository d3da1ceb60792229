// Exact integration of piecewise-constant power and its cutting into interval means.
#include "fleetwatt/sim/power/power_ledger.hpp"

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/power/facility_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace fleetwatt::sim {

namespace {
// GPU power sums in integers of 2^-36 W (15 pW): exact in any order and grouping. A server's sum fits 64
// bits up to 2^27 W (a GPU below 2^16 W, a server of at most 1,024 GPUs: 2^26 W); the fleet's is kept in
// 128. A GPU's power rounds by at most 7.3e-12 W, 7e-14 of 100 W.
constexpr double kFxPerW = 0x1p36, kWPerFx = 0x1p-36;

std::int64_t to_fx(double W) {
  FLEETWATT_ASSERT(W >= 0.0 && W < 0x1p16, "a GPU power outside [0, 2^16) W");
  return static_cast<std::int64_t>(W * kFxPerW + 0.5);
}

double fx_W(std::int64_t fx) {
  return static_cast<double>(fx) * kWPerFx;
}

double fx_W(WideFx fx) {
  return static_cast<double>(fx) * kWPerFx;
}
}  // namespace

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
  GpuIndex gpus = 0;
  for (const auto& grp : config_.groups) {
    const std::int64_t idle_fx = to_fx(grp.gpu_idle_W);
    for (std::uint32_t i = 0; i < grp.nodes; ++i, ++nodes) {
      first_gpu_.push_back(gpus);
      gpus += grp.gpus_per_node;
      node_of_gpu_.insert(node_of_gpu_.end(), grp.gpus_per_node, nodes);
      Node& node = nodes_.emplace_back();
      node.gpu_fx = idle_fx * grp.gpus_per_node;
      node.base_W = grp.node_base_W;
      gpu_total_fx_ += node.gpu_fx;
    }
    base_total_W_ += grp.nodes * grp.node_base_W;
  }
  first_gpu_.push_back(gpus);
  config_.nodes = nodes;
  for (NodeIndex n = 0; n < nodes; ++n) set_node_power(n);
  node_sample_W_.resize(nodes);
  for (NodeIndex n = 0; n < nodes; ++n) node_sample_W_[n] = whole_interval_mean_W(n);
  set_it_power();
  if (config_.per_gpu) keep_per_gpu();
  if (config_.facility) weather_step_ = config_.facility->step_at(Time::zero());
  PowerSink* s = sink_;
  sink_ = nullptr;
  attach(s);
}

void PowerLedger::keep_per_gpu() {
  FLEETWATT_ASSERT(!changed_, "per-GPU power asked for after GPUs have changed");
  per_gpu_ = true;
  gpu_W_.clear();
  gpu_W_.reserve(first_gpu_.back());
  for (const auto& grp : config_.groups)
    gpu_W_.insert(gpu_W_.end(), std::uint64_t{grp.nodes} * grp.gpus_per_node, grp.gpu_idle_W);
}

void PowerLedger::set_node_power(NodeIndex n) {
  nodes_[n].W = nodes_[n].base_W + load_ * fx_W(nodes_[n].gpu_fx);
}

void PowerLedger::set_it_power() {
  gpu_total_W_ = fx_W(gpu_total_fx_);
  it_W_ = base_total_W_ + load_ * gpu_total_W_ + other_it_W_;
}

double PowerLedger::gpu_power_W(GpuIndex g) const {
  FLEETWATT_ASSERT(per_gpu_, "gpu_power_W on a ledger that does not keep per-GPU power");
  return gpu_W_[g];
}

void PowerLedger::attach(PowerSink* sink) {
  FLEETWATT_ASSERT(last_ <= Time::zero() && !closed_, "a power sink must be attached before the run starts");
  sink_ = sink;
  if (!sink_) return;
  if (!per_gpu_ && sink_->wants_gpu_changes()) keep_per_gpu();
  state_pending_ = config_.start < Time::zero();
  if (state_pending_ || !per_gpu_) return;
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
  if (!per_gpu_) return;  // a sink that keeps no GPU changes
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
  return nodes_[n].W * dt / dt;
}

void PowerLedger::cut_node_samples(Time b, double dt) {
  // A node untouched since the interval began drew its power throughout: its mean, (0 + W x dt) / dt, is
  // already in node_sample_W_ (set when it was last touched), so only the nodes touched since are visited.
  for (const NodeIndex n : touched_) {
    const Node& node = nodes_[n];
    node_sample_W_[n] = (node.interval_J + node.W * (b - node.last).seconds()) / dt;
  }
}

void PowerLedger::restart_node_interval(Time b) {
  // Touched nodes start the next interval untouched: their sample becomes the full interval's mean at
  // their present power, the value the next cut keeps unless they are touched again.
  for (const NodeIndex n : touched_) {
    node_sample_W_[n] = whole_interval_mean_W(n);
    nodes_[n].touched = false;
  }
  touched_.clear();
  node_start_ = b;
}

void PowerLedger::cut_final_node_samples(Time end, double dt) {
  // A partial interval: every node's mean over its own length (the untouched nodes' kept samples assume a
  // full interval).
  for (NodeIndex n = 0; n < nodes_.size(); ++n) {
    const Node& node = nodes_[n];
    const double joules = node.touched ? node.interval_J + node.W * (end - node.last).seconds()
                                       : node.W * (end - node_start_).seconds();
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
  // A second change at the same instant: no interval ends and nothing is integrated (the facility interval
  // would add it_W_ x 0 s), so there is nothing to do.
  if (now == last_) return;
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
  nodes_[n].touched = true;
  touched_.push_back(n);
  nodes_[n].interval_J = 0.0;
  nodes_[n].last = node_start_;
}

inline void PowerLedger::touch_node(NodeIndex n, Time now) {
  Node& node = nodes_[n];
  if (!node.touched) first_touch(n);
  node.interval_J += node.W * (now - node.last).seconds();
  node.last = now;
}

void PowerLedger::node_runs(std::span<const GpuIndex> gpus, std::vector<NodeRun>& out) const {
  out.clear();
  const NodeIndex* const node_of_gpu = node_of_gpu_.data();
  const auto node_of = [node_of_gpu](GpuIndex g) { return node_of_gpu[g]; };
  // Counted first, so a job's list is allocated once at its size.
  std::size_t runs = 0;
  for_each_node_run(
      gpus, node_of, [](NodeIndex) {}, [](GpuIndex) {}, [&runs](NodeIndex, std::uint32_t) { ++runs; });
  out.reserve(runs);
  for_each_node_run(
      gpus, node_of, [](NodeIndex) {}, [](GpuIndex) {},
      [&out](NodeIndex n, std::uint32_t count) {
        out.push_back(NodeRun{n, count});
      });
}

void PowerLedger::change_gpu_power(Time at, std::span<const GpuIndex> gpus, std::span<const NodeRun> runs,
                                   double from_W, double to_W, bool to_sink) {
  if (runs.empty() && !gpus.empty()) {
    node_runs(gpus, scratch_runs_);
    runs = scratch_runs_;
  }
  const Time now = window(at);
  advance(now);
  // Checked before anything moves: a caller's bug leaves the ledger as it was.
  std::uint64_t count = 0;
  for (const NodeRun& r : runs) count += r.count;
  FLEETWATT_ASSERT(count == gpus.size(), "a change's server runs miss some of its GPUs");
  if (per_gpu_) {
    for (const GpuIndex g : gpus)
      FLEETWATT_ASSERT(
          gpu_W_[g] == from_W,
          fmt::format("GPU {} draws {} W, not the {} W its change starts from", g, gpu_W_[g], from_W));
    for (const GpuIndex g : gpus) gpu_W_[g] = to_W;
  }
  changed_ = true;
  // Server by server: its energy up to now, then its GPU sum moved by count x (to - from), exactly.
  const std::int64_t delta = to_fx(to_W) - to_fx(from_W);
  for (const NodeRun& r : runs) {
    touch_node(r.node, now);
    nodes_[r.node].gpu_fx += delta * r.count;
    set_node_power(r.node);
  }
  gpu_total_fx_ += static_cast<WideFx>(delta) * static_cast<WideFx>(count);
  set_it_power();
  if (to_sink && sink_ && at >= Time::zero()) sink_->gpu_change(now, gpus, to_W);
  if (listener_) listener_();
}

void PowerLedger::set_gpu_power(Time at, std::span<const GpuIndex> gpus, double power_W, bool to_sink) {
  FLEETWATT_ASSERT(per_gpu_, "set_gpu_power on a ledger that does not keep per-GPU power");
  const Time now = window(at);
  advance(now);
  changed_ = true;
  const std::int64_t to = to_fx(power_W);
  const NodeIndex* const node_of_gpu = node_of_gpu_.data();
  std::int64_t node_delta = 0;
  for_each_node_run(
      gpus, [node_of_gpu](GpuIndex g) { return node_of_gpu[g]; },
      [&](NodeIndex n) {
        touch_node(n, now);
        node_delta = 0;
      },
      [&](GpuIndex g) {
        node_delta += to - to_fx(gpu_W_[g]);
        gpu_W_[g] = power_W;
      },
      [&](NodeIndex n, std::uint32_t) {
        nodes_[n].gpu_fx += node_delta;
        gpu_total_fx_ += node_delta;
        set_node_power(n);
      });
  set_it_power();
  if (to_sink && sink_ && at >= Time::zero()) sink_->gpu_change(now, gpus, power_W);
  if (listener_) listener_();
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
  set_it_power();
}

void PowerLedger::set_node_base_power(Time at, NodeIndex n, double base_W) {
  const Time now = window(at);
  advance(now);
  touch_node(n, now);
  base_total_W_ += base_W - nodes_[n].base_W;
  nodes_[n].base_W = base_W;
  set_node_power(n);
  set_it_power();
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
