// From a scenario to an engine's parts: the GPU presets with their overrides, the facility (cooling, weather,
// batteries), the grid signals, the clock's horizon and intervals, the interconnect, failures and smoothing.
// The weather and price files are read here, as every file a scenario names is read in runs/.
#include <algorithm>

#include "fleetwatt/runs/engine_setup.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/power/facility_model.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/power/weather.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"

namespace fleetwatt::runs {

using sim::BatteryConfig;
using sim::BatteryMode;
using sim::cooling_design;
using sim::CoolingDesign;
using sim::Duration;
using sim::EngineSetup;
using sim::FleetGroup;
using sim::Time;

namespace {

// A GPU idling above its TDP (an idle override above the preset's TDP, or the reverse) would make every
// job lower its node's power: refused, at the fleet's gpu key (the override may be on either side).
void check_idle_below_tdp(const models::GpuHardware& gpu, const jobs::SourceLocation& where,
                          const std::string& field) {
  if (gpu.idle_W > gpu.tdp_W)
    throw jobs::ConfigError(
        where, field,
        fmt::format("{} idles at {:g} W, above its TDP of {:g} W", gpu.id, gpu.idle_W, gpu.tdp_W));
}

}  // namespace

EngineSetup engine_setup(const runs::Scenario& s) {
  EngineSetup e;
  e.nodes = s.fleet.nodes;
  e.gpus_per_node = s.fleet.gpus_per_node;
  // A user's preset file (validated with file:line:column errors) may add GPUs or redefine built-ins.
  const auto user = s.fleet.gpu_file.empty() ? std::vector<models::GpuHardware>{}
                                             : models::load_gpu_preset_file(s.fleet.gpu_file);
  auto find = [&user](const std::string& id, const jobs::SourceLocation& where, const std::string& field) {
    try {
      return models::find_gpu(id, user);
    } catch (const std::out_of_range& err) {
      throw jobs::ConfigError(where, field, err.what());
    }
  };
  if (s.fleet.groups.empty()) {
    e.gpu = find(s.fleet.gpu, s.fleet.gpu_origin, "fleet.gpu");
    if (s.fleet.gpu_idle_W) e.gpu.idle_W = *s.fleet.gpu_idle_W;
    if (s.fleet.gpu_tdp_W) e.gpu.tdp_W = *s.fleet.gpu_tdp_W;
    check_idle_below_tdp(e.gpu, s.fleet.gpu_origin, "fleet.gpu_idle_w");
    e.node_base_W = s.fleet.node_base_W;
  } else {
    // Node groups: each its preset with its overrides; node_base_w defaults to [fleet] node_base_w.
    for (std::size_t k = 0; k < s.fleet.groups.size(); ++k) {
      const auto& g = s.fleet.groups[k];
      FleetGroup out{g.name, g.nodes, g.gpus_per_node,
                     find(g.gpu, g.gpu_origin, fmt::format("fleet.group[{}].gpu", k)),
                     g.node_base_W.value_or(s.fleet.node_base_W)};
      if (g.gpu_idle_W) out.gpu.idle_W = *g.gpu_idle_W;
      if (g.gpu_tdp_W) out.gpu.tdp_W = *g.gpu_tdp_W;
      check_idle_below_tdp(out.gpu, g.gpu_origin, fmt::format("fleet.group[{}].gpu_idle_w", k));
      e.groups.push_back(std::move(out));
    }
    // The reference group (the first) stands for the fleet where one GPU is asked for (predictions before
    // placement, run-time matching of replayed jobs, NVLink bandwidth of a one-group topology).
    e.gpu = e.groups.front().gpu;
    e.node_base_W = e.groups.front().node_base_W;
    if (e.groups.size() == 1) e.groups.clear();  // one group is the uniform fleet
  }
  e.node_load_fraction = s.fleet.node_load_fraction;
  e.pue = s.facility.pue;
  {
    const CoolingDesign design =
        cooling_design(s.facility.cooling, s.facility.cooling_origin, s.facility.cooling_params);
    if (s.facility.cooling != "constant") {
      e.cooling = design;
      e.weather = std::make_shared<const sim::Weather>(
          sim::read_weather_csv(s.facility.weather_csv, s.facility.weather_start));
    }
  }
  e.carbon_kg_per_J = s.facility.carbon_kg_per_J;
  e.import_limit_W = s.grid.import_limit_kw * 1e3;
  for (const auto& b : s.facility.batteries) {
    BatteryConfig c;
    c.energy_J = b.energy_kwh * 3.6e6;
    c.power_W = b.power_kw * 1e3;
    c.round_trip_efficiency = b.round_trip_efficiency;
    c.soc_min = b.soc_min;
    c.soc_max = b.soc_max;
    c.soc_initial = b.soc_initial;
    c.mode = b.mode == "ramp_limit" ? BatteryMode::ramp_limit
             : b.mode == "carbon"   ? BatteryMode::carbon
                                    : BatteryMode::peak_shave;
    c.import_limit_W = e.import_limit_W;
    c.ramp_W_per_min = b.ramp_limit_kw_per_min * 1e3;
    c.charge_below_g_per_kwh = b.charge_below_g_per_kwh;
    c.discharge_above_g_per_kwh = b.discharge_above_g_per_kwh;
    e.batteries.push_back(c);
  }
  // Grid events: those longer than the IT supplies ride through take the IT load off the grid.
  for (const auto& ev : s.grid.events) {
    ++e.grid_events;
    const sim::GridOutage o{ev.at_s + s.facility.transfer_delay_s,
                            ev.at_s + ev.duration_s + s.facility.return_delay_s,
                            ev.at_s + s.facility.transfer_delay_s + s.facility.ups_autonomy_s};
    if (ev.duration_s <= s.facility.ride_through_s || o.off_s >= o.back_s)
      ++e.grid_events_ridden_through;  // short enough, or over before the transfer would have begun
    else
      e.ride_through.outages.push_back(o);
  }
  e.ride_through.return_ramp_W_per_s = s.facility.return_ramp_kw_per_min * 1e3 / 60.0;
  e.carbon_signal = s.scheduler.carbon;
  if (s.grid.price)
    e.price_signal = std::make_shared<const sim::GridSignal>(
        sim::read_grid_signal_csv(s.grid.price->file, s.grid.price->options));
  e.horizon = Time::from_seconds(s.workload.horizon_s);
  try {
    e.warmup = Duration::from_seconds(s.workload.warmup_s.value_or(0.0));
  } catch (const std::out_of_range&) {
    throw jobs::ConfigError(s.workload.warmup_where, "workload.warmup_s",
                            "too long for the simulated clock (at most ~292 years)");
  }
  e.facility_interval = Duration::from_seconds(s.output.facility_interval_s);
  e.node_interval = Duration::from_seconds(s.output.node_interval_s);
  if (s.output.step_waveform_min_s)
    e.step_waveform_min = Duration::from_seconds(*s.output.step_waveform_min_s);
  e.step_gpu_changes = s.output.step_gpu_changes;
  if (s.topology) {
    e.topology = topologies::parse_topology_config(*s.topology, s.file.parent_path());
    // NVLink bandwidth from the GPU preset unless the scenario sets it.
    if (!e.topology->nvlink_set && e.gpu.nvlink_bw_Bps > 0.0)
      e.topology->node.nvlink.bandwidth_Bps = e.gpu.nvlink_bw_Bps;
    // The GPU's PCIe link to its NIC likewise (GPUDirect RDMA cannot exceed it).
    if (!e.topology->pcie_set && e.gpu.pcie_bw_Bps > 0.0) {
      e.topology->node.pcie.bandwidth_Bps = e.gpu.pcie_bw_Bps;
      e.topology->node.pcie_root.bandwidth_Bps = 2.0 * e.gpu.pcie_bw_Bps;
    }
    // A fabric too small or far too large for the fleet is refused here, before any job is drawn.
    std::uint64_t servers = 0;
    for (const auto& g : sim::fleet_groups(e)) servers += g.nodes;
    topologies::check_fabric_size(*e.topology, static_cast<std::uint32_t>(servers));
  }
  if (s.failures.enabled) {
    e.failures.enabled = true;
    e.failures.rate_per_gpu_hour = s.failures.rate_per_gpu_hour;
    try {
      e.failures.restart_delay = Duration::from_seconds(s.failures.restart_delay_s);
      e.failures.restart_ramp = Duration::from_seconds(s.failures.restart_ramp_s);
    } catch (const std::out_of_range&) {
      throw jobs::ConfigError(s.failures.where, "failures",
                              "restart times too long for the simulated clock (at most ~292 years)");
    }
    e.failures.seed = s.seed;
  }
  // An outage that outlasts the UPS interrupts the running jobs as failures do: their restarts are the
  // [failures] table's (its defaults when absent), with no random failures unless it enables them.
  const bool ups_runs_out = std::any_of(e.ride_through.outages.begin(), e.ride_through.outages.end(),
                                        [](const sim::GridOutage& o) { return o.back_s > o.ups_until_s; });
  if (ups_runs_out && !e.failures.enabled) {
    e.failures.enabled = true;
    e.failures.rate_per_gpu_hour = 0.0;
    e.failures.restart_delay = Duration::from_seconds(s.failures.restart_delay_s);
    e.failures.restart_ramp = Duration::from_seconds(s.failures.restart_ramp_s);
    e.failures.seed = s.seed;
  }
  // [smoothing]: its figures always (a job's own mode may turn it on where the table leaves it off).
  e.smoothing.mode = s.smoothing.mode;
  e.smoothing.floor_fraction = s.smoothing.floor_fraction;
  e.smoothing.ramp_up_W_per_s = s.smoothing.ramp_up_w_per_s;
  e.smoothing.ramp_down_W_per_s = s.smoothing.ramp_down_w_per_s;
  try {
    e.smoothing.hysteresis = Duration::from_seconds(s.smoothing.hysteresis_s);
  } catch (const std::out_of_range&) {
    throw jobs::ConfigError(s.smoothing.where, "smoothing.hysteresis_s",
                            "too long for the simulated clock (at most ~292 years)");
  }
  if (e.facility_interval <= Duration::zero() || e.node_interval <= Duration::zero())
    throw jobs::ConfigError({s.file.string(), 0, 0}, "output", "sampling intervals must be at least 1 ns");
  return e;
}

}  // namespace fleetwatt::runs
