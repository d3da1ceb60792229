// `fleetwatt sweep` run serially: the members are the Cartesian product, each member's file equals the
// `fleetwatt run` it stands for bit for bit, the index's table and links agree with the members' files, a
// failing member is recorded and the sweep goes on, and --resume runs only what is missing.
#include <catch2/catch.hpp>

#include <algorithm>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "result_files_equal.hpp"
#include "sweep_table.hpp"
#include "sweep_test_support.hpp"

using namespace fleetwatt::test;
using fleetwatt::results::ResultReader;

TEST_CASE("a sweep's members are the product of its axes and each equals its own run", "[cli][sweep]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweepScenario);
  const auto index = dir / "sweep.h5";
  auto r = run_command(fleetwatt_command() + " sweep " + s.string() +
                       " --grid 'fleet.nodes=[4, 6]' --grid seed=1..2" + " --set facility.pue=1.3 -o " +
                       index.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("fleetwatt sweep: 4 members (4 done, 0 failed) on 1 rank in ", 0) == 0);
  // 2 x 2 members, the last axis fastest.
  CHECK(sweep_text_column(index, "name") ==
        std::vector<std::string>{"m000000", "m000001", "m000002", "m000003"});
  CHECK(sweep_text_column(index, "overrides") ==
        std::vector<std::string>{"fleet.nodes=4", "fleet.nodes=4", "fleet.nodes=6", "fleet.nodes=6"});
  CHECK(sweep_number_column(index, "seed") == std::vector<double>{1, 2, 1, 2});
  CHECK(sweep_text_column(index, "status") == std::vector<std::string>(4, "done"));
  CHECK(sweep_number_column(index, "rank") == std::vector<double>(4, 0));
  const auto energy = sweep_number_column(index, "facility_energy_J");
  const auto peak = sweep_number_column(index, "peak_facility_W");
  const int nodes[] = {4, 4, 6, 6}, seeds[] = {1, 2, 1, 2};
  const ResultReader idx(index);
  for (int k = 0; k < 4; ++k) {
    INFO("member " << k);
    // The same run by hand: the sweep's --set first, then the member's, and its seed.
    const auto alone = dir / ("run" + std::to_string(k) + ".h5");
    auto a = run_command(fleetwatt_command() + " run -q " + s.string() +
                         " --set facility.pue=1.3 --set fleet.nodes=" + std::to_string(nodes[k]) +
                         " --seed " + std::to_string(seeds[k]) + " -o " + alone.string());
    REQUIRE(a.exit_code == 0);
    const auto member = dir / "sweep.h5.members" / ("m00000" + std::to_string(k) + ".h5");
    CHECK(result_files_difference(member, alone).empty());
    // The table's figures are the member's /summary, also reached through the index's external link.
    const ResultReader m(member);
    CHECK(energy[k] == m.doubles("/summary/facility_energy_J").front());
    CHECK(peak[k] == m.doubles("/summary/peak_facility_W").front());
    CHECK(idx.doubles("/members/m00000" + std::to_string(k) + "/summary/facility_energy_J").front() ==
          energy[k]);
    CHECK(m.integer_attribute("/", "seed") == seeds[k]);
    CHECK(m.integer_attribute("/gpus", "count") == nodes[k] * 4);
  }
  // Seeds 1 and 2 give different workloads: the members are not copies of one another.
  CHECK(energy[0] != energy[1]);
}

TEST_CASE("a member with a bad override is recorded with its error and the sweep goes on", "[cli][sweep]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweepScenario);
  const auto index = dir / "sweep.h5";
  auto r = run_command(fleetwatt_command() + " sweep -q " + s.string() + " --grid 'fleet.nodes=[0, 4]' -o " +
                       index.string());
  CHECK(r.exit_code == 1);  // the index is written; status 1 says a member failed
  REQUIRE(std::filesystem::exists(index));
  CHECK(sweep_text_column(index, "status") == std::vector<std::string>{"failed", "done"});
  const auto errors = sweep_text_column(index, "error");
  CHECK(errors[0] == "--set fleet.nodes=0: fleet.nodes: must be positive, got 0");
  CHECK(errors[1].empty());
  CHECK(sweep_text_column(index, "file") == std::vector<std::string>{"", "sweep.h5.members/m000001.h5"});
  CHECK_FALSE(std::filesystem::exists(dir / "sweep.h5.members" / "m000000.h5"));
  CHECK(std::isnan(sweep_number_column(index, "facility_energy_J")[0]));
  CHECK(ResultReader(index).has("/members/m000001/summary/facility_energy_J"));
  CHECK_FALSE(ResultReader(index).has("/members/m000000/summary/facility_energy_J"));
}

