// `fleetwatt export` in the forms grid tools read: an OpenDSS LoadShape (its definition parsed as OpenDSS
// reads it: `npts`, `sinterval`, `mult=(file=...)` with one per-unit value per line, 1.0 = the peak or
// --base-kw), a GridLAB-D player (an absolute "YYYY-MM-DD hh:mm:ss UTC" first line, then "+Ns," lines, '#'
// comments), MW columns, the default rounding to 0.1 W, an 8,760-row year, and the refusals. Every value is
// checked against the CSV export of the same run, whose exactness tests/tools/cli_export_test.cpp checks.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "csv_text.hpp"
#include "default_day.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using Catch::Detail::Approx;

namespace {
/// Column `c` of a CSV export's data rows (the header skipped).
std::vector<double> csv_column(const std::string& csv, std::size_t c) {
  std::vector<double> out;
  const auto lines = lines_of(csv);
  for (std::size_t i = 1; i < lines.size(); ++i) out.push_back(std::stod(fields(lines[i]).at(c)));
  return out;
}

/// Digits after the point of a number as written.
std::size_t decimals_of(const std::string& text) {
  const auto dot = text.find('.');
  return dot == std::string::npos ? 0 : text.size() - dot - 1;
}

std::size_t files_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}
}  // namespace

TEST_CASE("values are rounded to 0.1 W by default, in kW or MW, and --digits sets the decimals",
          "[cli][export][formats]") {
  const std::string day = day_result().string();
  const auto fine = run_command(fleetwatt_command() + " export " + day + " --interval 15min --digits 9");
  const auto kw = run_command(fleetwatt_command() + " export " + day + " --interval 15min");
  const auto mw = run_command(fleetwatt_command() + " export " + day + " --interval 15min --units MW");
  const auto two = run_command(fleetwatt_command() + " export " + day + " --interval 15min --digits 2");
  REQUIRE(fine.exit_code == 0);
  REQUIRE(kw.exit_code == 0);
  REQUIRE(mw.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  CHECK(lines_of(mw.out)[0] ==
        "timestamp_iso8601,time_s,it_power_MW,facility_power_MW,grid_import_MW,carbon_kg,cost_currency");
  const auto row_kw = fields(lines_of(kw.out)[1]), row_mw = fields(lines_of(mw.out)[1]),
             row_two = fields(lines_of(two.out)[1]);
  CHECK(decimals_of(row_kw[3]) == 4);  // 0.1 W in kW
  CHECK(decimals_of(row_mw[3]) == 7);  // 0.1 W in MW
  CHECK(decimals_of(row_kw[5]) == 4);  // carbon kg
  CHECK(decimals_of(row_two[3]) == 2);
  CHECK(decimals_of(row_two[5]) == 2);
  // Each rounded value is within half its last digit of the exact one, in both units.
  const auto exact = csv_column(fine.out, 3), in_kw = csv_column(kw.out, 3), in_mw = csv_column(mw.out, 3);
  REQUIRE(exact.size() == 96);
  for (std::size_t i = 0; i < exact.size(); ++i) {
    CHECK(std::abs(in_kw[i] - exact[i]) <= 0.5e-4 + 1e-9);
    CHECK(std::abs(in_mw[i] * 1e3 - exact[i]) <= 0.5e-4 + 1e-9);
  }
}

TEST_CASE("an OpenDSS LoadShape of the default day: npts, sinterval and a per-unit mult file of the meter",
          "[cli][export][formats][opendss]") {
  TempDir dir;
  const std::string day = day_result().string();
  const auto csv = run_command(fleetwatt_command() + " export " + day + " --interval 15min --digits 9");
  REQUIRE(csv.exit_code == 0);
  const auto import_kw = csv_column(csv.out, 4);
  const double peak_kw = *std::max_element(import_kw.begin(), import_kw.end());

  const auto dss = dir / "day-fleet.dss";
  const auto r = run_command(fleetwatt_command() + " export " + day +
                             " --format opendss --interval 15min -o " + dss.string());
  REQUIRE(r.exit_code == 0);
  CHECK(files_in(dir.path()) == 2);  // the definition and its mult file, no temporary left
  const auto lines = lines_of(slurp(dss));
  // OpenDSS reads '!' to the end of a line as a comment; the one command defines the shape.
  std::vector<std::string> commands;
  for (const auto& l : lines)
    if (!l.empty() && l[0] != '!') commands.push_back(l);
  REQUIRE(commands.size() == 1);
  const std::regex shape(R"(New LoadShape\.([A-Za-z_][A-Za-z0-9_]*) npts=(\d+) sinterval=([0-9.]+) )"
                         R"(mult=\(file=([^)\s]+)\))");
  std::smatch m;
  REQUIRE(std::regex_match(commands[0], m, shape));
  CHECK(m[1] == "day_fleet");
  CHECK(std::stoul(m[2]) == 96);
  CHECK(std::stod(m[3]) == 900.0);
  CHECK(m[4] == "day-fleet_mult.csv");
  // The comment states the base; with no --base-kw it is the peak row, to 0.1 W.
  const std::regex base_line(R"(! mult = kW / ([0-9.]+) kW \(the peak row\).*)");
  std::smatch b;
  REQUIRE(std::regex_match(lines[1], b, base_line));
  const double base_kw = std::stod(b[1]);
  CHECK(std::abs(base_kw - peak_kw) <= 0.5e-4 + 1e-9);
  // One value per line, as many as npts, 1.0 at the peak; mult x base is the CSV's grid import.
  const auto mult = lines_of(slurp(dir / "day-fleet_mult.csv"));
  REQUIRE(mult.size() == 96);
  double highest = 0.0;
  for (std::size_t i = 0; i < mult.size(); ++i) {
    INFO(i);
    REQUIRE(mult[i].find(',') == std::string::npos);
    const double pu = std::stod(mult[i]);
    CHECK(pu >= 0.0);
    highest = std::max(highest, pu);
    CHECK(std::abs(pu * base_kw - import_kw[i]) <= 1e-4);  // 0.1 W of the base, in kW
  }
  CHECK(highest == 1.0);

  // --base-kw: the multipliers are kW / that base.
  const auto fixed = dir / "fixed.dss";
  REQUIRE(run_command(fleetwatt_command() + " export " + day +
                      " --format opendss --interval 1h --base-kw 5000 -o " + fixed.string())
              .exit_code == 0);
  CHECK(slurp(fixed).find("New LoadShape.fixed npts=24 sinterval=3600 mult=(file=fixed_mult.csv)") !=
        std::string::npos);
  const auto hourly = lines_of(slurp(dir / "fixed_mult.csv"));
  REQUIRE(hourly.size() == 24);
  const auto csv_h = run_command(fleetwatt_command() + " export " + day + " --interval 1h --digits 9");
  const auto hour_kw = csv_column(csv_h.out, 4);
  for (std::size_t i = 0; i < 24; ++i) CHECK(std::stod(hourly[i]) == Approx(hour_kw[i] / 5000).margin(1e-7));
}

TEST_CASE("a GridLAB-D player: an absolute UTC first line, then whole-second steps, values of the meter",
          "[cli][export][formats][gridlabd]") {
  TempDir dir;
  // A start two hours east of UTC: the player's clock is UTC, so its first line reads 00:00 UTC.
  const auto scenario = dir.write("s.toml", R"(seed = 5
[fleet]
nodes = 3
gpus_per_node = 2
[workload]
horizon_s = 10800
[[workload.jobs]]
submit_s = 100
n_gpus = 3
epochs = 20
class = "vit"
[output]
start = "2026-07-01T02:00:00+02:00"
)");
  const auto h5 = dir / "s.h5";
  REQUIRE(
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + h5.string()).exit_code ==
      0);
  const auto csv =
      run_command(fleetwatt_command() + " export " + h5.string() + " --interval 15min --digits 9");
  REQUIRE(csv.exit_code == 0);
  const auto import_kw = csv_column(csv.out, 4);
  REQUIRE(import_kw.size() == 12);

  const auto player = dir / "s.player";
  const auto r = run_command(fleetwatt_command() + " export " + h5.string() +
                             " --format gridlabd --interval 15min --units MW -o " + player.string());
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(slurp(player));
  std::vector<std::string> data;
  for (const auto& l : lines)
    if (!l.empty() && l[0] != '#') data.push_back(l);
  REQUIRE(data.size() == 12);
  const std::regex first(R"((\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC,(-?[0-9.]+))");
  const std::regex next(R"(\+(\d+)s,(-?[0-9.]+))");
  std::smatch m;
  REQUIRE(std::regex_match(data[0], m, first));
  CHECK(m[1] == "2026-07-01 00:00:00");
  CHECK(std::abs(std::stod(m[2]) * 1e3 - import_kw[0]) <= 0.5e-4 + 1e-9);
  for (std::size_t i = 1; i < data.size(); ++i) {
    INFO(data[i]);
    REQUIRE(std::regex_match(data[i], m, next));
    CHECK(std::stoul(m[1]) == 900);
    CHECK(std::abs(std::stod(m[2]) * 1e3 - import_kw[i]) <= 0.5e-4 + 1e-9);
  }
  CHECK(slurp(player).find("# value: real power in MW") != std::string::npos);
}

