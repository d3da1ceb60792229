// Tests for the Microsoft Philly cluster_job_log reader on a sample written from the trace's published schema
// (github.com/msr-fiddle/philly-traces README): its first job is the README's example entry.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <tuple>

#include "fleetwatt/jobs/trace.hpp"
#include "test_support.hpp"

using namespace fleetwatt::jobs;

namespace {

TraceRead read_sample(TraceOptions options = {}) {
  options.format = TraceFormat::philly;
  return read_trace(std::filesystem::path(FLEETWATT_TRACE_SAMPLES) / "philly_sample.json", options);
}

}  // namespace

TEST_CASE("Philly jobs run from their first attempt's start to their last attempt's end", "[traces]") {
  const auto r = read_sample();
  // Jobs at lines 2, 15, 26, 37, 45 are well-formed; 37 has no attempt and 45 is still running ("None").
  CHECK(r.records == 5);
  CHECK(r.no_runtime == 2);
  REQUIRE(r.jobs.size() == 3);
  const auto& readme = r.jobs[0];
  CHECK(readme.trace_id == "application_1506638472019_14199");
  CHECK(readme.status == JobStatus::completed);  // "Pass"
  CHECK(readme.n_gpus == 8);
  // 2017-10-07 01:12:09 -> 2017-10-09 06:53:12 = 2 days 5 h 41 min 3 s, retries included.
  CHECK(*readme.recorded_runtime_s == 2 * 86400 + 5 * 3600 + 41 * 60 + 3);
  CHECK(*readme.recorded_wait_s == 30.0);
  CHECK(readme.user == "ce2f4c");
  const auto& killed = r.jobs[1];
  CHECK(killed.status == JobStatus::cancelled);  // "Killed"
  CHECK(killed.n_gpus == 4);                     // two servers, two GPUs each
  CHECK(killed.submit_s == 38 * 60 + 21);        // 01:50:00 - 01:11:39
  CHECK(*killed.limit_s == 5400.0);
  const auto& failed = r.jobs[2];
  CHECK(failed.status == JobStatus::failed);
  CHECK(*failed.recorded_runtime_s == 330.0);
}

TEST_CASE("a malformed Philly job is reported at its own line and the rest is read", "[traces]") {
  const auto r = read_sample();
  REQUIRE(r.skipped.size() == 2);
  CHECK(r.skipped[0].where.line == 56);
  CHECK(r.skipped[0].field == "submitted_time");
  CHECK(r.skipped[1].where.line == 65);  // a trailing comma inside the object
  CHECK(r.skipped[1].reason.find("malformed JSON") != std::string::npos);

  TraceOptions strict;
  strict.strict = true;
  CHECK_THROWS_AS(read_sample(strict), TraceFormatError);
}

TEST_CASE("a Philly file that is not a JSON array is refused", "[traces]") {
  std::istringstream in(R"({"status": "Pass"})");
  TraceOptions o;
  o.format = TraceFormat::philly;
  CHECK_THROWS_AS(read_trace(in, "object.json", o), TraceFormatError);
}

TEST_CASE("unbalanced or deeply nested Philly files are refused at once with their line", "[traces]") {
  TraceOptions o;
  o.format = TraceFormat::philly;
  // Each of these once made the array splitter loop forever (a stray '}' never consumed) or would recurse
  // 100,000 levels deep in the JSON parser.
  const std::string deep = "[" + std::string(100000, '[') + std::string(100000, ']') + "]";
  for (const auto& [text, line, what] :
       {std::tuple<std::string, std::uint32_t, std::string>{"[}]", 1, "'}' without a matching '{'"},
        {"[\n{},\n}\n]", 3, "'}' without a matching '{'"},
        {"[{}, ", 1, "unterminated JSON array"},
        {deep, 1, "nested deeper than 64 levels"}}) {
    INFO(text.substr(0, 20));
    std::istringstream in(text);
    try {
      (void)read_trace(in, "bad.json", o);
      FAIL("accepted");
    } catch (const TraceFormatError& e) {
      const std::string message = e.what();
      CHECK(message.find("bad.json:" + std::to_string(line)) != std::string::npos);
      CHECK(message.find(what) != std::string::npos);
    }
  }
}

TEST_CASE("a Philly number beyond double's range or an attempt that is no object skips only its job",
          "[traces][bad-input]") {
  // Found by fuzzing (fuzz/trace_philly): nlohmann's out_of_range for -1e999 escaped the per-job catch
  // (exit 3), as did its type_error for an attempt that is a number.
  std::istringstream in(R"([
  {"status": "Pass", "jobid": "a", "submitted_time": "2017-10-07 01:00:00", "x": -1e999},
  {"status": "Pass", "jobid": "b", "submitted_time": "2017-10-07 01:00:00", "attempts": [7]},
  {"status": "Pass", "jobid": "c", "submitted_time": "2017-10-07 01:00:00",
   "attempts": [{"start_time": "2017-10-07 01:10:00", "end_time": "2017-10-07 01:40:00",
                 "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}]}]}
])");
  TraceOptions o;
  o.format = TraceFormat::philly;
  const auto r = read_trace(in, "big.json", o);
  REQUIRE(r.skipped.size() == 1);
  CHECK(r.skipped[0].where.line == 2);
  CHECK(r.skipped[0].reason.rfind("malformed JSON: [json.exception.out_of_range.406]", 0) == 0);
  CHECK(r.no_runtime == 1);  // job b: its attempt has no times
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.jobs[0].trace_id == "c");
  CHECK(*r.jobs[0].recorded_runtime_s == 1800.0);  // 01:10 to 01:40
  CHECK(r.jobs[0].n_gpus == 2);
}
