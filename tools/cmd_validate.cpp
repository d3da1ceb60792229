// `fleetwatt validate MEASUREMENTS`: a predictor's errors against measured runs (Zeus, GAISSA, NeuSight,
// fleetwatt records; a file or a folder), per GPU and overall: mean relative error of time and average
// power, and the share of rows inside the predictor's calibrated band.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/json_text.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/models/few_shot.hpp"
#include "fleetwatt/models/fit/energy_leaderboard.hpp"
#include "fleetwatt/models/fit/measurements.hpp"
#include "fleetwatt/models/fit/predictor_fit.hpp"
#include "fleetwatt/models/fit/published_steps.hpp"
#include "fleetwatt/models/fit/serving_check.hpp"
#include "fleetwatt/models/fit/vidur_layers.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/site_predictor.hpp"
#include "fleetwatt/models/validation_report.hpp"
#include "fleetwatt/runs/telemetry_check.hpp"

namespace fleetwatt::tools {
namespace {

using jobs::ConfigError;

struct ValidateOptions {
  std::string measurements;
  std::string predictor = "datasheet";
  std::string gpu_file;
  std::string fit_output;
  std::string rows_csv;
  std::string step_calibration;
  std::string site;  ///< a site file: predictions corrected to its runs
  bool json = false, leave_one_gpu_out = false, fit = false, steps = false, serving = false,
       telemetry = false;
  double level = 0.8;
  std::optional<std::size_t> few_shot;  ///< K calibration runs per (GPU, workload)
};

/// Doubles through json_number: a measured time or power near zero makes a relative error inf, which JSON
/// cannot spell (json_number writes null).
std::string json_summary(const models::ErrorSummary& s) {
  return fmt::format(
      "{{\"rows\": {}, \"time_mre\": {}, \"power_rows\": {}, \"power_mre\": {}, \"banded_rows\": {}, "
      "\"time_in_band\": {}, \"power_in_band\": {}, \"band_level\": {}}}",
      s.rows, json_number(s.time_mre), s.power_rows, json_number(s.power_mre), s.banded_rows,
      json_number(s.time_in_band), json_number(s.power_in_band), json_number(s.band_level));
}

std::string table_line(const std::string& gpu, const models::ErrorSummary& s) {
  const auto pct = [](double v) { return fmt::format("{:.1f}", 100.0 * v); };
  return fmt::format(
      "{:<16} {:>6} {:>11} {:>11} {:>12} {:>13} {:>14} {:>7}\n", gpu, s.rows, pct(s.time_mre), s.power_rows,
      s.power_rows ? pct(s.power_mre) : "-", s.banded_rows ? pct(s.time_in_band) : "-",
      s.banded_rows && s.power_rows ? pct(s.power_in_band) : "-", s.banded_rows ? pct(s.band_level) : "-");
}

/// A published row's job as the keys of a scenario's [[workload.jobs]] table (JSON): with `[predictor]
/// internode_gbytes_per_s` = the row's fabric, `fleetwatt predict --scenario` gives the row's prediction.
std::string scenario_job_json(const jobs::JobSpec& j) {
  static constexpr const char* kPrecision[] = {"fp32", "tf32", "fp16", "bf16", "fp8"};
  const auto& m = j.meta;
  const auto& p = m.parallel;
  std::string out = fmt::format(
      "{{\"model\": {}, \"n_gpus\": {}, \"tp\": {}, \"pp\": {}, \"cp\": {}, \"vp\": {}, \"zero\": {}, "
      "\"seq\": {}, \"global_batch\": {}, \"dataset_samples\": {}, \"precision\": {}, \"stack\": {}, "
      "\"attention\": {}",
      json_string(m.model), j.n_gpus, p.tp, p.pp, p.cp, p.vp, p.zero, m.input_size, m.batch_size,
      json_number(m.dataset_samples), json_string(kPrecision[static_cast<int>(m.precision)]),
      json_string(jobs::to_string(m.stack)), json_string(jobs::to_string(m.attention)));
  if (p.micro_batch > 0) out += fmt::format(", \"micro_batch\": {}", p.micro_batch);
  if (p.first_stage_layers > 0) out += fmt::format(", \"first_stage_layers\": {}", p.first_stage_layers);
  if (p.last_stage_layers > 0) out += fmt::format(", \"last_stage_layers\": {}", p.last_stage_layers);
  if (const auto& s = m.shape; s.given())
    out += fmt::format(
        ", \"layers\": {}, \"hidden\": {}, \"heads\": {}, \"kv_heads\": {}, \"ffn_hidden\": {}, \"vocab\": "
        "{}, "
        "\"experts\": {}, \"top_k\": {}, \"gated_mlp\": {}",
        s.layers, s.hidden, s.heads, s.kv_heads, s.ffn_hidden, s.vocab, s.experts, s.top_k, s.gated);
  return out + "}";
}

/// No half-written fit file on failure (core/text_output.hpp).
void write_text_atomically(const std::filesystem::path& path, const std::string& text) {
  core::write_text_output(path, "-o", [&](std::ostream& out) { out << text; });
}

/// Whether `dir` is the ML.ENERGY Leaderboard v2's layout (energy per request) rather than SplitwiseSim's.
bool is_energy_leaderboard(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* under : {"data/llm_text_generation", "llm_text_generation", "chat", "code"})
    if (fs::is_directory(dir / under, ec)) return true;
  return false;
}

/// `--serving` on the ML.ENERGY Leaderboard v2: energy per request and time per output token, each row
/// predicted at the two prompt lengths that bracket its unstated one.
int validate_energy_leaderboard(const ValidateOptions& o) {
  std::map<std::string, std::size_t> skipped;
  const auto rows = models::read_energy_leaderboard(o.measurements, &skipped);
  const models::LeaderboardCheck check = models::check_energy_leaderboard(rows);
  if (!o.rows_csv.empty()) {
    std::ostringstream csv;
    csv << "task,model,gpu,tp,batch,output_tokens,measured_tpot_s,predicted_tpot_s_prompt0,"
           "predicted_tpot_s_prompt1000,measured_energy_J,predicted_energy_J_prompt0,"
           "predicted_energy_J_prompt1000\n";
    for (const auto& r : rows) {
      const auto s = models::predict_leaderboard_row(r, models::kLeaderboardShortPrompt);
      const auto l = models::predict_leaderboard_row(r, models::kLeaderboardLongPrompt);
      csv << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", r.task, r.model, r.gpu, r.tp, r.batch,
                         r.output_tokens, r.tpot_s, s.tpot_s, l.tpot_s, r.energy_J, s.energy_J, l.energy_J);
    }
    write_text_atomically(o.rows_csv, csv.str());
  }
  const auto pct = [](double v) { return fmt::format("{:.1f}", 100.0 * v); };
  const auto line = [&](const std::string& name, const models::LeaderboardErrors& e) {
    return fmt::format("{:<32} {:>5} {:>18} {:>20} {:>20}\n", name, e.rows,
                       pct(e.tpot_mre_short) + " / " + pct(e.tpot_mre_long),
                       pct(e.energy_mre_short) + " / " + pct(e.energy_mre_long),
                       pct(e.energy_bias_short) + " / " + pct(e.energy_bias_long));
  };
  std::cout << fmt::format("{:<32} {:>5} {:>18} {:>20} {:>20}\n", "GPU model tp", "rows", "TPOT MRE %",
                           "energy/req MRE %", "energy/req bias %");
  for (const auto& [k, e] : check.groups) std::cout << line(k, e);
  for (const auto& [k, e] : check.gpus) std::cout << line(k, e);
  std::cout << line("all", check.all);
  std::size_t left = 0;
  for (const auto& [why, n] : skipped) left += n;
  std::cout << fmt::format(
      "serving (ML.ENERGY Leaderboard v2): {} configurations compared at prompts of 0 / 1000 tokens (the "
      "files state none), {} left out; nothing is fitted on these data\n",
      check.all.rows, left);
  for (const auto& [why, n] : skipped) std::cout << fmt::format("  {:>5} x {}\n", n, why);
  return 0;
}

