// Report units: SI totals shown in kWh, MW and tonnes; a figure the data cannot give shown as "\u2013".
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "fleetwatt/results/metrics/grid_metrics.hpp"
#include "fleetwatt/results/metrics/power_quality.hpp"
#include "fleetwatt/results/metrics/summary_report.hpp"

using namespace fleetwatt;

TEST_CASE("energies and powers are shown in readable units", "[summary]") {
  CHECK(results::format_energy(27.2 * 3.6e6) == "27.200 kWh");
  CHECK(results::format_energy(27.2 * 3.6e9) == "27.200 MWh");
  CHECK(results::format_energy(1800) == "0.500 Wh");
  CHECK(results::format_power(2.126e6) == "2.126 MW");
  CHECK(results::format_power(1133.2) == "1.133 kW");
}

TEST_CASE("the run summary names every headline figure", "[summary]") {
  sim::RunSummary s;
  s.horizon_s = 86400;
  s.jobs_finished = 3;
  s.jobs_arrived = 4;
  s.jobs_total = 5;
  s.gpu_seconds = 7200;
  s.gpu_utilisation = 0.5;
  s.facility_energy_J = 3.6e9;
  s.carbon_kg = 13600;
  auto text = results::format_summary(s);
  for (const char* label :
       {"jobs finished", "jobs still queued", "GPU-hours", "mean GPU utilisation", "IT energy",
        "facility energy", "peak facility power", "mean facility power", "CO2"})
    CHECK(text.find(label) != std::string::npos);
  CHECK(text.find("3 of 4 arrived") != std::string::npos);
  CHECK(text.find("2.0") != std::string::npos);                     // GPU-hours
  CHECK(text.find("1000.0 kWh (1.000 MWh)") != std::string::npos);  // facility energy
  CHECK(text.find("13600.0 kg (13.600 t)") != std::string::npos);
}

TEST_CASE("the run summary gives the peak's time and the grid metrics on the start's clock",
          "[summary][grid]") {
  sim::RunSummary s;
  s.horizon_s = 86400;
  s.peak_facility_sample_W = 2.5e6;
  s.mean_facility_W = 2.0e6;
  results::GridMetrics g;
  g.peak_time_s = 13 * 3600 + 33 * 60 + 43;  // 13:33:43 after the start
  g.quarter_hour.peak_W = 2.4535e6;
  g.quarter_hour.peak_time_s = 58500;  // 16:15
  g.hour.peak_W = 2.4492e6;
  g.hour.peak_time_s = 57600;
  g.load_factor = 0.8;
  g.energy_per_day_J = 2.0e6 * 86400;  // 48000 kWh
  g.minute.ramp_up_W = 48e3;
  g.minute.ramp_down_W = 52e3;
  g.system_peak_hours = {18};
  g.coincident_hours = 1;
  g.coincident_peak_max_W = 2.2e6;
  g.coincident_peak_time_s = 18 * 3600;
  g.coincident_peak_mean_W = 2.2e6;
  // Start 2026-07-01T02:00:00+02:00 (00:00 UTC): the peak is at 15:33:43 on that clock.
  const results::WallClock clock{results::kDefaultStartUnixS + 181 * 86400, 7200};
  const auto text = results::format_summary(s, g, clock);
  CHECK(text.find("2500.0 kW (2.500 MW) (highest interval mean) at 2026-07-01T15:33:43+02:00\n") !=
        std::string::npos);
  CHECK(text.find("15-min peak demand          2453.5 kW at 2026-07-01T18:15:00+02:00\n") !=
        std::string::npos);
  CHECK(text.find("1-h peak demand             2449.2 kW at 2026-07-01T18:00:00+02:00\n") !=
        std::string::npos);
  CHECK(text.find("load factor                 0.800 (mean / peak)\n") != std::string::npos);
  CHECK(text.find("facility energy per day     48000.0 kWh (48.000 MWh)\n") != std::string::npos);
  CHECK(text.find("max ramp per 1 min          up 48.0 kW, down 52.0 kW\n") != std::string::npos);
  CHECK(text.find("max ramp per 15 min         up \u2013, down \u2013\n") != std::string::npos);  // none: NaN
  CHECK(text.find(
            "coincident peak             max 2200.0 kW at 2026-07-01T20:00:00+02:00, mean 2200.0 kW over 1 "
            "system peak hours\n") != std::string::npos);
  // Without grid metrics (a summary alone) the peak line is as before.
  CHECK(results::format_summary(s).find("(highest interval mean)\n") != std::string::npos);
}

TEST_CASE("an hourly series prints no figure for a window under an hour, and says why", "[summary][grid]") {
  // 0, 3000, 1000 W over three clock hours: the 1-h figures are the series' own; the 1-min and 15-min
  // windows are shorter than the interval, so their peaks and ramps are "\u2013" (never the hour's numbers),
  // as is the 1-s ramp of the power-quality figures.
  const std::vector<double> p{0.0, 3000.0, 1000.0};
  const std::int64_t hour_ns = 3'600'000'000'000;
  const results::GridMetrics g = results::grid_metrics(p, {hour_ns, {}, {}}, 3 * hour_ns);
  const results::PowerQuality q = results::power_quality(p, hour_ns, {}, 3 * hour_ns);
  sim::RunSummary s;
  s.horizon_s = 3 * 3600;
  const auto text = results::format_summary(s, g, {}, q);
  INFO(text);
  CHECK(text.find("15-min peak demand          \u2013 (window shorter than the 1 h interval)\n") !=
        std::string::npos);
  CHECK(text.find("1-h peak demand             3.0 kW at ") != std::string::npos);
  CHECK(text.find(
            "max ramp per 1 min          up \u2013, down \u2013 (window shorter than the 1 h interval)\n") !=
        std::string::npos);
  CHECK(text.find(
            "max ramp per 15 min         up \u2013, down \u2013 (window shorter than the 1 h interval)\n") !=
        std::string::npos);
  CHECK(text.find("max ramp per 1 h            up 3.0 kW, down 2.0 kW\n") != std::string::npos);
  CHECK(text.find(
            "max ramp per 1 s            up \u2013, down \u2013 (window shorter than the 1 h interval)\n") !=
        std::string::npos);
}
