// A site's own runs through the commands: calibrate --site writes them, predict --site corrects a job by
// them as the hand calculation does (the built-in fit's shrinkage weights), validate --site gives the same
// prediction for the same job, and a scenario's [fleet] site runs the job as predict gives it.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fleetwatt/models/fit/records.hpp"
#include "fleetwatt/models/hardware/time_split.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"
#include "fleetwatt/models/site_file.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

const char* const kSite = R"(name = "lab"

[[run]]
gpu_type = "a40"
host = "node-1"
model = "resnet50"
batch_size = 64
data_size = 50000
epoch_s = 150.0
power_w = 250.0
)";

const std::string kJob = " --model resnet50 --gpu a40 --samples 50000 --json";

/// A scenario's workload: one ResNet-50 job of 2 epochs, the job kJob predicts at batch 64.
const char* const kOneJob = R"([workload]
horizon_s = 100000
[[workload.jobs]]
id = 1
model = "resnet50"
global_batch = 64
dataset_samples = 50000
epochs = 2
n_gpus = 1
)";

struct Predicted {
  double epoch_s = 0.0, power_W = 0.0;
  double compute_s = 0.0, compute_W = 0.0;  ///< the plan's compute part
  double work_s = 0.0, launch_s = 0.0;      ///< one step's work (GPU and launches overlapping) and launches
  double gpu_factor = 1.0, host_factor = 1.0;
};

Predicted predict(const std::string& options) {
  const auto r = run_command(fleetwatt_command() + " predict" + kJob + options);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  Predicted p{j.at("epoch_s"),
              j.at("avg_power_W"),
              j.at("parts").at("compute").at("s"),
              j.at("parts").at("compute").at("W"),
              j.at("compute_s"),
              j.at("launch_s")};
  if (j.contains("site_gpu_factor"))
    p.gpu_factor = j.at("site_gpu_factor"), p.host_factor = j.at("site_host_factor");
  return p;
}

/// The datasheet's epoch with the step's GPU work g times and its launches h times as long: the work's
/// GPU time is (work^4 - launches^4)^(1/4) (the roofline's soft knee, below the power limit), the other
/// parts as predicted.
double retimed_epoch_s(const Predicted& p, double g, double h) {
  const double steps = p.compute_s / p.work_s;
  const double gpu_s = std::pow(std::pow(p.work_s, 4) - std::pow(p.launch_s, 4), 0.25);
  const double step = std::pow(std::pow(g * gpu_s, 4) + std::pow(h * p.launch_s, 4), 0.25);
  return p.epoch_s - p.compute_s + steps * step;
}

}  // namespace

