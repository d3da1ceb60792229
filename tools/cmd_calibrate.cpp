// `fleetwatt calibrate`: segments a recorded power log into idle, peak and valley phases, prints them (or
// one JSON object), and optionally joins them with the job's metadata into a line of a records CSV.
#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <string>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/epochs.hpp"
#include "fleetwatt/models/fit/records.hpp"
#include "fleetwatt/models/site_file.hpp"

namespace fleetwatt::tools {

namespace {

struct CalibrateOptions {
  std::string trace;
  std::optional<int> gpu;
  bool json = false;
  int smoothing = 5;
  std::size_t min_phase = 3;
  bool cycles = false;
  std::string meta_file;
  std::string records;
  std::string site, site_name, host;
  std::optional<std::pair<double, double>> span;  ///< seconds since the log's first sample
  models::fit::JobRecordMeta meta;
};

/// The run as a site file's [[run]]: the record's metadata and measured epoch (the epochs found, else one
/// peak and one valley of the square wave, as a records file's reader takes it).
models::SiteRun site_run(const models::fit::JobRecordMeta& meta, const models::fit::TraceSummary& s,
                         const CalibrateOptions& o) {
  models::SiteRun run;
  run.where = {o.trace, 0, 0};
  run.host = o.host;
  run.source = s.source;
  auto& r = run.run;
  r.model = meta.model;
  r.gpu_type = meta.gpu_type;
  const auto whole = [](const std::optional<double>& v) {
    return static_cast<std::uint32_t>(v.value_or(0.0));
  };
  r.params = meta.params.value_or(0.0);
  r.flops = meta.flops.value_or(0.0);
  r.data_size = meta.data_size.value_or(0.0);
  r.batch_size = whole(meta.batch_size);
  r.input_size = whole(meta.input_size);
  r.workers = whole(meta.workers);
  r.epochs = whole(meta.epochs);
  r.gpus = meta.gpus ? whole(meta.gpus) : static_cast<std::uint32_t>(s.gpus.size());
  jobs::PhaseProfile p;
  p.peak_W = s.peak_W, p.peak_s = s.peak_s, p.valley_W = s.valley_W, p.valley_s = s.valley_s;
  models::set_measured_epoch(r, s.epoch_s, s.epoch_W, p);
  if (!(r.epoch_s > 0.0))
    throw jobs::ConfigError({o.trace, 0, 0}, "--site",
                            "no epochs and no peak/valley phases in the log to record");
  r.power_limit_W = s.power_limit_W;
  r.max_power_limit_W = s.max_power_limit_W;
  return run;
}

double mean_of(const std::vector<double>& v) {
  double sum = 0.0;
  for (const double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

/// The record's metadata: the flags over the metadata file.
models::fit::JobRecordMeta record_meta(const CalibrateOptions& o) {
  using models::fit::JobRecordMeta;
  JobRecordMeta meta = o.meta_file.empty() ? JobRecordMeta{} : models::fit::read_job_meta_toml(o.meta_file);
  const auto& f = o.meta;
  if (!f.model.empty()) meta.model = f.model;
  if (!f.gpu_type.empty()) meta.gpu_type = f.gpu_type;
  for (auto [dst, src] : {std::pair{&meta.params, &f.params},
                          {&meta.flops, &f.flops},
                          {&meta.batch_size, &f.batch_size},
                          {&meta.data_size, &f.data_size},
                          {&meta.input_size, &f.input_size},
                          {&meta.workers, &f.workers},
                          {&meta.epochs, &f.epochs},
                          {&meta.gpus, &f.gpus}})
    if (*src) *dst = *src;
  return meta;
}

/// What a site's run must name, checked before the log is read.
void check_site_meta(const models::fit::JobRecordMeta& meta) {
  for (const auto& [missing, flag] : {std::pair{meta.model.empty(), "--model"},
                                      {meta.gpu_type.empty(), "--gpu-type"},
                                      {!meta.batch_size, "--batch-size"},
                                      {!(meta.data_size.value_or(0.0) > 0.0), "--data-size"}})
    if (missing)
      throw jobs::ConfigError({"command line", 0, 0}, flag,
                              "is needed for --site (a site's run names its model, GPU, batch and samples "
                              "per epoch)");
  if (models::record_gpu(meta.gpu_type).empty())
    throw jobs::ConfigError({"command line", 0, 0}, "--gpu-type",
                            fmt::format("no GPU preset for '{}' (see `fleetwatt list`)", meta.gpu_type));
}

/// The log, or its part in --span: a log that covers more than the run (an idle start, another job).
models::fit::PowerTrace spanned(models::fit::PowerTrace trace, const CalibrateOptions& o) {
  if (!o.span) return trace;
  const auto [from, to] = *o.span;
  models::fit::PowerTrace part = models::fit::trace_span(trace, from, to);
  if (part.gpus.empty())
    throw jobs::ConfigError(
        {"command line", 0, 0}, "--span",
        fmt::format("the log has no samples from {} to {} s (its first sample is 0 s)", from, to));
  return part;
}

int run_calibrate(const CalibrateOptions& o) {
  using namespace models::fit;
  if (!o.site.empty()) check_site_meta(record_meta(o));
  if (o.span && !(o.span->first < o.span->second))
    throw jobs::ConfigError(
        {"command line", 0, 0}, "--span",
        fmt::format("ends at {} s, not after its start at {} s", o.span->second, o.span->first));
  {
    const PowerTrace trace = spanned(read_power_trace(o.trace), o);
    SegmentOptions seg;
    seg.smoothing_window = o.smoothing;
    seg.min_phase_samples = o.min_phase;
    const TraceSummary s = summarise_trace(trace, o.gpu, seg);
    const auto& r = trace.report;
    // Each selected GPU's epochs, and what the command was told.
    std::vector<std::pair<int, EpochFinding>> epochs;
    for (const int g : s.gpus) epochs.emplace_back(g, find_epochs(trace.gpu(g)));
    const std::optional<double> told = o.meta.epochs;
    if (o.json) {
      // Doubles through json_number: JSON has no spelling for NaN or inf (it writes null), so any figure
      // keeps the object parseable.
      fmt::print("{{\"source\": {}, \"gpus\": [", json_string(s.source));
      for (std::size_t i = 0; i < s.gpus.size(); ++i) fmt::print("{}{}", i ? ", " : "", s.gpus[i]);
      fmt::print(
          "], \"samples\": {}, \"duration_s\": {}, \"energy_J\": {}, \"phase_energy_J\": {}, "
          "\"mean_power_W\": {}, \"peak_W\": {}, \"peak_s\": {}, \"valley_W\": {}, \"valley_s\": {}, "
          "\"idle_W\": {}, \"idle_s\": {}, \"n_peaks\": {}, \"n_valleys\": {}, ",
          s.samples, json_number(s.duration_s), json_number(s.energy_J), json_number(s.phase_energy_J),
          json_number(s.mean_power_W), json_number(s.peak_W), json_number(s.peak_s), json_number(s.valley_W),
          json_number(s.valley_s), json_number(s.idle_W), json_number(s.idle_s), s.n_peaks, s.n_valleys);
      fmt::print(
          "\"sampling\": {{\"rows\": {}, \"missing_power\": {}, \"duplicated_times\": {}, \"gaps\": {}, "
          "\"gap_s\": {}, \"median_interval_s\": {}, \"irregular\": {}}}, ",
          r.rows, r.missing_power, r.duplicated_times, r.gaps, json_number(r.gap_s),
          json_number(r.median_interval_s), r.irregular ? "true" : "false");
      fmt::print("\"sm_active\": [");
      bool first_sm = true;
      for (const auto& g : trace.gpus) {
        if (g.sm_active.empty()) continue;
        fmt::print("{}{{\"gpu\": {}, \"samples\": {}, \"mean\": {}}}", first_sm ? "" : ", ", g.index,
                   g.sm_active.size(), json_number(mean_of(g.sm_active)));
        first_sm = false;
      }
      fmt::print("], ");
      fmt::print("\"epochs\": [");
      for (std::size_t i = 0; i < epochs.size(); ++i) {
        const auto& [g, f] = epochs[i];
        fmt::print("{}{{\"gpu\": {}, \"found\": {}, \"told\": {}, \"stages\": [", i ? ", " : "", g,
                   f.epochs.size(), told ? json_number(*told) : "null");
        for (std::size_t k = 0; k < f.stages.size(); ++k) {
          const auto& st = f.stages[k];
          fmt::print("{}{{\"start_s\": {}, \"end_s\": {}, \"period_s\": {}, \"epochs\": {}}}", k ? ", " : "",
                     json_number(st.start_s), json_number(st.end_s), json_number(st.period_s), st.epochs);
        }
        fmt::print("], \"list\": [");
        for (std::size_t k = 0; k < f.epochs.size(); ++k) {
          const auto& e = f.epochs[k];
          fmt::print("{}{{\"start_s\": {}, \"end_s\": {}, \"energy_J\": {}, \"mean_W\": {}}}", k ? ", " : "",
                     json_number(e.start_s), json_number(e.end_s), json_number(e.energy_J),
                     json_number(e.mean_W()));
        }
        fmt::print("]}}");
      }
      fmt::print("], ");
      fmt::print("\"phases\": [");
      bool first = true;
      for (const auto& g : s.per_gpu)
        for (const auto& p : g.phases) {
          fmt::print("{}{{\"gpu\": {}, \"kind\": {}, \"start_s\": {}, \"end_s\": {}, \"level_W\": {}}}",
                     first ? "" : ", ", g.gpu, json_string(to_string(p.kind)), json_number(p.start_s),
                     json_number(p.end_s), json_number(p.level_W));
          first = false;
        }
      fmt::print("]}}\n");
    } else {
      fmt::print("{}: {} samples over {:.1f} s, GPUs:", s.source, s.samples, s.duration_s);
      for (const int g : s.gpus) fmt::print(" {}", g);
      fmt::print(
          "\nsampling: median interval {:.3f} s (min {:.3f}, max {:.3f}){}; {} [N/A] power fields, "
          "{} duplicated timestamps, {} gaps totalling {:.1f} s\n",
          r.median_interval_s, r.min_interval_s, r.max_interval_s, r.irregular ? ", irregular" : "",
          r.missing_power, r.duplicated_times, r.gaps, r.gap_s);
      for (const auto& g : trace.gpus)
        if (!g.sm_active.empty())
          fmt::print("SM activity (DCGM_FI_PROF_SM_ACTIVE) of GPU {}: mean {:.3f} over {} samples\n", g.index,
                     mean_of(g.sm_active), g.sm_active.size());
      for (const auto& g : s.per_gpu) {
        fmt::print("\nGPU {}: {} phases (split at {:.1f} W)\n", g.gpu, g.phases.size(), g.threshold_W);
        fmt::print("  {:<7} {:>10} {:>10} {:>10} {:>9}\n", "phase", "start_s", "end_s", "length_s",
                   "level_W");
        for (const auto& p : g.phases)
          fmt::print("  {:<7} {:>10.1f} {:>10.1f} {:>10.1f} {:>9.1f}\n", to_string(p.kind), p.start_s,
                     p.end_s, p.duration_s(), p.level_W);
        if (o.cycles && !g.cycles.empty()) {
          fmt::print("  {:<6} {:>9} {:>9} {:>9} {:>9}\n", "cycle", "peak_W", "peak_s", "valley_W",
                     "valley_s");
          for (std::size_t i = 0; i < g.cycles.size(); ++i)
            fmt::print("  {:<6} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f}\n", i + 1, g.cycles[i].peak_W,
                       g.cycles[i].peak_s, g.cycles[i].valley_W, g.cycles[i].valley_s);
        }
      }
      for (const auto& [g, f] : epochs) {
        fmt::print("\nGPU {}: {} epochs found{}", g, f.epochs.size(),
                   told ? fmt::format(" ({:g} told)", *told) : std::string());
        for (std::size_t k = 0; k < f.stages.size(); ++k) {
          const auto& st = f.stages[k];
          fmt::print("{} stage {} {:.1f}-{:.1f} s: {} x {}", k ? ";" : ",", k + 1, st.start_s, st.end_s,
                     st.epochs,
                     st.period_s > 0.0 ? fmt::format("{:.1f} s", st.period_s) : std::string("(no period)"));
        }
        fmt::print("\n");
        if (o.cycles) {
          fmt::print("  {:<6} {:>10} {:>10} {:>10} {:>9} {:>12}\n", "epoch", "start_s", "end_s", "length_s",
                     "mean_W", "energy_J");
          for (std::size_t k = 0; k < f.epochs.size(); ++k) {
            const auto& e = f.epochs[k];
            fmt::print("  {:<6} {:>10.1f} {:>10.1f} {:>10.1f} {:>9.1f} {:>12.0f}\n", k + 1, e.start_s,
                       e.end_s, e.duration_s(), e.mean_W(), e.energy_J);
          }
        }
      }
      fmt::print(
          "\nsquare wave per GPU: peak {:.1f} W x {:.1f} s ({} peaks), valley {:.1f} W x {:.1f} s ({} "
          "valleys), idle {:.1f} W for {:.1f} s\n",
          s.peak_W, s.peak_s, s.n_peaks, s.valley_W, s.valley_s, s.n_valleys, s.idle_W, s.idle_s);
      fmt::print(
          "energy: measured {:.1f} J (trapezoid), from the phases {:.1f} J ({:+.2f} %), mean {:.1f} W\n",
          s.energy_J, s.phase_energy_J, 100.0 * (s.phase_energy_J - s.energy_J) / s.energy_J, s.mean_power_W);
    }
    // A count that differs from the one given is worth a look before the record is trusted.
    for (const auto& [g, f] : epochs)
      if (told && static_cast<double>(f.epochs.size()) != *told)
        std::cerr << fmt::format(
            "fleetwatt: calibrate: GPU {}: {} epochs found in the log, {:g} told (--epochs)\n", g,
            f.epochs.size(), *told);
    if (!o.records.empty() || !o.site.empty()) {
      JobRecordMeta meta = record_meta(o);
      // The epochs found, where neither the flags nor the file give them.
      if (!meta.epochs && !epochs.empty() && !epochs.front().second.epochs.empty())
        meta.epochs = static_cast<double>(epochs.front().second.epochs.size());
      // A zoo model's parameters and FLOPs where neither the flags nor the file give them.
      meta = with_zoo_counts(meta, core::SourceLocation{o.meta_file.empty() ? "--model" : o.meta_file, 0, 0});
      // The record's epoch: the epochs found, per GPU, over the GPUs that have them.
      TraceSummary recorded = s;
      double duration = 0.0, energy = 0.0, count = 0.0;
      for (const auto& [g, f] : epochs)
        for (const auto& e : f.epochs) {
          duration += e.duration_s();
          energy += e.energy_J;
          count += 1.0;
        }
      if (count > 0.0 && duration > 0.0) {
        recorded.epoch_s = duration / count;
        recorded.epoch_W = energy / duration;
      }
      if (!o.site.empty()) {
        const models::SiteRun run = site_run(meta, recorded, o);
        if (!o.records.empty()) append_record(o.records, meta, recorded);
        models::append_site_run(o.site, o.site_name, run);
        if (!o.json)
          fmt::print("run appended to site {}: {} on {}, {:.2f} s an epoch, {:.1f} W\n", o.site,
                     run.run.model, run.run.gpu_type, run.run.epoch_s, run.run.power_W);
      } else {
        append_record(o.records, meta, recorded);
      }
      if (!o.json && !o.records.empty()) fmt::print("record appended to {}\n", o.records);
    }
    return 0;
  }
}

}  // namespace

void add_calibrate_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand("calibrate",
                                     "Segment a recorded GPU power log into idle, peak and valley "
                                     "phases; optionally append a training record");
  cmd->footer(
      "Examples:\n  fleetwatt calibrate gpu-power.csv --cycles\n"
      "  fleetwatt calibrate gpu-power.csv --records runs.csv --model resnet50 --gpu-type a40 --batch-size "
      "64 "
      "--data-size 50000\n"
      "  fleetwatt calibrate gpu-power.csv --site lab.toml --model resnet50 --gpu-type a40 --batch-size 64 "
      "--data-size 50000 --host node-7\n"
      "  fleetwatt calibrate examples/telemetry/h200-sxm/ctx1024/nvidia-smi.csv --span 70 150 --epochs 5");
  cmd->add_option("trace", o->trace,
                  "power log: nvidia-smi --query-gpu=timestamp,index,power.draw,... "
                  "--format=csv output, or a time_s,power_W CSV")
      ->required();
  cmd->add_option("--gpu", o->gpu, "only this GPU index (default: every GPU in the log)");
  cmd->add_option("--span", o->span,
                  "FROM TO: only the samples between these seconds since the log's first sample (a log "
                  "that covers more than the run)")
      ->check([](const std::string& v) {
        try {
          return std::stod(v) >= 0.0 ? std::string{} : std::string{"must be at least 0"};
        } catch (const std::exception&) {
          return std::string{"is not a number of seconds"};
        }
      });
  cmd->add_flag("--json", o->json, "print one JSON object instead of tables");
  cmd->add_option("--smoothing", o->smoothing, "moving-average width in samples, odd, 1-9 (default 5)");
  cmd->add_option("--min-phase", o->min_phase,
                  "shortest phase in samples; shorter runs are noise (default 3)");
  cmd->add_flag("--cycles", o->cycles, "also print each peak/valley cycle and each epoch found");
  cmd->add_option("--records", o->records,
                  "append a record (metadata + measured phases) to this records CSV");
  cmd->add_option("--site", o->site,
                  "append the run (metadata + measured epoch and power) to this site file (TOML), created "
                  "when absent; predict/validate --site and a scenario's [fleet] site correct predictions "
                  "with its runs");
  cmd->add_option("--site-name", o->site_name, "the site's name, for a new site file (default: its stem)");
  cmd->add_option("--host", o->host, "the machine the run was measured on, for the site file");
  cmd->add_option("--meta", o->meta_file,
                  "job metadata TOML (model, params, flops, batch_size, data_size, "
                  "input_size, workers, epochs, gpus, gpu_type) for the record");
  cmd->add_option("--model", o->meta.model,
                  "model name for the record; a zoo model (fleetwatt list) fills --params, --flops and "
                  "--input-size where they are not given");
  cmd->add_option("--params", o->meta.params, "trainable parameters for the record (default: the zoo's)");
  cmd->add_option("--flops", o->meta.flops, "forward FLOPs per sample for the record (default: the zoo's)");
  cmd->add_option("--batch-size", o->meta.batch_size, "batch size (samples) for the record");
  cmd->add_option("--data-size", o->meta.data_size, "samples per epoch for the record");
  cmd->add_option("--input-size", o->meta.input_size, "image side (px) or sequence length for the record");
  cmd->add_option("--workers", o->meta.workers, "data-loader workers for the record");
  cmd->add_option("--epochs", o->meta.epochs,
                  "epochs the run trained, for the record and to check against the epochs found in the log "
                  "(default: the epochs found)");
  cmd->add_option("--gpus", o->meta.gpus, "GPUs of the job for the record (default: GPUs in the log)");
  cmd->add_option("--gpu-type", o->meta.gpu_type, "GPU type for the record");
  cmd->callback([o, &action] { action = [o] { return run_calibrate(*o); }; });
}

}  // namespace fleetwatt::tools
