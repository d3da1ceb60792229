// `fleetwatt report` stops like the other commands: Ctrl-C ends it within a second whether the signal
// reaches fleetwatt alone or the whole process group (the drawing module included), with no Python
// traceback and no page; a page that cannot be written is one line naming it.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace fleetwatt::test;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::size_t files_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

// 30 days at 10 s intervals: a report that takes about 5 s to draw on the 2-core development VM.
fs::path long_result(const TempDir& dir) {
  const auto s = dir.write("s.toml", small_vit_scenario("pue = 1.2", 30 * 86400, 40, 10));
  const auto h5 = dir / "month.h5";
  REQUIRE(run_command(fleetwatt_command() + " run -q " + s.string() + " -o " + h5.string()).exit_code == 0);
  return h5;
}

}  // namespace

TEST_CASE("Ctrl-C stops report within a second, with no traceback and no page", "[cli][report][signals]") {
  TempDir dir;
  const auto h5 = long_result(dir);
  const auto page = dir / "month.html";
  SECTION("the signal to fleetwatt alone (kill -INT): the drawing module is ended with it") {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = run_command("sh -c '" + fleetwatt_command() + " report " + h5.string() + " -o " + page.string() +
                         " & pid=$!; sleep 1; kill -INT $pid; wait $pid'");
    const double took = seconds_since(t0);
    INFO(r.err);
    CHECK(r.exit_code == 130);
    CHECK(took < 2.5);  // the signal at 1 s; the uninterrupted report takes about 5 s
    CHECK(r.err == "fleetwatt: interrupted; no result file was written\n");
  }
  SECTION("Ctrl-C to the whole process group, the module included") {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = run_command("timeout --preserve-status -s INT 1 " + fleetwatt_command() + " report " +
                         h5.string() + " -o " + page.string());
    const double took = seconds_since(t0);
    INFO(r.err);
    CHECK(r.exit_code == 130);
    CHECK(took < 2.5);
    CHECK(r.err.find("Traceback") == std::string::npos);
    CHECK(r.err.find("KeyboardInterrupt") == std::string::npos);
    CHECK(r.err.find("fleetwatt: interrupted; no ") == 0);
  }
  CHECK_FALSE(fs::exists(page));
  CHECK(files_in(dir.path()) == 2);  // the scenario and the result: no temporary page
}

TEST_CASE("a report page that cannot be written is one line naming it, no traceback", "[cli][report]") {
  TempDir dir;
  const auto s = dir.write("s.toml", small_vit_scenario("pue = 1.2", 3600, 40, 10));
  const auto h5 = dir / "hour.h5";
  REQUIRE(run_command(fleetwatt_command() + " run -q " + s.string() + " -o " + h5.string()).exit_code == 0);
  const auto page = dir / "hour.html";
  // A file-size limit of 20 blocks (10 or 20 KB): the page's figures are larger.
  auto r = run_command("ulimit -f 20 && " + fleetwatt_command() + " report " + h5.string() + " -o " +
                       page.string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("Traceback") == std::string::npos);
  const std::string line =
      "fleetwatt: error: report: cannot write " + page.string() + " (File too large); no page was written\n";
  REQUIRE(r.err.size() >= line.size());
  CHECK(r.err.substr(r.err.size() - line.size()) == line);
  CHECK_FALSE(fs::exists(page));
  CHECK(files_in(dir.path()) == 2);
}