/// `--serving` on Vidur's profiles: a layer's GEMMs and element-wise kernels, each GPU with its GEMM
/// efficiency left out of the fit.
int validate_vidur_layers(const ValidateOptions& o) {
  const std::vector<models::VidurLayer> rows = models::read_vidur_layers(o.measurements);
  const models::VidurLayerCheck zero_shot = models::check_vidur_layers(rows);
  std::optional<models::VidurFewShot> few;
  if (o.few_shot) {
    few = models::few_shot_vidur_layers(zero_shot, *o.few_shot);
    std::cerr << fmt::format(
        "fleetwatt: few-shot, k = {}: {} rows calibrate their (GPU, model, tp) groups, {} rows of groups "
        "with no more than k rows are left out, {} rows predicted\n",
        few->k, few->calibration_rows, few->uncalibrated_rows, few->check.predicted.size());
    for (const auto& [gpu, w] : few->weights)
      std::cerr << fmt::format("fleetwatt: {}: calibration weight GEMM {:.3f}, element-wise {:.3f}\n", gpu,
                               w.first, w.second);
  }
  const models::VidurLayerCheck& check = few ? few->check : zero_shot;
  if (!o.rows_csv.empty()) {
    std::ostringstream csv;
    csv << "gpu,model,tokens,tp,measured_gemm_s,predicted_gemm_s,measured_elementwise_s,"
           "predicted_elementwise_s\n";
    for (const auto& p : check.predicted)
      csv << fmt::format("{},{},{},{},{},{},{},{}\n", p.row->gpu, p.row->model, p.row->tokens, p.row->tp,
                         p.row->gemm_s, p.gemm_s, p.row->elementwise_s, p.elementwise_s);
    write_text_atomically(o.rows_csv, csv.str());
  }
  const auto pct = [](double v) { return fmt::format("{:.1f}", 100.0 * v); };
  const auto obj = [](const models::VidurLayerErrors& e) {
    return fmt::format(
        "{{\"rows\": {}, \"gemm_mre\": {}, \"elementwise_mre\": {}, \"layer_mre\": {}, \"layer_bias\": {}}}",
        e.rows, json_number(e.gemm_mre), json_number(e.elementwise_mre), json_number(e.layer_mre),
        json_number(e.layer_bias));
  };
  if (o.json) {
    std::string groups, gpus;
    for (const auto& [k, e] : check.groups)
      groups += fmt::format("{}\"{}\": {}", groups.empty() ? "" : ", ", k, obj(e));
    for (const auto& [k, e] : check.gpus)
      gpus += fmt::format("{}\"{}\": {}", gpus.empty() ? "" : ", ", k, obj(e));
    const std::string few_json =
        few ? fmt::format(
                  ", \"few_shot\": {{\"k\": {}, \"calibration_rows\": {}, \"uncalibrated_rows\": {}}}",
                  few->k, few->calibration_rows, few->uncalibrated_rows)
            : std::string();
    std::cout << fmt::format("{{\"groups\": {{{}}}, \"gpus\": {{{}}}, \"all\": {}{}}}\n", groups, gpus,
                             obj(check.all), few_json);
    return 0;
  }
  const auto line = [&](const std::string& name, const models::VidurLayerErrors& e) {
    return fmt::format("{:<44} {:>5} {:>12} {:>17} {:>13} {:>14}\n", name, e.rows, pct(e.gemm_mre),
                       pct(e.elementwise_mre), pct(e.layer_mre), pct(e.layer_bias));
  };
  std::cout << fmt::format("{:<44} {:>5} {:>12} {:>17} {:>13} {:>14}\n", "GPU model", "rows", "GEMM MRE %",
                           "element-wise MRE %", "layer MRE %", "layer bias %");
  for (const auto& [k, e] : check.groups) std::cout << line(k, e);
  for (const auto& [k, e] : check.gpus) std::cout << line(k, e);
  std::cout << line("all", check.all);
  std::cout << fmt::format(
      "serving (Vidur's layer profiles): {} layers of 1-4,096 tokens compared, each GPU with its GEMM "
      "efficiency left out of the fit{}; no host time, no attention (the profiles have neither)\n",
      check.all.rows,
      few ? fmt::format(", then {} of each (GPU, model, tp) calibrating the others", few->k) : std::string());
  return 0;
}

