// Tests for the CSV and SWF trace readers on small samples written from each format's published description
// (tests/jobs/traces/*): Alibaba PAI 2020 tables and simulator CSV, SenseTime Helios, Standard Workload
// Format. Expected values are worked out by hand from the sample rows (comments give the arithmetic).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "fleetwatt/jobs/trace.hpp"

using namespace fleetwatt::jobs;

namespace {

std::filesystem::path sample(const char* name) {
  return std::filesystem::path(FLEETWATT_TRACE_SAMPLES) / name;
}

TraceRead read(const char* name, TraceFormat format, TraceOptions options = {}) {
  options.format = format;
  return read_trace(sample(name), options);
}

bool skipped_at(const TraceRead& r, std::uint32_t line, const std::string& field) {
  return std::any_of(r.skipped.begin(), r.skipped.end(),
                     [&](const SkippedRecord& s) { return s.where.line == line && s.field == field; });
}

}  // namespace

TEST_CASE("the PAI 2020 job and task tables join into jobs with summed GPU requests", "[traces]") {
  const auto r = read("pai_job_table.csv", TraceFormat::pai2020);
  // Well-formed job rows: a, b, c, d, g (e has a bad start_time; f has no task).
  CHECK(r.records == 5);
  CHECK(r.no_gpu == 1);      // c: plan_gpu 0
  CHECK(r.no_runtime == 1);  // d: Waiting, its task never launched
  REQUIRE(r.jobs.size() == 3);
  CHECK(skipped_at(r, 5, "start_time"));
  CHECK(skipped_at(r, 6, "job_name"));
  CHECK(skipped_at(r, 6, "record"));  // the task table's 3-field row (line 6 of pai_task_table.csv)
  // Submission clock starts at job a's 1000 s.
  const auto& a = r.jobs[0];
  CHECK(a.trace_id == "job_a");
  CHECK(a.submit_s == 0.0);
  // ps: 1 x 0 % + worker: 2 x 50 % = one GPU in all.
  CHECK(a.n_gpus == 1);
  CHECK(a.gpu_fraction == 1.0);
  CHECK(*a.recorded_runtime_s == 5000.0 - 1100.0);  // first task launch to last task end
  CHECK(*a.recorded_wait_s == 100.0);
  CHECK(a.status == JobStatus::completed);
  CHECK(a.user == "user1");
  const auto& b = r.jobs[1];
  CHECK(b.submit_s == 1000.0);
  CHECK(b.n_gpus == 8);
  CHECK(b.status == JobStatus::failed);
  CHECK(*b.recorded_runtime_s == 540.0);
  CHECK(*b.limit_s == 540.0);  // a failed job ends at its recorded time
  const auto& g = r.jobs[2];   // submitted at 2500: after b (2000), before the end
  CHECK(g.trace_id == "job_g");
  CHECK(g.n_gpus == 1);
  CHECK(g.gpu_fraction == 0.25);
}

TEST_CASE("the PAI 2020 simulator CSV keeps fractional GPUs as a share of one GPU", "[traces]") {
  const auto r = read("pai_sim_sample.csv", TraceFormat::pai2020_sim);
  CHECK(r.records == 4);
  CHECK(skipped_at(r, 5, "submit_time"));
  CHECK(r.no_gpu == 1);
  REQUIRE(r.jobs.size() == 3);
  CHECK(r.jobs[0].submit_s == 0.0);
  CHECK(*r.jobs[0].recorded_runtime_s == 3600.0);
  CHECK(*r.jobs[0].recorded_wait_s == 10.0);
  CHECK(*r.jobs[0].user_estimate_s == 3000.0);
  CHECK(r.jobs[1].n_gpus == 1);
  CHECK(r.jobs[1].gpu_fraction == 0.5);
  CHECK(r.jobs[1].status == JobStatus::failed);
  CHECK(r.jobs[2].submit_s == 300.0);
  CHECK(r.jobs[2].n_gpus == 16);
}

