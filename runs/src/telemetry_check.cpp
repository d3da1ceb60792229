// A GPU's recorded windows against the serving iteration model, the training predictor and the preset's
// idle and resident draw (see the header).
#include "fleetwatt/runs/telemetry_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"
#include "fleetwatt/models/serving/serving_iteration.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"
#include "fleetwatt/runs/job_prediction.hpp"
#include "fleetwatt/runs/service_request.hpp"

namespace fleetwatt::runs {

namespace {

const std::vector<std::string> kColumns = {
    "name",     "kind",           "model",         "gpu", "start_s",    "end_s",
    "batch",    "context_tokens", "prompt_tokens", "seq", "iterations", "time_per_iteration_s",
    "energy_J", "mean_power_W"};

/// A model's serving replica on one GPU of `gpu` (bf16: the recording's precision).
models::ServingReplica replica(const TelemetryWindow& w) {
  models::ServingReplica r;
  r.model = models::count_model(w.model, 0);
  r.gpu = models::find_gpu(w.gpu);
  r.tp = 1;
  r.precision = jobs::Precision::bf16;
  return r;
}

/// A training step of `w` as `fleetwatt predict` gives it: its step time and its peak draw.
std::pair<double, double> training_step(const TelemetryWindow& w) {
  PredictionRequest q;
  q.model = w.model, q.gpu = w.gpu, q.precision = "bf16";
  q.batch = static_cast<std::uint32_t>(w.batch), q.seq = static_cast<std::uint32_t>(w.seq);
  q.samples = 100.0 * w.batch;
  const JobPrediction p = predict_job(q);
  return {p.step ? p.step->step_s : 0.0, p.profile.peak_W};
}

}  // namespace

std::vector<TelemetryWindow> read_telemetry_windows(const std::filesystem::path& path) {
  const std::filesystem::path file = std::filesystem::is_directory(path) ? path / "windows.csv" : path;
  std::ifstream in(file);
  if (!in) throw core::ConfigError({file.string(), 0, 0}, "windows", "cannot be read");
  return read_telemetry_windows(in, file.string());
}

std::vector<TelemetryWindow> read_telemetry_windows(std::istream& in, const std::string& source) {
  core::CsvReader r(in, source);
  r.read_header(kColumns);
  std::vector<TelemetryWindow> out;
  const auto fail = [&](const core::CsvRow& row, const char* col, const std::string& why) {
    throw core::TraceFormatError(r.where(row, *r.column(col)), col, why);
  };
  // Counts and times up to what `fleetwatt predict` and `serve` take (a million sequences, 2^24 tokens, a
  // year): no recording is beyond them, and past them the models' figures stop being finite.
  const auto within = [&](const core::CsvRow& row, const char* col, double hi) {
    const double v = r.number(row, col);
    if (v < 0.0 || v > hi) fail(row, col, fmt::format("must be from 0 to {}", hi));
    return v;
  };
  constexpr double kTokens = 16777216.0, kYear = 3.2e7;
  while (const auto row = r.next()) {
    TelemetryWindow w;
    w.line = row->line;
    w.name = r.text(*row, "name"), w.kind = r.text(*row, "kind"), w.model = r.text(*row, "model");
    w.gpu = r.text(*row, "gpu");
    w.start_s = within(*row, "start_s", kYear), w.end_s = within(*row, "end_s", kYear);
    if (!(w.end_s > w.start_s)) fail(*row, "end_s", "must come after start_s");
    w.batch = within(*row, "batch", 1e6), w.context_tokens = within(*row, "context_tokens", kTokens);
    w.prompt_tokens = within(*row, "prompt_tokens", kTokens), w.seq = within(*row, "seq", kTokens);
    w.iterations = within(*row, "iterations", 1e15);
    w.time_per_iteration_s = within(*row, "time_per_iteration_s", kYear);
    w.energy_J = within(*row, "energy_J", 1e15), w.mean_power_W = within(*row, "mean_power_W", 1e6);
    const bool work = w.kind == "decode" || w.kind == "prefill" || w.kind == "train";
    const bool served = w.kind == "decode" || w.kind == "prefill" || w.kind == "replay";
    if (!work && w.kind != "idle" && w.kind != "resident" && w.kind != "eval" && w.kind != "save" &&
        w.kind != "replay")
      fail(*row, "kind",
           "'" + w.kind + "' is not idle, resident, decode, prefill, train, eval, save or replay");
    if (models::find_gpu_preset(w.gpu) == nullptr)
      fail(*row, "gpu", "no GPU preset '" + w.gpu + "' (see `fleetwatt list`)");
    if ((work || served) && !models::is_zoo_model(w.model))
      fail(*row, "model", "'" + w.model + "' is not a zoo model (see `fleetwatt list`)");
    if (served) {
      models::ServingReplica probe;
      probe.model = models::count_model(w.model, 0);
      probe.gpu = models::find_gpu(w.gpu);
      if (const auto [key, why] = models::replica_problem(probe); !key.empty())
        fail(*row, "model", "'" + w.model + "' cannot be served: " + why);
    }
    if (work && !(w.time_per_iteration_s > 0.0))
      fail(*row, "time_per_iteration_s", "a " + w.kind + " window needs its iteration time");
    if ((w.kind == "decode" || w.kind == "train" || w.kind == "replay") && !(w.batch >= 1.0))
      fail(*row, "batch", "a " + w.kind + " window needs its batch");
    if (w.kind == "prefill" && !(w.prompt_tokens >= 1.0))
      fail(*row, "prompt_tokens", "a prefill window needs its prompt");
    if (w.kind == "train" && !(w.seq >= 1.0)) fail(*row, "seq", "a train window needs seq");
    out.push_back(std::move(w));
  }
  if (out.empty()) throw core::TraceFormatError({source, r.line(), 0}, "windows", "has no rows");
  return out;
}

/// The replay's trace served as `fleetwatt serve` serves it.
sim::ServiceRun serve_replay(const TelemetryWindow& w, const std::filesystem::path& folder) {
  ServeRequest o;
  o.trace = (folder / "trace.csv").string();
  o.model = w.model, o.gpu = w.gpu;
  o.max_batch = static_cast<std::uint32_t>(w.batch);
  o.mode = "exact";
  ServedTrace served = prepare_service(o);
  play(served);
  return std::move(served.run);
}

TelemetryCheck check_telemetry(const std::vector<TelemetryWindow>& windows,
                               const std::filesystem::path& folder) {
  TelemetryCheck c;
  std::map<std::string, std::vector<std::pair<double, double>>> ratios;  // kind -> (time, power) ratios
  for (const TelemetryWindow& w : windows) {
    TelemetryComparison t;
    t.window = &w;
    const models::GpuHardware& gpu = models::gpu_preset(w.gpu);
    if (w.kind == "idle") {
      t.predicted_W = gpu.idle_W;
    } else if (w.kind == "resident") {
      t.predicted_W = models::resident_floor(gpu, models::default_predictor_fit().power);
    } else if (w.kind == "decode" || w.kind == "prefill") {
      models::IterationBatch b;
      if (w.kind == "decode") {
        b.decode_sequences = w.batch, b.decode_context_tokens = w.batch * w.context_tokens;
      } else {
        const double sequences = std::max(1.0, w.batch);
        b.prefill_tokens = sequences * w.prompt_tokens, b.prefill_sequences = sequences;
        b.prefill_attended_keys = sequences * w.prompt_tokens * (w.prompt_tokens + 1.0) / 2.0;
      }
      const models::IterationCost cost = models::serving_iteration(replica(w), b);
      t.predicted_s = cost.time_s, t.predicted_W = cost.power_W;
    } else if (w.kind == "train") {
      std::tie(t.predicted_s, t.predicted_W) = training_step(w);
    } else if (w.kind == "replay" && !folder.empty()) {
      c.replays.push_back(serve_replay(w, folder));
      t.predicted_W = c.replays.back().energy_J / (w.end_s - w.start_s);
    } else {
      c.rows.push_back(t);  // eval and save: reported as measured
      continue;
    }
    const double time_ratio = t.predicted_s > 0.0 ? t.predicted_s / w.time_per_iteration_s - 1.0 : NAN;
    ratios[w.kind].emplace_back(time_ratio, t.predicted_W / w.mean_power_W - 1.0);
    c.rows.push_back(t);
  }
  for (const auto& [kind, v] : ratios) {
    TelemetryErrors& e = c.kinds[kind];
    e.rows = v.size();
    std::size_t timed = 0;
    for (const auto& [time, power] : v) {
      if (!std::isnan(time)) e.time_mre += std::abs(time), e.time_bias += time, ++timed;
      e.power_mre += std::abs(power), e.power_bias += power;
    }
    if (timed > 0)
      e.time_mre /= double(timed), e.time_bias /= double(timed);
    else
      e.time_mre = e.time_bias = NAN;
    e.power_mre /= double(v.size()), e.power_bias /= double(v.size());
  }
  return c;
}

}  // namespace fleetwatt::runs
