// Tests of the power-log reader: both nvidia-smi header styles, plain CSV, several GPUs, [N/A] fields,
// duplicated timestamps, gaps, and the errors for malformed logs.
#include <catch2/catch.hpp>
#include <sstream>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/telemetry.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models::fit;

namespace {
PowerTrace parse(const std::string& text) {
  std::istringstream in(text);
  return read_power_trace(in, "log.csv");
}
}  // namespace

TEST_CASE("an nvidia-smi log with an index column splits into one series per GPU", "[telemetry]") {
  const auto tr = parse(
      "timestamp, index, power.draw [W], utilization.gpu [%], memory.used [MiB]\n"
      "2024/01/01 00:00:00.000, 0, 100.00 W, 50 %, 10 MiB\n"
      "2024/01/01 00:00:00.000, 1, 200.00 W, 50 %, 10 MiB\n"
      "2024/01/01 00:00:00.100, 0, 110.00 W, 50 %, 10 MiB\n"
      "2024/01/01 00:00:00.100, 1, [N/A], 50 %, 10 MiB\n"
      "2024/01/01 00:00:00.200, 0, 120.00 W, 50 %, 10 MiB\n"
      "2024/01/01 00:00:00.200, 1, 220.00 W, 50 %, 10 MiB\n");
  REQUIRE(tr.gpus.size() == 2);
  CHECK(tr.gpu(0).power_W == std::vector<double>{100, 110, 120});
  CHECK(tr.gpu(1).power_W == std::vector<double>{200, 220});
  CHECK(tr.gpu(0).time_s[2] == Approx(0.2));
  CHECK(tr.report.missing_power == 1);
  // Trapezoids: GPU 0 (100+110)/2*0.1 + (110+120)/2*0.1 = 22 J.
  CHECK(trapezoid_energy_J(tr.gpu(0)) == Approx(22.0));
  CHECK_THROWS_AS(tr.gpu(7), fleetwatt::core::ConfigError);
}

TEST_CASE("the underscore header style and the dash date format are read", "[telemetry]") {
  const auto tr = parse(
      "timestamp,gpu_name,gpu_usage,gpu_power_draw,gpu_max_power\n"
      "2023-01-21 23:59:59.500,NVIDIA GeForce RTX 3070,0 %,22.11 W,240.00 W\n"
      "2023-01-22 00:00:00.500,NVIDIA GeForce RTX 3070,0 %,24.11 W,240.00 W\n");
  REQUIRE(tr.gpus.size() == 1);
  // The run crosses midnight: one second apart.
  CHECK(tr.gpu(0).time_s[1] == Approx(1.0));
  CHECK(tr.gpu(0).power_W[1] == Approx(24.11));
}

TEST_CASE("zone offsets in ISO timestamps are applied, not dropped", "[telemetry]") {
  // 12:00:01+02:00 is 10:00:01Z: one second after the first sample, not two hours and one second. A reader
  // that drops the offset would also see time run backwards at the third row (10:00:02Z after 12:00:01).
  const auto tr = parse(
      "timestamp,power_W\n"
      "2024-05-01T10:00:00Z,100\n"
      "2024-05-01T12:00:01+02:00,110\n"
      "2024-05-01T10:00:02Z,120\n"
      "2024-05-01T05:00:03-05:00,130\n");
  REQUIRE(tr.gpus.size() == 1);
  CHECK(tr.gpu(0).time_s == std::vector<double>{0.0, 1.0, 2.0, 3.0});
  CHECK(tr.report.median_interval_s == 1.0);
}

TEST_CASE("without an index column, rows sharing a timestamp are successive GPUs", "[telemetry]") {
  const auto tr = parse("time_s,power_W\n0,10\n0,20\n1,10\n1,20\n");
  REQUIRE(tr.gpus.size() == 2);
  CHECK(tr.gpu(1).power_W == std::vector<double>{20, 20});
}

TEST_CASE("duplicated timestamps and gaps are reported, not smoothed", "[telemetry]") {
  const auto tr =
      parse("time_s,power_W,index\n0,10,0\n1,10,0\n1,99,0\n2,10,0\n10,10,0\n11,10,0\n11.5,10,0\n");
  CHECK(tr.report.duplicated_times == 1);
  CHECK(tr.gpu(0).power_W.size() == 6);
  CHECK(tr.report.median_interval_s == Approx(1.0));
  CHECK(tr.report.gaps == 1);
  CHECK(tr.report.gap_s == Approx(8.0));
  CHECK(tr.report.irregular);  // the 0.5 s step
}

TEST_CASE("malformed power logs are rejected with the line, column and field", "[telemetry]") {
  using fleetwatt::core::TraceFormatError;
  CHECK_THROWS_WITH(parse("timestamp,utilization.gpu [%]\n0,1\n"), Catch::Contains("no power column"));
  CHECK_THROWS_WITH(parse("time_s,power_W\n0,10\n1,ten W\n"),
                    Catch::Contains("log.csv:3:3") && Catch::Contains("'ten W' is not a power"));
  CHECK_THROWS_WITH(parse("time_s,power_W\n5,10\n4,10\n"),
                    Catch::Contains("log.csv:3:1") && Catch::Contains("time runs backwards"));
  CHECK_THROWS_WITH(parse("time_s,power_W\n5\n"), Catch::Contains("log.csv:2:1"));
  CHECK_THROWS_AS(parse(""), TraceFormatError);
}

TEST_CASE("every public RTX 3070 log is read with its samples at about 1 Hz", "[telemetry][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  int files = 0;
  for (const auto& dir : std::filesystem::directory_iterator(data / "gaissa-seaa2023" / "rtx3070"))
    for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
      const auto tr = read_power_trace(f.path());
      ++files;
      REQUIRE(tr.gpus.size() == 1);
      // SOURCE.txt: nvidia-smi logs at 1 Hz.
      CHECK(tr.report.median_interval_s == Approx(1.0).margin(0.05));
      CHECK(tr.gpu(0).power_W.size() > 500);
    }
  CHECK(files == 25);
}

TEST_CASE("a GPU index beyond int's range is refused at its line and column", "[telemetry][bad-input]") {
  // Found by fuzzing (fuzz/power_log, UBSan): index 9223372036854775807 was converted to int, out of range.
  try {
    (void)parse(
        "timestamp, index, power.draw [W]\n"
        "2024/01/01 00:00:00.000, 0, 100.00 W\n"
        "2024/01/01 00:00:00.000, 9223372036854775807, 200.00 W\n");
    FAIL("no error");
  } catch (const fleetwatt::core::TraceFormatError& e) {
    CHECK(std::string(e.what()) == "log.csv:3:26: index: '9223372036854775807' is not a GPU index");
  }
  CHECK(parse("timestamp, index, power.draw [W]\n2024/01/01 00:00:00.000, 2147483647, 100.00 W\n")
            .gpu(2147483647)
            .power_W == std::vector<double>{100});
}
