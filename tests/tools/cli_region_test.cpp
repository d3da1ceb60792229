// `fleetwatt run REGION.toml`: each site's result file is, bit for bit, the run its scenario gives alone (a
// site from a scenario file with its `set`, an inline site with the region's seed + its index), and the
// region's series is the sites' interval means summed over the time they all cover, with the coincident
// peak its highest interval; bad input in a region names the region file, line and key, exit 2, no file.
#include <catch2/catch.hpp>

#include <algorithm>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "result_files_equal.hpp"
#include "sweep_test_support.hpp"

using namespace fleetwatt::test;
using fleetwatt::results::ResultReader;

namespace {
// kSweepScenario without its seed, starting 10 minutes later, as the body of an inline [[site]] (headers
// under site.) or as a scenario of its own.
std::string west_body(const std::string& prefix) {
  std::string s = kSweepScenario;
  s.erase(0, s.find('\n') + 1);  // "seed = 11"
  for (const std::string h : {"fleet]", "facility]", "workload]", "workload.generator]", "output]"}) {
    const auto at = s.find("[" + h);
    s.replace(at, h.size() + 1, "[" + prefix + h);
  }
  const auto mix = s.find("[[workload.generator.mix]]");
  s.replace(mix, 26, "[[" + prefix + "workload.generator.mix]]");
  return s + "start = \"2026-01-01T00:10:00Z\"\n";
}

std::string region_text(const std::string& west) {
  return "name = \"pair\"\nseed = 5\n[region]\ninterval_s = 300\n\n[[site]]\nname = \"east\"\nscenario = "
         "\"s.toml\"\nset = [\"fleet.nodes = 6\"]\n\n[[site]]\nname = \"west\"\n" +
         west;
}

double mean(const std::vector<double>& v, std::size_t from, std::size_t n) {
  double s = 0;
  for (std::size_t i = from; i < from + n; ++i) s += v.at(i);
  return s / static_cast<double>(n);
}
}  // namespace

TEST_CASE("a region's sites are their own runs and its series is their sum on the common base",
          "[cli][region]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweepScenario);
  const auto region = dir.write("region.toml", region_text(west_body("site.")));
  const auto out = dir / "region.h5";
  auto r = run_command(fleetwatt_command() + " run " + region.string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("fleetwatt run: region pair, 2 sites in ", 0) == 0);
  // East: the scenario file with its override, at the file's own seed (11).
  const auto east_alone = dir / "east.h5";
  REQUIRE(run_command(fleetwatt_command() + " run -q " + s.string() + " --set fleet.nodes=6 -o " +
                      east_alone.string())
              .exit_code == 0);
  const auto east = dir / "region.h5.sites" / "east.h5";
  CHECK(result_files_difference(east, east_alone).empty());
  // West: the inline site as a scenario of its own, at the region's seed 5 + its index 1.
  const auto west_alone = dir / "west.h5";
  REQUIRE(run_command(fleetwatt_command() + " run -q " + dir.write("west.toml", west_body("")).string() +
                      " --seed 6 -o " + west_alone.string())
              .exit_code == 0);
  const auto west = dir / "region.h5.sites" / "west.h5";
  CHECK(result_files_difference(west, west_alone).empty());

  // The common base: east covers [00:00, 01:00), west [00:10, 01:10): [00:10, 01:00) in ten 300-s
  // intervals. East's 10-s means 60 + 30k ... and west's 30k ... average into each interval.
  const ResultReader h5(out);
  const auto e = ResultReader(east).doubles("/facility/facility_power_W");
  const auto w = ResultReader(west).doubles("/facility/facility_power_W");
  const auto region_W = h5.doubles("/region/facility_power_W");
  REQUIRE(region_W.size() == 10);
  CHECK(h5.doubles("/region/time_unix_s").front() == 1767225600.0 + 600);
  double peak = 0, peak_e = 0, peak_w = 0;
  for (std::size_t k = 0; k < 10; ++k) {
    const double ek = mean(e, 60 + 30 * k, 30), wk = mean(w, 30 * k, 30);
    CHECK(region_W[k] == Approx(ek + wk).epsilon(1e-12));
    peak = std::max(peak, ek + wk);
    peak_e = std::max(peak_e, ek);
    peak_w = std::max(peak_w, wk);
  }
  CHECK(h5.doubles("/region/summary/coincident_peak_W").front() == Approx(peak).epsilon(1e-12));
  CHECK(h5.doubles("/region/summary/sum_of_site_peaks_W").front() == Approx(peak_e + peak_w).epsilon(1e-12));
  CHECK(h5.doubles("/region/summary/coincidence_factor").front() ==
        Approx(peak / (peak_e + peak_w)).epsilon(1e-12));
  // The sites' table and the links to their files.
  CHECK(h5.doubles("/sites/east/summary/facility_energy_J").front() ==
        ResultReader(east).doubles("/summary/facility_energy_J").front());
  CHECK(h5.has("/region/sites"));
}

TEST_CASE("bad input in a region names the region file, line and key, and writes nothing", "[cli][region]") {
  struct Case {
    std::string name, text, expected;
  };
  const std::string east = "[[site]]\nname = \"east\"\nscenario = \"s.toml\"\n";
  const std::vector<Case> cases = {
      {"a site named twice", east + east, "region.toml:5:1: site[1].name: site 'east' is given twice"},
      {"a key a scenario does not have", east + "[[site]]\nname = \"west\"\nfleetz = 3\n",
       "region.toml:6:1: site[1].fleetz: unknown key"},
      {"overrides on an inline site", east + "[[site]]\nname = \"west\"\nset = [\"fleet.nodes=3\"]\n",
       "region.toml:6:1: site[1].set: only a site taken from a scenario file has overrides"},
      {"a scenario file that is not there", "[[site]]\nname = \"east\"\nscenario = \"nope.toml\"\n",
       "region.toml:3:1: site[0].scenario: file not found"},
      {"a bad override of a site",
       "[[site]]\nname = \"east\"\nscenario = \"s.toml\"\nset = [\"fleet.nodez=3\"]\n", "fleet.nodez"},
      {"a site name that is no file name", "[[site]]\nname = \"a/b\"\nscenario = \"s.toml\"\n",
       "region.toml:2:1: site[0].name: 'a/b' is not a site name"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    TempDir dir;
    dir.write("s.toml", kSweepScenario);
    dir.write("region.toml", c.text);
    const auto out = dir / "out.h5";
    const auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() +
                               " run region.toml -o " + out.string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK_FALSE(std::filesystem::exists(dir / "out.h5.sites"));
  }
}

TEST_CASE("docs/cli.md's region example runs: two sites, a coincident peak no higher than their peaks' sum",
          "[cli][region]") {
  TempDir dir;
  const auto out = dir / "region.h5";
  const auto r =
      run_command(fleetwatt_command() + " run -q " +
                  (source_dir() / "examples/region-two-sites.toml").string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const ResultReader h5(out);
  // East's window is [05:00Z, 05:00Z next day), west's [08:00Z, 08:00Z): 21 h in common, 84 intervals of 15
  // min.
  CHECK(h5.doubles("/region/facility_power_W").size() == 84);
  const double factor = h5.doubles("/region/summary/coincidence_factor").front();
  CHECK(factor > 0.0);
  CHECK(factor <= 1.0);
  CHECK(h5.doubles("/sites/east/summary/facility_energy_J").front() > 0.0);
  CHECK(h5.doubles("/sites/west/summary/facility_energy_J").front() > 0.0);
}
