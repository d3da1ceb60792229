// Every `--json` answer of the command is RFC 8259 JSON whatever the input: each JSON-printing command
// (calibrate, fit and fit --update, powerlaw fit and energy, validate and validate --steps, predict) is run
// on a normal input, whose figures are checked against a hand computation, and on an input at an edge where
// figures overflow or degenerate; nlohmann::json must parse stdout, and a figure that is not finite must be
// null (core::json_number), never `nan` or `inf`.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "test_support.hpp"

using namespace fleetwatt::test;
using nlohmann::json;

namespace {

/// Runs `args` and parses stdout, which must be one JSON document (a `nan` or `inf` token throws).
json run_json(const std::string& args) {
  const auto r = run_command(fleetwatt_command() + " " + args);
  INFO(args);
  INFO(r.err);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  json j;
  REQUIRE_NOTHROW(j = json::parse(r.out));
  return j;
}

/// Every number of `j` is finite (nlohmann reads a huge literal such as 1e999 as inf).
void check_finite_numbers(const json& j) {
  if (j.is_number_float()) CHECK(std::isfinite(j.get<double>()));
  if (j.is_structured())
    for (const auto& v : j) check_finite_numbers(v);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// `powerlaw fit` samples of the paper's A100 FP32 mul law, eta(c) = 0.6579 (1 - exp(-9.25 c^0.81)) with c in
/// GFLOP: t = c / (v_max eta), v_max = 19.5 TFLOP/s.
std::string mul_law_samples() {
  std::string csv = "op,flops,seconds\n";
  for (double c = 1e6; c <= 1e11; c *= 1.6) {
    const double eta = 0.6579 * (1 - std::exp(-9.25 * std::pow(c / 1e9, 0.81)));
    csv += fmt::format("mul,{:.17g},{:.17g}\n", c, c / (19.5e12 * eta));
  }
  return csv;
}

/// Records of peak_W = 100 + 2 flops + 3 params, 20 rows (exact, so OLS fits them to rounding).
std::string linear_records(double scale) {
  std::string csv = "model,flops,params,peak_W\n";
  for (int i = 0; i < 20; ++i) {
    const double f = 1 + 0.4 * i, p = (i * 7 % 10) + 1;
    // scale != 1: a curved target near the double range, whose squared errors overflow.
    const double y = scale == 1.0 ? 100 + 2 * f + 3 * p : scale * (1 + f * f + i % 3);
    csv += fmt::format("m{},{},{},{:.17g}\n", i % 4, f, p, y);
  }
  return csv;
}

const char* const kFitFlags =
    " --target peak_W --repeats 2 --population 50 --generations 2 --models ols --json";

}  // namespace

TEST_CASE("calibrate --json: the trapezoid energy of the nvidia-smi sample log", "[cli][json][calibrate]") {
  // GPU 0 of the fuzzing seed: 61.2 W at 0 s and 250 W at 0.1 s; GPU 1's only sample is [N/A].
  const auto log = source_dir() / "fuzz" / "seeds" / "power_log" / "nvidia-smi.csv";
  const json j = run_json("calibrate --json --gpu 0 " + log.string());
  check_finite_numbers(j);
  CHECK(j.at("gpus") == json::array({0}));
  CHECK(j.at("samples") == 2);
  CHECK(j.at("duration_s").get<double>() == Approx(0.1));
  // Trapezoid rule (models/fit/telemetry.hpp): (61.2 + 250) / 2 x 0.1 s.
  CHECK(j.at("energy_J").get<double>() == Approx(15.56));
  CHECK(j.at("mean_power_W").get<double>() == Approx(155.6));
  CHECK(j.at("sampling").at("rows") == 4);
  CHECK(j.at("sampling").at("missing_power") == 1);
  CHECK(j.at("sampling").at("median_interval_s").get<double>() == Approx(0.1));
  REQUIRE(j.at("phases").is_array());
  REQUIRE(!j.at("phases").empty());
  for (const auto& p : j.at("phases")) CHECK(p.at("kind").is_string());
}

TEST_CASE("calibrate --json on constant power and on a sub-normal duration", "[cli][json][calibrate]") {
  TempDir dir;
  // Constant power: one level, so no threshold splits it; the whole log is one peak at that level.
  const json flat =
      run_json("calibrate --json " + dir.write("flat.csv", "time_s,power_W\n0,250\n1,250\n2,250\n").string());
  check_finite_numbers(flat);
  CHECK(flat.at("energy_J").get<double>() == 500.0);
  CHECK(flat.at("mean_power_W").get<double>() == 250.0);
  CHECK(flat.at("peak_W").get<double>() == 250.0);
  CHECK(flat.at("n_valleys") == 0);
  CHECK(flat.at("valley_W").get<double>() == 0.0);
  // Two samples 1e-320 s apart at 0 W: the shortest span a log can have; its figures stay numbers.
  const json tiny =
      run_json("calibrate --json " + dir.write("tiny.csv", "time_s,power_W\n0,0\n1e-320,0\n").string());
  check_finite_numbers(tiny);
  CHECK(tiny.at("duration_s").get<double>() > 0.0);
  CHECK(tiny.at("energy_J").get<double>() == 0.0);
  CHECK(tiny.at("mean_power_W").get<double>() == 0.0);
}

TEST_CASE("powerlaw energy --json: hand-computed least squares, and null where sums overflow",
          "[cli][json][powerlaw]") {
  TempDir dir;
  // e = 1, 3, 2, 4 at t = 1..4: slope Sxy / Sxx = 4 / 5, intercept 2.5 - 0.8 x 2.5 = 0.5; residuals -0.3,
  // 0.9, -0.9, 0.3 (SSE 1.8 of TSS 5: R^2 0.64); sigma^2 = 1.8 / 2; se(slope) = sqrt(0.9 / 5); se(const) =
  // sqrt(0.9 (1/4 + 2.5^2 / 5)); 95 % interval with Student's t of 2 degrees of freedom, 4.302652729911275.
  const json j = run_json("powerlaw energy --json " +
                          dir.write("runs.csv", "energy_J,t_a\n1,1\n3,2\n2,3\n4,4\n").string());
  check_finite_numbers(j);
  CHECK(j.at("observations") == 4);
  CHECK(j.at("r_squared").get<double>() == Approx(0.64));
  const json& slope = j.at("coefficients").at("t_a");
  const json& constant = j.at("coefficients").at("const");
  CHECK(slope.at("coef").get<double>() == Approx(0.8));
  CHECK(constant.at("coef").get<double>() == Approx(0.5));
  CHECK(slope.at("std_err").get<double>() == Approx(std::sqrt(0.18)));
  CHECK(constant.at("std_err").get<double>() == Approx(std::sqrt(1.35)));
  CHECK(slope.at("ci_low").get<double>() == Approx(0.8 - 4.302652729911275 * std::sqrt(0.18)));
  CHECK(slope.at("ci_high").get<double>() == Approx(0.8 + 4.302652729911275 * std::sqrt(0.18)));

  // Energies near 1e200 J: the squared residuals overflow, so R^2 is NaN and the standard errors and
  // intervals infinite; they print null (the coefficients themselves are finite).
  std::string big = "energy_J,t_a\n";
  for (int i = 0; i < 10; ++i) big += fmt::format("{:.17g},{}\n", 1e200 * (1 + i + (i % 3) * 0.7), i + 1);
  const json edge = run_json("powerlaw energy --json " + dir.write("big.csv", big).string());
  CHECK(edge.at("r_squared").is_null());
  for (const auto& [name, c] : edge.at("coefficients").items()) {
    INFO(name);
    CHECK(c.at("coef").is_number());
    CHECK(c.at("std_err").is_null());
    CHECK(c.at("ci_low").is_null());
    CHECK(c.at("ci_high").is_null());
  }
}

TEST_CASE("powerlaw fit --json recovers the A100 mul law", "[cli][json][powerlaw]") {
  TempDir dir;
  const json j =
      run_json("powerlaw fit --json --gpu a100-sxm-80gb " + dir.write("mul.csv", mul_law_samples()).string());
  check_finite_numbers(j);
  CHECK(j.at("vmax_flops").get<double>() == 19.5e12);
  REQUIRE(j.at("fits").size() == 1);
  const json& f = j.at("fits").at(0);
  CHECK(f.at("op") == "mul");
  CHECK(f.at("eta_max_percent").get<double>() == Approx(65.79).epsilon(0.01));
  CHECK(f.at("k").get<double>() == Approx(9.25).epsilon(0.01));
  CHECK(f.at("alpha").get<double>() == Approx(0.81).epsilon(0.01));
}

TEST_CASE("validate --json: errors as its rows give them, null where a measured time is ~0",
          "[cli][json][validate]") {
  TempDir dir;
  const char* const header =
      "dataset,network,batch_size,optimizer,power_limit,time_per_epoch,average_power\n";
  const auto normal =
      dir.write("summary_power_a40.csv", std::string(header) + "imagenet,resnet50,256,adam,300,1500,280\n");
  const auto rows = dir / "rows.csv";
  const json j = run_json("validate --json " + normal.string() + " --rows " + rows.string());
  check_finite_numbers(j);
  // The one row's relative errors from its measured and predicted figures (--rows).
  const std::string csv = read_text(rows);
  const auto line = csv.substr(csv.find('\n') + 1);
  std::vector<std::string> cells;
  std::stringstream cs(line.substr(0, line.find('\n')));
  for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
  // Fifteen figures, then the two busy-share cells, empty: Zeus did not measure it (the reader sees one).
  REQUIRE(cells.size() == 16);
  CHECK(cells[15].empty());
  CHECK(line.substr(0, line.find('\n')).ends_with(",,"));
  const double measured_s = std::stod(cells[5]), predicted_s = std::stod(cells[6]),
               measured_W = std::stod(cells[7]), predicted_W = std::stod(cells[8]);
  CHECK(measured_s == 1500.0);
  CHECK(measured_W == 280.0);
  // The split adds back to the predicted epoch: steps x ((work^4 + launches^4)^(1/4) x stretch + other) +
  // the time beyond the steps; ImageNet's 1,281,167 images in steps of 256.
  const double steps = std::stod(cells[9]), work = std::stod(cells[10]), launches = std::stod(cells[11]),
               stretch = std::stod(cells[12]), other = std::stod(cells[13]), fixed = std::stod(cells[14]);
  CHECK(steps == std::ceil(1281167.0 / 256.0));
  CHECK(work > 0.0);
  CHECK(launches > 0.0);
  CHECK(fixed > 0.0);
  CHECK(steps * (std::pow(std::pow(work, 4) + std::pow(launches, 4), 0.25) * stretch + other) + fixed ==
        Approx(predicted_s).epsilon(1e-9));
  const json& all = j.at("all");
  CHECK(all.at("rows") == 1);
  CHECK(all.at("time_mre").get<double>() == Approx(std::abs(predicted_s - 1500.0) / 1500.0));
  CHECK(all.at("power_mre").get<double>() == Approx(std::abs(predicted_W - 280.0) / 280.0));
  CHECK(j.at("gpus").at("a40") == all);

  // An epoch of 1e-320 s: the relative time error overflows to inf, printed null; the power error is a
  // number still.
  TempDir edge_dir;
  const auto edge_file = edge_dir.write("summary_power_a40.csv",
                                        std::string(header) + "imagenet,resnet50,256,adam,300,1e-320,280\n");
  const json edge = run_json("validate --json " + edge_file.string());
  CHECK(edge.at("all").at("time_mre").is_null());
  CHECK(edge.at("gpus").at("a40").at("time_mre").is_null());
  CHECK(edge.at("all").at("power_mre").get<double>() == Approx(all.at("power_mre").get<double>()));
}

TEST_CASE("validate --steps --json on a one-row NeMo summary", "[cli][json][validate]") {
  TempDir dir;
  dir.write(
      "performance_summary_24.07.md",
      "### Pretraining\n\n"
      "| Model | #-GPUs | GBS | MBS | Sequence Length | TP | PP | CP | VP | Tokens / sec / GPU | Model TFLOP "
      "/ sec / GPU |\n"
      "| - | - | - | - | - | - | - | - | - | - | - |\n"
      "| LLAMA2-7B | 8 | 128 | 1 | 4096 | 1 | 1 | 1 | 1 | 16934 | 780 |\n");
  const json j = run_json("validate --steps --json " + dir.path().string());
  check_finite_numbers(j);
  REQUIRE(j.at("rows").size() == 1);
  const json& r = j.at("rows").at(0);
  // A published step: the global batch's tokens over the run's tokens per second, 128 x 4096 / (16934 x 8).
  CHECK(r.at("published_s").get<double>() == Approx(128.0 * 4096 / (16934.0 * 8)));
  CHECK(r.at("error").get<double>() ==
        Approx(r.at("predicted_s").get<double>() / r.at("published_s").get<double>() - 1));
  CHECK(j.at("predicted") == 1);
  CHECK(j.at("mean_abs_error").get<double>() == Approx(std::abs(r.at("error").get<double>())));
  CHECK(j.at("internode_gbytes_per_s").get<double>() == 50.0);
  CHECK(r.at("job").at("dataset_samples").get<double>() == 128.0);
  CHECK(r.at("job").at("precision") == "fp8");
  CHECK(r.at("job").at("stack") == "optimized");
}

TEST_CASE("fit --json and fit --update --json, with null for overflowing errors", "[cli][json][fit]") {
  TempDir dir;
  const auto model = dir / "site.toml";
  const json j = run_json("fit " + dir.write("rec.csv", linear_records(1.0)).string() + kFitFlags + " -o " +
                          model.string());
  check_finite_numbers(j);
  CHECK(j.at("target") == "peak_W");
  CHECK(j.at("rows") == 20);
  // OLS on exact linear records: a test error at rounding level.
  CHECK(j.at("models").at("ols").at("mse_mean").get<double>() < 1e-12);
  CHECK(j.at("models").at("ols").at("mre_mean").get<double>() < 1e-9);

  // One new record 10 W above the law: the update's JSON names the model and counts the record.
  const json u = run_json("fit --update " + model.string() + " " +
                          dir.write("new.csv", "flops,params,peak_W\n1,2,118\n").string() + " --json");
  check_finite_numbers(u);
  REQUIRE(u.at("updates").size() == 1);
  CHECK(u.at("updates").at(0).at("name") == "peak_W");
  CHECK(u.at("updates").at(0).at("records") == 1);
  CHECK(u.at("updates").at(0).at("correction_after").get<double>() > 0.0);

  // A target near 1e200: squared errors overflow, so the mean squared errors print null.
  const json edge = run_json("fit " + dir.write("big.csv", linear_records(1e200)).string() + kFitFlags);
  CHECK(edge.at("models").at("ols").at("mse_mean").is_null());
  CHECK(edge.at("models").at("ols").at("mre_mean").is_number());
}

TEST_CASE("predict --json parses at the largest accepted sizes", "[cli][json][predict]") {
  const std::string base =
      "predict --model resnet50 --gpu a100-sxm-80gb --gpus 4 --batch 256 --image 224 --json";
  const json j = run_json(base + " --samples 1281167 --epochs 90");
  check_finite_numbers(j);
  CHECK(j.at("params").get<double>() == 25557032.0);
  CHECK(j.at("total_s").get<double>() == Approx(90 * j.at("epoch_s").get<double>()));
  const json most = run_json(base + " --samples 1e15 --epochs 16777216");
  check_finite_numbers(most);
  CHECK(most.at("gpu_energy_J").get<double>() > 1e20);
}
