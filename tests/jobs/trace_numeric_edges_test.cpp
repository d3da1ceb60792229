// Every numeric field of every trace format and of the jobs CSV at ±1e300, NaN, ±inf, 2^63, 2^64, 2^32 and
// a subnormal (numeric_edges.hpp): a located error (file, line, field) or a job whose times lie on the
// simulated clock's input range and whose counts are what was written.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/jobs/jobs_csv.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "numeric_edges.hpp"

using namespace fleetwatt;
using test::Fields;

namespace {

// A time or duration the engine will turn into its integer-nanosecond clock: finite and within
// kMaxInputSeconds, as a scenario's own `_s` keys must be.
bool on_clock(double s) {
  return std::isfinite(s) && std::fabs(s) <= core::kMaxInputSeconds;
}
bool on_clock(const std::optional<double>& s) {
  return !s || on_clock(*s);
}

// What a read trace may hold: every job on the clock, a GPU share in (0, 1], finite model sizes.
void check_sensible(const jobs::TraceRead& read) {
  CHECK(std::isfinite(read.origin_s));
  for (const auto& j : read.jobs) {
    CAPTURE(j.trace_id);
    CHECK(on_clock(j.submit_s));
    CHECK(j.submit_s >= 0.0);
    CHECK(on_clock(j.recorded_runtime_s));
    CHECK(on_clock(j.recorded_wait_s));
    CHECK(on_clock(j.user_estimate_s));
    CHECK(on_clock(j.limit_s));
    CHECK(on_clock(j.deadline_s));
    CHECK(j.gpu_fraction > 0.0);
    CHECK(j.gpu_fraction <= 1.0);
    CHECK(std::isfinite(j.meta.params));
    CHECK(std::isfinite(j.meta.flops_per_sample));
    CHECK(std::isfinite(j.meta.dataset_samples));
    if (j.phases) {
      CHECK(on_clock(j.phases->peak_s));
      CHECK(on_clock(j.phases->valley_s));
      CHECK(std::isfinite(j.phases->peak_W));
      CHECK(std::isfinite(j.phases->valley_W));
    }
  }
}

// One format: its text with a {field} mark for each numeric field (every other record valid), the line of
// the record the marks are on, and each field's valid value.
struct Case {
  jobs::TraceFormat format;
  std::string text;
  unsigned line;
  Fields fields;
};

jobs::TraceRead read(jobs::TraceFormat format, const std::string& text) {
  jobs::TraceOptions options;
  options.format = format;
  options.strict = true;  // the first bad record is an error, not a skipped record
  std::istringstream in(text);
  return jobs::read_trace(in, "trace.txt", options);
}

void check_format(const Case& c) {
  {
    INFO(jobs::to_string(c.format) << " as written");
    const auto got = read(c.format, test::fill(c.text, c.fields, "", ""));
    REQUIRE(got.jobs.size() == 2 - (c.line == 2));  // the input itself is valid
  }
  for (const std::string& field : test::field_names(c.fields)) {
    for (const auto& value : test::numeric_edges()) {
      INFO(jobs::to_string(c.format) << ": " << field << " = " << value);
      const std::string text = test::fill(c.text, c.fields, field, value);
      jobs::TraceRead got;
      if (const auto error = test::input_error_of([&] { got = read(c.format, text); }))
        test::check_located(*error, "trace.txt", c.line, field);
      else
        check_sensible(got);
    }
  }
}

}  // namespace