/// `--serving`: measured LLM serving (SplitwiseSim) beside the serving iteration model.
int validate_serving(const ValidateOptions& o) {
  // The serving model has its own check: the training predictor's options say nothing of it.
  // Few-shot calibration applies to Vidur's layer profiles, which hold several token counts per model.
  const bool vidur = models::is_vidur_profile(o.measurements);
  if (o.fit || !o.fit_output.empty() || o.leave_one_gpu_out || (o.few_shot && !vidur) || !o.site.empty() ||
      o.steps || !o.step_calibration.empty() || o.predictor != "datasheet")
    throw ConfigError(
        {"command line", 0, 0}, "--serving",
        "checks the serving iteration model: not with --fit, -o, --leave-one-gpu-out, --few-shot "
        "(but on Vidur's layer profiles), --site, --steps, --step-calibration or --predictor");
  if (!o.rows_csv.empty()) check_output_path(o.rows_csv, {"command line", 0, 0}, "--rows", {});
  if (is_energy_leaderboard(o.measurements)) return validate_energy_leaderboard(o);
  if (vidur) return validate_vidur_layers(o);
  const std::vector<models::ServingMeasurement> rows = models::read_splitwise_perf(o.measurements);
  const models::ServingCheck check = models::check_serving(rows);
  if (!o.rows_csv.empty()) {
    std::ostringstream csv;
    csv << "model,gpu,tp,prompt_tokens,batch,output_tokens,measured_prompt_s,predicted_prompt_s,"
           "measured_token_s,predicted_token_s,measured_e2e_s,predicted_e2e_s,measured_power_fraction,"
           "predicted_power_fraction\n";
    for (const auto& p : check.predicted) {
      const auto& m = *p.row;
      csv << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", m.model, m.gpu, m.tp, m.prompt_tokens,
                         m.batch, m.output_tokens, m.prompt_s, p.prompt_s, m.token_s, p.token_s, m.e2e_s,
                         p.e2e_s, m.power_excluded.empty() ? m.power_fraction : 0.0, p.power_fraction);
    }
    write_text_atomically(o.rows_csv, csv.str());
  }
  const auto pct = [](double v) { return fmt::format("{:.1f}", 100.0 * v); };
  const auto line = [&](const std::string& name, const models::ServingErrors& e) {
    return fmt::format("{:<32} {:>5} {:>13} {:>12} {:>11} {:>12}\n", name, e.rows, pct(e.prompt_mre),
                       pct(e.token_mre), e.power_rows, e.power_rows ? pct(e.power_mre) : "-");
  };
  if (o.json) {
    const auto obj = [](const models::ServingErrors& e) {
      return fmt::format(
          "{{\"rows\": {}, \"prompt_mre\": {}, \"token_mre\": {}, \"power_rows\": {}, \"power_mre\": {}}}",
          e.rows, json_number(e.prompt_mre), json_number(e.token_mre), e.power_rows,
          json_number(e.power_mre));
    };
    std::string groups, gpus;
    for (const auto& [k, e] : check.groups)
      groups += fmt::format("{}\"{}\": {}", groups.empty() ? "" : ", ", k, obj(e));
    for (const auto& [k, e] : check.gpus)
      gpus += fmt::format("{}\"{}\": {}", gpus.empty() ? "" : ", ", k, obj(e));
    std::cout << fmt::format(
        "{{\"groups\": {{{}}}, \"gpus\": {{{}}}, \"all\": {}, \"layer_overhead_s\": {}, \"excluded\": {}}}\n",
        groups, gpus, obj(check.all), json_number(check.layer_overhead_s), check.excluded);
    return 0;
  }
  std::cout << fmt::format("{:<32} {:>5} {:>13} {:>12} {:>11} {:>12}\n", "GPU model tp", "rows",
                           "prompt MRE %", "token MRE %", "power rows", "power MRE %");
  for (const auto& [k, e] : check.groups) std::cout << line(k, e);
  for (const auto& [k, e] : check.gpus) std::cout << line(k, e);
  std::cout << line("all", check.all);
  for (const auto& [gpu, s] : check.overhead_without_gpu)
    std::cout << fmt::format("host time per layer fitted without {}: {:.1f} us\n", gpu, 1e6 * s);
  std::cout << fmt::format(
      "serving: {} configurations compared, {} excluded; host time per layer fitted on all: {:.1f} us\n",
      check.all.rows, check.excluded, 1e6 * check.layer_overhead_s);
  return 0;
}