TEST_CASE("predict --site corrects a job by its site's runs, and validate --site predicts it the same",
          "[cli][site]") {
  TempDir dir;
  const auto site = dir.write("site.toml", kSite);
  const auto& w = fleetwatt::models::default_predictor_fit().site;
  REQUIRE(w.time_repeat > 0.0);
  // Batch 64 repeats the run: factor exp(w_repeat x ln(measured / predicted)) on the datasheet's figures;
  // for power, of the draw above the A40's idle (30 W, its preset's).
  const Predicted zero64 = predict(" --batch 64"), zero128 = predict(" --batch 128");
  const double idle = 30.0;
  const auto site_power = [&](double zero_W, double weight) {
    return idle + (zero_W - idle) * std::exp(weight * std::log((250.0 - idle) / (zero64.power_W - idle)));
  };
  const Predicted site64 = predict(" --batch 64 --site " + site.string());
  // The machine's GPU and host factors minimise (ln(150 / epoch(g, h)))^2 + prior (ln^2 g + ln^2 h) over
  // its one run: no step of 0.01 in either log does better, and both factors move toward the run.
  const double g = site64.gpu_factor, h = site64.host_factor;
  const auto objective = [&](double lg, double lh) {
    const double e = std::log(150.0 / retimed_epoch_s(zero64, std::exp(lg), std::exp(lh)));
    return e * e + fleetwatt::models::kMachinePrior * (lg * lg + lh * lh);
  };
  for (const double dg : {-0.01, 0.0, 0.01})
    for (const double dh : {-0.01, 0.0, 0.01})
      CHECK(objective(std::log(g), std::log(h)) <= objective(std::log(g) + dg, std::log(h) + dh) + 1e-12);
  CHECK(g < 1.0);  // 150 s measured, 181 s predicted: the GPU ran faster
  CHECK(retimed_epoch_s(zero64, g, h) < zero64.epoch_s);
  CHECK(retimed_epoch_s(zero64, g, h) > 150.0);
  // The run's own factor takes what the machine leaves: exp(w_repeat x ln(150 / epoch(g, h))) on the
  // re-timed epoch. Power: every part's draw above idle x the factor, averaged over the re-timed parts.
  const double base64 = retimed_epoch_s(zero64, g, h);
  CHECK(site64.epoch_s == Approx(base64 * std::exp(w.time_repeat * std::log(150.0 / base64))));
  const auto mean_power = [&](const Predicted& zero, double weight) {
    const double compute_s =
        zero.compute_s * (retimed_epoch_s(zero, g, h) - (zero.epoch_s - zero.compute_s)) / zero.compute_s;
    const double rest_s = zero.epoch_s - zero.compute_s;
    const double rest_W = (zero.power_W * zero.epoch_s - zero.compute_W * zero.compute_s) / rest_s;
    return (compute_s * site_power(zero.compute_W, weight) + rest_s * site_power(rest_W, weight)) /
           (compute_s + rest_s);
  };
  CHECK(site64.power_W == Approx(mean_power(zero64, w.power_repeat)));
  // Batch 128 varies it: the machine's factors re-time batch 128's own prediction, and the run's ratio,
  // shrunk by the varied weights, corrects it.
  const Predicted site128 = predict(" --batch 128 --site " + site.string());
  CHECK(site128.gpu_factor == g);
  CHECK(site128.epoch_s ==
        Approx(retimed_epoch_s(zero128, g, h) * std::exp(w.time_varied * std::log(150.0 / base64))));
  CHECK(site128.power_W == Approx(mean_power(zero128, w.power_varied)));
  // A GPU the site has no run on: the datasheet's prediction.
  const auto v100 = run_command(fleetwatt_command() +
                                " predict --model resnet50 --gpu v100-pcie-32gb --batch 64 "
                                "--samples 50000 --json --site " +
                                site.string());
  const auto plain =
      run_command(fleetwatt_command() +
                  " predict --model resnet50 --gpu v100-pcie-32gb --batch 64 --samples 50000 --json");
  CHECK(json_number(v100.out, "site_runs") == 0.0);
  CHECK(json_number(v100.out, "epoch_s") == json_number(plain.out, "epoch_s"));

  // The same two jobs as measured runs of a records file: validate --site predicts them as predict does.
  std::string records = fleetwatt::models::fit::record_header() + "\n";
  for (const int batch : {64, 128})
    records += "resnet50,,," + std::to_string(batch) + ",50000,,,1,1,a40,0,0,0,0,0,0,0,run,160,260,,\n";
  const auto rec = dir.write("rec.csv", records);
  const auto rows = dir / "rows.csv";
  const auto v = run_command(fleetwatt_command() + " validate " + rec.string() + " --site " + site.string() +
                             " --rows " + rows.string());
  INFO(v.err);
  REQUIRE(v.exit_code == 0);
  std::ifstream in(rows);
  std::string line;
  std::getline(in, line);  // header: source,gpu,workload,batch,power_limit_W,measured_s,predicted_s,...
  for (const Predicted& p : {site64, site128}) {
    REQUIRE(std::getline(in, line));
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    // A corrected row carries no datasheet split, nor a measured busy share: nine figures, then eight empty
    // cells (the reader sees seven, the last one ending the line).
    REQUIRE(line.size() > 7);
    CHECK(line.compare(line.size() - 7, 7, ",,,,,,,") == 0);
    REQUIRE(cells.size() == 16);
    CHECK(std::stod(cells[6]) == Approx(p.epoch_s).epsilon(1e-12));
    CHECK(std::stod(cells[8]) == Approx(p.power_W).epsilon(1e-12));
  }
  // The site file is itself measurements validate reads: its run against the datasheet's prediction.
  const auto own = dir / "own.csv";
  const auto s = run_command(fleetwatt_command() + " validate " + site.string() + " --rows " + own.string());
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  std::ifstream own_in(own);
  std::getline(own_in, line);
  REQUIRE(std::getline(own_in, line));
  CHECK(line.rfind("site,a40,resnet50,64,0,150,", 0) == 0);
  CHECK(std::stod(line.substr(line.find(",150,") + 5)) == Approx(zero64.epoch_s).epsilon(1e-12));
  // --site corrects the built-in predictor's predictions, not a refit.
  const auto bad = run_command(fleetwatt_command() + " validate " + rec.string() + " --site " +
                               site.string() + " --leave-one-gpu-out");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--site") != std::string::npos);
}

TEST_CASE("a scenario's [fleet] site runs its jobs as predict --site gives them", "[cli][site]") {
  TempDir dir;
  dir.write("site.toml", kSite);
  const auto scenario = dir.write("one.toml", R"([fleet]
nodes = 1
gpus_per_node = 1
gpu = "a40"
site = "site.toml"
)" + std::string(kOneJob));
  const auto p = run_command(fleetwatt_command() + " predict --json --scenario " + scenario.string());
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  CHECK(json_number(p.out, "site_runs") == 1.0);
  CHECK(json_number(p.out, "site_time_factor") < 1.0);  // the run measured 150 s against ~181 s predicted
  const auto out = dir / "one.h5";
  const auto r = run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(out);
  CHECK(h5.doubles("/jobs/end_s").at(0) - h5.doubles("/jobs/start_s").at(0) ==
        Approx(json_number(p.out, "total_s")).epsilon(1e-6));
  CHECK(h5.doubles("/jobs/energy_J").at(0) == Approx(json_number(p.out, "gpu_energy_J")).epsilon(1e-6));

  // A run the predictor cannot predict is an error at its [[run]] table.
  dir.write("site.toml",
            "name = \"lab\"\n\n[[run]]\ngpu_type = \"a40\"\nmodel = \"no-such-model\"\nbatch_size = 64\n"
            "data_size = 100\nepoch_s = 10\n");
  const auto unknown =
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + out.string());
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("site.toml:3:1: ") != std::string::npos);
  CHECK(unknown.err.find("no-such-model") != std::string::npos);
  // A bad site file is one located error before the run: file, line, column and key.
  dir.write("site.toml", std::string(kSite) + "epochs_s = 3\n");
  const auto bad = run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + out.string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("site.toml:") != std::string::npos);
  CHECK(bad.err.find("epochs_s") != std::string::npos);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
}