TEST_CASE("every numeric field of the CSV and SWF traces at the numeric edges is located or sensible",
          "[trace][bad-input][edges]") {
  // A first record at time 0 fixes the trace's origin, so that the edited record's times are measured
  // from it (a lone record is always at 0 after re-basing).
  const std::vector<Case> cases = {
      {jobs::TraceFormat::alibaba2023,
       "name,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time\n"
       "p0,1,1000,Succeeded,0,100,10\n"
       "p1,{num_gpu},{gpu_milli},Succeeded,{creation_time},{deletion_time},{scheduled_time}\n",
       3,
       {{"num_gpu", "2"},
        {"gpu_milli", "500"},
        {"creation_time", "5"},
        {"deletion_time", "200"},
        {"scheduled_time", "20"}}},
      // Helios times are time stamps or seconds; cpu_num and node_num are not read.
      {jobs::TraceFormat::helios,
       "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
       "j0,u,vc,1,1,1,COMPLETED,0,10,100,90,10\n"
       "j1,u,vc,{gpu_num},1,1,COMPLETED,{submit_time},{start_time},{end_time},{duration},10\n",
       3,
       {{"gpu_num", "2"},
        {"submit_time", "5"},
        {"start_time", "20"},
        {"end_time", "200"},
        {"duration", "180"}}},
      {jobs::TraceFormat::pai2020_sim,
       "job_id,user,submit_time,duration,num_gpu,wait_time,status,user_dur\n"
       "j0,u,0,100,1,0,Terminated,100\n"
       "j1,u,{submit_time},{duration},{num_gpu},{wait_time},Terminated,{user_dur}\n",
       3,
       {{"submit_time", "5"},
        {"duration", "200"},
        {"num_gpu", "0.5"},
        {"wait_time", "3"},
        {"user_dur", "300"}}},
      {jobs::TraceFormat::swf,
       "; a comment\n"
       "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
       "{job_number} {submit_time} {wait_time} {run_time} {allocated_processors} {average_cpu_time} "
       "{used_memory} {requested_processors} {requested_time} {requested_memory} {status} {user_id} "
       "{group_id} {executable} {queue} {partition} {preceding_job} {think_time}\n",
       3,
       {{"job_number", "2"},
        {"submit_time", "5"},
        {"wait_time", "3"},
        {"run_time", "100"},
        {"allocated_processors", "8"},
        {"average_cpu_time", "-1"},
        {"used_memory", "-1"},
        {"requested_processors", "8"},
        {"requested_time", "200"},
        {"requested_memory", "-1"},
        {"status", "1"},
        {"user_id", "7"},
        {"group_id", "1"},
        {"executable", "-1"},
        {"queue", "-1"},
        {"partition", "-1"},
        {"preceding_job", "-1"},
        {"think_time", "-1"}}},
  };
  for (const auto& c : cases) check_format(c);
}

TEST_CASE("every numeric column of fleetwatt's job table at the numeric edges is located or sensible",
          "[trace][job-table][bad-input][edges]") {
  // Counts are whole numbers of 32 bits (2^32 and beyond refused), times and durations within the clock's
  // input range; params, FLOPs and dataset sizes take any finite value of zero or more (a model's size has
  // no natural bound here; the predictor refuses a run time it cannot hold).
  const Fields fields = {{"id", "1"},
                         {"submit_s", "5"},
                         {"n_gpus", "8"},
                         {"gpu_fraction", "1"},
                         {"epochs", "2"},
                         {"params", "1e6"},
                         {"flops_per_sample", "1e9"},
                         {"training_flops_per_sample", "3e9"},
                         {"batch_size", "32"},
                         {"dataset_samples", "1000"},
                         {"input_size", "224"},
                         {"workers", "4"},
                         {"tp", "1"},
                         {"pp", "1"},
                         {"cp", "1"},
                         {"vp", "1"},
                         {"ep", "1"},
                         {"zero", "3"},
                         {"fsdp_shard_size", "1"},
                         {"micro_batch", "1"},
                         {"peak_W", "300"},
                         {"peak_s", "100"},
                         {"valley_W", "80"},
                         {"valley_s", "10"},
                         {"recorded_runtime_s", "500"},
                         {"recorded_wait_s", "5"},
                         {"user_estimate_s", "600"},
                         {"limit_s", "700"},
                         {"deadline_s", "900"}};
  std::string header, row;
  for (const std::string& name : test::field_names(fields)) {
    header += (header.empty() ? "" : ",") + name;
    row += (row.empty() ? "{" : ",{") + name + "}";
  }
  // pp > 1 with first_stage_layers / last_stage_layers needs a layered model: those two stay out.
  check_format({jobs::TraceFormat::fleetwatt_csv, header + "\n" + row + "\n", 2, fields});
}