TEST_CASE("a year profile: 8,760 hourly rows whose mean is the year's mean facility power",
          "[cli][export][year]") {
  TempDir dir;
  const auto h5file = dir / "year.h5";
  REQUIRE(run_command(fleetwatt_command() + " run -q " +
                      (source_dir() / "examples/scenarios/year-weather.toml").string() + " -o " +
                      h5file.string())
              .exit_code == 0);
  const auto r = run_command(fleetwatt_command() + " export " + h5file.string() + " --year --digits 9");
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 8761);
  CHECK(lines[1].rfind("2026-01-01T00:00:00Z,0,", 0) == 0);
  CHECK(lines[8760].rfind("2026-12-31T23:00:00Z,31532400,", 0) == 0);
  double sum = 0.0;
  for (double kw : csv_column(r.out, 3)) sum += kw;
  fleetwatt::results::ResultReader h5(h5file);
  // The run is exactly 365 days, so the 8,760 hours are all of it.
  REQUIRE(h5.doubles("/summary/horizon_s").at(0) == 8760.0 * 3600);
  CHECK(sum / 8760 * 1e3 == Approx(h5.doubles("/summary/mean_facility_W").at(0)).epsilon(1e-9));
  // Every format takes --year: an OpenDSS shape of 8,760 hours.
  const auto dss = dir / "year.dss";
  REQUIRE(run_command(fleetwatt_command() + " export " + h5file.string() + " --year --format opendss -o " +
                      dss.string())
              .exit_code == 0);
  CHECK(slurp(dss).find("npts=8760 sinterval=3600 ") != std::string::npos);
  CHECK(lines_of(slurp(dir / "year_mult.csv")).size() == 8760);
}

