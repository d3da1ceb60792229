// Carbon and cost per facility interval (see grid_meter.hpp).
#include "fleetwatt/sim/power/grid_meter.hpp"

#include <algorithm>

#include "fleetwatt/sim/power/facility_model.hpp"

namespace fleetwatt::sim {

GridMeter::GridMeter(const GridMeterConfig& config, std::function<void(Time, double, double)> on_interval)
    : config_(config), on_interval_(std::move(on_interval)) {
  if (config_.facility) weather_step_ = config_.facility->step_at(Time::zero());
}

void GridMeter::integrate(Time t0, Time t1, double facility_W) {
  // J x g/kWh / (3.6e6 J/kWh) / (1000 g/kg); J x currency/MWh / (3.6e9 J/MWh).
  if (config_.carbon) {
    sim::SignalIntegrator piece(*config_.carbon);
    piece.add(t0.seconds(), t1.seconds(), facility_W);
    carbon_.add(piece.total() / sim::kJoulesPerKwh / 1000.0);
  } else {
    carbon_.add(facility_W * (t1 - t0).seconds() * config_.carbon_kg_per_J);
  }
  if (config_.price) {
    sim::SignalIntegrator piece(*config_.price);
    piece.add(t0.seconds(), t1.seconds(), facility_W);
    cost_.add(piece.total() / (1000.0 * sim::kJoulesPerKwh));
  }
}

void GridMeter::emit() {
  const double kg = carbon_.value(), cost = cost_.value();
  carbon_total_.add(kg);
  cost_total_.add(cost);
  if (on_interval_) on_interval_(start_, kg, cost);
  carbon_ = {};
  cost_ = {};
}

void GridMeter::add(Time t0, Time t1, double it_W) {
  double facility_W = it_W * config_.pue;
  while (t0 < t1) {
    const Time boundary = start_ + config_.interval;
    Time piece_end = std::min(t1, boundary);
    if (config_.facility) {
      const FacilityModel& m = *config_.facility;
      while (m.step_end(weather_step_) <= t0) ++weather_step_;
      piece_end = std::min(piece_end, m.step_end(weather_step_));
      facility_W = m.power_W(it_W, weather_step_);
    }
    integrate(t0, piece_end, facility_W);
    if (piece_end == boundary) {
      emit();
      start_ = boundary;
    }
    t0 = piece_end;
  }
}

void GridMeter::close(Time end) {
  if (start_ < end) emit();
  start_ = end;
}

}  // namespace fleetwatt::sim
