// `fleetwatt powerlaw fit|energy`: fit the hardware-efficiency law eta(c) = eta_max (1 - exp(-k c^alpha)) to
// measured operation timings, and the energy regression e = h + sum h_j t_j to measured runs, printing the
// fitted parameters in the layout of the paper's tables.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/models/fit/power_law_fit.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"

namespace fleetwatt::tools {

namespace {
struct PowerLawOptions {
  std::string file;
  std::string gpu = "a100-sxm-80gb";
  std::string precision = "fp32";
  std::string target = "energy_J";
  bool json = false;
};

std::ifstream open_csv(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw jobs::TraceFormatError({file, 0, 0}, "", "cannot open file");
  return in;
}

jobs::Precision precision_of(const std::string& p) {
  if (p == "tf32") return jobs::Precision::tf32;
  if (p == "fp16") return jobs::Precision::fp16;
  if (p == "bf16") return jobs::Precision::bf16;
  if (p == "fp8") return jobs::Precision::fp8;
  return jobs::Precision::fp32;
}

int fit_laws(const PowerLawOptions& o) {
  const models::GpuHardware gpu = models::find_gpu(o.gpu);
  const double vmax = gpu.peak_flops(precision_of(o.precision));
  auto in = open_csv(o.file);
  core::CsvReader csv(in, o.file);
  csv.read_header({"flops", "seconds"});
  const bool has_op = csv.column("op").has_value();
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> samples;
  while (auto row = csv.next()) {
    const std::string op = has_op ? csv.text(*row, "op") : "all";
    const double c = csv.number(*row, "flops");
    const double t = csv.number(*row, "seconds");
    if (!(c > 0) || !(t > 0))
      throw jobs::TraceFormatError(csv.where(*row, 0), "flops", "FLOPs and seconds must be positive");
    samples[op].first.push_back(c);
    samples[op].second.push_back(t);
  }
  std::string json =
      "{\"gpu\": " + json_string(gpu.id) + ", \"vmax_flops\": " + json_number(vmax) + ", \"fits\": [";
  if (!o.json) {
    std::cout << fmt::format(
        "eta(c) = eta_max (1 - exp(-k c^alpha)), c in GFLOP, on {} at {} ({:.1f} TFLOP/s)\n", gpu.id,
        o.precision, vmax / 1e12);
    std::cout << fmt::format("{:<16}{:>10}{:>12}{:>10}{:>12}{:>8}\n", "operation", "eta_max %", "k", "alpha",
                             "RMSE (pp)", "n");
  }
  bool first = true;
  for (const auto& [op, s] : samples) {
    models::PowerLawFit f;
    try {
      f = models::fit_power_law(s.first, s.second, vmax);
    } catch (const models::FitError& e) {
      throw jobs::TraceFormatError({o.file, 0, 0}, "op " + op, e.what());
    }
    if (o.json) {
      json += fmt::format(
          "{}{{\"op\": {}, \"eta_max_percent\": {}, \"k\": {}, \"alpha\": {}, \"rmse_percent\": "
          "{}, \"samples\": {}}}",
          first ? "" : ", ", json_string(op), json_number(f.law.eta_max_percent), json_number(f.law.k),
          json_number(f.law.alpha), json_number(f.rmse_percent), s.first.size());
    } else {
      std::cout << fmt::format("{:<16}{:>10.2f}{:>12.4g}{:>10.3f}{:>12.3f}{:>8}\n", op, f.law.eta_max_percent,
                               f.law.k, f.law.alpha, f.rmse_percent, s.first.size());
    }
    first = false;
  }
  if (o.json) std::cout << json << "]}\n";
  return 0;
}

int fit_energy(const PowerLawOptions& o) {
  auto in = open_csv(o.file);
  core::CsvReader csv(in, o.file);
  csv.read_header({o.target});
  std::vector<std::string> regressors;
  for (const auto& h : csv.header())
    if (h != o.target) regressors.push_back(h);
  if (regressors.empty())
    throw jobs::TraceFormatError({o.file, 1, 1}, "", "no regressor columns besides the target");
  std::vector<std::vector<double>> x;
  std::vector<double> e;
  while (auto row = csv.next()) {
    e.push_back(csv.number(*row, o.target));
    std::vector<double> xi;
    for (const auto& r : regressors) xi.push_back(csv.number(*row, r));
    x.push_back(std::move(xi));
  }
  models::EnergyRegression reg;
  try {
    reg = models::fit_energy_regression(x, e, regressors);
  } catch (const models::FitError& err) {
    throw jobs::TraceFormatError({o.file, 0, 0}, o.target, err.what());
  }
  if (o.json) {
    // Energies near the double range overflow the sums of squares: r_squared, the standard errors and the
    // intervals are then NaN or inf, which json_number writes as null.
    std::string j = fmt::format("{{\"r_squared\": {}, \"observations\": {}, \"coefficients\": {{",
                                json_number(reg.r_squared), reg.observations);
    for (std::size_t i = 0; i < reg.names.size(); ++i)
      j += fmt::format("{}{}: {{\"coef\": {}, \"std_err\": {}, \"ci_low\": {}, \"ci_high\": {}}}",
                       i ? ", " : "", json_string(reg.names[i]), json_number(reg.coef[i]),
                       json_number(reg.std_err[i]), json_number(reg.ci_low[i]), json_number(reg.ci_high[i]));
    std::cout << j << "}}\n";
  } else {
    std::cout << reg.table();
  }
  return 0;
}
}  // namespace

void add_powerlaw_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("powerlaw", "Fit hardware-efficiency power laws and energy regressions");
  cmd->require_subcommand(1);
  auto fit = std::make_shared<PowerLawOptions>();
  CLI::App* f = cmd->add_subcommand(
      "fit",
      "Fit eta(c) = eta_max (1 - exp(-k c^alpha)) per operation from a CSV of op,flops,seconds samples");
  f->add_option("samples", fit->file, "CSV with columns flops, seconds and optionally op (one fit per op)")
      ->required();
  f->add_option("--gpu", fit->gpu, "GPU preset whose peak throughput is v_max")->capture_default_str();
  f->add_option("--precision", fit->precision, "Precision of the peak throughput")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16", "fp8"}))
      ->capture_default_str();
  f->add_flag("--json", fit->json, "Print one JSON object");
  f->callback([fit, &action] { action = [fit] { return fit_laws(*fit); }; });
  auto en = std::make_shared<PowerLawOptions>();
  CLI::App* e = cmd->add_subcommand(
      "energy",
      "Fit e = h + sum_j h_j t_j by least squares from a CSV of runs (target column + duration columns)");
  e->add_option("runs", en->file, "CSV: the energy column and one column per operation-kind duration")
      ->required();
  e->add_option("--target", en->target, "Name of the energy column")->capture_default_str();
  e->add_flag("--json", en->json, "Print one JSON object");
  e->callback([en, &action] { action = [en] { return fit_energy(*en); }; });
}

}  // namespace fleetwatt::tools
