// A run killed with SIGKILL: whatever the moment, the requested output name holds nothing, the
// complete earlier result that was there, or the complete new one; never a partial file. SIGKILL cannot be
// caught, so this holds only because results are written to a temporary file and renamed on success.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>

#include "result_files_equal.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace fleetwatt::test;

namespace {

/// "" when `out` is absent or equals one of `complete` (all datasets, bit for bit), else why not.
std::string absent_or_one_of(const fs::path& out, const std::vector<fs::path>& complete) {
  if (!fs::exists(out)) return "";
  try {
    std::string why;
    for (const auto& c : complete) {
      why = result_files_difference(out, c);
      if (why.empty()) return "";
    }
    return "a result that is neither complete one: " + why;
  } catch (const std::exception& e) {
    return std::string("not a readable result: ") + e.what();
  }
}

}  // namespace

TEST_CASE("SIGKILL at any moment leaves no partial file under the output name", "[cli][outputs]") {
  TempDir dir;
  const std::string fw = fleetwatt_binary().string();
  const auto earlier_scenario =
      dir.write("earlier.toml",
                "[fleet]\nnodes = 2\n[workload]\nhorizon_s = 600\n[[workload.jobs]]\nn_gpus = 1\n"
                "class = \"vit\"\n");
  // About a second uninterrupted on the 2-core development VM (Release): the kills below fall before the
  // temporary file exists, while the simulation streams into it, and after the run has finished.
  const auto scenario = dir.write("s.toml",
                                  "[fleet]\nnodes = 400\n[workload]\nhorizon_s = 172800\n"
                                  "[workload.generator]\nrate_per_hour = 400\n[[workload.generator.mix]]\n"
                                  "class = \"vit\"\nn_gpus = [1, 4]\nepochs = [1, 50]\n");
  const auto earlier = dir / "earlier.h5", complete = dir / "complete.h5", out = dir / "out.h5";
  REQUIRE(run_command(fw + " run -q " + earlier_scenario.string() + " -o " + earlier.string()).exit_code ==
          0);
  REQUIRE(run_command(fw + " run -q " + scenario.string() + " -o " + complete.string()).exit_code == 0);

  // The check refuses what an in-place writer would leave: a result cut short.
  fs::copy_file(complete, out);
  fs::resize_file(out, fs::file_size(out) / 2);
  CHECK_FALSE(absent_or_one_of(out, {complete, earlier}).empty());

  int killed = 0;
  for (const double after_s : {0.01, 0.05, 0.15, 0.3, 0.5, 0.8, 1.2, 2.0, 4.0}) {
    for (const bool with_earlier : {true, false}) {
      fs::remove(out);
      if (with_earlier) fs::copy_file(earlier, out);
      const auto r = run_command(
          fmt::format("timeout -s KILL {} {} run -q {} -o {}", after_s, fw, scenario.string(), out.string()));
      killed += r.exit_code == 137 ? 1 : 0;  // timeout's status for a command it killed
      INFO("killed after " << after_s << " s, an earlier result there: " << with_earlier << ", exit "
                           << r.exit_code);
      std::vector<fs::path> allowed{complete};
      if (with_earlier) allowed.push_back(earlier);
      CHECK(absent_or_one_of(out, allowed).empty());
      if (!with_earlier && r.exit_code == 0) CHECK(fs::exists(out));
    }
  }
  // The test means something only if some runs were killed mid-way (the kills at 0.01-0.3 s always are).
  CHECK(killed >= 4);
}