TEST_CASE("a resumed sweep runs only the members not done, and refuses another sweep's members",
          "[cli][sweep]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweepScenario);
  const auto index = dir / "sweep.h5";
  const std::string sweep =
      fleetwatt_command() + " sweep " + s.string() + " --grid seed=1..3 -o " + index.string();
  REQUIRE(run_command(sweep + " -q").exit_code == 0);
  const auto members = dir / "sweep.h5.members";
  const auto energy = sweep_number_column(index, "facility_energy_J");
  // As an interrupted sweep leaves it: no index, member 1 never finished.
  std::filesystem::copy_file(members / "m000001.h5", dir / "first-m1.h5");
  std::filesystem::remove(index);
  std::filesystem::remove(members / "m000001.h5");
  auto r = run_command(sweep + " --resume");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // One member ran (one progress line on stderr), two came from the earlier run.
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find("[1/1] m000001 seed=2 done") != std::string::npos);
  CHECK(r.out.find("(3 done, 0 failed, 2 from the interrupted run)") != std::string::npos);
  CHECK(sweep_number_column(index, "facility_energy_J") == energy);
  CHECK(result_files_difference(members / "m000001.h5", dir / "first-m1.h5").empty());
  // The ranks and wall times of the earlier run come from its journal.
  const auto wall = sweep_number_column(index, "wall_s");
  CHECK(std::none_of(wall.begin(), wall.end(), [](double w) { return std::isnan(w); }));
  // Another grid over the same folder: refused, nothing changed.
  auto other = run_command(fleetwatt_command() + " sweep " + s.string() + " --grid seed=1..4 -o " +
                           index.string() + " --resume");
  CHECK(other.exit_code == 2);
  CHECK(other.err.rfind("fleetwatt: error: --resume: the members in ", 0) == 0);
  CHECK(sweep_number_column(index, "facility_energy_J") == energy);
}

TEST_CASE("bad sweep flags exit 2 with one line and write nothing", "[cli][sweep]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweepScenario);
  const auto index = dir / "sweep.h5";
  const std::pair<std::string, std::string> cases[] = {
      {"--grid seed=3..1",
       "fleetwatt: error: --grid seed: a range is A..B, whole numbers with A <= B, got '3..1'"},
      {"--grid seed=[1,x]", "fleetwatt: error: --grid seed: a seed is a whole number from 0, got 'x'"},
      {"--grid seed=1..2 --grid seed=3", "fleetwatt: error: --grid seed: the key is given twice"},
      {"--grid fleet.nodes",
       "fleetwatt: error: --grid: expected KEY=[v1, v2, ...] or KEY=A..B, got 'fleet.nodes'"},
      {"--band low,top", "fleetwatt: error: --band: a band is low, mid or high, got 'top'"},
      {"--grid seed=1..2 --set fleet.nodez=2",
       "fleetwatt: error: --set fleet.nodez=2: fleet.nodez: unknown key"},
      {"--grid seed=1..2 --resume", "fleetwatt: error: --resume: "},
      // A key the scenario does not know would fail every member: refused before any runs.
      {"--grid 'fleet.node=[100,200]' -q",
       "fleetwatt: error: --grid: fleet.node: unknown key (known here: nodes,"},
  };
  for (const auto& [flags, message] : cases) {
    INFO(flags);
    auto r =
        run_command(fleetwatt_command() + " sweep " + s.string() + " " + flags + " -o " + index.string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind(message, 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(index));
    CHECK_FALSE(std::filesystem::exists(dir / "sweep.h5.members"));
  }
  auto help = run_command(fleetwatt_command() + " sweep --help");
  CHECK(help.exit_code == 0);
  for (const char* opt : {"--grid", "--band", "--set", "--resume", "--output", "mpirun"})
    CHECK(help.out.find(opt) != std::string::npos);
}
