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
  CHECK(tr.gpu(0).max_limit_W == Approx(240.0));
  CHECK(tr.gpu(0).limit_W == 0.0);  // not in this log
}

TEST_CASE("the board's power limits are read beside the draw, located when they are not powers",
          "[telemetry]") {
  const auto tr = parse(
      "timestamp, index, power.draw [W], power.limit [W], power.max_limit [W]\n"
      "2024/01/01 00:00:00.000, 0, 100.00 W, 250.00 W, 300.00 W\n"
      "2024/01/01 00:00:00.000, 1, 100.00 W, [N/A], [N/A]\n"
      "2024/01/01 00:00:01.000, 0, 110.00 W, 200.00 W, 300.00 W\n");
  CHECK(tr.gpu(0).limit_W == Approx(200.0));  // the last reading: the limit set during the run
  CHECK(tr.gpu(0).max_limit_W == Approx(300.0));
  CHECK(tr.gpu(1).limit_W == 0.0);
  CHECK_THROWS_WITH(parse("timestamp, power.draw [W], power.limit [W]\n"
                          "2024/01/01 00:00:00.000, 100.00 W, -5 W\n"),
                    "log.csv:2:36: power.limit: '-5 W' is not a power limit in W (above 0, to 1e6)");
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

namespace {
/// What read_power_trace says about `text`, "" when it reads.
std::string error_of(const std::string& text, const std::string& source = "dcgm.prom") {
  std::istringstream in(text);
  try {
    (void)read_power_trace(in, source);
  } catch (const fleetwatt::core::TraceFormatError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("DCGM metrics in Prometheus's text format: power per gpu label, SM activity beside it",
          "[telemetry][dcgm]") {
  // As `promtool tsdb dump` prints it: series after series (GPU 1's power first), each sample's time in
  // milliseconds since 1970; comments, other metrics and a NaN reading among them.
  std::istringstream in(
      "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
      "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
      "DCGM_FI_DEV_POWER_USAGE{Hostname=\"node1\",gpu=\"1\",modelName=\"NVIDIA H100 \\\"SXM\\\"\"} 500 "
      "1700000000500\n"
      "DCGM_FI_DEV_POWER_USAGE{Hostname=\"node1\",gpu=\"1\",modelName=\"NVIDIA H100 \\\"SXM\\\"\"} 600 "
      "1700000001500\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"node1\"} 100.5 1700000000000\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"node1\"} NaN 1700000000250\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"node1\"} 300.5 1700000001000\n"
      "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"node1\"} 41 1700000000000\n"
      "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",Hostname=\"node1\"} 0.25 1700000000000\n"
      "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",Hostname=\"node1\"} 0.75 1700000001000\n");
  const auto tr = read_power_trace(in, "dcgm.prom");
  REQUIRE(tr.gpus.size() == 2);
  // Times from the earliest sample of any series (GPU 0's, at ...000.000).
  CHECK(tr.gpu(0).time_s == std::vector<double>{0.0, 1.0});
  CHECK(tr.gpu(0).power_W == std::vector<double>{100.5, 300.5});
  CHECK(tr.gpu(1).time_s == std::vector<double>{0.5, 1.5});
  CHECK(tr.gpu(0).sm_active == std::vector<double>{0.25, 0.75});
  CHECK(tr.gpu(0).sm_time_s == std::vector<double>{0.0, 1.0});
  CHECK(tr.gpu(1).sm_active.empty());
  CHECK(tr.report.missing_power == 1);
  CHECK(tr.report.other_samples == 1);
  CHECK(tr.report.median_interval_s == 1.0);
  // Trapezoid: (100.5 + 300.5) / 2 x 1 s.
  CHECK(trapezoid_energy_J(tr.gpu(0)) == 200.5);
}

TEST_CASE("a CSV of DCGM fields and a plain time_s,power_W,gpu log are read", "[telemetry][dcgm]") {
  const auto dcgm = parse(
      "timestamp,gpu,DCGM_FI_DEV_POWER_USAGE,DCGM_FI_PROF_SM_ACTIVE\n"
      "2024-05-01T10:00:00Z,0,200,0.5\n"
      "2024-05-01T10:00:00Z,1,210,0.6\n"
      "2024-05-01T10:00:01Z,0,400,N/A\n"
      "2024-05-01T10:00:01Z,1,410,0.9\n");
  REQUIRE(dcgm.gpus.size() == 2);
  CHECK(dcgm.gpu(1).power_W == std::vector<double>{210, 410});
  CHECK(dcgm.gpu(0).sm_active == std::vector<double>{0.5});
  CHECK(dcgm.gpu(1).sm_time_s == std::vector<double>{0.0, 1.0});
  const auto plain = parse("time_s,power_W,gpu\n0,50,3\n0,60,2\n2,70,3\n");
  REQUIRE(plain.gpus.size() == 2);
  CHECK(plain.gpu(3).power_W == std::vector<double>{50, 70});
  CHECK(plain.gpu(2).time_s == std::vector<double>{0.0});
  CHECK(error_of("time_s,power_W,DCGM_FI_PROF_SM_ACTIVE\n0,50,1.5\n", "log.csv") ==
        "log.csv:2:6: dcgm_fi_prof_sm_active: '1.5' is not an activity from 0 to 1");
}

TEST_CASE("a bad DCGM sample is refused at its line, column and key", "[telemetry][dcgm][bad-input]") {
  const std::string p = "DCGM_FI_DEV_POWER_USAGE";
  const std::pair<std::string, std::string> cases[] = {
      {p + "{gpu=\"0\"} 100\n",
       "dcgm.prom:1:37: timestamp: the sample has no timestamp (milliseconds since 1970); a scrape of "
       "dcgm-exporter has none: dump the series with `promtool tsdb dump` or a range query"},
      {p + "{gpu=\"0\"} hot 1700000000000\n",
       "dcgm.prom:1:34: DCGM_FI_DEV_POWER_USAGE: 'hot' is not a power in W (0 to 1e6)"},
      {p + "{gpu=\"0\"} 2e6 1700000000000\n",
       "dcgm.prom:1:34: DCGM_FI_DEV_POWER_USAGE: '2e6' is not a power in W (0 to 1e6)"},
      {p + "{Hostname=\"a\"} 100 1700000000000\n",
       "dcgm.prom:1:24: gpu: DCGM_FI_DEV_POWER_USAGE has no gpu label (dcgm-exporter writes gpu=\"0\")"},
      {p + "{gpu=\"x\"} 100 1700000000000\n", "dcgm.prom:1:24: gpu: gpu=\"x\" is not a GPU index"},
      {p + "{gpu=\"0\",Hostname=\"a\"} 1 1700000000000\n" + p +
           "{gpu=\"0\",Hostname=\"b\"} 1 1700000001000\n",
       "dcgm.prom:2:24: Hostname: Hostname=\"b\" after \"a\" (line 1): a log holds one machine; select one "
       "host's "
       "series"},
      {p + "{gpu=\"0\"} 1 1700000001000\n" + p + "{gpu=\"0\"} 1 1700000000000\n",
       "dcgm.prom:2:36: timestamp: time runs backwards for GPU 0's DCGM_FI_DEV_POWER_USAGE"},
      {p + "{gpu=\"0\"} 1 -5\n", "dcgm.prom:1:36: timestamp: '-5' is not a time in milliseconds since 1970"},
      {p + "{gpu=\"0} 1 1700000000000\n", "dcgm.prom:1:25: gpu: the label value has no closing quote"},
      {p + "{gpu=\"0\" x} 1 1700000000000\n", "dcgm.prom:1:33: labels: expected ',' or '}'"},
      {p + "{gpu=\"0\"} 1 1700000000000 extra\n",
       "dcgm.prom:1:50: record: unexpected text after the timestamp"},
      {"DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\"} 1.2 1700000000000\n",
       "dcgm.prom:1:33: DCGM_FI_PROF_SM_ACTIVE: '1.2' is not an activity from 0 to 1"},
      {"DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 40 1700000000000\n",
       "dcgm.prom:1: DCGM_FI_DEV_POWER_USAGE: the log has no DCGM_FI_DEV_POWER_USAGE sample"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK(error_of(text) == message);
  }
}
