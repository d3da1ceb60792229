// Parsers for the CSV and SWF traces: Alibaba GPU 2023, Alibaba PAI 2020 (tables and simulator CSV),
// SenseTime Helios and the Standard Workload Format. Each maps the source's published columns to JobSpec
// fields; what a source does not record is marked missing for the inference pass.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "fleetwatt/core/checked_integer.hpp"
#include "fleetwatt/core/time.hpp"
#include "trace_formats.hpp"

namespace fleetwatt::jobs::trace_detail {

void RecordErrors::bad(std::uint32_t line, const std::string& field, const std::string& reason,
                       std::uint32_t column) {
  if (strict_) throw TraceFormatError({file_, line, column}, field, reason);
  out_.push_back({{file_, line, column}, field, reason});
}

void RecordErrors::fatal(std::uint32_t line, const std::string& field, const std::string& reason) const {
  throw TraceFormatError({file_, line, 0}, field, reason);
}

HeaderCsv::HeaderCsv(std::istream& in, RecordErrors& errors) : reader_(in, errors.file()), errors_(errors) {
  auto row = reader_.next();
  if (!row) errors_.fatal(1, "header", "the file is empty; expected a header row");
  header_ = row->texts();
}

std::optional<std::size_t> HeaderCsv::find(const std::string& name) const {
  return core::find_column(header_, name);
}

std::size_t HeaderCsv::require(const std::string& name) const {
  if (auto i = find(name)) return *i;
  // Quoted only when it reads as a header: never the first line of an unrelated file.
  errors_.fatal(1, name, fmt::format("missing column '{}' ({})", name, core::header_for_message(header_)));
}

bool HeaderCsv::next(std::vector<std::string>& fields) {
  while (auto row = reader_.next()) {
    row_ = std::move(*row);
    if (row_.fields.size() != header_.size()) {
      errors_.bad(row_.line, "record",
                  fmt::format("has {} fields, the header has {}", row_.fields.size(), header_.size()));
      continue;
    }
    fields = row_.texts();
    return true;
  }
  return false;
}

void set_gpus(JobSpec& spec, double total_gpus) {
  if (!(total_gpus > 0.0)) {
    spec.n_gpus = 0;
    spec.gpu_fraction = 1.0;
    return;
  }
  // A tolerance keeps 2.0000000001 (float noise in a percentage sum) at two GPUs.
  // The count is held in 32 bits: a larger one (a corrupt record) becomes the largest, which the fleet's
  // clip (max_gpus) then brings down, counted, like any job larger than the fleet.
  const double whole = std::clamp(std::ceil(total_gpus - 1e-9), 1.0, kMaxTraceGpus);
  spec.n_gpus =
      core::integer_in_range<std::uint32_t>(whole).value_or(std::numeric_limits<std::uint32_t>::max());
  spec.gpu_fraction = std::min(1.0, total_gpus / whole);
}

namespace {

// Reads a number field of the current record or reports it at the field's line and character column;
// `optional` allows an empty cell.
struct FieldReader {
  RecordErrors& errors;
  const core::CsvRow& row;
  bool ok = true;