/// `--telemetry`: a GPU's recorded windows (tools/scripts/record-gpu-telemetry.py) beside the serving
/// iteration model, the training predictor and the preset's idle and resident draw.
int validate_telemetry(const ValidateOptions& o) {
  if (o.fit || !o.fit_output.empty() || o.leave_one_gpu_out || o.few_shot || !o.site.empty() || o.steps ||
      o.serving || !o.step_calibration.empty() || o.predictor != "datasheet" || !o.rows_csv.empty())
    throw ConfigError({"command line", 0, 0}, "--telemetry",
                      "checks the built-in models on a recording: not with --fit, -o, --leave-one-gpu-out, "
                      "--few-shot, --site, --steps, --serving, --step-calibration, --predictor or --rows");
  const std::vector<runs::TelemetryWindow> windows = runs::read_telemetry_windows(o.measurements);
  const std::filesystem::path folder = std::filesystem::is_directory(o.measurements)
                                           ? std::filesystem::path(o.measurements)
                                           : std::filesystem::path(o.measurements).parent_path();
  const runs::TelemetryCheck check = runs::check_telemetry(windows, folder);
  const auto pct = [](double v) {
    return std::isnan(v) ? std::string{"-"} : fmt::format("{:+.1f}", 100.0 * v);
  };
  if (o.json) {
    std::string rows, kinds;
    for (const auto& t : check.rows) {
      const runs::TelemetryWindow& w = *t.window;
      rows += fmt::format(
          "{}{{\"name\": {}, \"kind\": {}, \"measured_s\": {}, \"predicted_s\": {}, \"measured_W\": {}, "
          "\"predicted_W\": {}}}",
          rows.empty() ? "" : ", ", core::json_string(w.name), core::json_string(w.kind),
          json_number(w.time_per_iteration_s), json_number(t.predicted_s), json_number(w.mean_power_W),
          json_number(t.predicted_W));
    }
    for (const auto& [k, e] : check.kinds)
      kinds += fmt::format(
          "{}\"{}\": {{\"rows\": {}, \"time_mre\": {}, \"time_bias\": {}, \"power_mre\": {}, "
          "\"power_bias\": {}}}",
          kinds.empty() ? "" : ", ", k, e.rows, json_number(e.time_mre), json_number(e.time_bias),
          json_number(e.power_mre), json_number(e.power_bias));
    std::cout << fmt::format("{{\"windows\": [{}], \"kinds\": {{{}}}}}\n", rows, kinds);
    return 0;
  }
  std::cout << fmt::format("{:<24} {:<9} {:>12} {:>12} {:>7} {:>11} {:>11} {:>7}\n", "window", "kind",
                           "measured ms", "predicted ms", "err %", "measured W", "predicted W", "err %");
  for (const auto& t : check.rows) {
    const runs::TelemetryWindow& w = *t.window;
    const bool timed = t.predicted_s > 0.0, powered = t.predicted_W > 0.0;
    std::cout << fmt::format(
        "{:<24} {:<9} {:>12} {:>12} {:>7} {:>11.1f} {:>11} {:>7}\n", w.name, w.kind,
        w.time_per_iteration_s > 0.0 ? fmt::format("{:.2f}", 1e3 * w.time_per_iteration_s) : "-",
        timed ? fmt::format("{:.2f}", 1e3 * t.predicted_s) : "-",
        timed ? pct(t.predicted_s / w.time_per_iteration_s - 1.0) : "-", w.mean_power_W,
        powered ? fmt::format("{:.1f}", t.predicted_W) : "-",
        powered ? pct(t.predicted_W / w.mean_power_W - 1.0) : "-");
  }
  std::cout << fmt::format("\n{:<10} {:>5} {:>11} {:>12} {:>12} {:>13}\n", "kind", "rows", "time MRE %",
                           "time bias %", "power MRE %", "power bias %");
  for (const auto& [k, e] : check.kinds)
    std::cout << fmt::format("{:<10} {:>5} {:>11} {:>12} {:>12} {:>13}\n", k, e.rows,
                             std::isnan(e.time_mre) ? "-" : fmt::format("{:.1f}", 100.0 * e.time_mre),
                             pct(e.time_bias), fmt::format("{:.1f}", 100.0 * e.power_mre), pct(e.power_bias));
  for (std::size_t i = 0; i < check.replays.size(); ++i) {
    const sim::ServiceRun& run = check.replays[i];
    std::cout << fmt::format(
        "replay {}: {} requests served as `fleetwatt serve` serves them: {:.1f} kJ "
        "predicted over {:.1f} s\n",
        i + 1, run.requests.size(), run.energy_J / 1e3, run.end_s);
  }
  std::cout << fmt::format(
      "telemetry: {} windows of {} (mean power from NVML's energy counter); nothing is fitted on them\n",
      windows.size(), o.measurements);
  return 0;
}

