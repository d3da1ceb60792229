// Reading a trace: format dispatch, then the pass every format shares (window, scaling, GPU clipping,
// inference of missing fields, run-time matching, deferrable marking), and the trace summary.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "trace_formats.hpp"

namespace fleetwatt::jobs {

namespace {

using core::splitmix64;

std::ifstream open(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TraceFormatError({file.string(), 0, 0}, "file", "cannot be opened");
  return in;
}

// `file` names the source in each job's class_origin, so that a predictor's complaint about a job (a missing
// batch size, an unknown model) points at the record it came from.
TraceRead finish(std::vector<trace_detail::RawJob> raw, std::vector<SkippedRecord> skipped,
                 const TraceOptions& options, bool keep_ids, const std::string& file) {
  TraceRead out;
  out.skipped = std::move(skipped);
  out.records = raw.size();
  if (!(options.arrival_scale > 0.0)) throw std::invalid_argument("arrival_scale must be positive");
  double origin = std::numeric_limits<double>::infinity();
  for (const auto& r : raw) origin = std::min(origin, r.spec.submit_s);
  out.origin_s = std::isfinite(origin) ? origin : 0.0;

  // A submission is a time on the engine's clock once re-based: one beyond its input range is a bad record
  // (two far-apart readings of the trace's clock), refused where it was read.
  trace_detail::RecordErrors errors(file, options.strict, out.skipped);
  std::vector<trace_detail::RawJob> kept;
  kept.reserve(raw.size());
  for (auto& r : raw) {
    if (r.spec.submit_s - out.origin_s > core::kMaxInputSeconds) {
      errors.bad(r.line, r.submit_field,
                 fmt::format("is {} s after the trace's first submission, beyond the {:.0e} s (31.7 years) a "
                             "simulated time may span",
                             r.spec.submit_s - out.origin_s, core::kMaxInputSeconds));
      --out.records;
      continue;
    }
    if (r.no_runtime) {
      ++out.no_runtime;
      continue;
    }
    if (r.spec.n_gpus == 0) {
      ++out.no_gpu;
      continue;
    }
    double t = r.spec.submit_s - out.origin_s;
    if ((options.from_s && t < *options.from_s) || (options.to_s && t >= *options.to_s)) {
      ++out.outside_window;
      continue;
    }
    t -= options.from_s.value_or(0.0);
    r.spec.submit_s = t / options.arrival_scale;
    kept.push_back(std::move(r));
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const auto& a, const auto& b) { return a.spec.submit_s < b.spec.submit_s; });
  if (options.max_jobs > 0 && kept.size() > options.max_jobs) {
    out.outside_window += kept.size() - options.max_jobs;
    kept.resize(options.max_jobs);
  }

  out.jobs.reserve(kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i % 4096 == 0) core::throw_if_stopped(options.stop);
    auto& r = kept[i];
    JobSpec& job = r.spec;
    if (!keep_ids) job.id = static_cast<std::int64_t>(i);
    job.class_origin = {file, r.line, 0};
    if (options.max_gpus > 0 && job.n_gpus > options.max_gpus) {
      job.n_gpus = options.max_gpus;
      job.inferred |= inferred::n_gpus;
      ++out.clipped;
    }
    // One generator per record, seeded by its line: a job's inferred fields do not depend on the window.
    Random rng(splitmix64(options.seed ^ splitmix64(r.line)));
    infer_missing(job, r.missing, options.inference, rng);
    const double u_defer = rng.uniform();
    if (job.recorded_runtime_s) {
      const double runtime = std::max(1.0, *job.recorded_runtime_s);  // zero-length records become 1 s
      if (options.estimate && (job.inferred & inferred::epochs))
        out.worst_match_error =
            std::max(out.worst_match_error, match_runtime(job, runtime, options.estimate, options.inference));
      if ((job.status == JobStatus::failed || job.status == JobStatus::cancelled) && !job.limit_s)
        job.limit_s = runtime;
    }
    if (options.deferrable_fraction > 0.0 && u_defer < options.deferrable_fraction && !job.deferrable) {
      job.deferrable = true;
      job.inferred |= inferred::deferrable;
      double runtime = job.recorded_runtime_s.value_or(0.0);
      if (!job.recorded_runtime_s && options.estimate) runtime = options.estimate(job);
      if (!job.deadline_s) job.deadline_s = job.submit_s + runtime + options.defer_window_s;
    }
    out.jobs.push_back(std::move(job));
  }
  return out;
}

}  // namespace

