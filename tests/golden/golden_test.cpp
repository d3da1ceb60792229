// Golden scenario tests: every shipped scenario runs through the fleetwatt binary, and its /summary values,
// series statistics and printed counts are compared (relative 1e-9) with tests/golden/<scenario>.json; the
// README's printed default day must show the same figures. tools/scripts/regen-golden.sh writes both the
// golden files and the printed blocks of README.md and docs/*.md; a change in simulated numbers fails here
// until it is rerun. Every shipped scenario's ramps are checked to be non-negative on the way.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "golden_figures.hpp"
#include "test_support.hpp"

using namespace fleetwatt;
using namespace fleetwatt::test;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The scenarios of one folder: the shipped ones (examples/scenarios, they run from a clone alone) or the
// examples that read the public measurements in ../shared/data (examples/public-data).
std::vector<std::filesystem::path> golden_scenarios(const char* folder) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / folder))
    if (e.path().extension() == ".toml") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Runs a scenario through the fleetwatt binary and compares its figures with tests/golden/NAME.json.
void reproduces_golden_figures(const std::filesystem::path& scenario) {
  INFO(scenario.filename().string()
       << " (after an intended change of numbers: tools/scripts/regen-golden.sh)");
  TempDir dir;
  const auto golden = golden::golden_file(source_dir(), scenario);
  REQUIRE(std::filesystem::exists(golden));
  const auto out = dir / (scenario.stem().string() + ".h5");
  const auto r =
      run_command(fleetwatt_binary().string() + " run " + scenario.string() + " -o " + out.string());
  REQUIRE(r.exit_code == 0);
  const auto expected = nlohmann::json::parse(slurp(golden));
  const auto actual = golden::figures(out, r.out);
  // The figures themselves must be there: an empty golden file would compare equal to nothing.
  CHECK(expected.at("summary").size() >= 10);
  CHECK(expected.at("series").size() >= 8);
  for (const auto& d : golden::differences(expected, actual)) FAIL_CHECK(d);
  // Up and down ramps are the largest rise and fall: never negative, in the file or as printed.
  for (const auto& [key, value] : actual.at("summary").items())
    if (key.starts_with("ramp_") && key.ends_with("_W") && value.is_number()) {
      INFO(key);
      CHECK_FALSE(value.get<double>() < 0.0);  // NaN (no such window) is not negative either
    }
  CHECK(r.out.find("up -") == std::string::npos);
  CHECK(r.out.find("down -") == std::string::npos);
}

// The block of a page that a regen-golden.sh marker names: the lines between "<!-- golden: COMMAND -->" and
// "<!-- golden: end -->", fences included.
std::string readme_block(const std::string& readme, const std::string& command) {
  const std::string begin = "<!-- golden: " + command + " -->\n";
  const auto b = readme.find(begin);
  if (b == std::string::npos) return {};
  const auto e = readme.find("<!-- golden: end -->", b);
  if (e == std::string::npos) return {};
  return readme.substr(b + begin.size(), e - b - begin.size());
}

// The value printed after `label` (two spaces of indent, the label, then spaces) in a summary block, up to
// the end of its line; empty when absent.
std::string printed_after(const std::string& block, const std::string& label) {
  const std::string key = "\n  " + label + " ";
  const auto at = block.find(key);
  if (at == std::string::npos) return {};
  auto start = block.find_first_not_of(' ', at + key.size());
  return block.substr(start, block.find('\n', start) - start);
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

}  // namespace

TEST_CASE("figures agree within the relative tolerance and no further", "[golden]") {
  CHECK(golden::agree(1.0, 1.0 + 5e-10));
  CHECK_FALSE(golden::agree(1.0, 1.0 + 2e-9));
  CHECK(golden::agree(-3.6e9, -3.6e9 * (1 + 9e-10)));
  CHECK(golden::agree(0.0, 1e-13));  // a zero figure (cost without a price signal)
  CHECK_FALSE(golden::agree(0.0, 1e-6));
}

