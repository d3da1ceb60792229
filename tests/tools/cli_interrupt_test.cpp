// Stopping every command: SIGINT and SIGTERM end a command promptly with exit 128 + the signal
// (130, 143) and leave no output file, whether the command polls a stop flag (run, compare, sweep) or is
// ended by the signal handler itself (fit, trace, calibrate, ...); outputs that would overwrite one of the
// command's inputs are refused; temporary files of dead processes are named in a warning.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace fleetwatt::test;

namespace {

std::size_t files_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

/// Records on a grid, for a symbolic-regression fit (the laws do not matter here, only the fit's length).
std::string records_csv() {
  std::string s = "model,flops,data_size,gpus,peak_W,peak_s,valley_W,valley_s\n";
  int i = 0;
  for (double flops : {1e9, 2e9, 3.5e9, 5e9})
    for (double data : {1e4, 2e4, 5e4, 1e5})
      for (double gpus : {1.0, 2.0, 4.0, 8.0})
        s += fmt::format("m{},{},{},{},{},{},{},{}\n", i++, flops, data, gpus, 100 + flops / 1e8, data / 1e3,
                         50 + gpus, 5 + data / 1e4);
  return s;
}

/// A fit that runs for minutes uninterrupted (200,000 programs x 400 generations x 4 targets x 20 repeats;
/// measured: still running after 20 s on the 2-core development VM).
std::string long_fit(const fs::path& records, const fs::path& model) {
  return fleetwatt_command() + " fit " + records.string() +
         " --target peak_W,peak_s,valley_W,valley_s --features flops,data_size,gpus --models sr"
         " --population 200000 --generations 400 --threads 1 -o " +
         model.string();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("Ctrl-C stops fit at once with exit 130 and no model file", "[cli][signals]") {
  TempDir dir;
  const auto records = dir.write("records.csv", records_csv());
  const auto model = dir / "model.toml";
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_command("timeout --preserve-status -s INT 1 " + long_fit(records, model));
  INFO(r.err);
  CHECK(r.exit_code == 130);
  // The signal comes at 1 s; the command is gone well within the next second (a loose bound: the machine
  // may be loaded, and the uninterrupted fit runs for minutes).
  CHECK(seconds_since(t0) < 5.0);
  CHECK(r.err.find("interrupted") != std::string::npos);
  CHECK_FALSE(fs::exists(model));
  CHECK(files_in(dir.path()) == 1);  // the records only: no temporary either
}

TEST_CASE("SIGTERM ends a command with exit 143, polled or not", "[cli][signals]") {
  TempDir dir;
  const auto records = dir.write("records.csv", records_csv());
  auto fit = run_command("timeout --preserve-status -s TERM 1 " + long_fit(records, dir / "model.toml"));
  CHECK(fit.exit_code == 143);
  CHECK_FALSE(fs::exists(dir / "model.toml"));
  // run polls the stop flag: it stops at its next poll and removes its temporary result file.
  const auto scenario =
      dir.write("s.toml",
                "[fleet]\nnodes = 400\n[workload]\nhorizon_s = 864000\n[workload.generator]\n"
                "rate_per_hour = 400\n[[workload.generator.mix]]\nclass = \"vit\"\n"
                "n_gpus = [1, 4]\nepochs = [1, 50]\n");
  auto run = run_command("timeout --preserve-status -s TERM 0.5 " + fleetwatt_command() + " run " +
                         scenario.string() + " -o " + (dir / "out.h5").string());
  CHECK(run.exit_code == 143);
  CHECK_FALSE(fs::exists(dir / "out.h5"));
  CHECK(files_in(dir.path()) == 2);  // records and scenario
}

TEST_CASE("an output naming one of the command's inputs is refused before anything is written",
          "[cli][outputs]") {
  TempDir dir;
  const std::string trace = "id,submit_s,n_gpus,job_class\n1,0,1,vit\n";
  const auto csv = dir.write("jobs.csv", trace);
  auto r = run_command(fleetwatt_command() + " trace convert " + csv.string() +
                       " --format fleetwatt_csv -o " + csv.string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "fleetwatt: error: -o: " + csv.string() +
                     ": is the file this command reads; give another file name\n");
  std::ifstream in(csv);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == trace);  // untouched
  // The same file by another name is the same file.
  auto again = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() +
                           " trace convert ./jobs.csv --format fleetwatt_csv -o ../" +
                           dir.path().filename().string() + "/jobs.csv");
  CHECK(again.exit_code == 2);
  // calibrate's --records is an output too: never the telemetry it reads.
  const auto log =
      dir.write("smi.csv", "timestamp, index, power.draw [W]\n2024/01/01 00:00:00.000, 0, 100 W\n");
  auto cal = run_command(fleetwatt_command() + " calibrate " + log.string() + " --records " + log.string());
  CHECK(cal.exit_code == 2);
  CHECK(cal.err.find("--records") != std::string::npos);
}

TEST_CASE("a temporary file left by a dead process is named in a warning", "[cli][outputs]") {
  TempDir dir;
  const auto scenario =
      dir.write("s.toml",
                "[fleet]\nnodes = 1\n[workload]\nhorizon_s = 60\n[[workload.jobs]]\nn_gpus = 1\n"
                "class = \"vit\"\n");
  // 4,194,305 is above the largest pid Linux hands out (pid_max is at most 2^22): no process has it.
  const auto stale = dir / "out.h5.tmp-4194305";
  std::ofstream(stale) << "half a result";
  auto r =
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("warning: " + stale.string() +
                   " is the temporary file of a process that no longer runs") != std::string::npos);
  CHECK(fs::exists(dir / "out.h5"));
  CHECK(fs::exists(stale));  // named, not removed: it is the user's to judge
}