const TraceFormats& trace_formats() {
  using trace_detail::RawJob;
  using trace_detail::RecordErrors;
  // In the order of TraceFormat: an entry's index is its format.
  static const TraceFormats formats(
      "trace format",
      {
          {"fleetwatt_csv",
           "fleetwatt's job table: one job per row, every job field",
           {},
           [](std::istream& in, const TraceOptions&, RecordErrors& e) {
             return trace_detail::parse_job_table(in, e);
           }},
          {"philly",
           "Microsoft Philly cluster_job_log (JSON jobs with attempts)",
           {},
           [](std::istream& in, const TraceOptions&, RecordErrors& e) {
             return trace_detail::parse_philly(in, e);
           }},
          {"pai2020",
           "Alibaba PAI 2020 job table joined with its task table (headerless CSVs)",
           {{"pai_task_table",
             ParamType::string,
             {},
             "pai_task_table.csv beside the file",
             "",
             "the task table, relative to the scenario",
             {}}},
           // Two tables: read_trace(file) joins them; a single stream cannot hold both.
           [](std::istream&, const TraceOptions&, RecordErrors& e) -> std::vector<RawJob> {
             e.fatal(0, "format", "pai2020 joins two tables: read it from a file (the task table beside it)");
           }},
          {"pai2020_sim",
           "Alibaba PAI 2020 simulator CSV",
           {},
           [](std::istream& in, const TraceOptions&, RecordErrors& e) {
             return trace_detail::parse_pai2020_sim(in, e);
           }},
          {"alibaba2023",
           "Alibaba GPU 2023 openb_pod_list CSV (GPU sharing)",
           {},
           [](std::istream& in, const TraceOptions&, RecordErrors& e) {
             return trace_detail::parse_alibaba2023(in, e);
           }},
          {"helios",
           "SenseTime Helios cluster_log.csv",
           {},
           [](std::istream& in, const TraceOptions&, RecordErrors& e) {
             return trace_detail::parse_helios(in, e);
           }},
          {"swf",
           "Standard Workload Format (Parallel Workloads Archive)",
           {{"swf_procs_per_gpu",
             ParamType::number,
             1.0,
             "",
             "processors",
             "GPUs = ceil(processors / this)",
             {}}},
           [](std::istream& in, const TraceOptions& options, RecordErrors& e) {
             if (!(options.swf_procs_per_gpu > 0.0))
               throw std::invalid_argument("swf_procs_per_gpu must be positive");
             return trace_detail::parse_swf(in, e, options.swf_procs_per_gpu);
           }},
      });
  return formats;
}

const TraceFormatEntry& trace_format_entry(TraceFormat f) {
  return trace_formats().entries()[static_cast<std::size_t>(f)];
}

const ParamSpecs& trace_common_params() {
  static const ParamSpecs specs = [] {
    const TraceOptions d;
    return ParamSpecs{
        {"file", ParamType::string, {}, "required", "", "the trace, relative to the scenario's folder", {}},
        {"format", ParamType::string, {}, "guessed from the file", "", "one of the formats here", {}},
        {"from_s",
         ParamType::number,
         {},
         "the first submission",
         "s",
         "keep jobs submitted from here (after the first submission); re-based to 0",
         {}},
        {"to_s", ParamType::number, {}, "the last submission", "s", "keep jobs submitted before here", {}},
        {"arrival_scale", ParamType::number, d.arrival_scale, "", "", "submit times are divided by it", {}},
        {"fleet_scale",
         ParamType::number,
         1.0,
         "",
         "",
         "the fleet and the arrival rate both scaled by it (load per GPU kept)",
         {}},
        {"strict", ParamType::boolean, d.strict, "", "", "refuse the file at its first malformed record", {}},
        {"max_jobs", ParamType::integer, std::int64_t{0}, "", "jobs", "keep only the first N (0: all)", {}},
        {"deferrable_fraction",
         ParamType::number,
         d.deferrable_fraction,
         "",
         "",
         "share of jobs marked deferrable",
         {}},
        {"defer_window_s",
         ParamType::number,
         d.defer_window_s,
         "",
         "s",
         "a deferrable job's deadline: submit + run time + this",
         {}},
    };
  }();
  return specs;
}

const char* to_string(TraceFormat f) noexcept {
  return trace_format_entry(f).name.c_str();
}

std::vector<std::string> trace_format_names() {
  std::vector<std::string> names;
  for (const auto& e : trace_formats()) names.push_back(e.name);
  return names;
}

TraceFormat parse_trace_format(std::string_view name, const SourceLocation& where) {
  const auto& formats = trace_formats();
  return static_cast<TraceFormat>(&formats.at(name, where, "format") - formats.entries().data());
}

