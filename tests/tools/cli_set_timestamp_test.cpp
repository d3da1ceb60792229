// Time stamps written as TOML date-times: `--set output.start=2026-07-01T00:00:00+02:00` (a shell passes no
// quotes, and TOML reads the bare text as a date-time, not a string) and an unquoted date-time in the
// scenario file mean the same instant as the quoted text; a bare date or time of day is refused at its key.
#include <catch2/catch.hpp>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using fleetwatt::results::ResultReader;

namespace {

const std::string kScenario =
    "[fleet]\nnodes = 1\n[workload]\nhorizon_s = 60\n[[workload.jobs]]\nn_gpus = 1\nclass = \"vit\"\n";

}  // namespace

TEST_CASE("a time stamp given with --set may be a bare TOML date-time", "[cli][set][timestamp]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kScenario);
  const auto out = dir / "out.h5";
  auto r = run_command(fleetwatt_command() + " run -q " + s.string() +
                       " --set output.start=2026-07-01T00:00:00+02:00 -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const ResultReader f(out);
  CHECK(f.string_attribute("/", "start") == "2026-07-01T00:00:00+02:00");
  CHECK(f.integer_attribute("/", "start_unix_s") == 1782856800);  // 2026-06-30T22:00:00Z
  CHECK(f.integer_attribute("/", "start_utc_offset_s") == 7200);
  // Without an offset it is read as UTC, as the quoted text is.
  auto utc = run_command(fleetwatt_command() + " run -q " + s.string() +
                         " --set output.start=2026-07-01T00:00:00 -o " + out.string());
  REQUIRE(utc.exit_code == 0);
  CHECK(ResultReader(out).integer_attribute("/", "start_unix_s") == 1782864000);
}

TEST_CASE("a scenario file may write [output] start as an unquoted date-time", "[cli][timestamp]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kScenario + "[output]\nstart = 2026-01-01T19:00:00Z\n");
  const auto out = dir / "out.h5";
  auto r = run_command(fleetwatt_command() + " run -q " + s.string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(ResultReader(out).integer_attribute("/", "start_unix_s") == 1767294000);
}

TEST_CASE("a bare date or time of day is not a time stamp", "[cli][set][timestamp]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kScenario);
  for (const std::string v : {"2026-07-01", "12:00:00"}) {
    auto r = run_command(fleetwatt_command() + " run -q " + s.string() + " --set output.start=" + v + " -o " +
                         (dir / "out.h5").string());
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "fleetwatt: error: --set output.start=" + v +
              ": output.start: expected a time stamp (\"2026-07-01T00:00:00+02:00\", quoted or not), "
              "found a date or time\n");
  }
}
