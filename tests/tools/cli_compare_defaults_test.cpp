// `fleetwatt compare` with its defaults on every shipped scenario: it runs, a power cap the scenario does not
// give is derived from a FIFO run's peak (and said so), a policy the scenario cannot run is left out with
// its reason, and a policy named on the command line is never left out silently.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/runs/policy_comparison.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

std::vector<std::filesystem::path> shipped_scenarios() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / "examples" / "scenarios"))
    if (e.path().extension() == ".toml") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// The derived cap the note states, in W, and the FIFO peak it was derived from; NaN when there is no note.
std::pair<double, double> derived_cap(const std::string& out) {
  const std::regex note(R"(note: powercap: cap_w = ([0-9.]+) kW, derived as 90 % of a FIFO run's peak )"
                        R"(facility power \(([0-9.]+) kW\))");
  std::smatch m;
  if (!std::regex_search(out, m, note)) return {std::nan(""), std::nan("")};
  return {std::stod(m[1]) * 1e3, std::stod(m[2]) * 1e3};
}

}  // namespace

TEST_CASE("compare runs every shipped scenario with its defaults", "[cli][compare][defaults]") {
  const auto scenarios = shipped_scenarios();
  CHECK(scenarios.size() >= 7);
  for (const auto& s : scenarios) {
    INFO(s.filename().string());
    TempDir dir;
    const auto file = dir / "c.h5";
    const auto r = run_command(fleetwatt_command() + " compare " + s.string() + " -o " + file.string());
    REQUIRE(r.exit_code == 0);
    fleetwatt::results::ResultReader h5(file);
    const auto policies = h5.strings("/comparison/policy");
    CHECK(policies.size() >= 5);
    // Each default policy is either a row or a note saying why it is not.
    for (const char* p : {"fifo", "sjf", "easy", "powercap", "carbon", "consolidate"}) {
      INFO(p);
      const bool row = std::find(policies.begin(), policies.end(), p) != policies.end();
      const bool left_out = r.out.find(std::string("note: ") + p + ": left out: ") != std::string::npos;
      CHECK(row != left_out);
    }
    const auto [cap_W, fifo_peak_W] = derived_cap(r.out);
    if (!std::isnan(cap_W)) {
      // The FIFO row's peak, and 90 % of it, as the note says (the note prints 0.1 kW).
      const auto peaks = h5.doubles("/comparison/peak_facility_W");
      const auto fifo = std::find(policies.begin(), policies.end(), "fifo") - policies.begin();
      CHECK(fifo_peak_W == Approx(peaks.at(static_cast<std::size_t>(fifo))).margin(50.0));
      CHECK(cap_W == Approx(fleetwatt::runs::kDerivedPowerCapShare * fifo_peak_W).margin(100.0));
      // The capped run's peak is not above the FIFO run's (the cap gates starts on the predicted peak, so
      // where steps swing above their plan's mean it need not lower the measured one).
      const auto capped = std::find(policies.begin(), policies.end(), "powercap") - policies.begin();
      CHECK(peaks.at(static_cast<std::size_t>(capped)) <=
            peaks.at(static_cast<std::size_t>(fifo)) * (1 + 1e-12));
    }
  }
}

TEST_CASE("compare derives a power cap also when powercap is named alone, from a FIFO run it does not show",
          "[cli][compare][defaults]") {
  const auto day = source_dir() / "examples" / "scenarios" / "day-fleet.toml";
  const auto r = run_command(fleetwatt_command() + " compare " + day.string() + " --policies powercap");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\nfifo") == std::string::npos);
  CHECK(r.out.find("\npowercap") != std::string::npos);
  const auto [cap_W, fifo_peak_W] = derived_cap(r.out);
  CHECK(cap_W == Approx(0.9 * fifo_peak_W).margin(100.0));
  // A policy the user names and the scenario cannot run is an error, not a note.
  const auto carbon =
      run_command(fleetwatt_command() + " compare " + day.string() + " --policies fifo,carbon");
  CHECK(carbon.exit_code == 2);
  CHECK(carbon.err.find("needs a carbon signal") != std::string::npos);
}
