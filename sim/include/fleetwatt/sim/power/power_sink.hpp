// Where power time series go as the simulation produces them (results/ writes them to HDF5). Samples are
// streamed, so memory does not grow with simulated time.
#pragma once

#include <span>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"

namespace fleetwatt::sim {

class PowerSink {
 public:
  virtual ~PowerSink() = default;
  /// Mean powers over [start, start + interval); energy_J is facility energy from 0 to the interval's end.
  virtual void facility_sample(Time start, double it_W, double facility_W, double energy_J) = 0;
  /// Mean power of every node over [start, start + node interval).
  virtual void node_samples(Time start, std::span<const double> node_W) = 0;
  /// From time t on, each GPU in `gpus` draws `power_W`.
  virtual void gpu_change(Time t, std::span<const GpuIndex> gpus, double power_W) = 0;
  /// Whether gpu_change() keeps anything: the ledger keeps each GPU's power only for a sink that does.
  [[nodiscard]] virtual bool wants_gpu_changes() const { return true; }
  /// From time t on, the network (switches, NICs, links, storage servers) draws `power_W`.
  virtual void network_change(Time /*t*/, double /*power_W*/) {}
  /// Carbon (kg) and cost (price-signal currency) of the facility over the interval starting at `start`
  /// (the facility series' intervals; sent after that interval's facility_sample).
  virtual void grid_sample(Time /*start*/, double /*carbon_kg*/, double /*cost*/) {}
  /// With on-site batteries ([[facility.battery]]): over the facility interval starting at `start`, the mean
  /// grid import, the batteries' net power to the site (positive discharging) and their state of charge at
  /// the interval's end (stored / capacity of all). Sent after that interval's facility_sample.
  virtual void battery_sample(Time /*start*/, double /*import_W*/, double /*battery_W*/, double /*soc*/) {}
  /// With grid events ([[grid.event]], ride_through.hpp): over the facility interval starting at `start`,
  /// the mean grid import and the mean IT power off the grid, served by the UPS or dark. Sent after that
  /// interval's facility_sample.
  virtual void outage_sample(Time /*start*/, double /*import_W*/, double /*ups_W*/, double /*unserved_W*/) {}
};

}  // namespace fleetwatt::sim
