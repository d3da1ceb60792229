// Progress on a stderr that is not a terminal (a log, a pipe): the heartbeat of tools/heartbeat.hpp prints
// one plain line after each silent period, naming the phase (drawing the workload, simulating with its
// figures), and nothing for a run shorter than the period. The period is 30 s; FLEETWATT_HEARTBEAT_S, a
// knob for the tests alone, shortens it so that runs of a few seconds show their lines.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace fleetwatt::test;

namespace {

/// `horizon_s` of 400 servers' run: 10 days take about 4 s on the idle 2-core development VM (its series
/// compressed beside the engine), 30 days three times that; longer makes the workload's drawing (compare
/// draws it whole) take seconds as well.
std::string long_scenario(long horizon_s) {
  return "[fleet]\nnodes = 400\n[workload]\nhorizon_s = " + std::to_string(horizon_s) +
         "\n[workload.generator]\nrate_per_hour = 400\n[[workload.generator.mix]]\nclass = \"vit\"\n"
         "n_gpus = [1, 4]\nepochs = [1, 50]\n";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// The heartbeat's lines among `err`'s: "fleetwatt: ..., N s elapsed".
std::vector<std::string> heartbeat_lines(const std::string& err) {
  std::vector<std::string> out;
  for (const auto& line : lines_of(err))
    if (line.starts_with("fleetwatt: ") && line.ends_with(" s elapsed")) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("a long run prints plain progress lines on a stderr that is not a terminal", "[cli][progress]") {
  TempDir dir;
  // 30 days: still simulating when SIGINT comes at 4 s (10 days, about 4 s, could finish first).
  const auto scenario = dir.write("s.toml", long_scenario(2592000));
  // run_command captures stderr in a file: not a terminal. 4 s leaves room for the first progress figures
  // under the sanitizers. --foreground: one SIGINT, to the run only; without it timeout signals the run and
  // then its whole process group, and a second SIGINT that lands after the first was handled is a user's
  // second Ctrl-C, which ends the run in the signal handler instead of at its next poll.
  const auto r =
      run_command("FLEETWATT_HEARTBEAT_S=0.5 timeout --foreground --preserve-status -s INT 4 " +
                  fleetwatt_command() + " run " + scenario.string() + " -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 130);
  const auto beats = heartbeat_lines(r.err);
  CHECK(beats.size() >= 2);
  // Plain lines: no carriage return and no terminal escape, each whole.
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(r.err.find('\033') == std::string::npos);
  bool simulating = false;
  for (const auto& line : beats)
    simulating = simulating ||
                 (line.starts_with("fleetwatt: simulating: ") && line.find(" % (") != std::string::npos &&
                  line.find(" simulated, jobs done ") != std::string::npos);
  CHECK(simulating);
  // Every line but the last is the heartbeat's; the last says the run was interrupted, and nothing follows.
  const auto all = lines_of(r.err);
  REQUIRE(!all.empty());
  CHECK(all.back() == "fleetwatt: interrupted; no result file was written");
  CHECK(beats.size() == all.size() - 1);
  CHECK_FALSE(fs::exists(dir / "out.h5"));
}

TEST_CASE("the heartbeat names the preparation while a workload is drawn", "[cli][progress]") {
  TempDir dir;
  // compare draws the whole workload (a million arrivals, more than the default 2 GB holds) before its
  // policies run.
  const auto scenario = dir.write("s.toml", long_scenario(8640000));
  const auto r = run_command("FLEETWATT_HEARTBEAT_S=0.1 timeout --foreground --preserve-status -s INT 1.5 " +
                             fleetwatt_command() + " compare " + scenario.string() +
                             " --policies fifo --max-memory 8GB");
  INFO(r.err);
  CHECK(r.exit_code == 130);
  const auto beats = heartbeat_lines(r.err);
  REQUIRE(!beats.empty());
  CHECK((beats.front().starts_with("fleetwatt: loading the scenario, ") ||
         beats.front().starts_with("fleetwatt: drawing the workload, ")));
}

TEST_CASE("a quick run prints no progress line", "[cli][progress]") {
  TempDir dir;
  const auto scenario = dir.write(
      "s.toml",
      "[fleet]\nnodes = 1\n[workload]\nhorizon_s = 60\n[[workload.jobs]]\nn_gpus = 1\nclass = \"vit\"\n");
  const auto r = run_command("FLEETWATT_HEARTBEAT_S=3 " + fleetwatt_command() + " run " + scenario.string() +
                             " -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("result file") != std::string::npos);
}