TEST_CASE("export refuses format options that do not fit, with status 2, one line and no file",
          "[cli][export][formats]") {
  TempDir dir;
  const std::string day = day_result().string();
  const auto out = dir / "x.out";
  struct Case {
    std::string args, expected;
  };
  const std::vector<Case> cases = {
      {"--format xml -o " + out.string(), "command line: --format: 'xml' is not csv, opendss or gridlabd"},
      {"--units GW", "command line: --units: 'GW' is not W, kW or MW"},
      {"--digits 20", "command line: --digits: 20 is not 0 to 15 decimals"},
      {"--base-kw 100", "--base-kw: sets the 1.0 pu of an OpenDSS LoadShape"},
      {"--format opendss --base-kw -1 -o " + out.string(), "--base-kw: -1 is not a positive power"},
      {"--format opendss", "give -o NAME.dss"},
      {"--format gridlabd --what nodes",
       "writes the meter's load profile (--what facility), not --what nodes"},
      {"--format gridlabd --interval 500ms -o " + out.string(), "a GridLAB-D player steps in whole seconds"},
      {"--year -o " + out.string(), "--year: the run covers 24.0 h; a year profile needs 8760 h"},
      {"--year --interval 15min", "--year: has hourly rows; --interval 15min asks for others"},
      {"--year --what jobs", "--year: is a profile of the meter, not of --what jobs"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const auto r = run_command(fleetwatt_command() + " export " + day + " " + c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(files_in(dir.path()) == 0);
  }
}

TEST_CASE("docs/cli.md shows each format's first lines as the command writes them today",
          "[cli][export][formats][docs]") {
  // The blocks tools/scripts/regen-golden.sh writes for "<!-- golden: fleetwatt export SCENARIO ARGS -->":
  // the scenario run to NAME.h5, exported in an empty folder; the first 6 lines printed, then each file
  // written, by name, as "==> FILE <==" and its first 6 lines, in a fenced block.
  const std::string page = slurp(source_dir() / "docs" / "cli.md");
  const std::string prefix = "<!-- golden: fleetwatt export ";
  std::size_t blocks = 0;
  for (std::size_t at = page.find(prefix); at != std::string::npos; at = page.find(prefix, at + 1)) {
    const auto line_end = page.find('\n', at);
    const std::string command = page.substr(at + prefix.size(), line_end - at - prefix.size() - 4);
    INFO(command);
    const auto end = page.find("<!-- golden: end -->", line_end);
    REQUIRE(end != std::string::npos);
    const std::string shown = page.substr(line_end + 1, end - line_end - 1);
    const std::string scenario = command.substr(0, command.find(' '));
    const std::string args = command.substr(command.find(' ') + 1);
    const std::string name = std::filesystem::path(scenario).stem().string();
    TempDir dir;
    REQUIRE(run_command(fleetwatt_command() + " run -q " + (source_dir() / scenario).string() + " -o " +
                        (dir / (name + ".h5")).string())
                .exit_code == 0);
    const auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() + " export " +
                               name + ".h5 " + args);
    REQUIRE(r.exit_code == 0);
    std::filesystem::remove(dir / (name + ".h5"));
    auto head = [](const std::string& text) {
      std::string out;
      const auto lines = lines_of(text);
      for (std::size_t i = 0; i < std::min<std::size_t>(6, lines.size()); ++i) out += lines[i] + "\n";
      return out;
    };
    std::string expected = "```\n" + head(r.out);
    std::vector<std::string> written;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
      written.push_back(e.path().filename().string());
    std::sort(written.begin(), written.end());
    for (const auto& f : written) expected += "==> " + f + " <==\n" + head(slurp(dir / f));
    expected += "```\n";
    CHECK(shown == expected);
    ++blocks;
  }
  CHECK(blocks == 3);  // CSV in MW, OpenDSS, GridLAB-D
}
