// How a setup becomes the engine's parts (engine_wiring.hpp).
#include "engine_wiring.hpp"

namespace fleetwatt::sim {

namespace {

// The ledger's view of the node groups: each group's GPU idle power and node base power.
std::vector<LedgerGroup> ledger_groups(const FleetLayout& layout) {
  std::vector<LedgerGroup> out;
  for (const auto& g : layout.groups())
    out.push_back({g.nodes, g.gpus_per_node, g.gpu.idle_W, g.node_base_W});
  return out;
}

}  // namespace

std::vector<FleetGroup> fleet_groups(const EngineSetup& setup) {
  if (!setup.groups.empty()) return setup.groups;
  return {FleetGroup{setup.gpu.id, setup.nodes, setup.gpus_per_node, setup.gpu, setup.node_base_W}};
}

std::unique_ptr<FacilityModel> facility_model(const EngineSetup& s, const FleetLayout& layout) {
  if (!s.cooling) return nullptr;
  CoolingDesign d = *s.cooling;
  if (!(d.design_it_W > 0.0))
    for (const auto& g : layout.groups())
      d.design_it_W += g.nodes * (g.gpus_per_node * g.gpu.tdp_W + g.node_base_W);
  return std::make_unique<FacilityModel>(d, *s.weather);
}

LedgerConfig ledger_config(const EngineSetup& s, const FleetLayout& layout) {
  LedgerConfig c;
  c.nodes = s.nodes;
  c.gpus_per_node = s.gpus_per_node;
  c.gpu_idle_W = s.gpu.idle_W;
  c.node_base_W = s.node_base_W;
  c.node_load_fraction = s.node_load_fraction;
  c.pue = s.pue;
  c.start = Time::from_ns(-s.warmup.ns());
  c.facility_interval = s.facility_interval;
  c.node_interval = s.node_interval;
  c.per_gpu = false;  // a sink that writes /gpus/changes turns it on when attached
  if (!s.groups.empty()) c.groups = ledger_groups(layout);
  return c;
}

GridMeterConfig grid_meter_config(const EngineSetup& s) {
  return GridMeterConfig{s.facility_interval,  s.pue,  s.carbon_signal.get(), s.carbon_kg_per_J,
                         s.price_signal.get(), nullptr};
}

std::optional<BatteryBankConfig> battery_bank_config(const EngineSetup& s) {
  if (s.batteries.empty()) return std::nullopt;
  return BatteryBankConfig{s.batteries,           s.import_limit_W,  s.facility_interval, s.horizon,
                           s.carbon_signal.get(), s.carbon_kg_per_J, s.price_signal.get()};
}

std::optional<OutageMeterConfig> outage_meter_config(const EngineSetup& s) {
  if (s.grid_events == 0) return std::nullopt;
  return OutageMeterConfig{s.ride_through,        s.facility_interval, s.horizon,
                           s.carbon_signal.get(), s.carbon_kg_per_J,   s.price_signal.get()};
}

}  // namespace fleetwatt::sim