  std::optional<double> number(std::size_t i, const std::string& name, bool optional = false) {
    const std::string& f = row.fields[i].text;
    if (f.empty() || f == "None" || f == "NA" || f == "nan" || f == "NaN" || f == "null") {
      if (!optional) fail(i, name, "is empty");
      return std::nullopt;
    }
    auto v = core::parse_number(f);
    if (!v) fail(i, name, fmt::format("'{}' is not a number", f));
    return v;
  }
  std::optional<double> time(std::size_t i, const std::string& name, bool optional = false) {
    const std::string& f = row.fields[i].text;
    if (f.empty() || f == "None" || f == "NA" || f == "null") {
      if (!optional) fail(i, name, "is empty");
      return std::nullopt;
    }
    if (auto v = core::parse_timestamp(f)) return v;
    if (auto v = core::parse_number(f)) return on_clock(i, name, *v);
    fail(i, name, fmt::format("'{}' is neither a timestamp (YYYY-MM-DD HH:MM:SS) nor seconds", f));
    return std::nullopt;
  }
  // A reading of the trace's own clock (a submission, start or end): a number within kMaxTraceClockS.
  std::optional<double> clock(std::size_t i, const std::string& name, bool optional = false) {
    const auto v = number(i, name, optional);
    return v ? on_clock(i, name, *v) : v;
  }
  std::optional<double> on_clock(std::size_t i, const std::string& name, double v) {
    if (std::fabs(v) <= kMaxTraceClockS) return v;
    fail(i, name, fmt::format("{} s is beyond the {:.0e} s a trace's clock may read", v, kMaxTraceClockS));
    return std::nullopt;
  }
  // A duration the engine will hold on its clock: within kMaxInputSeconds, as a scenario's own times.
  bool span(std::size_t i, const std::string& name, double s, const char* what = "") {
    if (std::fabs(s) <= core::kMaxInputSeconds) return true;
    fail(i, name,
         fmt::format("{}{} s is beyond the {:.0e} s (31.7 years) a simulated time may span", what, s,
                     core::kMaxInputSeconds));
    return false;
  }
  void fail(std::size_t i, const std::string& name, const std::string& why) {
    if (ok) errors.bad(row.line, name, why, row.fields[i].column);
    ok = false;
  }
};

// The run time (end - start) and wait (start - submit) are checked against the clock at the end's and the
// start's field.
void set_times(RawJob& job, FieldReader& r, std::optional<double> submit, std::optional<double> start,
               std::optional<double> end, std::size_t c_start, const char* start_name, std::size_t c_end,
               const char* end_name) {
  job.spec.submit_s = *submit;
  if (start && end) {
    job.spec.recorded_runtime_s = std::max(0.0, *end - *start);
    job.spec.recorded_wait_s = std::max(0.0, *start - *submit);
    if (r.span(c_end, end_name, *job.spec.recorded_runtime_s, "the run time (end - start) of "))
      (void)r.span(c_start, start_name, *job.spec.recorded_wait_s, "the wait (start - submit) of ");
  } else {
    job.no_runtime = true;
  }
}

}  // namespace

// Alibaba GPU 2023 (Weng et al., ATC'23), openb_pod_list_*.csv: name, cpu_milli, memory_mib, num_gpu,
// gpu_milli (thousandths of each GPU), gpu_spec, qos, pod_phase (Running|Succeeded|Failed|Pending),
// creation_time, deletion_time, scheduled_time (seconds; scheduled_time empty for pods never scheduled).
std::vector<RawJob> parse_alibaba2023(std::istream& in, RecordErrors& errors) {
  HeaderCsv csv(in, errors);
  const auto c_name = csv.require("name"), c_num = csv.require("num_gpu"), c_milli = csv.require("gpu_milli"),
             c_phase = csv.require("pod_phase"), c_create = csv.require("creation_time"),
             c_delete = csv.require("deletion_time"), c_sched = csv.require("scheduled_time");
  std::vector<RawJob> jobs;
  std::vector<std::string> f;
  while (csv.next(f)) {
    FieldReader r{errors, csv.row()};
    RawJob job;
    job.line = csv.line();
    job.missing = kModelFields;
    job.spec.trace_id = f[c_name];
    const auto num = r.number(c_num, "num_gpu");
    const auto milli = r.number(c_milli, "gpu_milli");
    const auto create = r.clock(c_create, "creation_time");
    const auto del = r.clock(c_delete, "deletion_time", true);
    const auto sched = r.clock(c_sched, "scheduled_time", true);
    const std::string phase = core::lower_case(f[c_phase]);
    if (phase == "running")
      job.spec.status = JobStatus::running;
    else if (phase == "succeeded")
      job.spec.status = JobStatus::completed;
    else if (phase == "failed")
      job.spec.status = JobStatus::failed;
    else if (phase == "pending")
      job.spec.status = JobStatus::pending;
    else
      r.fail(c_phase, "pod_phase",
             fmt::format("unknown phase '{}' (Running, Succeeded, Failed, Pending)", f[c_phase]));
    const auto n_gpus =
        num && *num == std::floor(*num) ? core::integer_in_range<std::uint32_t>(*num) : std::nullopt;
    if (num && !n_gpus) r.fail(c_num, "num_gpu", "must be a whole number in [0, 4294967295]");
    if (milli && (*milli < 0 || *milli > 1000)) r.fail(c_milli, "gpu_milli", "must lie in [0, 1000]");
    if (r.ok && sched && del && *del < *sched) r.fail(c_delete, "deletion_time", "is before scheduled_time");
    if (!r.ok) continue;
    job.spec.n_gpus = *n_gpus;
    job.spec.gpu_fraction = (*num > 0 && *milli > 0) ? *milli / 1000.0 : 1.0;
    job.submit_field = "creation_time";
    set_times(job, r, create, sched, del, c_sched, "scheduled_time", c_delete, "deletion_time");
    if (!r.ok) continue;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// SenseTime Helios (Hu et al., SC'21), cluster_log.csv: job_id, user, vc, gpu_num, cpu_num, node_num, state,
// submit_time, start_time, end_time (YYYY-MM-DD HH:MM:SS), duration (s), queue (s). TIMEOUT and NODE_FAIL
// count as failed, as in the paper.
std::vector<RawJob> parse_helios(std::istream& in, RecordErrors& errors) {
  HeaderCsv csv(in, errors);
  const auto c_id = csv.require("job_id"), c_gpu = csv.require("gpu_num"), c_state = csv.require("state"),
             c_submit = csv.require("submit_time"), c_start = csv.require("start_time"),
             c_end = csv.require("end_time");
  const auto c_user = csv.find("user");
  const auto c_duration = csv.find("duration");
  std::vector<RawJob> jobs;
  std::vector<std::string> f;
  while (csv.next(f)) {
    FieldReader r{errors, csv.row()};
    RawJob job;
    job.line = csv.line();
    job.missing = kModelFields;
    job.spec.trace_id = f[c_id];
    if (c_user) job.spec.user = f[*c_user];
    const auto gpus = r.number(c_gpu, "gpu_num");
    const auto submit = r.time(c_submit, "submit_time");
    const auto start = r.time(c_start, "start_time", true);
    const auto end = r.time(c_end, "end_time", true);
    const std::string state = core::lower_case(f[c_state]);
    if (state == "completed")
      job.spec.status = JobStatus::completed;
    else if (state == "cancelled" || state.rfind("cancelled", 0) == 0)
      job.spec.status = JobStatus::cancelled;
    else if (state == "failed" || state == "timeout" || state == "node_fail")
      job.spec.status = JobStatus::failed;
    else if (state == "running")
      job.spec.status = JobStatus::running;
    else if (state == "pending")
      job.spec.status = JobStatus::pending;
    else
      job.spec.status = JobStatus::unknown;  // SUSPENDED happens once in Uranus; the paper ignores it
    const auto n_gpus =
        gpus && *gpus == std::floor(*gpus) ? core::integer_in_range<std::uint32_t>(*gpus) : std::nullopt;
    if (gpus && !n_gpus) r.fail(c_gpu, "gpu_num", "must be a whole number in [0, 4294967295]");
    if (r.ok && start && end && *end < *start) r.fail(c_end, "end_time", "is before start_time");
    if (!r.ok) continue;
    job.spec.n_gpus = *n_gpus;
    job.submit_field = "submit_time";
    set_times(job, r, submit, start, end, c_start, "start_time", c_end, "end_time");
    // The published duration column is end - start; prefer it when the times are only to the second.
    if (c_duration && !job.no_runtime)
      if (auto d = core::parse_number(f[*c_duration]); d && *d >= 0 && r.span(*c_duration, "duration", *d))
        job.spec.recorded_runtime_s = *d;
    if (!r.ok) continue;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

namespace {

JobStatus pai_status(const std::string& s) {
  const std::string v = core::lower_case(s);
  if (v == "terminated") return JobStatus::completed;  // "only 'Terminated' tasks are successful"
  if (v == "failed") return JobStatus::failed;
  if (v == "running") return JobStatus::running;
  if (v == "waiting") return JobStatus::pending;
  return JobStatus::unknown;
}

// The PAI 2020 tables ship without a header row; tolerate one that a user added.
bool is_header(const std::vector<std::string>& fields, const char* first) {
  return !fields.empty() && core::lower_case(fields[0]) == first;
}

}  // namespace

// Alibaba PAI 2020 (Weng et al., NSDI'22). pai_job_table: job_name, inst_id, user, status, start_time
// (submission), end_time. pai_task_table: job_name, task_name, inst_num, status, start_time (launch),
// end_time, plan_cpu, plan_mem, plan_gpu (percent of one GPU, per instance), gpu_type. A job's GPUs are the
// sum over its tasks of inst_num x plan_gpu / 100; it starts with its first task and ends with its last.
std::vector<RawJob> parse_pai2020(std::istream& jobs_in, std::istream& tasks_in, RecordErrors& job_errors,
                                  RecordErrors& task_errors) {
  struct TaskSum {
    double gpus = 0.0;
    std::optional<double> start, end;
    std::uint32_t line = 0;
  };
  std::unordered_map<std::string, TaskSum> tasks;
  {
    core::CsvReader reader(tasks_in, task_errors.file());
    while (const auto row = reader.next()) {
      const auto f = row->texts();
      if (is_header(f, "job_name")) continue;
      if (f.size() != 10) {
        task_errors.bad(
            row->line, "record",
            fmt::format("has {} fields; pai_task_table has 10 (job_name, task_name, inst_num, status, "
                        "start_time, end_time, plan_cpu, plan_mem, plan_gpu, gpu_type)",
                        f.size()));
        continue;
      }
      FieldReader r{task_errors, *row};
      const auto inst = r.number(2, "inst_num", true);
      const auto start = r.clock(4, "start_time", true);
      const auto end = r.clock(5, "end_time", true);
      const auto plan_gpu = r.number(8, "plan_gpu", true);
      if (!r.ok) continue;
      auto& t = tasks[f[0]];
      if (t.line == 0) t.line = row->line;
      t.gpus += (inst ? *inst : 1.0) * (plan_gpu ? *plan_gpu : 0.0) / 100.0;
      if (start) t.start = t.start ? std::min(*t.start, *start) : *start;
      if (end) t.end = t.end ? std::max(*t.end, *end) : *end;
    }
  }
  std::vector<RawJob> jobs;
  core::CsvReader reader(jobs_in, job_errors.file());
  while (const auto row = reader.next()) {
    const auto f = row->texts();
    if (is_header(f, "job_name")) continue;
    if (f.size() != 6) {
      job_errors.bad(row->line, "record",
                     fmt::format("has {} fields; pai_job_table has 6 (job_name, inst_id, user, status, "
                                 "start_time, end_time)",
                                 f.size()));
      continue;
    }
    FieldReader r{job_errors, *row};
    const auto submit = r.clock(4, "start_time");
    if (!r.ok) continue;
    RawJob job;
    job.line = row->line;
    job.missing = kModelFields;
    job.spec.trace_id = f[0];
    job.spec.user = f[2];
    job.spec.status = pai_status(f[3]);
    const auto it = tasks.find(f[0]);
    if (it == tasks.end()) {
      job_errors.bad(job.line, "job_name", fmt::format("job '{}' has no task in the task table", f[0]));
      continue;
    }
    set_gpus(job.spec, it->second.gpus);
    job.submit_field = "start_time";
    // The run time spans the job's tasks: a problem with it is the task table's, at the job's first task.
    const auto& t = it->second;
    if (t.start && t.end && *t.end < *t.start) {
      task_errors.bad(
          t.line, "end_time",
          fmt::format("job '{}': its tasks' last end_time is before their first start_time", f[0]));
      continue;
    }
    core::CsvRow task_row;  // no column: the times come from several rows
    task_row.line = t.line;
    task_row.fields.resize(6);
    FieldReader tr{task_errors, task_row};
    set_times(job, tr, submit, t.start, t.end, 4, "start_time", 5, "end_time");
    if (!tr.ok) continue;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// Alibaba PAI 2020 simulator input (cluster-trace-gpu-v2020/simulator/traces/pai/*.csv): a header row with
// at least job_id, submit_time, duration and num_gpu (GPUs of the whole job, fractional for shared GPUs);
// optional user, wait_time, status and user_dur (the per-user duration estimate the SJU policy uses, read
// here as the user's run-time estimate).
std::vector<RawJob> parse_pai2020_sim(std::istream& in, RecordErrors& errors) {
  HeaderCsv csv(in, errors);
  const auto c_id = csv.require("job_id"), c_submit = csv.require("submit_time"),
             c_duration = csv.require("duration"), c_gpu = csv.require("num_gpu");
  const auto c_user = csv.find("user"), c_wait = csv.find("wait_time"), c_status = csv.find("status"),
             c_user_dur = csv.find("user_dur");
  std::vector<RawJob> jobs;
  std::vector<std::string> f;
  while (csv.next(f)) {
    FieldReader r{errors, csv.row()};
    const auto submit = r.clock(c_submit, "submit_time");
    const auto duration = r.number(c_duration, "duration");
    const auto gpus = r.number(c_gpu, "num_gpu");
    if (duration && *duration < 0) r.fail(c_duration, "duration", "is negative");
    if (duration) (void)r.span(c_duration, "duration", *duration);
    if (gpus && *gpus < 0) r.fail(c_gpu, "num_gpu", "is negative");
    if (!r.ok) continue;
    RawJob job;
    job.line = csv.line();
    job.missing = kModelFields;
    job.spec.trace_id = f[c_id];
    job.spec.submit_s = *submit;
    job.submit_field = "submit_time";
    job.spec.recorded_runtime_s = *duration;
    set_gpus(job.spec, *gpus);
    if (c_user) job.spec.user = f[*c_user];
    if (c_status) job.spec.status = pai_status(f[*c_status]);
    // Optional columns: a cell that is no number, or negative, is read as absent; a number beyond the clock
    // is refused.
    if (c_wait)
      if (auto w = core::parse_number(f[*c_wait]); w && *w >= 0 && r.span(*c_wait, "wait_time", *w))
        job.spec.recorded_wait_s = *w;
    if (c_user_dur)
      if (auto u = core::parse_number(f[*c_user_dur]); u && *u > 0 && r.span(*c_user_dur, "user_dur", *u))
        job.spec.user_estimate_s = *u;
    if (!r.ok) continue;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// Standard Workload Format v2.2 (Feitelson et al., Parallel Workloads Archive): ';' starts a header comment;
// each record has 18 blank-separated fields, -1 meaning unknown: 1 job number, 2 submit time, 3 wait time,
// 4 run time, 5 allocated processors, 6 average CPU time, 7 used memory, 8 requested processors,
// 9 requested time (the user's estimate), 10 requested memory, 11 status (1 completed, 0 failed,
// 5 cancelled), 12 user, 13 group, 14 executable, 15 queue, 16 partition, 17 preceding job, 18 think time.
std::vector<RawJob> parse_swf(std::istream& in, RecordErrors& errors, double procs_per_gpu) {
  std::vector<RawJob> jobs;
  text::LineReader reader(in);
  std::string line;
  static const char* const kNames[18] = {"job_number",
                                         "submit_time",
                                         "wait_time",
                                         "run_time",
                                         "allocated_processors",
                                         "average_cpu_time",
                                         "used_memory",
                                         "requested_processors",
                                         "requested_time",
                                         "requested_memory",
                                         "status",
                                         "user_id",
                                         "group_id",
                                         "executable",
                                         "queue",
                                         "partition",
                                         "preceding_job",
                                         "think_time"};
  // The 1-based character column of a field (a view into `line`), for messages.
  const auto column_of = [&line](std::string_view field) {
    return static_cast<std::uint32_t>(field.data() - line.data() + 1);
  };
  while (reader.next(line)) {
    const auto body = text::trim(line);
    if (body.empty() || body.front() == ';') continue;
    const auto f = text::split_blanks(body);
    if (f.size() != 18) {
      errors.bad(reader.line_number(), "record", fmt::format("has {} fields; SWF records have 18", f.size()));
      continue;
    }
    double v[18];
    bool ok = true;
    for (int i = 0; i < 18 && ok; ++i) {
      const auto x = core::parse_number(f[static_cast<std::size_t>(i)]);
      if (!x) {
        errors.bad(reader.line_number(), kNames[i],
                   fmt::format("'{}' is not a number", f[static_cast<std::size_t>(i)]),
                   column_of(f[static_cast<std::size_t>(i)]));
        ok = false;
      } else {
        v[i] = *x;
      }
    }
    if (!ok) continue;
    if (v[1] < 0) {
      errors.bad(reader.line_number(), "submit_time", "is unknown (-1)", column_of(f[1]));
      continue;
    }
    // The submission is on the trace's clock, the wait, run and requested times are durations the engine
    // holds on its own.
    if (v[1] > kMaxTraceClockS) {
      errors.bad(reader.line_number(), "submit_time",
                 fmt::format("{} s is beyond the {:.0e} s a trace's clock may read", v[1], kMaxTraceClockS),
                 column_of(f[1]));
      continue;
    }
    for (const int i : {2, 3, 8})
      if (v[i] > core::kMaxInputSeconds) {
        errors.bad(reader.line_number(), kNames[i],
                   fmt::format("{} s is beyond the {:.0e} s (31.7 years) a simulated time may span", v[i],
                               core::kMaxInputSeconds),
                   column_of(f[static_cast<std::size_t>(i)]));
        ok = false;
        break;
      }
    if (!ok) continue;
    RawJob job;
    job.line = reader.line_number();
    job.missing = kModelFields;
    job.spec.trace_id = f[0];
    job.spec.submit_s = v[1];
    job.submit_field = "submit_time";
    if (v[2] >= 0) job.spec.recorded_wait_s = v[2];
    if (v[3] >= 0)
      job.spec.recorded_runtime_s = v[3];
    else
      job.no_runtime = true;
    const double procs = v[4] > 0 ? v[4] : v[7];
    set_gpus(job.spec, procs > 0 ? std::ceil(procs / procs_per_gpu - 1e-9) : 0.0);
    if (v[8] > 0) job.spec.user_estimate_s = v[8];
    // Compared as read: a status or user id beyond the integers' range (a corrupt record) is no integer.
    const double status = std::trunc(v[10]);
    job.spec.status = status == 1   ? JobStatus::completed
                      : status == 0 ? JobStatus::failed
                      : status == 5 ? JobStatus::cancelled
                                    : JobStatus::unknown;
    if (v[11] >= 0) job.spec.user = fmt::format("{:.0f}", std::trunc(v[11]));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace fleetwatt::jobs::trace_detail