TEST_CASE("the time stamps of a Philly job at the numeric edges are located or read as absent",
          "[trace][philly][bad-input][edges]") {
  // Philly writes times as "YYYY-MM-DD HH:MM:SS" strings; a number there is no time stamp. submitted_time
  // is required (a located error); an attempt's start or end that is no time stamp reads as absent, as
  // "None" does (a job never started or still running, counted in no_runtime and not replayed).
  const Fields fields = {{"submitted_time", "2017-10-01 00:00:05"},
                         {"start_time", "2017-10-01 00:00:10"},
                         {"end_time", "2017-10-01 00:10:00"}};
  const std::string text =
      "[\n"
      "{\"status\": \"Pass\", \"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": "
      "[{\"start_time\": \"2017-10-01 00:00:01\", \"end_time\": \"2017-10-01 00:01:00\", \"detail\": "
      "[{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}]},\n"
      "{\"status\": \"Pass\", \"jobid\": \"b\", \"submitted_time\": \"{submitted_time}\", \"attempts\": "
      "[{\"start_time\": \"{start_time}\", \"end_time\": \"{end_time}\", \"detail\": "
      "[{\"ip\": \"m1\", \"gpus\": [\"gpu0\", \"gpu1\"]}]}]}\n"
      "]\n";
  for (const std::string& field : test::field_names(fields)) {
    for (const auto& value : test::numeric_edges()) {
      INFO(field << " = " << value);
      jobs::TraceRead got;
      const auto error = test::input_error_of(
          [&] { got = read(jobs::TraceFormat::philly, test::fill(text, fields, field, value)); });
      if (field == "submitted_time") {
        REQUIRE(error);
        test::check_located(*error, "trace.txt", 3, field);
      } else {
        CHECK_FALSE(error);
        CHECK(got.no_runtime == 1);
        check_sensible(got);
      }
    }
  }
}

TEST_CASE("every numeric field of the PAI 2020 tables at the numeric edges is located or sensible",
          "[trace][pai2020][bad-input][edges]") {
  // The job table's start_time is its submission; end_time is not read. The task table's plan_cpu and
  // plan_mem are not read.
  const Fields fields = {
      {"job_start", "5"}, {"inst_num", "2"}, {"task_start", "20"}, {"task_end", "200"}, {"plan_gpu", "50"}};
  const std::string jobs_text = "j0,i0,u,Terminated,0,100\nj1,i1,u,Terminated,{job_start},300\n";
  const std::string tasks_text =
      "j0,worker,1,Terminated,10,100,600,29,100,V100\n"
      "j1,worker,{inst_num},Terminated,{task_start},{task_end},600,29,{plan_gpu},V100\n";
  const std::map<std::string, std::string> names = {{"job_start", "start_time"},
                                                    {"inst_num", "inst_num"},
                                                    {"task_start", "start_time"},
                                                    {"task_end", "end_time"},
                                                    {"plan_gpu", "plan_gpu"}};
  for (const std::string& field : test::field_names(fields)) {
    for (const auto& value : test::numeric_edges()) {
      INFO(field << " = " << value);
      jobs::TraceOptions options;
      options.format = jobs::TraceFormat::pai2020;
      options.strict = true;
      std::istringstream jobs_in(test::fill(jobs_text, fields, field, value));
      std::istringstream tasks_in(test::fill(tasks_text, fields, field, value));
      jobs::TraceRead got;
      const auto error = test::input_error_of(
          [&] { got = jobs::read_pai2020(jobs_in, "jobs.csv", tasks_in, "tasks.csv", options); });
      if (error)
        test::check_located(*error, field == "job_start" ? "jobs.csv" : "tasks.csv", 2, names.at(field));
      else
        check_sensible(got);
    }
  }
}

TEST_CASE("every numeric column of the jobs CSV at the numeric edges is located or read as given",
          "[jobs-csv][bad-input][edges]") {
  // Ids and counts are integers of their range, times within the clock's; powers take any finite value of
  // zero or more (the scenario refuses one above the GPU's TDP), a subnormal one reading as about 0 W.
  const Fields fields = {{"job_id", "1"},   {"submit_s", "0"}, {"n_gpus", "8"},    {"epochs", "2"},
                         {"peak_s", "100"}, {"peak_W", "300"}, {"valley_s", "10"}, {"valley_W", "80"}};
  const std::string text =
      "job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W\n"
      "{job_id},{submit_s},{n_gpus},{epochs},{peak_s},{peak_W},{valley_s},{valley_W}\n";
  for (const std::string& field : test::field_names(fields)) {
    for (const auto& value : test::numeric_edges()) {
      INFO(field << " = " << value);
      std::istringstream in(test::fill(text, fields, field, value));
      std::vector<jobs::JobSpec> got;
      if (const auto error = test::input_error_of([&] { got = jobs::read_jobs_csv(in, "jobs.csv"); })) {
        test::check_located(*error, "jobs.csv", 2, field);
        continue;
      }
      REQUIRE(got.size() == 1);
      const auto& j = got.front();
      CHECK(on_clock(j.submit_s));
      REQUIRE(j.phases);
      CHECK(on_clock(j.phases->peak_s));
      CHECK(on_clock(j.phases->valley_s));
      CHECK(std::isfinite(j.phases->peak_W));
      CHECK(j.phases->peak_W >= 0.0);
      CHECK(std::isfinite(j.phases->valley_W));
      CHECK(j.phases->valley_W >= 0.0);
    }
  }
}
