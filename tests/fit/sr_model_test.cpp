// Tests of the model file: round trip, validation messages with line, column and token, online updates,
// and the "sr" predictor the simulator builds from it.
#include <catch2/catch.hpp>
#include <fstream>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/sr_model.hpp"
#include "fleetwatt/models/fit/sr_predictor.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models::fit;
using fleetwatt::test::TempDir;

namespace {
/// value = a + b * z(feature), z = (x - mean) / std.
SrTargetModel linear(const std::string& name, const std::string& feature, double a, double b, double mean,
                     double sd) {
  SrTargetModel m;
  m.name = name;
  m.target = name;
  m.features = {feature};
  m.formula = std::to_string(a) + " + " + std::to_string(b) + " * " + feature;
  FormulaError err;
  m.program = parse_formula(m.formula, m.features, &err);
  m.scaler.mean = Eigen::VectorXd::Constant(1, mean);
  m.scaler.std = Eigen::VectorXd::Constant(1, sd);
  m.metrics["test_mre_mean_percent_sr"] = 2.5;
  m.provenance["records"] = "site.csv";
  return m;
}
}  // namespace

TEST_CASE("a model file round-trips formula, features, scaler, metrics and provenance", "[sr_model]") {
  TempDir dir;
  SrModelFile f;
  f.upsert(linear("peak_W", "flops", 200, 40, 10, 2));
  f.upsert(linear("peak_s", "data_size", 100, 10, 5e4, 1e4));
  f.upsert(linear("peak_W", "flops", 250, 40, 10, 2));  // replaces the first
  REQUIRE(f.models.size() == 2);
  save_sr_model(dir / "m.toml", f);
  const SrModelFile g = load_sr_model(dir / "m.toml");
  REQUIRE(g.models.size() == 2);
  const SrTargetModel* p = g.find("peak_W");
  REQUIRE(p);
  CHECK(p->features == std::vector<std::string>{"flops"});
  CHECK(p->scaler.mean(0) == 10.0);
  CHECK(p->metrics.at("test_mre_mean_percent_sr") == 2.5);
  CHECK(p->provenance.at("records") == "site.csv");
  // flops 14 -> z = 2 -> 250 + 40 * 2.
  CHECK(p->predict({14.0}) == Approx(330.0));
}

TEST_CASE("loading names the line, column and token of a bad formula", "[sr_model]") {
  TempDir dir;
  const std::string head = "format = \"fleetwatt-sr\"\nversion = 1\n[models.peak_W]\ntarget = \"peak_W\"\n";
  const std::string tail = "features = [\"flops\"]\nscaler_mean = [0.0]\nscaler_std = [1.0]\n";
  // Line 5; the opening quote is column 11, so the token at offset 9 of the formula is column 20.
  dir.write("fn.toml", head + "formula = \"flops + foo(flops)\"\n" + tail);
  CHECK_THROWS_WITH(load_sr_model(dir / "fn.toml"),
                    Catch::Contains("fn.toml:5:20") && Catch::Contains("unknown function 'foo'"));
  dir.write("ft.toml", head + "formula = \"flops * batch\"\n" + tail);
  CHECK_THROWS_WITH(load_sr_model(dir / "ft.toml"),
                    Catch::Contains("ft.toml:5:20") && Catch::Contains("unknown feature 'batch'"));
  dir.write(
      "len.toml",
      head + "formula = \"flops\"\nfeatures = [\"flops\"]\nscaler_mean = [0.0, 1.0]\nscaler_std = [1.0]\n");
  CHECK_THROWS_WITH(load_sr_model(dir / "len.toml"),
                    Catch::Contains("len.toml:7") && Catch::Contains("2 values for 1 features"));
  dir.write("key.toml", head + "formula = \"flops\"\n" + tail + "colour = 3\n");
  CHECK_THROWS_WITH(load_sr_model(dir / "key.toml"),
                    Catch::Contains("key.toml:9:1") && Catch::Contains("unknown key"));
  dir.write("fmt.toml", "format = \"other\"\n");
  CHECK_THROWS_WITH(load_sr_model(dir / "fmt.toml"),
                    Catch::Contains("fmt.toml:1") && Catch::Contains("fleetwatt-sr"));
}