/// `--steps`: the published LLM pre-training step times (NeMo, Megatron-Bridge) beside the datasheet
/// predictor's, row by row, and their mean absolute error.
int validate_steps(const ValidateOptions& o) {
  if (!o.fit_output.empty()) check_output_path(o.fit_output, {"command line", 0, 0}, "-o", {});
  const std::vector<models::PublishedStep> rows = models::read_published_steps(o.measurements);
  models::StepCalibration calibration = models::default_step_calibration();
  if (!o.step_calibration.empty()) {
    const auto text = core::read_file_text(o.step_calibration);
    if (!text) throw ConfigError({o.step_calibration, 0, 0}, "--step-calibration", "cannot be read");
    calibration = models::parse_step_calibration(*text, o.step_calibration);
  }
  if (o.fit) {
    // The step model's calibration refitted on these rows, each source also left out.
    std::cerr << "fleetwatt: fitting the step calibration on the published steps\n";
    calibration = models::fit_step_calibration(rows);
    for (const auto& [group, error] : calibration.loo_error)
      std::cerr << fmt::format("fleetwatt: {} left out: mean |error| {:.1f} %\n", group, 100.0 * error);
    if (!o.fit_output.empty()) {
      write_text_atomically(o.fit_output, models::format_step_calibration(calibration));
      std::cerr << fmt::format("fleetwatt: wrote {}\n", o.fit_output);
    }
  }
  const std::vector<models::StepComparison> compared = models::compare_published_steps(rows, calibration);
  std::size_t predicted = 0, within = 0;
  double sum = 0.0, worst = 0.0;
  for (const auto& c : compared) {
    if (!c.refused.empty()) continue;
    ++predicted;
    sum += std::abs(c.error);
    worst = std::max(worst, std::abs(c.error));
    within += std::abs(c.error) <= 0.15;
  }
  const std::size_t unsupported = std::count_if(
      rows.begin(), rows.end(), [](const models::PublishedStep& r) { return !r.unsupported.empty(); });
  const double mean = predicted ? sum / predicted : 0.0;
  if (o.json) {
    std::string items;
    for (const auto& c : compared) {
      const auto& r = *c.row;
      items += fmt::format(
          "{}{{\"where\": {}, \"source\": {}, \"model\": {}, \"gpu\": {}, \"precision\": {}, \"gpus\": {}, "
          "\"global_batch\": {}, \"seq\": {}, \"tp\": {}, \"pp\": {}, \"cp\": {}, \"vp\": {}, "
          "\"micro_batch\": "
          "{}, \"fsdp\": {}, \"published_s\": {}, \"predicted_s\": {}, \"error\": {}, \"memory_fits\": {}, "
          "\"compute_s\": {}, \"bubble_s\": {}, \"tp_comm_s\": {}, \"cp_comm_s\": {}, \"pp_comm_s\": {}, "
          "\"dp_comm_s\": {}, \"refused\": {}, \"job\": {}}}",
          items.empty() ? "" : ", ", json_string(r.where.to_string()), json_string(r.source),
          json_string(r.zoo), json_string(r.gpu), json_string(r.precision_name), r.gpus, r.global_batch,
          r.seq, r.parallel.tp, r.parallel.pp, r.parallel.cp, r.parallel.vp, r.parallel.micro_batch,
          r.parallel.zero >= 3, json_number(r.step_s), json_number(c.predicted_s), json_number(c.error),
          c.fits, json_number(c.compute_s), json_number(c.bubble_s), json_number(c.tp_s), json_number(c.cp_s),
          json_number(c.pp_s), json_number(c.dp_s), json_string(c.refused),
          scenario_job_json(models::published_step_job(r)));
    }
    std::cout << fmt::format(
        "{{\"rows\": [{}], \"predicted\": {}, \"refused\": {}, \"unsupported\": {}, \"mean_abs_error\": {}, "
        "\"max_abs_error\": {}, \"within_15_percent\": {}, \"internode_gbytes_per_s\": {}}}\n",
        items, predicted, compared.size() - predicted, unsupported, json_number(mean), json_number(worst),
        within, json_number(models::published_system_internode_Bps() / 1e9));
    return 0;
  }
  // Columns as wide as their longest entry (precision names such as "FP8-CS (FP8-MX)" vary).
  std::size_t source_w = 6, prec_w = 4;
  for (const auto& c : compared)
    source_w = std::max(source_w, c.row->source.size()),
    prec_w = std::max(prec_w, c.row->precision_name.size());
  std::cout << fmt::format("{:<{}} {:<16} {:<9} {:<{}} {:>5} {:>5} {:>7} {:>22} {:>10} {:>10} {:>7}\n",
                           "source", source_w, "model", "gpu", "prec", prec_w, "GPUs", "GBS", "seq",
                           "tp/pp/cp/vp/mbs/fsdp", "published", "predicted", "error");
  for (const auto& c : compared) {
    const auto& r = *c.row;
    const auto& p = r.parallel;
    std::cout << fmt::format(
        "{:<{}} {:<16} {:<9} {:<{}} {:>5} {:>5} {:>7} {:>22} {:>9.3f}s {:>10} {:>7}{}\n", r.source, source_w,
        r.zoo, r.gpu, r.precision_name, prec_w, r.gpus, r.global_batch, r.seq,
        fmt::format("{}/{}/{}/{}/{}/{}", p.tp, p.pp, p.cp, p.vp, p.micro_batch, p.zero >= 3 ? "y" : "n"),
        r.step_s, c.refused.empty() ? fmt::format("{:.3f}s", c.predicted_s) : "refused",
        c.refused.empty() ? fmt::format("{:+.1f}%", 100.0 * c.error) : "-",
        c.refused.empty() && !c.fits ? " *" : "");
  }
  std::cout << "* the run fit its GPUs by means the table does not state (the model counts more memory)\n";
  for (const auto& c : compared)
    if (!c.refused.empty()) std::cout << fmt::format("refused {}: {}\n", c.row->where.to_string(), c.refused);
  std::cout << fmt::format(
      "{} published steps predicted: mean |error| {:.1f} %, max {:.1f} %, {} within 15 %; {} refused; {} "
      "rows "
      "fleetwatt cannot express (model, system or precision)\n",
      predicted, 100.0 * mean, 100.0 * worst, within, compared.size() - predicted, unsupported);
  return 0;
}

