// Report units: SI totals shown in kWh, MW and tonnes.
#include <catch2/catch.hpp>

#include "fleetwatt/results/summary_report.hpp"

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
