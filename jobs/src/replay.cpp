// Assembling a scenario's workload from its explicit jobs, generator, trace and preset.
#include "fleetwatt/jobs/replay.hpp"

#include <algorithm>

#include "fleetwatt/jobs/cluster_presets.hpp"
#include "fleetwatt/jobs/job_generator.hpp"
#include "fleetwatt/jobs/job_source.hpp"
#include "fleetwatt/jobs/warmup.hpp"

namespace fleetwatt::jobs {

TraceOptions trace_options(const TraceConfig& c, std::uint64_t seed, std::uint32_t fleet_gpus) {
  TraceOptions o;
  if (!c.format.empty()) {
    o.format = parse_trace_format(c.format, c.where);
  } else if (auto g = guess_trace_format(c.file)) {
    o.format = *g;
  } else {
    throw ConfigError(c.where, "format", "cannot tell the trace format from the file; set format");
  }
  o.strict = c.strict;
  o.from_s = c.from_s;
  o.to_s = c.to_s;
  o.arrival_scale = c.arrival_scale;
  o.max_gpus = fleet_gpus;
  o.max_jobs = c.max_jobs;
  o.swf_procs_per_gpu = c.swf_procs_per_gpu;
  o.pai_task_table = c.pai_task_table;
  o.seed = seed;
  o.deferrable_fraction = c.deferrable_fraction;
  o.defer_window_s = c.defer_window_s;
  return o;
}

std::vector<JobSpec> build_scenario_workload(const WorkloadConfig& w, std::uint64_t seed,
                                             std::uint32_t fleet_gpus, const RuntimeEstimate& estimate,
                                             const std::atomic<bool>* stop) {
  std::vector<JobSpec> jobs = build_workload(w, seed, stop);
  int sources = (!jobs.empty() ? 1 : 0);
  if (w.trace) {
    auto o = trace_options(*w.trace, seed, fleet_gpus);
    o.estimate = estimate;
    o.stop = stop;
    auto r = read_trace(w.trace->file, o);
    jobs.insert(jobs.end(), std::make_move_iterator(r.jobs.begin()), std::make_move_iterator(r.jobs.end()));
    ++sources;
  }
  if (w.preset) {
    const auto& p = *w.preset;
    auto generated =
        generate_preset_jobs(cluster_preset(p.cluster), {p.mean_rate_per_s, p.start_s, p.end_s, fleet_gpus},
                             seed, 0, {}, estimate, stop);
    // An explicit warm-up before a preset that opens with the window: its arrivals over [-warmup, 0) from a
    // stream of their own (the rate is constant, so drawing them forwards is as good as backwards), ids
    // after the window's, which stay as without one.
    const double warmup_s = w.warmup_s.value_or(0.0);
    if (p.start_s == 0.0 && warmup_s > 0.0 && !w.periodic_warmup) {
      auto warmup = generate_preset_jobs(
          cluster_preset(p.cluster), {p.mean_rate_per_s, -warmup_s, 0.0, fleet_gpus}, seed ^ kWarmupStream,
          static_cast<std::int64_t>(generated.size()), {}, estimate, stop);
      generated.insert(generated.end(), std::make_move_iterator(warmup.begin()),
                       std::make_move_iterator(warmup.end()));
    }
    // Deferrable marking, as for traces: a seeded share, deadline after the drawn run time (the window's
    // jobs first, so a warm-up leaves their marks as they were).
    Random rng(seed ^ 0x5deece66dULL);
    for (auto& j : generated) {
      j.class_origin = p.where;  // a job the predictor or the clock refuses is located at its preset
      if (rng.uniform() < p.deferrable_fraction) {
        j.deferrable = true;
        j.inferred |= inferred::deferrable;
        j.deadline_s = j.submit_s + j.recorded_runtime_s.value_or(0.0) + p.defer_window_s;
      }
    }
    // A periodic warm-up repeats the window's jobs, deferrable marks and all, so it is made after marking.
    if (p.start_s == 0.0 && warmup_s > 0.0 && w.periodic_warmup) {
      auto warmup = periodic_warmup_jobs(generated, w.horizon_s, warmup_s,
                                         static_cast<std::int64_t>(generated.size()), stop);
      generated.insert(generated.end(), std::make_move_iterator(warmup.begin()),
                       std::make_move_iterator(warmup.end()));
    }
    jobs.insert(jobs.end(), std::make_move_iterator(generated.begin()),
                std::make_move_iterator(generated.end()));
    ++sources;
  }
  sort_by_submit(jobs);
  if (sources > 1)
    for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<std::int64_t>(i);
  return jobs;
}

}  // namespace fleetwatt::jobs
