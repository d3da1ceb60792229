// On-site storage behind the point of interconnection. The controller acts once per facility interval on
// that interval's exact mean facility demand and holds its power over the interval (a real BESS controller
// acts about every second; at the facility interval's resolution the energies stay exact, and with a
// 1-minute interval a ramp limit per minute is enforced exactly). Grid import = demand + charge - discharge,
// where charge is drawn from and discharge delivered to the site bus; the store gains eta x charge and
// loses discharge / eta, eta = sqrt(round-trip efficiency), and the difference is the storage loss.
// Modes: peak_shave (discharge to hold import at or under the limit, recharge below it), ramp_limit (hold
// |import change| per minute at or under a rate), carbon (charge while the interval's carbon intensity is
// at or under one threshold, discharge while it is at or over another).
#pragma once

namespace fleetwatt::sim {

enum class BatteryMode { peak_shave, ramp_limit, carbon };

struct BatteryConfig {
  double energy_J = 0.0;  ///< usable capacity between SoC 0 and 1
  double power_W = 0.0;   ///< charge and discharge limit at the bus
  double round_trip_efficiency = 0.9;
  double soc_min = 0.0, soc_max = 1.0, soc_initial = 0.5;
  BatteryMode mode = BatteryMode::peak_shave;
  double import_limit_W = 0.0;  ///< peak_shave (required); carbon: charging never lifts import above it
  double ramp_W_per_min = 0.0;  ///< ramp_limit
  double charge_below_g_per_kwh = 0.0;     ///< carbon
  double discharge_above_g_per_kwh = 0.0;  ///< carbon
};

/// One interval's outcome (powers are the interval's constant values, W).
struct BatteryStep {
  double import_W = 0.0;
  double charge_W = 0.0, discharge_W = 0.0;  ///< at the bus
  double soc = 0.0;                          ///< at the interval's end
  double loss_J = 0.0;
};

class SiteBattery {
 public:
  explicit SiteBattery(const BatteryConfig& config);
  /// The next interval: its mean demand (W), its length (s) and, for carbon mode, its mean carbon
  /// intensity (g/kWh).
  BatteryStep step(double demand_W, double dt_s, double intensity_g_per_kwh = 0.0);

  [[nodiscard]] double soc() const noexcept { return stored_J_ / config_.energy_J; }
  [[nodiscard]] double stored_J() const noexcept { return stored_J_; }
  [[nodiscard]] double loss_J() const noexcept { return loss_J_; }
  [[nodiscard]] double charged_J() const noexcept { return charged_J_; }
  [[nodiscard]] double discharged_J() const noexcept { return discharged_J_; }
  [[nodiscard]] const BatteryConfig& config() const noexcept { return config_; }

 private:
  BatteryConfig config_;
  double eta_;
  double stored_J_;
  double loss_J_ = 0.0, charged_J_ = 0.0, discharged_J_ = 0.0;
  bool has_previous_ = false;
  double previous_import_W_ = 0.0;
};

}  // namespace fleetwatt::sim