std::optional<TraceFormat> guess_trace_format(const std::filesystem::path& file) {
  const std::string ext = core::lower_case(file.extension().string());
  if (ext == ".swf") return TraceFormat::swf;
  if (ext == ".json") return TraceFormat::philly;
  std::ifstream in(file);
  std::string first;
  if (!in || !std::getline(in, first)) return std::nullopt;
  if (!first.empty() && first.back() == '\r') first.pop_back();
  if (first.rfind("\xEF\xBB\xBF", 0) == 0) first.erase(0, 3);
  if (!first.empty() && first[0] == ';') return TraceFormat::swf;
  if (!first.empty() && first[0] == '[') return TraceFormat::philly;
  const auto header = core::split_csv(first);
  auto has = [&](const char* c) { return core::find_column(header, c).has_value(); };
  if (has("submit_s") && has("n_gpus")) return TraceFormat::fleetwatt_csv;
  if (has("creation_time") && has("num_gpu")) return TraceFormat::alibaba2023;
  if (has("gpu_num") && has("state")) return TraceFormat::helios;
  if (has("job_id") && has("num_gpu") && has("duration")) return TraceFormat::pai2020_sim;
  return std::nullopt;
}

TraceRead read_trace(std::istream& in, const std::string& name, const TraceOptions& options) {
  std::vector<SkippedRecord> skipped;
  trace_detail::RecordErrors errors(name, options.strict, skipped);
  auto raw = trace_format_entry(options.format).make(in, options, errors);
  return finish(std::move(raw), std::move(skipped), options, options.format == TraceFormat::fleetwatt_csv,
                name);
}

TraceRead read_trace(const std::filesystem::path& file, const TraceOptions& options) {
  if (options.format != TraceFormat::pai2020) {
    auto in = open(file);
    return read_trace(in, file.string(), options);
  }
  const auto task_file =
      options.pai_task_table.empty() ? file.parent_path() / "pai_task_table.csv" : options.pai_task_table;
  auto jobs_in = open(file);
  auto tasks_in = open(task_file);
  return read_pai2020(jobs_in, file.string(), tasks_in, task_file.string(), options);
}

TraceRead read_pai2020(std::istream& jobs_in, const std::string& jobs_name, std::istream& tasks_in,
                       const std::string& tasks_name, const TraceOptions& options) {
  std::vector<SkippedRecord> skipped;
  trace_detail::RecordErrors job_errors(jobs_name, options.strict, skipped);
  trace_detail::RecordErrors task_errors(tasks_name, options.strict, skipped);
  auto raw = trace_detail::parse_pai2020(jobs_in, tasks_in, job_errors, task_errors);
  return finish(std::move(raw), std::move(skipped), options, false, jobs_name);
}

double quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0.0;
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  // The two order statistics it needs, in linear time: the lo-th in place, the next the least above it.
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(values.begin(), at, values.end());
  const double a = *at;
  const double b = lo + 1 < values.size() ? *std::min_element(at + 1, values.end()) : a;
  return a + (pos - static_cast<double>(lo)) * (b - a);
}

TraceStats trace_stats(const std::vector<JobSpec>& jobs) {
  TraceStats s;
  s.jobs = jobs.size();
  if (jobs.empty()) return s;
  double first = jobs.front().submit_s, last = first, gpus_sum = 0.0;
  std::vector<double> runtimes, waits;
  std::map<std::uint32_t, std::size_t> hist;
  for (const auto& j : jobs) {
    first = std::min(first, j.submit_s);
    last = std::max(last, j.submit_s);
    ++s.by_status[static_cast<std::size_t>(j.status)];
    gpus_sum += j.n_gpus * j.gpu_fraction;
    s.gpus_max = std::max(s.gpus_max, j.n_gpus);
    ++hist[j.n_gpus];
    if (j.inferred) ++s.inferred_jobs;
    if (j.recorded_runtime_s) {
      runtimes.push_back(*j.recorded_runtime_s);
      s.gpu_hours += j.n_gpus * j.gpu_fraction * *j.recorded_runtime_s / 3600.0;
      s.allocated_gpu_hours += j.n_gpus * *j.recorded_runtime_s / 3600.0;
    }
    if (j.recorded_wait_s) waits.push_back(*j.recorded_wait_s);
  }
  s.span_s = last - first;
  s.gpus_mean = gpus_sum / static_cast<double>(jobs.size());
  s.gpus_histogram.assign(hist.begin(), hist.end());
  s.with_runtime = runtimes.size();
  if (!runtimes.empty()) {
    s.runtime_mean_s =
        std::accumulate(runtimes.begin(), runtimes.end(), 0.0) / static_cast<double>(runtimes.size());
    s.runtime_p10_s = quantile(runtimes, 0.10);
    s.runtime_p50_s = quantile(runtimes, 0.50);
    s.runtime_p90_s = quantile(runtimes, 0.90);
    s.runtime_p99_s = quantile(runtimes, 0.99);
    s.runtime_max_s = runtimes.back();
  }
  s.with_wait = waits.size();
  if (!waits.empty()) {
    s.wait_mean_s = std::accumulate(waits.begin(), waits.end(), 0.0) / static_cast<double>(waits.size());
    s.wait_p50_s = quantile(waits, 0.5);
  }
  return s;
}

}  // namespace fleetwatt::jobs