/// The measurements: a site file's runs (a .toml path), or any layout read_measurements knows.
models::MeasurementSet read_measured_runs(const std::string& path) {
  if (std::filesystem::path(path).extension() != ".toml") return models::read_measurements(path);
  models::MeasurementSet set;
  for (const models::SiteRun& run : models::read_site_file(path).runs)
    set.rows.push_back(models::site_measurement(run));
  return set;
}

int validate(const ValidateOptions& o) {
  if (o.telemetry) return validate_telemetry(o);
  if (o.serving) return validate_serving(o);
  if (o.steps) return validate_steps(o);
  if (!o.fit_output.empty()) check_output_path(o.fit_output, {"command line", 0, 0}, "-o", {});
  if (!o.rows_csv.empty()) check_output_path(o.rows_csv, {"command line", 0, 0}, "--rows", {});
  std::vector<models::GpuHardware> user_gpus;
  if (!o.gpu_file.empty()) user_gpus = models::load_gpu_preset_file(o.gpu_file);
  std::function<models::Prediction(const models::Measurement&)> predict;
  // A registry predictor is built first, so a bad name is refused before any file is read.
  // Few-shot calibration corrects the zero-shot (leave-one-GPU-out) predictions.
  const bool leave_one_gpu_out = o.leave_one_gpu_out || o.few_shot.has_value();
  if (!o.site.empty() && (leave_one_gpu_out || o.fit))
    throw ConfigError({"command line", 0, 0}, "--site",
                      "corrects the built-in predictor's predictions: not with --fit, --leave-one-gpu-out or "
                      "--few-shot");
  if (!leave_one_gpu_out && !o.fit)
    predict = models::registry_predictor(
        o.predictor, user_gpus, o.site.empty() ? nullptr : models::load_site(o.site, o.predictor, user_gpus));
  const models::MeasurementSet set = read_measured_runs(o.measurements);
  std::map<const models::Measurement*, models::Prediction> left_out;
  if (leave_one_gpu_out || o.fit) {
    // The default predictor's own procedure: refit its constants (on all but one GPU at a time).
    if (o.predictor != "datasheet")
      throw ConfigError({"command line", 0, 0}, "--predictor",
                        "--fit, --leave-one-gpu-out and --few-shot refit the datasheet predictor's constants "
                        "only");
    const std::vector<models::PreparedRow> prepared = models::prepare_rows(set);
    models::FitOptions options;
    options.progress = [](const std::string& what) { std::cerr << "fleetwatt: " << what << "\n"; };
    if (!set.gemms.empty()) options.gemm_samples = &set.gemms;
    std::cerr << fmt::format("fleetwatt: fitting on {} rows\n", prepared.size());
    const models::FitReport fit = models::fit_and_validate(prepared, o.level, options);
    for (const auto& p : fit.left_out)
      left_out[p.row->row] = {p.prediction.epoch_s, p.prediction.step_s, p.prediction.avg_power_W,
                              p.prediction.band, p.prediction.split};
    predict = [&left_out](const models::Measurement& m) {
      const auto it = left_out.find(&m);
      if (it == left_out.end()) throw std::runtime_error("no left-out prediction (model or GPU unknown)");
      return it->second;
    };
    if (!o.fit_output.empty()) {
      models::PredictorFit out = fit.fit;
      out.provenance = fmt::format("{} rows of {} GPUs in {}", prepared.size(), fit.fit.band.seen_gpus.size(),
                                   std::filesystem::path(o.measurements).filename().string());
      // A site's runs are corrected as few-shot calibration with one run per group measured here.
      out.site = models::few_shot(set, models::validate_measurements(set, predict), 1, o.level).site;
      write_text_atomically(o.fit_output, models::format_predictor_fit(out));
      std::cerr << fmt::format("fleetwatt: wrote {}\n", o.fit_output);
    }
    if (!leave_one_gpu_out) return 0;
  }
  const models::ValidationReport zero_shot = models::validate_measurements(set, predict);
  std::optional<models::FewShotReport> few;
  if (o.few_shot) {
    few = models::few_shot(set, zero_shot, *o.few_shot, o.level);
    std::cerr << fmt::format(
        "fleetwatt: few-shot, k = {}: {} rows calibrate their (GPU, workload) groups, {} rows of groups with "
        "no more than k rows are left out, {} rows predicted\n",
        few->k, few->calibration_rows, few->uncalibrated_rows, few->report.compared.size());
    for (const auto& [machine, f] : few->machine_factors)
      std::cerr << fmt::format("fleetwatt: machine {} {}: GPU work x {:.3f}, kernel launches x {:.3f}\n",
                               machine.first, machine.second, f.gpu, f.host);
  }
  const models::ValidationReport& report = few ? few->report : zero_shot;
  // The GPU's busy share where a source measured it, against the zero-shot prediction's.
  const std::vector<models::BusyShare> busy = models::busy_shares(set, zero_shot);
  if (!o.rows_csv.empty()) {
    // Every compared row, for plots and for finding where a predictor is off; with the datasheet's split of
    // the row's zero-shot time (what machine factors re-time; empty where it is not known), so that a
    // machine's speeds can be studied from the file alone.
    std::map<std::size_t, const models::RowComparison*> zero_row;
    for (const auto& c : zero_shot.compared) zero_row[c.row] = &c;
    std::string csv =
        "source,gpu,workload,batch,power_limit_W,measured_s,predicted_s,measured_W,predicted_W,steps,"
        "gpu_work_s,kernel_launch_s,stretch,other_s,fixed_s,measured_busy,predicted_busy\n";
    for (const auto& c : report.compared) {
      const models::Measurement& m = set.rows[c.row];
      const models::RowComparison* z = zero_row.at(c.row);
      const models::TimeSplit& t = z->split;
      const std::string split = t.known() ? fmt::format("{},{},{},{},{},{}", t.steps, t.gpu_s, t.host_s,
                                                        t.stretch, t.other_s, t.fixed_s)
                                          : std::string(",,,,,");
      const std::string busy = z->measured_busy > 0.0
                                   ? fmt::format("{},{}", z->measured_busy, z->predicted_busy)
                                   : std::string(",");
      csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", m.source, m.gpu, m.workload,
                         m.job.meta.batch_size, m.power_limit_W, c.measured_s, c.predicted_s, c.measured_W,
                         c.predicted_W, split, busy);
    }
    write_text_atomically(o.rows_csv, csv);
  }

  if (!report.skipped.empty()) {
    // How many rows were left out, and the commonest reasons.
    std::map<std::string, std::size_t> reasons;
    for (const auto& s : report.skipped) ++reasons[s.why];
    std::vector<std::pair<std::size_t, std::string>> by_count;
    for (const auto& [why, n] : reasons) by_count.emplace_back(n, why);
    std::sort(by_count.begin(), by_count.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    std::cerr << fmt::format("fleetwatt: {} row(s) skipped\n", report.skipped.size());
    for (std::size_t i = 0; i < by_count.size() && i < 5; ++i)
      std::cerr << fmt::format("  {:>5} x {}\n", by_count[i].first, by_count[i].second);
  }

  if (o.json) {
    std::string gpus;
    for (const auto& [id, s] : report.gpus)
      gpus += fmt::format("{}{}: {}", gpus.empty() ? "" : ", ", json_string(id), json_summary(s));
    std::string few_json;
    if (few) {
      std::string machines;
      for (const auto& [machine, f] : few->machine_factors)
        machines += fmt::format("{}{{\"source\": {}, \"gpu\": {}, \"gpu_factor\": {}, \"host_factor\": {}}}",
                                machines.empty() ? "" : ", ", json_string(machine.first),
                                json_string(machine.second), f.gpu, f.host);
      few_json = fmt::format(
          ", \"few_shot\": {{\"k\": {}, \"calibration_rows\": {}, \"uncalibrated_rows\": {}, "
          "\"machine_prior\": {}, \"machines\": [{}]}}",
          few->k, few->calibration_rows, few->uncalibrated_rows, few->machine_prior, machines);
    }
    std::string busy_json;
    for (const models::BusyShare& b : busy)
      busy_json += fmt::format(
          "{}{{\"gpu\": {}, \"workload\": {}, \"rows\": {}, \"measured\": {}, "
          "\"predicted\": {}}}",
          busy_json.empty() ? "" : ", ", json_string(b.gpu), json_string(b.workload), b.rows,
          json_number(b.measured), json_number(b.predicted));
    std::cout << fmt::format(
        "{{\"predictor\": {}, \"gpus\": {{{}}}, \"all\": {}, \"skipped\": {}, \"busy\": [{}]{}}}\n",
        json_string(o.predictor), gpus, json_summary(report.all), report.skipped.size(), busy_json, few_json);
    return 0;
  }
  std::cout << fmt::format("{:<16} {:>6} {:>11} {:>11} {:>12} {:>13} {:>14} {:>7}\n", "GPU", "rows",
                           "time MRE %", "power rows", "power MRE %", "time in-band %", "power in-band %",
                           "level %");
  for (const auto& [id, s] : report.gpus) std::cout << table_line(id, s);
  std::cout << table_line("all", report.all);
  std::cout << fmt::format(
      "predictor {}: {} rows compared, time MRE {:.1f} %, power MRE {:.1f} % over {} rows with power; {} "
      "skipped\n",
      o.predictor, report.all.rows, 100.0 * report.all.time_mre, 100.0 * report.all.power_mre,
      report.all.power_rows, report.skipped.size());
  if (!busy.empty()) {
    // The power model's input against the source's own measurement of it (the zero-shot split's).
    std::cout << fmt::format("\n{:<16} {:<24} {:>6} {:>15} {:>16}\n", "GPU", "workload (busy share)", "rows",
                             "measured %", "predicted %");
    for (const models::BusyShare& b : busy)
      std::cout << fmt::format("{:<16} {:<24} {:>6} {:>15.1f} {:>16.1f}\n", b.gpu, b.workload, b.rows,
                               100.0 * b.measured, 100.0 * b.predicted);
  }
  return 0;
}

}  // namespace