TEST_CASE("a changed, missing or new figure is a difference", "[golden]") {
  const auto expected = nlohmann::json::parse(R"({"summary": {"gpu_energy_J": 100.0, "jobs_total": 3},
    "series": {"jobs": 3}, "printed": {"events": 10}})");
  CHECK(golden::differences(expected, expected).empty());
  auto changed = expected;
  changed["summary"]["gpu_energy_J"] = 100.001;
  auto missing = expected;
  missing["series"].erase("jobs");
  auto added = expected;
  added["summary"]["capped_predictions"] = 0;
  // A figure not available (null) agrees with null only.
  auto unavailable = expected;
  unavailable["summary"]["ramp_up_1h_W"] = nullptr;
  CHECK(golden::differences(unavailable, unavailable).empty());
  CHECK(golden::differences(unavailable, added).size() == 2);  // ramp missing, capped_predictions new
  auto now_number = unavailable;
  now_number["summary"]["ramp_up_1h_W"] = 5.0;
  CHECK(golden::differences(unavailable, now_number).size() == 1);
  for (const auto* actual : {&changed, &missing, &added}) {
    const auto d = golden::differences(expected, *actual);
    REQUIRE(d.size() == 1);
    INFO(d[0]);
    CHECK((d[0].rfind("summary.gpu_energy_J: expected 100", 0) == 0 ||
           d[0] == "series.jobs: in the golden file, not in the result" ||
           d[0] == "summary.capped_predictions: new, not in the golden file"));
  }
}

TEST_CASE("every shipped scenario reproduces its golden summary and series", "[golden][scenarios]") {
  const auto scenarios = golden_scenarios("examples/scenarios");
  CHECK(scenarios.size() >= 7);
  for (const auto& scenario : scenarios) reproduces_golden_figures(scenario);
}

TEST_CASE("the examples that read the public measurements reproduce their golden figures",
          "[golden][scenarios][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  static_cast<void>(data);  // the scenarios name their files themselves
  const auto scenarios = golden_scenarios("examples/public-data");
  CHECK(scenarios.size() >= 1);
  for (const auto& scenario : scenarios) reproduces_golden_figures(scenario);
}

TEST_CASE("the README prints the default day's golden figures", "[golden][readme]") {
  const auto readme = slurp(source_dir() / "README.md");
  const std::string block = readme_block(readme, "fleetwatt run examples/scenarios/day-fleet.toml");
  INFO("README block of the default day (tools/scripts/regen-golden.sh writes it):\n" << block);
  REQUIRE(!block.empty());
  const auto golden =
      nlohmann::json::parse(slurp(golden::golden_file(source_dir(), "examples/scenarios/day-fleet.toml")));
  const auto& s = golden.at("summary");
  const auto& p = golden.at("printed");
  auto at = [&s](const char* name) { return s.at(name).get<double>(); };
  auto count = [](const nlohmann::json& j, const char* name) {
    return std::to_string(j.at(name).get<std::uint64_t>());
  };
  // The first line: horizon and events (its wall time differs run to run and is not compared).
  CHECK(block.find("fleetwatt run: " + fixed(at("horizon_s") / 3600.0, 2) + " h simulated in ") !=
        std::string::npos);
  CHECK(block.find(" s (" + count(p, "events") + " events; ") != std::string::npos);
  // With a warm-up the line also names the jobs running or queued at 0 (they can finish in the window).
  const bool at_start = s.contains("jobs_at_start") && s.at("jobs_at_start").get<double>() > 0.0;
  CHECK(printed_after(block, "jobs finished") ==
        count(s, "jobs_finished") + " of " + count(p, "jobs_arrived") + " arrived " +
            (at_start ? "and " + count(s, "jobs_at_start") + " running or queued at 0 " : std::string()) +
            "(" + count(s, "jobs_total") + " in the workload)");
  CHECK(printed_after(block, "jobs running at the end") == count(s, "jobs_running"));
  CHECK(printed_after(block, "jobs still queued") == count(s, "jobs_queued"));
  CHECK(printed_after(block, "GPU-hours") == fixed(at("gpu_seconds") / 3600.0, 1));
  CHECK(
      printed_after(block, "mean GPU utilisation").rfind(fixed(100.0 * at("gpu_utilisation"), 1) + " %", 0) ==
      0);
  // Energies in kWh and powers in kW, to the printed decimal (their MWh and MW repeat them).
  CHECK(printed_after(block, "GPU energy").rfind(fixed(at("gpu_energy_J") / 3.6e6, 1) + " kWh", 0) == 0);
  CHECK(printed_after(block, "IT energy").rfind(fixed(at("it_energy_J") / 3.6e6, 1) + " kWh", 0) == 0);
  CHECK(
      printed_after(block, "facility energy").rfind(fixed(at("facility_energy_J") / 3.6e6, 1) + " kWh", 0) ==
      0);
  CHECK(printed_after(block, "peak facility power")
            .rfind(fixed(at("peak_facility_interval_mean_W") / 1e3, 1) + " kW", 0) == 0);
  CHECK(printed_after(block, "mean facility power").rfind(fixed(at("mean_facility_W") / 1e3, 1) + " kW", 0) ==
        0);
  CHECK(printed_after(block, "CO2").rfind(fixed(at("carbon_kg"), 1) + " kg", 0) == 0);
}
