// Power accounting. GPU power is piecewise constant and changes only at events; the ledger integrates it
// exactly (energy += P_old * dt at each change), keeps node and facility totals, and cuts the facility and
// node series into fixed intervals whose samples are exact interval means.
//
// A server's GPU power and the fleet's are sums kept in integers (units of 2^-36 W), so they are exact
// whatever the order or grouping of the changes: a change of a job's GPUs updates each server it spans by
// count x (new - old) without drifting over a year, and the totals equal the sums over the GPUs bit for bit.
// Each GPU's own power is kept only when asked (LedgerConfig::per_gpu, or a sink that writes /gpus/changes):
// a job's phase change then costs O(servers it spans), not O(GPUs).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/power/power_sink.hpp"

namespace fleetwatt::sim {

class FacilityModel;

/// A fleet's GPU power in units of 2^-36 W: GCC and Clang's 128-bit integer (an extension, hence the
/// keyword that keeps -Wpedantic quiet).
__extension__ typedef __int128 WideFx;

/// Compensated (Neumaier) sum: energy totals over a year of a fleet stay exact to ~1e-16 relative.
class EnergySum {
 public:
  void add(double x) noexcept;
  [[nodiscard]] double value() const noexcept { return sum_ + compensation_; }

 private:
  double sum_ = 0.0, compensation_ = 0.0;
};

/// One group of identical nodes of a heterogeneous fleet: its GPUs' idle power and its nodes' base power.
struct LedgerGroup {
  std::uint32_t nodes = 1;
  std::uint32_t gpus_per_node = 1;
  double gpu_idle_W = 0.0;
  double node_base_W = 0.0;
};

struct LedgerConfig {
  std::uint32_t nodes = 1;
  std::uint32_t gpus_per_node = 1;
  double gpu_idle_W = 0.0;
  double node_base_W = 0.0;
  /// Non-GPU power that follows the GPUs' (fans, power conversion), per watt of GPU power: a node draws
  /// node_base_W + (1 + node_load_fraction) x its GPUs' power.
  double node_load_fraction = 0.0;
  double pue = 1.0;
  /// The run's first instant. Before zero is a warm-up: changes then set the state but are neither
  /// integrated nor sent to the sink, which gets the state at zero instead (see window()).
  Time start = Time::zero();
  /// Weather-driven cooling (facility_model.hpp): facility power from IT power and the weather step in
  /// force, integrated piece by piece between events and weather steps. Null: IT x pue, as always.
  const FacilityModel* facility = nullptr;
  Duration facility_interval = Duration::from_ns(1'000'000'000);
  Duration node_interval = Duration::from_ns(10'000'000'000);
  /// Keep each GPU's power: gpu_power_W(), set_gpu_power(), and a check at every change that its GPUs drew
  /// what the caller says. Off, a sink that writes GPU changes turns it on when attached.
  bool per_gpu = true;
  /// Heterogeneous fleets: node groups laid out in order (node-major GPU numbering, as Cluster). When
  /// given, they replace nodes, gpus_per_node, gpu_idle_W and node_base_W; empty: one uniform group.
  std::vector<LedgerGroup> groups;
};

class PowerLedger {
 public:
  /// All GPUs start idle at config.start. `sink` may be null (totals only). Totals and series cover
  /// [0, end) whatever the start.
  explicit PowerLedger(const LedgerConfig& config, PowerSink* sink = nullptr);

  /// Sends the series to `sink` from now on; only before time has advanced. Emits the initial GPU state.
  void attach(PowerSink* sink);

  /// `gpus` cut into runs of consecutive GPUs on one server, into `out` (for change_gpu_power).
  void node_runs(std::span<const GpuIndex> gpus, std::vector<NodeRun>& out) const;
  /// From `now` on, the GPUs in `gpus`, each drawing `from_W` until now, draw `to_W`; `runs` are their
  /// servers (node_runs() of `gpus`; empty: cut here). O(servers), plus O(GPUs) where GPUs are kept. The
  /// sink hears of it unless `to_sink` is false (a step-level job's segments, which /gpus/changes leaves
  /// out by default).
  void change_gpu_power(Time now, std::span<const GpuIndex> gpus, std::span<const NodeRun> runs,
                        double from_W, double to_W, bool to_sink = true);
  /// From `now` on, each GPU in `gpus` draws `power_W`, whatever it drew before; needs per-GPU power.
  void set_gpu_power(Time now, std::span<const GpuIndex> gpus, double power_W, bool to_sink = true);
  /// Tells only the sink that each GPU in `gpus` draws `power_W` from `now` on (nothing is integrated).
  void record_gpu_power(Time now, std::span<const GpuIndex> gpus, double power_W);
  /// Adds a constant non-GPU IT load (network, storage) from `now` on; may be negative to remove it.
  void add_other_it_power(Time now, double delta_W);
  /// From `now` on, node n's non-GPU power is `base_W` instead of the configured node_base_W (sleep states).
  void set_node_base_power(Time now, NodeIndex n, double base_W);
  /// Called for every span [t0, t1) of constant power with its IT power (W), in time order: exact
  /// integrals of power against other signals (carbon intensity, price). Set before the run.
  void add_segment_observer(std::function<void(Time, Time, double)> observer) {
    observers_.push_back(std::move(observer));
  }
  /// Called after every change of GPU power (change_gpu_power, set_gpu_power): a controller that follows
  /// the GPUs' draw (a service absorbing the others' swings). Empty: none. It may not change GPU power.
  void set_change_listener(std::function<void()> listener) { listener_ = std::move(listener); }
  /// Integrates up to `end` and emits the last (possibly partial) samples; no change may follow.
  void close(Time end);

  /// Needs per-GPU power (per_gpu()).
  [[nodiscard]] double gpu_power_W(GpuIndex g) const;
  [[nodiscard]] bool per_gpu() const noexcept { return per_gpu_; }
  [[nodiscard]] double node_power_W(NodeIndex n) const { return nodes_[n].W; }
  [[nodiscard]] double it_power_W() const noexcept { return it_W_; }
  /// Every GPU's power together.
  [[nodiscard]] double gpu_power_total_W() const noexcept { return gpu_total_W_; }
  [[nodiscard]] double facility_power_W() const;

  [[nodiscard]] double gpu_energy_J() const noexcept { return gpu_energy_.value(); }
  [[nodiscard]] double it_energy_J() const noexcept { return it_energy_.value(); }
  [[nodiscard]] double facility_energy_J() const noexcept {
    return config_.facility ? facility_energy_.value() : it_energy_.value() * config_.pue;
  }
  /// Highest facility power held for a positive time.
  [[nodiscard]] double peak_facility_W() const noexcept {
    return config_.facility ? peak_facility_W_ : peak_it_W_ * config_.pue;
  }
  /// Weather-driven cooling: lowest and highest facility-interval PUE (facility / IT energy); 0 otherwise.
  [[nodiscard]] double min_interval_pue() const noexcept { return pue_min_; }
  [[nodiscard]] double max_interval_pue() const noexcept { return pue_max_; }
  /// Highest facility interval mean.
  [[nodiscard]] double peak_facility_sample_W() const noexcept { return peak_sample_W_; }
  [[nodiscard]] const LedgerConfig& config() const noexcept { return config_; }

 private:
  void advance(Time now);
  /// `t` clamped to the window's start (zero); the first time in the window sends the state held there.
  Time window(Time t);
  void send_state();
  /// Ends the node interval in progress at `t`: each node's mean power over its `dt` seconds (the whole
  /// interval) into node_sample_W_; the nodes touched in it are the only ones whose mean changed.
  void cut_node_samples(Time t, double dt);
  /// Node n's mean over a whole node interval at its present power, the sample it keeps while untouched.
  [[nodiscard]] double whole_interval_mean_W(NodeIndex n) const;
  /// Starts the next node interval at `t` once the samples have been sent.
  void restart_node_interval(Time t);
  /// The last, partial node interval: every node's mean over its `dt` seconds up to `end`.
  void cut_final_node_samples(Time end, double dt);
  void touch_node(NodeIndex n, Time now);
  /// Node n's power from its GPU sum, and the fleet's IT power from the totals.
  void set_node_power(NodeIndex n);
  void set_it_power();
  /// Starts keeping each GPU's power (every GPU at its group's idle power: only before any change).
  void keep_per_gpu();
  void first_touch(NodeIndex n);
  /// Weather-driven facility energy of the current IT power over [a, b), cut at weather steps.
  double facility_J(Time a, Time b);

  LedgerConfig config_;
  PowerSink* sink_;
  std::vector<GpuIndex> first_gpu_;  ///< [n] = first GPU of node n; [nodes] = all GPUs
  std::vector<NodeIndex> node_of_gpu_;
  bool per_gpu_ = false;
  bool changed_ = false;       ///< a GPU's power has changed
  std::vector<double> gpu_W_;  ///< per GPU, when per_gpu_
  WideFx gpu_total_fx_ = 0;    ///< the fleet's GPU power, in units of 2^-36 W
  std::vector<NodeRun> scratch_runs_;
  /// A server, all a change of it reads and writes in one place (one or two cache lines, where six arrays
  /// cost up to six misses): its GPUs' power sum in units of 2^-36 W, its power and its own non-GPU power,
  /// and the node interval in progress (see node_start_).
  struct Node {
    std::int64_t gpu_fx = 0;
    double W = 0.0;
    double base_W = 0.0;
    double interval_J = 0.0;
    Time last = Time::zero();
    bool touched = false;
  };
  std::vector<Node> nodes_;
  double base_total_W_ = 0.0;
  std::vector<std::function<void(Time, Time, double)>> observers_;
  std::function<void()> listener_;
  double gpu_total_W_ = 0.0;
  double load_ = 1.0;  ///< 1 + node_load_fraction: what a GPU watt costs its node
  double other_it_W_ = 0.0;
  double it_W_ = 0.0;
  Time last_ = Time::zero();
  bool closed_ = false;
  bool state_pending_ = false;  ///< a warm-up's state at zero is still to be sent to the sink

  EnergySum gpu_energy_, it_energy_;
  double peak_it_W_ = 0.0;
  double peak_sample_W_ = 0.0;

  // Facility interval in progress.
  Time facility_start_ = Time::zero();
  double facility_interval_J_ = 0.0;  ///< IT energy since facility_start_
  // Weather-driven cooling only: facility energy in total and since facility_start_, the weather step the
  // integration has reached, and the highest facility power held.
  EnergySum facility_energy_;
  double facility_interval_fJ_ = 0.0;
  std::size_t weather_step_ = 0;
  double peak_facility_W_ = 0.0;
  double pue_min_ = 0.0, pue_max_ = 0.0;
  void note_interval_pue(double mean_it, double mean_facility);
  // Node interval in progress. A node touched in it (a power change) has its energy since node_start_ in
  // Node::interval_J, integrated up to Node::last, and is listed in touched_; an untouched one drew its power
  // throughout and its interval mean already sits in node_sample_W_, so a cut costs the nodes that changed,
  // not the fleet.
  Time node_start_ = Time::zero();
  std::vector<NodeIndex> touched_;
  std::vector<double> node_sample_W_;
};

}  // namespace fleetwatt::sim