void add_validate_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Compare a predictor with measured runs: time and power errors per GPU and overall");
  cmd->footer(
      "MEASUREMENTS is a file or a folder (read recursively) of known layouts: Zeus "
      "summary_power_<gpu>.csv,\n"
      "the GAISSA records CSV, NeuSight label/<GPU>/*.json, a fleetwatt records CSV (calibrate --records), "
      "a\n"
      "site file (.toml, calibrate --site).\n"
      "Time is compared per epoch, or per step for per-step rows (NeuSight); power where measured.\n"
      "Examples:\n  fleetwatt validate ../shared/data --json\n  fleetwatt validate ../shared/data --steps\n"
      "  fleetwatt validate ../shared/data/zeus-nsdi23 --few-shot 1\n  fleetwatt validate "
      "../shared/data/splitwise-sim --serving\n  fleetwatt validate "
      "../shared/data/ml-energy-leaderboard-v2 --serving\n  fleetwatt validate "
      "examples/telemetry/h200-sxm/ctx1024 --telemetry\n  fleetwatt validate my-records.csv "
      "--site "
      "lab.toml");
  cmd->add_option("measurements", o->measurements, "Measurement file or folder")->required();
  cmd->add_option("--predictor", o->predictor, "Predictor name (see `fleetwatt list`)")
      ->capture_default_str();
  cmd->add_option("--gpu-file", o->gpu_file, "TOML file of extra GPU presets ([[gpu]] tables)");
  cmd->add_flag(
      "--leave-one-gpu-out", o->leave_one_gpu_out,
      "Refit the datasheet predictor on all other GPUs for each GPU and predict it (its band from the "
      "other GPUs' left-out errors)");
  cmd->add_flag("--fit", o->fit, "Fit the datasheet predictor's constants and band on the measurements");
  cmd->add_option("-o,--output", o->fit_output, "With --fit: write the fitted constants (TOML) here");
  cmd->add_option(
      "--rows", o->rows_csv,
      "Write every compared row (measured and predicted) to this CSV, with the datasheet's split of "
      "its zero-shot time: steps, each step's GPU work, kernel launches, clock stretch and other "
      "time, and the time beyond the steps; and the GPU's busy share as measured (where the source "
      "measured it) and as that split says");
  cmd->add_option("--site", o->site,
                  "Site file of measured runs (calibrate --site): predictions corrected to that site, as "
                  "predict --site gives them");
  cmd->add_option(
         "--few-shot", o->few_shot,
         "Calibrate each (GPU, workload) on K of its rows (at the default power limit, batches nearest "
         "their middle one) and predict its other rows: the leave-one-GPU-out predictions times the group's "
         "factors, shrunk toward 1 by how well such runs foretold the others on the other GPUs; 0 is the "
         "leave-one-GPU-out figure. With --serving on Vidur's layer profiles: each (GPU, model, tp) on K "
         "of its token counts")
      ->check(CLI::Range(0, 100));
  cmd->add_option("--level", o->level, "Band level for --fit / --leave-one-gpu-out / --few-shot")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.99));
  cmd->add_flag("--json", o->json,
                "Print one JSON object {gpus, all, skipped, busy} instead of the tables (busy: the GPU's "
                "measured and predicted busy share per GPU and workload, where a source measured it)");
  cmd->add_option("--step-calibration", o->step_calibration,
                  "With --steps: the step model's calibration from this file (the format of "
                  "models/data/step_calibration.toml) instead of the built-in one");
  cmd->add_flag(
      "--steps", o->steps,
      "Compare published LLM pre-training step times (NeMo and Megatron-Bridge performance summaries "
      "under MEASUREMENTS) with the datasheet predictor's, row by row");
  cmd->add_flag(
      "--serving", o->serving,
      "Compare measured LLM serving (SplitwiseSim's perf_model.csv under MEASUREMENTS: prompt, per-token "
      "and request times, A100 power) with the serving iteration model, each GPU predicted with the "
      "host time per layer fitted on the others; or the ML.ENERGY Leaderboard v2's energy per request "
      "(its llm_text_generation folder), at prompts of 0 and 1,000 tokens");
  cmd->add_flag("--telemetry", o->telemetry,
                "Compare a GPU's recorded windows (windows.csv under MEASUREMENTS, as "
                "tools/scripts/record-gpu-telemetry.py and make-telemetry-fixture.py write it: idle, decode "
                "batches, prompts, training steps) with the serving iteration model, the training predictor "
                "and the GPU preset's idle and resident draw");
  cmd->callback([&action, o] { action = [o] { return validate(*o); }; });
}

}  // namespace fleetwatt::tools