TEST_CASE("online updates follow the exponential moving average of residuals", "[sr_model]") {
  SrModelFile f;
  SrTargetModel m = linear("peak_W", "flops", 100, 0, 0, 1);  // always 100
  m.update_alpha = 0.5;
  f.upsert(m);
  // Truths 104, 104, 110: residuals 4, 4, 10. EMA: 0 -> 2 -> 3 -> 6.5.
  const auto t = RecordTable::parse("flops,peak_W\n1,104\n2,104\n3,110\n", "new.csv");
  const auto rep = update_models(f, t);
  REQUIRE(rep.size() == 1);
  CHECK(rep[0].correction_before == 0.0);
  CHECK(rep[0].correction_after == Approx(6.5));
  CHECK(f.models[0].updates == 3);
  CHECK(f.models[0].predict({0.0}) == Approx(106.5));
  // MRE before: (4/104 + 4/104 + 10/110) / 3; after, with 106.5: (2.5/104 + 2.5/104 + 3.5/110) / 3.
  CHECK(rep[0].mre_before_percent == Approx(100.0 * (4.0 / 104 + 4.0 / 104 + 10.0 / 110) / 3));
  CHECK(rep[0].mre_after_percent == Approx(100.0 * (2.5 / 104 + 2.5 / 104 + 3.5 / 110) / 3));
  const auto none = RecordTable::parse("flops,x\n1,2\n", "other.csv");
  CHECK_THROWS_WITH(update_models(f, none), Catch::Contains("none of the model's target columns"));
}

TEST_CASE("the sr predictor turns job metadata into the square wave", "[sr_model][predictor]") {
  TempDir dir;
  SrModelFile f;
  f.upsert(linear("peak_W", "flops", 300, 20, 1e9, 1e9));
  f.upsert(linear("peak_s", "data_size", 100, 50, 1e5, 5e4));
  f.upsert(linear("valley_W", "gpus", 60, 0, 4, 1));
  save_sr_model(dir / "site.toml", f);

  fleetwatt::models::PredictorConfig cfg;
  cfg.kind = "sr";
  cfg.params = fleetwatt::jobs::ParamSet("predictor", {(dir / "scenario.toml").string(), 3, 1});
  cfg.params.set("path", {std::string("site.toml"), {(dir / "scenario.toml").string(), 4, 8}});
  const auto pred = fleetwatt::models::PredictorRegistry::with_builtins().make(cfg);
  CHECK(pred->name() == "sr");
  fleetwatt::jobs::JobSpec job;
  job.meta.flops_per_sample = 3e9;  // z = 2
  job.meta.dataset_samples = 2e5;   // z = 2
  job.n_gpus = 4;
  const auto p = pred->predict(job, fleetwatt::models::GpuHardware{});
  CHECK(p.peak_W == Approx(340.0));
  CHECK(p.peak_s == Approx(200.0));
  CHECK(p.valley_W == Approx(60.0));
  CHECK(p.valley_s == 0.0);  // no valley_s model
  // 2.5 % + 2.5 % from the two peak models' test MRE.
  CHECK(pred->uncertainty(job, {}).high == Approx(0.05));

  job.meta.dataset_samples = 0;
  CHECK_THROWS_WITH(pred->predict(job, {}), Catch::Contains("data_size"));

  cfg.params.set("path", {std::string("absent.toml"), {(dir / "scenario.toml").string(), 4, 8}});
  CHECK_THROWS_WITH(fleetwatt::models::PredictorRegistry::with_builtins().make(cfg),
                    Catch::Contains("scenario.toml:4:8: predictor.path: file not found: ") &&
                        Catch::Contains("absent.toml"));
  // An empty path names the scenario's folder: refused at the key, not when the folder fails to read.
  cfg.params.set("path", {std::string(""), {(dir / "scenario.toml").string(), 4, 8}});
  CHECK_THROWS_WITH(
      fleetwatt::models::PredictorRegistry::with_builtins().make(cfg),
      Catch::StartsWith((dir / "scenario.toml").string() + ":4:8: predictor.path: model file '") &&
          Catch::EndsWith("' is not a file"));

  SrModelFile only_power;
  only_power.upsert(linear("peak_W", "flops", 300, 20, 1e9, 1e9));
  save_sr_model(dir / "half.toml", only_power);
  CHECK_THROWS_WITH(SrPredictor(dir / "half.toml"), Catch::Contains("peak_s"));
  SrModelFile odd;
  odd.upsert(linear("peak_W", "GFLOPs", 300, 20, 1, 1));
  odd.upsert(linear("peak_s", "flops", 300, 20, 1, 1));
  save_sr_model(dir / "odd.toml", odd);
  CHECK_THROWS_WITH(SrPredictor(dir / "odd.toml"), Catch::Contains("'GFLOPs' is not job metadata"));
}
