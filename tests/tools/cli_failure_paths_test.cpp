// Clean failure paths of the HDF5 writers and readers: a write that fails (a file-size limit stands in for
// a full disk) is one line naming the file and the system's reason, exit 1, no crash at exit and nothing
// left; a damaged input is told apart from a failed write.
#include <catch2/catch.hpp>

#include <algorithm>
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

// A day of two jobs at 1 s: far more than a 4-block file-size limit once written.
constexpr const char* kDay = R"([fleet]
nodes = 2
gpus_per_node = 2
[workload]
horizon_s = 86400
[[workload.jobs]]
n_gpus = 2
epochs = 20
peak_w = 300
peak_s = 1000
valley_w = 100
valley_s = 100
[[workload.jobs]]
submit_s = 5000
n_gpus = 4
epochs = 30
peak_w = 280
peak_s = 900
valley_w = 120
valley_s = 90
)";

}  // namespace

TEST_CASE("compare -o past a file-size limit fails in one line naming the file and the reason", "[cli]") {
  // It once printed a hundred lines of HDF5-DIAG and crashed at exit (status 139) in HDF5's exit handler.
  TempDir dir;
  const auto scenario = dir.write("s.toml", kDay);
  const auto out = dir / "c.h5";
  const auto r = run_command("ulimit -f 4 && " + fleetwatt_binary().string() + " compare -q " +
                             scenario.string() + " --policies fifo,sjf -o " + out.string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err == "fleetwatt: error: " + out.string() +
                     ": cannot write the comparison: File too large; nothing was written\n");
  CHECK_FALSE(fs::exists(out));
  CHECK(files_in(dir.path()) == 1);  // the scenario only: no temporary left
}

TEST_CASE("run past a file-size limit names the result file and the system's reason", "[cli]") {
  TempDir dir;
  const auto scenario = dir.write("s.toml", kDay);
  const auto out = dir / "r.h5";
  const auto r = run_command("ulimit -f 4 && " + fleetwatt_binary().string() + " run -q " +
                             scenario.string() + " -o " + out.string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err ==
        "fleetwatt: error: " + out.string() + ": cannot write: File too large; nothing was written\n");
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("a damaged result file is reported as damaged, not as a failed write", "[cli]") {
  TempDir dir;
  const auto scenario = dir.write("s.toml", kDay);
  const auto good = dir / "r.h5";
  REQUIRE(run_command(fleetwatt_binary().string() + " run -q " + scenario.string() + " -o " + good.string())
              .exit_code == 0);
  // Its first 20,000 bytes: an HDF5 signature whose file ends before its superblock says.
  std::ifstream in(good, std::ios::binary);
  std::string head(20000, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  const auto cut = dir.write("cut.h5", head);
  const auto r = run_command(fleetwatt_binary().string() + " export " + cut.string() +
                             " --what facility -o " + (dir / "x.csv").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "fleetwatt: error: " + cut.string() +
                     ": RESULT: not an HDF5 file or damaged (a fleetwatt run, compare or sweep result)\n");
  CHECK_FALSE(fs::exists(dir / "x.csv"));
}