TEST_CASE("Helios logs map states as the SC'21 paper does and read times to the second", "[traces]") {
  const auto r = read("helios_sample.csv", TraceFormat::helios);
  CHECK(r.records == 5);
  CHECK(skipped_at(r, 7, "gpu_num"));
  CHECK(skipped_at(r, 8, "record"));
  CHECK(r.no_gpu == 1);
  REQUIRE(r.jobs.size() == 4);
  // 18:41:01 -> 04:55:09 next day = 10 h 14 min 8 s.
  CHECK(*r.jobs[0].recorded_runtime_s == 10 * 3600 + 14 * 60 + 8);
  CHECK(r.jobs[0].status == JobStatus::completed);
  CHECK(r.jobs[1].status == JobStatus::failed);
  CHECK(r.jobs[1].n_gpus == 4);
  CHECK(r.jobs[2].status == JobStatus::cancelled);
  CHECK(*r.jobs[2].recorded_runtime_s == 7 * 86400 + 19 * 3600 + 33 * 60 + 53);
  // TIMEOUT counts as failed; submitted 18:45:00, 3 min 59 s after the first job.
  CHECK(r.jobs[3].status == JobStatus::failed);
  CHECK(r.jobs[3].submit_s == 239.0);
  CHECK(*r.jobs[3].recorded_wait_s == 900.0);
  CHECK(r.jobs[3].user == "uXBbc");
}

TEST_CASE("SWF records give run time, processors, status and the user's estimate", "[traces]") {
  const auto r = read("sample.swf", TraceFormat::swf);
  CHECK(r.records == 4);
  CHECK(skipped_at(r, 9, "record"));
  CHECK(skipped_at(r, 10, "allocated_processors"));
  CHECK(r.no_runtime == 1);  // job 3: run time -1
  REQUIRE(r.jobs.size() == 3);
  CHECK(r.jobs[0].n_gpus == 8);
  CHECK(*r.jobs[0].user_estimate_s == 7200.0);
  CHECK(r.jobs[0].status == JobStatus::completed);
  CHECK(r.jobs[0].user == "3");
  CHECK(r.jobs[1].status == JobStatus::failed);
  CHECK(*r.jobs[1].limit_s == 120.0);
  CHECK(r.jobs[2].n_gpus == 16);  // allocated -1: the requested 16 processors
  CHECK(r.jobs[2].status == JobStatus::cancelled);
  CHECK(r.jobs[2].submit_s == 180.0);

  TraceOptions four;
  four.swf_procs_per_gpu = 4;
  const auto q = read("sample.swf", TraceFormat::swf, four);
  CHECK(q.jobs[0].n_gpus == 2);  // ceil(8 / 4)
  CHECK(q.jobs[1].n_gpus == 1);  // ceil(1 / 4)
  CHECK(q.jobs[2].n_gpus == 4);
}

TEST_CASE("strict mode refuses a trace at its first malformed record, naming line and field", "[traces]") {
  TraceOptions strict;
  strict.strict = true;
  strict.format = TraceFormat::helios;
  try {
    (void)read_trace(sample("helios_sample.csv"), strict);
    FAIL("a malformed record was accepted in strict mode");
  } catch (const TraceFormatError& e) {
    CHECK(e.where().line == 7);
    CHECK(e.where().column == 21);  // "eight" starts at character 21 of line 7
    CHECK(e.field() == "gpu_num");
    CHECK(std::string(e.what()).find("helios_sample.csv:7:21") != std::string::npos);
  }
}

TEST_CASE("a missing column is refused whatever the mode, listing the columns present", "[traces]") {
  TraceOptions o;
  o.format = TraceFormat::alibaba2023;
  try {
    (void)read_trace(sample("helios_sample.csv"), o);
    FAIL("a Helios file was read as Alibaba 2023");
  } catch (const TraceFormatError& e) {
    CHECK(e.field() == "name");
    CHECK(std::string(e.what()).find("gpu_num") != std::string::npos);
  }
}

TEST_CASE("trace formats are named and guessed from the file", "[traces]") {
  CHECK(parse_trace_format("helios") == TraceFormat::helios);
  CHECK_THROWS_AS(parse_trace_format("slurm"), ConfigError);
  CHECK(guess_trace_format(sample("sample.swf")) == TraceFormat::swf);
  CHECK(guess_trace_format(sample("philly_sample.json")) == TraceFormat::philly);
  CHECK(guess_trace_format(sample("helios_sample.csv")) == TraceFormat::helios);
  CHECK(guess_trace_format(sample("pai_sim_sample.csv")) == TraceFormat::pai2020_sim);
  CHECK_FALSE(guess_trace_format(sample("pai_job_table.csv")));
}

