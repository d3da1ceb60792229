// End-to-end tests of `fleetwatt fit`: JSON output, the model file, online updates, the benchmark flag, and
// the bad-input messages (exit status 2, file/line/column named).
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/models/fit/sr_model.hpp"
#include "test_support.hpp"

using fleetwatt::test::run_command;
using fleetwatt::test::TempDir;

namespace {
std::string bin() {
  return fleetwatt::test::fleetwatt_binary().string();
}

/// Records of y = 2 flops + 3 params (+ a constant column), 40 rows.
std::string linear_records() {
  fleetwatt::jobs::Random rng(3);
  std::string csv = "model,flops,params,batch_size,peak_W\n";
  for (int i = 0; i < 40; ++i) {
    const double f = rng.uniform(1, 10), p = rng.uniform(1, 10);
    csv += fmt::format("m{},{},{},32,{}\n", i % 4, std::to_string(f), std::to_string(p),
                       std::to_string(100 + 2 * f + 3 * p));
  }
  return csv;
}
}  // namespace

TEST_CASE("fleetwatt fit prints JSON per model and writes a loadable model file", "[fit][command]") {
  if (bin().empty()) return;
  TempDir dir;
  const auto rec = dir.write("rec.csv", linear_records());
  const auto model = dir / "site.toml";
  const auto r =
      run_command(bin() + " fit " + rec.string() +
                  " --target peak_W --repeats 2 --population 200 --generations 5 --json --group model -o " +
                  model.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  for (const char* key :
       {"\"formula\"", "\"features\": [\"params\", \"flops\"]", "\"sr\": {\"mse_mean\"", "\"ols\"",
        "\"ridge\"", "\"lasso\"", "\"gbt\"", "\"mlp\"", "\"mre_std\"", "\"transfer\""})
    CHECK_THAT(r.out, Catch::Contains(key));
  const auto file = fleetwatt::models::fit::load_sr_model(model);
  REQUIRE(file.find("peak_W"));
  CHECK(file.find("peak_W")->provenance.at("rows") == "40");

  // Drifted site: every record 10 W higher. The update moves the correction towards +10.
  std::string drift = "flops,params,peak_W\n";
  for (int i = 1; i <= 5; ++i) drift += std::to_string(i) + ",2," + std::to_string(110 + 2 * i + 6) + "\n";
  const auto nrec = dir.write("new.csv", drift);
  const auto u = run_command(bin() + " fit --update " + model.string() + " " + nrec.string() + " --json");
  INFO(u.err);
  REQUIRE(u.exit_code == 0);
  CHECK_THAT(u.out, Catch::Contains("\"records\": 5"));
  const double corr = fleetwatt::models::fit::load_sr_model(model).find("peak_W")->correction;
  // EMA with alpha 0.2 over five residuals of about 10: 10 (1 - 0.8^5) = 6.7, give or take the fit's error.
  CHECK(corr == Approx(10.0 * (1 - std::pow(0.8, 5))).margin(1.0));
}

TEST_CASE("fleetwatt fit --bench reports evaluations per second", "[fit][command]") {
  if (bin().empty()) return;
  const auto r = run_command(bin() + " fit --bench --population 200 --bench-rows 100");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("programs/s") && Catch::Contains("2 threads"));
}

TEST_CASE("fleetwatt fit names bad records precisely and exits with status 2", "[fit][command]") {
  if (bin().empty()) return;
  TempDir dir;
  const auto rec = dir.write("rec.csv", linear_records());
  auto fails = [&](const std::string& args, const std::string& what) {
    const auto r = run_command(bin() + " fit " + args);
    INFO(args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(what));
  };
  fails(rec.string() + " --target energy", "no such column");
  fails(rec.string() + " --target peak_W --features flops,batch_size", "batch_size: is constant");
  fails(rec.string() + " --target peak_W --features model", "rec.csv:2:1");
  std::string short_csv = "flops,peak_W\n";
  for (int i = 0; i < 6; ++i) short_csv += std::to_string(i) + ",1" + std::to_string(i) + "\n";
  fails(dir.write("short.csv", short_csv).string() + " --target peak_W", "at least 10");
  std::string bad = linear_records();
  bad.replace(bad.find(",32,"), 4, ",x2,");
  fails(dir.write("bad.csv", bad).string() + " --target peak_W --features flops,batch_size", "bad.csv:2:");
  fails(rec.string() + " --target peak_W --models sr,svm", "unknown model 'svm'");
  const auto model = dir.write("m.toml",
                               "format = \"fleetwatt-sr\"\n[models.peak_W]\ntarget = \"peak_W\"\n"
                               "formula = \"tanh(flops)\"\nfeatures = [\"flops\"]\nscaler_mean = [0.0]\n"
                               "scaler_std = [1.0]\n");
  fails("--update " + model.string() + " " + rec.string(), "m.toml:4:12");
}
