// Human units appear only here, in what people read.
#include "fleetwatt/results/summary_report.hpp"

#include <fmt/format.h>
#include <cmath>

namespace fleetwatt::results {

std::string format_energy(double j) {
  const double wh = j / 3600.0;
  if (std::fabs(wh) >= 1e9) return fmt::format("{:.3f} GWh", wh / 1e9);
  if (std::fabs(wh) >= 1e6) return fmt::format("{:.3f} MWh", wh / 1e6);
  if (std::fabs(wh) >= 1e3) return fmt::format("{:.3f} kWh", wh / 1e3);
  return fmt::format("{:.3f} Wh", wh);
}

std::string format_power(double w) {
  if (std::fabs(w) >= 1e6) return fmt::format("{:.3f} MW", w / 1e6);
  if (std::fabs(w) >= 1e3) return fmt::format("{:.3f} kW", w / 1e3);
  return fmt::format("{:.1f} W", w);
}

static std::string format_mass(double kg) {
  if (std::fabs(kg) >= 1000.0) return fmt::format("{:.3f} t", kg / 1000.0);
  return fmt::format("{:.3f} kg", kg);
}

std::string format_summary(const sim::RunSummary& s) {
  std::string out;
  auto line = [&out](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<28}{}\n", label, value);
  };
  out += fmt::format(
      "fleetwatt run: {:.2f} h simulated in {:.2f} s ({} events; scheduler {}, placement {}, "
      "predictor {})\n",
      s.horizon_s / 3600.0, s.wall_s, s.events, s.scheduler, s.placement, s.predictor);
  line("jobs finished",
       fmt::format("{} of {} arrived ({} in the workload)", s.jobs_finished, s.jobs_arrived, s.jobs_total));
  line("jobs running at the end", fmt::format("{}", s.jobs_running));
  line("jobs still queued", fmt::format("{}", s.jobs_queued));
  line("GPU-hours", fmt::format("{:.1f}", s.gpu_seconds / 3600.0));
  line("mean GPU utilisation", fmt::format("{:.1f} % (allocated GPU time)", 100.0 * s.gpu_utilisation));
  line("GPU energy", format_energy(s.gpu_energy_J));
  line("IT energy", format_energy(s.it_energy_J));
  line("facility energy", format_energy(s.facility_energy_J));
  line("peak facility power",
       fmt::format("{} (interval mean; instantaneous {})", format_power(s.peak_facility_sample_W),
                   format_power(s.peak_facility_W)));
  line("mean facility power", format_power(s.mean_facility_W));
  line("CO2", format_mass(s.carbon_kg));
  return out;
}

}  // namespace fleetwatt::results