TEST_CASE("a node group's site corrects its GPU type's jobs, and one GPU type takes one site",
          "[cli][site]") {
  TempDir dir;
  dir.write("lab.toml", kSite);
  // The other site measured the same job on an A40 at twice the time: it must not reach group a40s.
  std::string other = kSite;
  other.replace(other.find("epoch_s = 150.0"), 15, "epoch_s = 300.0");
  dir.write("other.toml", other);
  const std::string fleet = R"([fleet]
site = "other.toml"
[[fleet.group]]
name = "a40s"
nodes = 1
gpus_per_node = 1
gpu = "a40"
site = "lab.toml"
[[fleet.group]]
name = "v100s"
nodes = 1
gpus_per_node = 1
gpu = "v100-pcie-32gb"
)";
  const std::string job = kOneJob;
  const auto scenario = dir.write("groups.toml", fleet + job);
  const auto p = run_command(fleetwatt_command() + " predict --json --scenario " + scenario.string());
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  const auto lab = run_command(fleetwatt_command() + " predict" + kJob + " --batch 64 --epochs 2 --site " +
                               (dir / "lab.toml").string());
  CHECK(json_number(p.out, "total_s") == Approx(json_number(lab.out, "total_s")).epsilon(1e-12));
  const auto out = dir / "groups.h5";
  const auto r = run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(out);
  CHECK(h5.doubles("/jobs/energy_J").at(0) == Approx(json_number(p.out, "gpu_energy_J")).epsilon(1e-6));

  // Two groups of A40s with different sites: refused at the second group's site.
  const auto twice = dir.write("twice.toml", fleet + R"([[fleet.group]]
name = "more"
nodes = 1
gpus_per_node = 1
gpu = "a40"
site = "other.toml"
)" + job);
  const auto bad = run_command(fleetwatt_command() + " run -q " + twice.string() + " -o " + out.string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("twice.toml:19:1: fleet.group.site: groups of GPU type 'a40' take one site file") !=
        std::string::npos);
}

TEST_CASE("calibrate --site appends each run to its site file, created on first use", "[cli][site]") {
  TempDir dir;
  // 20 epochs of 25 s at 200 W and 5 s at 150 W between 20 s idle ends, 1 Hz, with a little ripple.
  std::string log = "time_s,power_W\n";
  int t = 0;
  const auto add = [&](double w, int n) {
    for (int i = 0; i < n; ++i, ++t)
      log += std::to_string(t) + "," + std::to_string(w + 1.5 * std::sin(t * 1.7)) + "\n";
  };
  add(25, 20);
  for (int e = 0; e < 20; ++e) add(200, 25), add(150, 5);
  add(25, 20);
  const auto trace = dir.write("log.csv", log);
  const auto site = dir / "lab.toml";
  const std::string cmd = fleetwatt_command() + " calibrate " + trace.string() + " --site " + site.string() +
                          " --gpu-type a40 --batch-size 64 --data-size 50000";
  // A run needs its model: refused before anything is read or written.
  auto r = run_command(cmd);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "fleetwatt: error: command line: --model: is needed for --site (a site's run names its model, "
        "GPU, batch and samples per epoch)\n");
  CHECK_FALSE(std::filesystem::exists(site));
  r = run_command(cmd + " --model resnet50 --host n1");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  r = run_command(cmd + " --model resnet50 --host n2");
  REQUIRE(r.exit_code == 0);
  const auto read = fleetwatt::models::read_site_file(site);
  CHECK(read.name == "lab");
  REQUIRE(read.runs.size() == 2);
  const auto& run = read.runs[1].run;
  CHECK(read.runs[1].host == "n2");
  CHECK(run.model == "resnet50");
  CHECK(run.epochs == 20);
  // The epochs found: 30 s each, at (25 x 200 + 5 x 150) / 30 = 191.67 W.
  CHECK(run.epoch_s == Approx(30.0).margin(0.2));
  CHECK(run.power_W == Approx(191.67).margin(1.0));
  CHECK(run.params == Approx(25.557e6).epsilon(1e-3));  // the zoo's ResNet-50
}
