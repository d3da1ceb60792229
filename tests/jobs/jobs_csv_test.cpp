// The explicit job-list CSV: good rows, and bad records named by line, column and field.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "fleetwatt/jobs/jobs_csv.hpp"

using namespace fleetwatt::jobs;

namespace {
const std::string kHeader = "job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W\n";
std::string error_of(const std::string& csv) {
  std::istringstream in(csv);
  try {
    (void)read_jobs_csv(in, "jobs.csv");
  } catch (const TraceFormatError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("job rows read into specs with explicit phases", "[jobs-csv]") {
  std::istringstream in(kHeader + "1,0,4,10,182.58,291.06,6.41,62.23\r\n2,30.5,8,1,10,300,0,0\n");
  auto jobs = read_jobs_csv(in, "jobs.csv");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].n_gpus == 4);
  CHECK(jobs[0].phases == PhaseProfile{291.06, 182.58, 62.23, 6.41});
  CHECK(jobs[1].submit_s == 30.5);
  CHECK(jobs[1].epochs == 1);
}

TEST_CASE("columns may come in any order", "[jobs-csv]") {
  std::istringstream in(
      "valley_W,valley_s,peak_W,peak_s,epochs,n_gpus,submit_s,job_id\n60,1,250,10,2,1,0,5\n");
  auto jobs = read_jobs_csv(in, "jobs.csv");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == 5);
  CHECK(jobs[0].phases == PhaseProfile{250, 10, 60, 1});
}

TEST_CASE("bad job records are named by line, column and field", "[jobs-csv][bad-input]") {
  CHECK(error_of("job_id,submit_s\n1,0\n").rfind("jobs.csv:1:1: n_gpus: missing column", 0) == 0);
  CHECK(error_of(kHeader + "1,0,4,10,182.58,lots,6.41,62.23\n") ==
        "jobs.csv:2:17: peak_W: not a number: 'lots'");
  CHECK(error_of(kHeader + "1,0,0,10,1,1,1,1\n") ==
        "jobs.csv:2:5: n_gpus: expected an integer in [1, 4294967295], got 0");
  CHECK(error_of(kHeader + "1,0,2.5,10,1,1,1,1\n").rfind("jobs.csv:2:5: n_gpus: expected an integer", 0) ==
        0);
  CHECK(error_of(kHeader + "1,-3,1,1,1,1,1,1\n") == "jobs.csv:2:3: submit_s: must not be negative");
  CHECK(error_of(kHeader + "1,0,1,1,1,1\n") == "jobs.csv:2: valley_s: record has 6 fields, header has 8");
  CHECK(error_of(kHeader + "1,0,1,1,0,100,0,50\n").find("positive duration") != std::string::npos);
}

TEST_CASE("an optional stack column sets each job's stack, empty is eager", "[jobs-csv][stack]") {
  std::istringstream in(
      kHeader.substr(0, kHeader.size() - 1) + ",stack\n" +
      "1,0,4,10,182.58,291.06,6.41,62.23,compiled\n2,5,1,1,10,300,0,0,\n3,9,1,1,10,300,0,0,amp\n");
  auto jobs = read_jobs_csv(in, "jobs.csv");
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].meta.stack == SoftwareStack::compiled);
  CHECK(jobs[1].meta.stack == SoftwareStack::eager);
  CHECK(jobs[2].meta.stack == SoftwareStack::amp);
  CHECK(jobs[0].phases == PhaseProfile{291.06, 182.58, 62.23, 6.41});
  // Without the column every job is eager.
  std::istringstream plain(kHeader + "1,0,4,10,182.58,291.06,6.41,62.23\n");
  CHECK(read_jobs_csv(plain, "jobs.csv")[0].meta.stack == SoftwareStack::eager);
}

TEST_CASE("an unknown stack in a jobs CSV is named by line, column and field",
          "[jobs-csv][stack][bad-input]") {
  // "turbo" starts at character 35 of "1,0,4,10,182.58,291.06,6.41,62.23,turbo".
  CHECK(
      error_of(kHeader.substr(0, kHeader.size() - 1) + ",stack\n1,0,4,10,182.58,291.06,6.41,62.23,turbo\n") ==
      "jobs.csv:2:35: stack: unknown stack 'turbo' (known: eager, amp, compiled, optimized)");
}

TEST_CASE("every numeric jobs CSV column at ±1e300, NaN and 2^63 is a located error or read as given",
          "[jobs-csv][bad-input][edges]") {
  // Counts and ids are refused outside their range (2^63 rounds to int64's largest as a double and once
  // passed the check), times beyond the clock; powers take any finite value of zero or more (the scenario
  // refuses one above the GPU's TDP).
  const std::vector<std::string> columns = {"job_id", "submit_s", "n_gpus",   "epochs",
                                            "peak_s", "peak_W",   "valley_s", "valley_W"};
  const std::vector<std::string> good = {"1", "0", "8", "2", "100", "300", "10", "80"};
  for (std::size_t col = 0; col < columns.size(); ++col) {
    for (const std::string value : {"1e300", "-1e300", "nan", "9223372036854775808"}) {
      INFO(columns[col] << " = " << value);
      std::string row;
      std::size_t at = 0;
      for (std::size_t c = 0; c < columns.size(); ++c) {
        if (c == col) at = row.size() + (c ? 2 : 1);
        row += (c ? "," : "") + (c == col ? value : good[c]);
      }
      const std::string& name = columns[col];
      const std::string where = fmt::format("jobs.csv:2:{}: {}: ", at, name);
      std::string expected = "(no error)";
      if (value == "nan")
        expected = where + "not a number: 'nan'";
      else if (name == "job_id")
        expected = where + "expected an integer in [0, 4611686018427387903], got " + value;
      else if (name == "n_gpus" || name == "epochs")
        expected = where + "expected an integer in [1, 4294967295], got " + value;
      else if (name.back() == 's')
        expected = where + value + " s is beyond the 1e+09 s (31.7 years) a simulated time may span";
      else if (value == "-1e300")
        expected = where + "must not be negative";
      CHECK(error_of(kHeader + row + "\n") == expected);
    }
  }
}
