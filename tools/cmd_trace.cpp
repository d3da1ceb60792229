// `fleetwatt trace stats|convert|fleet`: summarise a recorded trace, convert it to fleetwatt's job table,
// and derive a fleet section from a recorded node list (Alibaba 2023's openb_node_list_gpu_node.csv).
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/jobs/job_table_csv.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "trace_fleet.hpp"

namespace fleetwatt::tools {

namespace {

struct TraceCliOptions {
  std::string file;
  std::string format;
  std::optional<double> from_s, to_s;
  double arrival_scale = 1.0;
  bool strict = false;
  std::string task_table;
  double procs_per_gpu = 1.0;
  std::uint64_t seed = 1;
  std::string output;
  bool list_skipped = false;
};

jobs::TraceRead read(const TraceCliOptions& o) {
  jobs::TraceOptions t;
  if (!o.format.empty()) {
    t.format = jobs::parse_trace_format(o.format, {"--format", 0, 0});
  } else if (auto g = jobs::guess_trace_format(o.file)) {
    t.format = *g;
  } else {
    throw jobs::ConfigError({o.file, 0, 0}, "--format", "cannot tell the trace format; give --format");
  }
  t.strict = o.strict;
  t.from_s = o.from_s;
  t.to_s = o.to_s;
  t.arrival_scale = o.arrival_scale;
  t.pai_task_table = o.task_table;
  t.swf_procs_per_gpu = o.procs_per_gpu;
  t.seed = o.seed;
  return jobs::read_trace(o.file, t);
}

std::string hours(double s) {
  return fmt::format("{:.1f} h", s / 3600.0);
}

void report_skipped(const jobs::TraceRead& r, bool all) {
  const std::size_t show = all ? r.skipped.size() : std::min<std::size_t>(r.skipped.size(), 5);
  for (std::size_t i = 0; i < show; ++i)
    std::cerr << fmt::format("fleetwatt: skipped {}: {}: {}\n", r.skipped[i].where.to_string(),
                             r.skipped[i].field, r.skipped[i].reason);
  if (show < r.skipped.size())
    std::cerr << fmt::format("fleetwatt: ... and {} more malformed records (--list-skipped shows all)\n",
                             r.skipped.size() - show);
}

int stats(const TraceCliOptions& o) {
  const auto r = read(o);
  report_skipped(r, o.list_skipped);
  const auto s = jobs::trace_stats(r.jobs);
  auto line = [](const std::string& k, const std::string& v) {
    std::cout << fmt::format("  {:<28}{}\n", k, v);
  };
  std::cout << fmt::format("trace {}\n", o.file);
  line("records read", fmt::format("{}", r.records));
  line("malformed, skipped", fmt::format("{}", r.skipped.size()));
  line("no GPU (dropped)", fmt::format("{}", r.no_gpu));
  line("never ran (dropped)", fmt::format("{}", r.no_runtime));
  line("outside window (dropped)", fmt::format("{}", r.outside_window));
  line("GPU jobs", fmt::format("{}", s.jobs));
  for (auto st : {jobs::JobStatus::completed, jobs::JobStatus::failed, jobs::JobStatus::cancelled,
                  jobs::JobStatus::running, jobs::JobStatus::unknown})
    if (s.by_status[static_cast<int>(st)] > 0)
      line(fmt::format("  {}", jobs::to_string(st)),
           fmt::format(
               "{} ({:.1f} %)", s.by_status[static_cast<int>(st)],
               100.0 * static_cast<double>(s.by_status[static_cast<int>(st)]) / static_cast<double>(s.jobs)));
  line("submission span", fmt::format("{} ({:.1f} days)", hours(s.span_s), s.span_s / 86400.0));
  line("GPU-hours (share-weighted)", fmt::format("{:.1f}", s.gpu_hours));
  line("GPU-hours (whole GPUs)", fmt::format("{:.1f}", s.allocated_gpu_hours));
  line("GPUs per job", fmt::format("mean {:.3f}, max {}", s.gpus_mean, s.gpus_max));
  std::string hist;
  for (const auto& [g, n] : s.gpus_histogram) hist += fmt::format("{}{}:{}", hist.empty() ? "" : " ", g, n);
  line("jobs by GPU count", hist);
  line("run time (s)", fmt::format("mean {:.0f}, p10 {:.0f}, p50 {:.0f}, p90 {:.0f}, p99 {:.0f}, max {:.0f}",
                                   s.runtime_mean_s, s.runtime_p10_s, s.runtime_p50_s, s.runtime_p90_s,
                                   s.runtime_p99_s, s.runtime_max_s));
  if (s.with_wait > 0)
    line("recorded wait (s)", fmt::format("mean {:.0f}, p50 {:.0f}", s.wait_mean_s, s.wait_p50_s));
  return 0;
}

int convert(const TraceCliOptions& o) {
  const auto r = read(o);
  report_skipped(r, o.list_skipped);
  core::write_text_output(o.output, "--output",
                          [&](std::ostream& out) { jobs::write_job_table_csv(out, r.jobs); });
  std::cout << fmt::format("{} jobs written to {}\n", r.jobs.size(), o.output);
  return 0;
}

void add_trace_options(CLI::App* cmd, TraceCliOptions& o) {
  cmd->add_option("file", o.file, "Trace file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--format", o.format,
                  "Trace format: fleetwatt_csv, philly, pai2020, pai2020_sim, alibaba2023, helios, swf "
                  "(default: guessed from the file)");
  cmd->add_option("--from", o.from_s,
                  "Keep jobs submitted at least this many seconds after the first submission");
  cmd->add_option("--to", o.to_s, "Keep jobs submitted before this many seconds after the first submission");
  cmd->add_option("--arrival-scale", o.arrival_scale,
                  "Divide submit times by this (2 doubles the arrival rate)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--strict", o.strict,
                "Refuse the trace at its first malformed record instead of skipping it");
  cmd->add_option("--task-table", o.task_table,
                  "pai2020: the task table (default: pai_task_table.csv beside FILE)");
  cmd->add_option("--procs-per-gpu", o.procs_per_gpu, "swf: processors per GPU (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o.seed, "Seed for the inferred fields (default 1)");
  cmd->add_flag("--list-skipped", o.list_skipped, "List every malformed record, not only the first five");
}

}  // namespace

void add_trace_command(CLI::App& app, Action& action) {
  CLI::App* trace = app.add_subcommand("trace", "Inspect and convert recorded job traces");
  trace->require_subcommand(1);

  auto so = std::make_shared<TraceCliOptions>();
  CLI::App* s =
      trace->add_subcommand("stats", "Summarise a trace: jobs, GPU-hours, size and run-time distributions");
  add_trace_options(s, *so);
  s->callback([so, &action] { action = [so] { return stats(*so); }; });

  auto co = std::make_shared<TraceCliOptions>();
  CLI::App* c =
      trace->add_subcommand("convert", "Write a trace as fleetwatt's job table (every JobSpec field)");
  add_trace_options(c, *co);
  c->add_option("-o,--output", co->output, "Job table CSV to write")->required();
  c->callback([co, &action] { action = [co] { return convert(*co); }; });

  struct FleetOptions {
    std::string file, output, gpu = "a800";
    double node_base_W = 0.0;
  };
  auto fo = std::make_shared<FleetOptions>();
  CLI::App* f = trace->add_subcommand(
      "fleet",
      "Derive a [fleet] section with one [[fleet.group]] per (GPUs per node, model) from a recorded node "
      "list (Alibaba 2023 openb_node_list_gpu_node.csv)");
  f->add_option("file", fo->file, "Node list CSV (sn, cpu_milli, memory_mib, gpu, model)")
      ->required()
      ->check(CLI::ExistingFile);
  f->add_option("-o,--output", fo->output, "Fleet TOML to write")->required();
  f->add_option("--gpu", fo->gpu,
                "GPU preset standing in for anonymised models (G2, G3, ...; default a800); P100, V100M16/32, "
                "T4 and A10 map to p100, v100, t4 and a10");
  f->add_option("--node-base-w", fo->node_base_W, "Non-GPU power of a node, W (default 0)")
      ->check(CLI::NonNegativeNumber);
  f->callback([fo, &action] {
    action = [fo] { return write_trace_fleet(fo->file, fo->output, fo->gpu, fo->node_base_W); };
  });
}

}  // namespace fleetwatt::tools
