// `fleetwatt fit`: learns a site's predictor from training records: feature selection (Table 2), symbolic
// regression against OLS, ridge, lasso, gradient-boosted trees and an MLP over repeated 8:1:1 splits
// (Table 3), an optional transfer table across groups (Table 4), and the model file the "sr" predictor
// loads. `--update MODEL.toml NEW.csv` folds new records into a model's online correction; `--bench`
// measures how fast populations of programs are evaluated.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/models/fit/baselines.hpp"
#include "fleetwatt/models/fit/evaluation.hpp"
#include "fleetwatt/models/fit/sr_model.hpp"
#include "version.hpp"

namespace fleetwatt::tools {

namespace {

using namespace models::fit;

struct FitOptions {
  std::string records;
  std::vector<std::string> targets;
  std::vector<std::string> features;
  std::string role;
  std::vector<std::string> filters;
  std::string group;
  std::vector<std::string> models = model_names();
  double threshold = 0.3;
  bool no_select = false;
  int repeats = 20;
  GpConfig gp;
  double const_range = 5.0;
  bool gplearn = false;
  std::string output;
  std::string csv_prefix;
  bool json = false;
  std::string update_model;
  double update_alpha = 0.0;
  bool bench = false;
  int bench_rows = 1000;
};

std::string version_text() {
  return "fleetwatt fit";
}

int run_bench(const FitOptions& o) {
  // A population of random programs (gplearn's initialisation) over random standardised features.
  const int nf = 5;
  jobs::Random rng(o.gp.seed);
  Eigen::MatrixXd x(o.bench_rows, nf);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform(-2, 2);
  Eigen::VectorXd y = x.col(0).array().square() + x.col(1).array();
  std::vector<Program> pop;
  std::size_t nodes = 0;
  for (int i = 0; i < o.gp.population; ++i) {
    pop.push_back(random_program(o.gp, nf, o.gp.seed * 100003ULL + static_cast<std::uint64_t>(i)));
    nodes += pop.back().size();
  }
  fmt::print("benchmark: {} programs (mean {:.1f} nodes) on {} rows x {} features\n", pop.size(),
             double(nodes) / double(pop.size()), o.bench_rows, nf);
  // Best of three timed evaluations of the whole population.
  auto best_of_3 = [&](int threads, bool scaled) {
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      (void)evaluate_population(pop, x, y, threads, scaled, o.gp.scaled_terms);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  for (const int threads : {1, 2}) {
    const double best = best_of_3(threads, false);
    fmt::print("  {} thread{}: {:.0f} programs/s, {:.3g} node-row evaluations/s\n", threads,
               threads > 1 ? "s" : " ", double(pop.size()) / best, double(nodes) * o.bench_rows / best);
  }
  // The fitness the GP uses by default: each program's additive terms weighted by least squares.
  const double best = best_of_3(2, o.gp.linear_scaling);
  fmt::print("  2 threads, fitness with up to {} least-squares weighted terms: {:.0f} programs/s\n",
             o.gp.scaled_terms, double(pop.size()) / best);
  return 0;
}

int run_update(const FitOptions& o) {
  SrModelFile file = load_sr_model(o.update_model);
  if (o.update_alpha > 0)
    for (auto& m : file.models) m.update_alpha = o.update_alpha;
  const RecordTable table = RecordTable::read(o.records);
  const auto reports = update_models(file, table);
  save_sr_model(o.update_model, file);
  if (o.json) {
    fmt::print("{{\"model\": {}, \"updates\": [", json_string(o.update_model));
    for (std::size_t i = 0; i < reports.size(); ++i) {
      const auto& r = reports[i];
      fmt::print(
          "{}{{\"name\": {}, \"records\": {}, \"correction_before\": {}, \"correction_after\": {}, "
          "\"mre_before_percent\": {}, \"mre_after_percent\": {}}}",
          i ? ", " : "", json_string(r.name), r.records, json_number(r.correction_before),
          json_number(r.correction_after), json_number(r.mre_before_percent),
          json_number(r.mre_after_percent));
    }
    fmt::print("]}}\n");
  } else {
    for (const auto& r : reports)
      fmt::print("{}: {} new records; correction {:.6g} -> {:.6g}; MRE on them {:.2f} % -> {:.2f} %\n",
                 r.name, r.records, r.correction_before, r.correction_after, r.mre_before_percent,
                 r.mre_after_percent);
    fmt::print("updated {}\n", o.update_model);
  }
  return 0;
}

int run_fit(FitOptions o) {
  if (o.bench) return run_bench(o);
  if (o.records.empty()) {
    fmt::print(stderr, "fleetwatt fit: a records CSV is needed\n");
    return kExitBadInput;
  }
  if (!o.update_model.empty()) return run_update(o);
  if (o.targets.empty()) {
    fmt::print(stderr, "fleetwatt fit: --target is needed (a column of the records)\n");
    return kExitBadInput;
  }
  if (!o.role.empty() && o.targets.size() > 1) {
    fmt::print(stderr, "fleetwatt fit: --role names one target's model; give one --target with it\n");
    return kExitBadInput;
  }
  for (const auto& m : o.models)
    if (std::find(model_names().begin(), model_names().end(), m) == model_names().end()) {
      fmt::print(stderr,
                 "fleetwatt fit: --models: unknown model '{}' (known: sr, ols, ridge, lasso, gbt, mlp)\n", m);
      return kExitBadInput;
    }
  if (o.gplearn) {
    o.gp.linear_scaling = false;
    o.gp.polish_constants = false;
  }
  o.gp.const_min = -o.const_range;
  o.gp.const_max = o.const_range;
  RecordTable table = RecordTable::read(o.records);
  for (const auto& f : o.filters) {
    const auto eq = f.find('=');
    if (eq == std::string::npos) {
      fmt::print(stderr, "fleetwatt fit: --where '{}': expected COLUMN=VALUE\n", f);
      return kExitBadInput;
    }
    table = table.filtered(f.substr(0, eq), f.substr(eq + 1));
  }
  EvaluationConfig cfg;
  cfg.repeats = o.repeats;
  cfg.seed = o.gp.seed;
  cfg.gp = o.gp;
  cfg.models = o.models;

  std::vector<Evaluation> evaluations;
  std::vector<std::string> texts;
  std::vector<std::string> json_targets;
  SrModelFile file;
  std::error_code ec;
  if (!o.output.empty() && std::filesystem::exists(o.output, ec)) file = load_sr_model(o.output);
  std::string table4_text, table4_csv_text;
  for (const auto& target : o.targets) {
    Dataset all = make_dataset(table, target, o.features, o.group);
    std::string text;
    for (const auto& s : all.skipped) text += fmt::format("left out: {}\n", s);
    const auto scores = score_features(all, o.threshold, 5, o.gp.seed);
    text += format_table2(target, scores, o.threshold);
    const Dataset d = o.no_select ? all : select_features(all, scores);
    const Evaluation ev = evaluate_models(d, cfg);
    evaluations.push_back(ev);

    // The deployed model: the scaler over every record, SR on nine tenths, a tenth for its validation.
    const Scaler sc = Scaler::fit(d.x);
    const Eigen::MatrixXd z = sc.transform(d.x);
    const auto idx = shuffled_indices(d.rows(), o.gp.seed);
    const auto nv =
        std::max<Eigen::Index>(1, static_cast<Eigen::Index>(std::llround(0.1 * double(d.rows()))));
    const std::vector<Eigen::Index> va(idx.begin(), idx.begin() + nv), tr(idx.begin() + nv, idx.end());
    const Eigen::MatrixXd xt = take_rows(z, tr), xv = take_rows(z, va);
    const Eigen::VectorXd yt = take_rows(d.y, tr), yv = take_rows(d.y, va);
    const GpResult final_fit = fit_symbolic(xt, yt, o.gp, &xv, &yv);
    const std::string formula = to_formula(final_fit.program, d.features);
    text += fmt::format("\nsymbolic regression for {} (features standardised):\n  {} = {}\n", target, target,
                        formula);

    SrTargetModel m;
    m.name = o.role.empty() ? target : o.role;
    m.target = target;
    m.formula = formula;
    m.program = final_fit.program;
    m.features = d.features;
    m.scaler = sc;
    for (const auto& s : ev.models) {
      m.metrics["test_mse_mean_" + s.model] = s.mse_mean;
      m.metrics["test_mse_std_" + s.model] = s.mse_std;
      m.metrics["test_mre_mean_percent_" + s.model] = s.mre_mean;
      m.metrics["test_mre_std_percent_" + s.model] = s.mre_std;
    }
    m.metrics["train_mae"] = final_fit.train_mae;
    m.metrics["validation_mae"] = final_fit.validation_mae;
    m.provenance["records"] = o.records;
    m.provenance["rows"] = std::to_string(d.rows());
    std::string where;
    for (const auto& f : o.filters) where += (where.empty() ? "" : "; ") + f;
    m.provenance["where"] = where;
    m.provenance["seed"] = std::to_string(o.gp.seed);
    m.provenance["settings"] = fmt::format(
        "population={} generations={} tournament={} parsimony={} constants=[{},{}] linear_scaling={} "
        "terms={} polish={} repeats={}",
        o.gp.population, o.gp.generations, o.gp.tournament_size, o.gp.parsimony, o.gp.const_min,
        o.gp.const_max, o.gp.linear_scaling, o.gp.scaled_terms, o.gp.polish_constants, o.repeats);
    m.provenance["written_by"] = version_text();
    if (!o.output.empty()) file.upsert(m);

    std::string js = fmt::format("{{\"target\": {}, \"formula\": {}, \"features\": [", json_string(target),
                                 json_string(formula));
    for (std::size_t i = 0; i < d.features.size(); ++i) js += (i ? ", " : "") + json_string(d.features[i]);
    js += "], \"selection\": [";
    for (std::size_t i = 0; i < scores.size(); ++i)
      js += fmt::format("{}{{\"feature\": {}, \"pearson\": {}, \"mutual_info\": {}, \"selected\": {}}}",
                        i ? ", " : "", json_string(scores[i].feature), json_number(scores[i].pearson),
                        json_number(scores[i].mutual_info), scores[i].selected ? "true" : "false");
    js += fmt::format(
        "], \"rows\": {}, \"n_train\": {}, \"n_validation\": {}, \"n_test\": {}, \"repeats\": {}, "
        "\"models\": {{",
        d.rows(), ev.n_train, ev.n_validation, ev.n_test, o.repeats);
    for (std::size_t i = 0; i < ev.models.size(); ++i) {
      const auto& s = ev.models[i];
      js += fmt::format("{}{}: {{\"mse_mean\": {}, \"mse_std\": {}, \"mre_mean\": {}, \"mre_std\": {}}}",
                        i ? ", " : "", json_string(s.model), json_number(s.mse_mean), json_number(s.mse_std),
                        json_number(s.mre_mean), json_number(s.mre_std));
    }
    js += "}";
    if (!o.group.empty()) {
      const auto cells = transfer_table(d, cfg);
      table4_text += format_table4(target, cells);
      table4_csv_text += table4_csv(target, cells);
      js += ", \"transfer\": [";
      for (std::size_t i = 0; i < cells.size(); ++i)
        js += fmt::format("{}{{\"train\": {}, \"test\": {}, \"model\": {}, \"mse\": {}, \"mre\": {}}}",
                          i ? ", " : "", json_string(cells[i].train_group), json_string(cells[i].test_group),
                          json_string(cells[i].model), json_number(cells[i].mse), json_number(cells[i].mre));
      js += "]";
    }
    js += "}";
    json_targets.push_back(js);
    texts.push_back(text);
  }

  if (!o.output.empty()) save_sr_model(o.output, file);
  if (!o.csv_prefix.empty()) {
    core::write_text_output(o.csv_prefix + "-table3.csv", "--csv",
                            [&](std::ostream& out) { out << table3_csv(evaluations); });
    if (!o.group.empty())
      core::write_text_output(o.csv_prefix + "-table4.csv", "--csv",
                              [&](std::ostream& out) { out << table4_csv_text; });
  }
  if (o.json) {
    if (json_targets.size() == 1) {
      fmt::print("{}\n", json_targets.front());
    } else {
      fmt::print("{{\"targets\": [");
      for (std::size_t i = 0; i < json_targets.size(); ++i)
        fmt::print("{}{}", i ? ", " : "", json_targets[i]);
      fmt::print("]}}\n");
    }
    return 0;
  }
  for (const auto& t : texts) fmt::print("{}\n", t);
  fmt::print("test error over {} random 8:1:1 splits (mean ± sample std; MRE in %):\n{}", o.repeats,
             format_table3(evaluations));
  if (!table4_text.empty()) fmt::print("\n{}", table4_text);
  if (!o.output.empty()) fmt::print("\nmodel written to {}\n", o.output);
  return 0;
}

}  // namespace

void add_fit_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<FitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fit",
      "Learn a metadata -> power/duration predictor from training records by symbolic regression, "
      "compared with OLS, ridge, lasso, gradient-boosted trees and an MLP");
  cmd->add_option("records", o->records,
                  "records CSV (as `fleetwatt calibrate --records` writes, or any CSV)");
  cmd->add_option("--target", o->targets, "column(s) to predict, comma-separated (e.g. peak_W,peak_s)")
      ->delimiter(',');
  cmd->add_option(
         "--features", o->features,
         "candidate feature columns, comma-separated (default: input_size, data_size, params, flops, "
         "batch_size, workers, epochs, gpus where present)")
      ->delimiter(',');
  cmd->add_option("--role", o->role,
                  "name of the model in the model file (default: the target; the sr predictor "
                  "reads peak_W, peak_s, valley_W, valley_s)");
  cmd->add_option("--where", o->filters,
                  "keep only rows whose COLUMN equals VALUE (COLUMN=VALUE; repeatable)");
  cmd->add_option("--group", o->group,
                  "column naming each row's family: adds the transfer table (fit on one "
                  "group, predict another)");
  cmd->add_option("--models", o->models,
                  "models to compare, comma-separated (sr, ols, ridge, lasso, gbt, mlp)")
      ->delimiter(',');
  cmd->add_option("--threshold", o->threshold,
                  "feature selection keeps |Pearson| or MI at or above this (0.3)");
  cmd->add_flag("--no-select", o->no_select, "use every candidate feature (print the selection table only)");
  cmd->add_option("--repeats", o->repeats, "random 8:1:1 splits to average over (20)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--population", o->gp.population, "GP population size (2000; the paper used 15000)")
      ->check(CLI::Range(10, 10000000));
  cmd->add_option("--generations", o->gp.generations, "GP generations (50, as the paper)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--tournament", o->gp.tournament_size, "tournament size (20)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--parsimony", o->gp.parsimony, "parsimony coefficient: MAE penalty per node (0.001)");
  cmd->add_option("--const-range", o->const_range, "constants are drawn from [-R, R] (5)");
  cmd->add_option("--terms", o->gp.scaled_terms,
                  "top-level additive terms of a program that each get a least-squares weight (4; 1 is "
                  "plain linear scaling a + b f)")
      ->check(CLI::Range(1, 16));
  cmd->add_option("--stopping", o->gp.stopping_criteria, "stop when the best training MAE reaches this (0)");
  cmd->add_option("--threads", o->gp.threads,
                  "threads evaluating a population; results do not depend on it (2)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--seed", o->gp.seed, "seed of splits, GP and feature selection (0)");
  cmd->add_flag("--gplearn", o->gplearn,
                "gplearn's plain fitness: no linear scaling, no constant refinement");
  cmd->add_option("-o,--output", o->output, "write (or add to) a model file for the sr predictor");
  cmd->add_option("--csv", o->csv_prefix,
                  "also write PREFIX-table3.csv (and PREFIX-table4.csv with --group)");
  cmd->add_flag("--json", o->json,
                "print one JSON object (formula, features, per model test MSE/MRE mean/std)");
  cmd->add_option("--update", o->update_model,
                  "fold the records into this model file's online correction "
                  "(exponential moving average of residuals per target)");
  cmd->add_option("--alpha", o->update_alpha,
                  "EMA weight of each new residual for --update (default: the file's, "
                  "0.2)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--bench", o->bench, "measure population evaluation speed (programs/s) and exit");
  cmd->add_option("--bench-rows", o->bench_rows, "rows for --bench (1000)")->check(CLI::Range(1, 10000000));
  cmd->callback([o, &action] { action = [o] { return run_fit(*o); }; });
}

}  // namespace fleetwatt::tools
