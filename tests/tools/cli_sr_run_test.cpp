// The site-model loop end to end: records -> `fleetwatt fit -o` -> a scenario with `[predictor] kind = "sr"`
// -> `fleetwatt run` -> the job table, checked against the closed forms the records were drawn from; and a
// hand-written model file whose every phase value is worked out in the test.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

// The laws the synthetic site follows (per GPU, per epoch).
double law_peak_W(double flops) {
  return 150.0 + 50.0 * flops / 1e9;
}
double law_peak_s(double data) {
  return data / 1000.0;
}
double law_valley_W(double gpus) {
  return 60.0 + 10.0 * gpus;
}
double law_valley_s(double data) {
  return 5.0 + data / 1e4;
}

/// Records on a grid of flops x data size x GPU count (no randomness: the test reads by itself).
std::string records_csv() {
  std::string s = "model,flops,data_size,gpus,peak_W,peak_s,valley_W,valley_s\n";
  int i = 0;
  for (double flops : {1e9, 2e9, 3.5e9, 5e9})
    for (double data : {1e4, 2e4, 5e4, 1e5})
      for (double gpus : {1.0, 2.0, 4.0, 8.0})
        s += fmt::format("m{},{},{},{},{},{},{},{}\n", i++, flops, data, gpus, law_peak_W(flops),
                         law_peak_s(data), law_valley_W(gpus), law_valley_s(data));
  return s;
}

struct JobSpecText {
  int gpus, epochs;
  double flops, data;
};

std::string scenario(const std::string& model_path, const std::vector<JobSpecText>& jobs) {
  std::string s = fmt::format(R"(
[fleet]
nodes = 2
gpus_per_node = 8
gpu = "a100-sxm-80gb"
[predictor]
kind = "sr"
path = "{}"
[workload]
horizon_s = 100000
)",
                              model_path);
  for (const auto& j : jobs)
    s += fmt::format(
        "[[workload.jobs]]\nn_gpus = {}\nepochs = {}\nflops_per_sample = {}\ndataset_samples = {}\n", j.gpus,
        j.epochs, j.flops, j.data);
  return s;
}

}  // namespace

TEST_CASE("a model fitted by fleetwatt fit drives fleetwatt run through the sr predictor", "[cli][sr]") {
  TempDir dir;
  const auto records = dir.write("records.csv", records_csv());
  std::filesystem::create_directories(dir / "site");
  const auto model = dir / "site" / "model.toml";
  auto fit = run_command(fleetwatt_binary().string() + " fit " + records.string() +
                         " --target peak_W,peak_s,valley_W,valley_s --features flops,data_size,gpus"
                         " --models sr,ols --repeats 2 --population 300 --generations 10 -o " +
                         model.string());
  INFO(fit.out << fit.err);
  REQUIRE(fit.exit_code == 0);

  // Jobs inside the records' range but not on their grid; the model path is relative to the scenario.
  const std::vector<JobSpecText> jobs{{4, 3, 2.5e9, 3e4}, {2, 5, 4.2e9, 7e4}, {8, 2, 1.3e9, 1.5e4}};
  const auto s = dir.write("site/scenario.toml", scenario("model.toml", jobs));
  const auto out = dir / "o.h5";
  auto run =
      run_command("cd / && " + fleetwatt_binary().string() + " run -q " + s.string() + " -o " + out.string());
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);

  fleetwatt::results::ResultReader h5(out);
  const auto peak_W = h5.doubles("/jobs/peak_W");
  const auto energy = h5.doubles("/jobs/energy_J");
  const auto state = h5.strings("/jobs/state");
  REQUIRE(energy.size() == jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    const double per_epoch =
        law_peak_W(j.flops) * law_peak_s(j.data) + law_valley_W(j.gpus) * law_valley_s(j.data);
    // The laws are linear in one feature each: the fitted formulas reproduce them to rounding (and the
    // clock rounds phase lengths to whole nanoseconds).
    CHECK(state[i] == "finished");
    CHECK(peak_W[i] == Approx(law_peak_W(j.flops)).epsilon(1e-6));
    CHECK(energy[i] == Approx(j.gpus * j.epochs * per_epoch).epsilon(1e-6));
  }
}

TEST_CASE("a hand-written model file gives the phases its formulas say", "[cli][sr]") {
  TempDir dir;
  // z = (x - mean) / std. peak_W = 200 + 30 z_flops^2 + 10 log(z_data + 4); peak_s = 100 sig(z_data) + 20;
  // valley_W = 70; valley_s = sqrt(gpus) (raw, std 1 and mean 0).
  dir.write("m.toml", R"toml(format = "fleetwatt-sr"
version = 1
[models.peak_W]
target = "peak_W"
features = ["flops", "data_size"]
formula = "200 + 30 * flops * flops + 10 * log(data_size + 4)"
scaler_mean = [2e9, 5e4]
scaler_std = [1e9, 2.5e4]
[models.peak_s]
target = "peak_s"
features = ["data_size"]
formula = "100 * sig(data_size) + 20"
scaler_mean = [5e4]
scaler_std = [2.5e4]
[models.valley_W]
target = "valley_W"
features = ["gpus"]
formula = "70 + 0 * gpus"
scaler_mean = [0.0]
scaler_std = [1.0]
[models.valley_s]
target = "valley_s"
features = ["gpus"]
formula = "sqrt(gpus)"
scaler_mean = [0.0]
scaler_std = [1.0]
)toml");
  const auto s = dir.write("s.toml", scenario("m.toml", {{4, 2, 3.5e9, 1e5}}));
  auto run =
      run_command(fleetwatt_binary().string() + " run -q " + s.string() + " -o " + (dir / "o.h5").string());
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  // z_flops = 1.5, z_data = 2: peak_W = 200 + 30 * 2.25 + 10 ln 6 = 285.4175946922805;
  // peak_s = 100 / (1 + e^-2) + 20 = 108.07970779778824; valley 70 W for sqrt(4) = 2 s.
  const double peak_W = 200.0 + 67.5 + 10.0 * std::log(6.0);
  const double peak_s = 100.0 / (1.0 + std::exp(-2.0)) + 20.0;
  fleetwatt::results::ResultReader h5(dir / "o.h5");
  CHECK(h5.doubles("/jobs/peak_W").at(0) == Approx(peak_W).epsilon(1e-12));
  CHECK(h5.doubles("/jobs/energy_J").at(0) == Approx(4 * 2 * (peak_W * peak_s + 70.0 * 2.0)).epsilon(1e-9));

  // A formula naming a function the loader does not know: exit 2, the model file's line and column.
  dir.write("bad.toml", R"toml(format = "fleetwatt-sr"
version = 1
[models.peak_W]
target = "peak_W"
features = ["flops"]
formula = "200 + exp(flops)"
scaler_mean = [0.0]
scaler_std = [1.0]
)toml");
  const auto b = dir.write("b.toml", scenario("bad.toml", {{1, 1, 1e9, 1e4}}));
  auto bad =
      run_command(fleetwatt_binary().string() + " run -q " + b.string() + " -o " + (dir / "b.h5").string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("bad.toml:6") != std::string::npos);
  CHECK(bad.err.find("exp") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "b.h5"));
}