TEST_CASE("the trace formats' registry lists them in the order of TraceFormat", "[traces]") {
  // An entry's place is its format: each value's name as the scenario writes it.
  const std::pair<TraceFormat, const char*> named[] = {{TraceFormat::fleetwatt_csv, "fleetwatt_csv"},
                                                       {TraceFormat::philly, "philly"},
                                                       {TraceFormat::pai2020, "pai2020"},
                                                       {TraceFormat::pai2020_sim, "pai2020_sim"},
                                                       {TraceFormat::alibaba2023, "alibaba2023"},
                                                       {TraceFormat::helios, "helios"},
                                                       {TraceFormat::swf, "swf"}};
  REQUIRE(trace_formats().entries().size() == std::size(named));
  for (const auto& [format, name] : named) {
    INFO(name);
    CHECK(trace_format_entry(format).name == name);
    CHECK(std::string(to_string(format)) == name);
    CHECK(parse_trace_format(name) == format);
  }
  CHECK(trace_format_entry(TraceFormat::swf).params.front().name == "swf_procs_per_gpu");
  CHECK_THAT(([]() -> std::string {
               try {
                 (void)parse_trace_format("slurm", {"s.toml", 9, 3});
               } catch (const ConfigError& e) {
                 return e.what();
               }
               return "no error";
             }()),
             Catch::Contains("s.toml:9:3") && Catch::Contains("unknown trace format 'slurm'") &&
                 Catch::Contains("known: fleetwatt_csv, philly, pai2020"));
}

TEST_CASE("every job a trace reader makes names its record's file and line", "[traces]") {
  // A predictor's complaint about a job (no batch size, an unknown model) is thrown at job.class_origin: it
  // must point at the record, in every format. Philly's records are JSON objects: the line where each starts.
  // (The PAI tables are headerless, so their first record is on line 1.)
  const std::pair<const char*, TraceFormat> samples[] = {{"helios_sample.csv", TraceFormat::helios},
                                                         {"pai_job_table.csv", TraceFormat::pai2020},
                                                         {"pai_sim_sample.csv", TraceFormat::pai2020_sim},
                                                         {"sample.swf", TraceFormat::swf},
                                                         {"philly_sample.json", TraceFormat::philly}};
  for (const auto& [name, format] : samples) {
    const auto r = read(name, format);
    REQUIRE_FALSE(r.jobs.empty());
    for (const auto& j : r.jobs) {
      CHECK(j.class_origin.file == sample(name).string());
      CHECK(j.class_origin.line > 0);
      CHECK(j.class_origin.column == 0);
    }
  }
  // Helios: the first record is on line 2 and the jobs keep the file's order (submit times increase).
  CHECK(read("helios_sample.csv", TraceFormat::helios).jobs.front().class_origin.to_string() ==
        sample("helios_sample.csv").string() + ":2");
}

TEST_CASE("SWF fields beyond the integers' range read without undefined behaviour", "[traces][bad-input]") {
  // Found by fuzzing (fuzz/trace_swf, UBSan): a status of 4.18e20 and a user id of 1.8e19 were converted
  // to int and long long, out of range. Now the status compares as read (no known code: unknown), the
  // user id prints as its whole number, and the processor count is held at 32 bits (then clipped to the
  // fleet like any large job).
  std::istringstream in(
      "1 0 20 3600 8 -1 -1 8 7200 -1 418446744073709551616 18446744073709551616 1 -1 1 -1 -1 -1\n"
      "2 0 20 3600 1e12 -1 -1 8 7200 -1 1 3 1 -1 1 -1 -1 -1\n");
  TraceOptions options;
  options.format = TraceFormat::swf;
  const auto r = read_trace(in, "big.swf", options);
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].status == JobStatus::unknown);
  CHECK(r.jobs[0].user == "18446744073709551616");
  CHECK(r.jobs[1].n_gpus == 4294967295u);  // 1e12 processors: the largest count a job holds
  CHECK(r.jobs[1].status == JobStatus::completed);
}
