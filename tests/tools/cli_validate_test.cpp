// `fleetwatt validate` end to end: on a hand-written Zeus-layout file its row counts and mean relative
// errors equal a hand computation from the datasheet predictor's own predictions; --json parses; a
// malformed file exits 2 naming file:line and the key.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fleetwatt/models/fit/serving_check.hpp"
#include "fleetwatt/models/fit/vidur_layers.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"
#include "fleetwatt/runs/telemetry_check.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using namespace fleetwatt::models;

namespace {

const char* const kHeader = "dataset,network,batch_size,optimizer,power_limit,time_per_epoch,average_power\n";

struct Row {
  std::uint32_t batch;
  double limit, epoch_s, power_W;
};

// Three ResNet-50 / ImageNet rows on the A40, at two power limits.
const Row kRows[] = {{256, 300, 1500.0, 280.0}, {128, 300, 1700.0, 260.0}, {256, 200, 2100.0, 195.0}};

std::string zeus_text() {
  std::string text = kHeader;
  for (const Row& r : kRows)
    text += "imagenet,resnet50," + std::to_string(r.batch) + ",adam," + std::to_string(r.limit) + "," +
            std::to_string(r.epoch_s) + "," + std::to_string(r.power_W) + "\n";
  return text;
}

/// A share as the table prints it.
std::string fmt_pct(double v) {
  return fmt::format("{:.1f}", 100.0 * v);
}

/// The mean relative errors the datasheet predictor makes on kRows, computed through the library.
std::pair<double, double> expected_mre() {
  double time = 0.0, power = 0.0;
  for (const Row& r : kRows) {
    fleetwatt::jobs::JobSpec job;
    job.meta.model = "resnet50", job.meta.input_size = 224, job.meta.dataset_samples = 1281167;
    job.meta.batch_size = r.batch;
    // Zeus's PyTorch ran FP32 convolutions on the A40's TF32 tensor cores (the reader says so).
    job.meta.precision = fleetwatt::jobs::Precision::tf32;
    DatasheetParams params;
    params.power_limit_W = r.limit;
    const auto p = DatasheetPredictor(params).predict(job, gpu_preset("a40"));
    time += std::abs(p.epoch_s() - r.epoch_s) / r.epoch_s;
    power += std::abs(p.mean_W() - r.power_W) / r.power_W;
  }
  return {time / 3.0, power / 3.0};
}

}  // namespace

TEST_CASE("validate explains its options", "[cli][validate]") {
  const auto r = run_command(fleetwatt_command() + " validate --help");
  CHECK(r.exit_code == 0);
  for (const char* opt : {"--json", "--predictor", "MEASUREMENTS", "Zeus", "NeuSight"})
    CHECK(r.out.find(opt) != std::string::npos);
}

TEST_CASE("validate's errors on a Zeus file equal the predictor's own", "[cli][validate]") {
  TempDir dir;
  const auto file = dir.write("summary_power_a40.csv", zeus_text());
  const auto [time_mre, power_mre] = expected_mre();

  const auto r = run_command(fleetwatt_command() + " validate " + file.string() + " --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.contains("gpus"));
  REQUIRE(j.contains("all"));
  REQUIRE(j.contains("skipped"));
  CHECK(j["skipped"] == 0);
  REQUIRE(j["gpus"].contains("a40"));
  CHECK(j["gpus"].size() == 1);
  for (const auto* s : {&j["gpus"]["a40"], &j["all"]}) {
    CHECK((*s)["rows"] == 3);
    CHECK((*s)["power_rows"] == 3);
    CHECK((*s)["time_mre"].get<double>() == Approx(time_mre).epsilon(1e-9));
    CHECK((*s)["power_mre"].get<double>() == Approx(power_mre).epsilon(1e-9));
    CHECK((*s)["banded_rows"] == (*s)["rows"]);  // the datasheet predictor carries its calibrated band
    for (const char* key : {"time_in_band", "power_in_band", "band_level"}) CHECK(s->contains(key));
  }

  // The table: a line per GPU and the summary line.
  const auto t = run_command(fleetwatt_command() + " validate " + file.string());
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("time MRE %") != std::string::npos);
  CHECK(t.out.find("a40") != std::string::npos);
  CHECK(t.out.find(fmt_pct(time_mre)) != std::string::npos);
}

TEST_CASE("validate counts skipped rows on stderr", "[cli][validate]") {
  TempDir dir;
  const auto file =
      dir.write("summary_power_a40.csv", zeus_text() + "librispeech,deepspeech2,32,adam,300,5000,250\n");
  const auto r = run_command(fleetwatt_command() + " validate " + file.string() + " --json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["skipped"] == 1);
  CHECK(nlohmann::json::parse(r.out)["all"]["rows"] == 3);
  CHECK(r.err.find("1 row(s) skipped") != std::string::npos);
}

TEST_CASE("validate on a malformed file exits 2 naming file:line and the key", "[cli][validate]") {
  TempDir dir;
  const auto file =
      dir.write("summary_power_a40.csv", std::string(kHeader) + "imagenet,resnet50,256,adam,300,1500,280\n" +
                                             "imagenet,resnet50,256,adam,abc,1500,280\n");
  const auto r = run_command(fleetwatt_command() + " validate " + file.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("summary_power_a40.csv:3") != std::string::npos);
  CHECK(r.err.find("power_limit") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  // An unknown predictor and a missing file are bad input too.
  const auto p = run_command(fleetwatt_command() + " validate " + file.string() + " --predictor nope");
  CHECK(p.exit_code == 2);
  CHECK(p.err.find("nope") != std::string::npos);
  CHECK(run_command(fleetwatt_command() + " validate " + (dir / "absent").string()).exit_code == 2);
}

TEST_CASE("validate --steps and predict give a published row the same step",
          "[cli][validate][steps][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto v = run_command(fleetwatt_command() + " validate " + data.string() + " --steps --json");
  INFO(v.err);
  REQUIRE(v.exit_code == 0);
  const auto doc = nlohmann::json::parse(v.out);
  const auto& rows = doc.at("rows");
  // The summary is its rows': their count and their mean |error|.
  double sum = 0.0;
  std::size_t predicted = 0;
  for (const auto& r : rows)
    if (r.at("refused").get<std::string>().empty()) ++predicted, sum += std::abs(r.at("error").get<double>());
  CHECK(doc.at("predicted").get<std::size_t>() == predicted);
  CHECK(doc.at("mean_abs_error").get<double>() == Approx(sum / predicted).epsilon(1e-12));
  // Every source, and each way of splitting a job (context parallel, interleaved, FSDP, uneven stages):
  // one fitting row of each kind on an 8-GPU-server system, through `predict --scenario` with the row's job
  // and fabric.
  using Job = const nlohmann::json&;
  const struct {
    std::string source, kind;
    std::function<bool(Job)> wanted;
  } kinds[] = {
      {"NeMo long-sequence", "cp", [](Job j) { return j.at("cp").get<int>() > 2; }},
      {"NeMo 24.07", "vp", [](Job j) { return j.at("vp").get<int>() > 1; }},
      {"Megatron-Bridge", "FSDP", [](Job j) { return j.at("zero").get<int>() == 3; }},
      {"Megatron-Bridge", "uneven stages", [](Job j) { return j.contains("first_stage_layers"); }},
  };
  for (const auto& k : kinds) {
    INFO(k.source << ", " << k.kind);
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const nlohmann::json& r) {
      const std::string gpu = r.at("gpu").get<std::string>();
      return r.at("source").get<std::string>().rfind(k.source, 0) == 0 &&
             r.at("refused").get<std::string>().empty() && r.at("memory_fits").get<bool>() &&
             (gpu == "h100-sxm" || gpu == "b200") && k.wanted(r.at("job"));
    });
    REQUIRE(row != rows.end());
    const auto& job = row->at("job");
    std::string toml = fmt::format(
        "[fleet]\ngpu = \"{}\"\ngpus_per_node = 8\nnodes = {}\n[predictor]\nkind = \"datasheet\"\n"
        "internode_gbytes_per_s = {}\n[[workload.jobs]]\n",
        row->at("gpu").get<std::string>(), (job.at("n_gpus").get<int>() + 7) / 8,
        doc.at("internode_gbytes_per_s").get<double>());
    for (const auto& [key, value] : job.items()) toml += key + " = " + value.dump() + "\n";
    TempDir dir;
    const auto file = dir.write("row.toml", toml);
    const auto p = run_command(fleetwatt_command() + " predict --json --scenario " + file.string());
    INFO(toml << p.err);
    REQUIRE(p.exit_code == 0);
    CHECK(json_number(p.out, "step_s") == Approx(row->at("predicted_s").get<double>()).epsilon(1e-12));
  }
}

TEST_CASE("validate --few-shot predicts the rows its calibration runs leave, and says how many it used",
          "[cli][validate][few-shot]") {
  TempDir dir;
  const auto file = dir.write("summary_power_a40.csv", zeus_text());
  // Few-shot corrects the datasheet predictor's leave-one-GPU-out predictions: another predictor is bad
  // input.
  const auto bad =
      run_command(fleetwatt_command() + " validate " + file.string() + " --few-shot 1 --predictor table");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--few-shot") != std::string::npos);
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  // GAISSA's 219 runs: 7 (GPU, architecture) groups, each calibrated on one run, the other 212 predicted.
  const auto r = run_command(fleetwatt_command() + " validate " + (data / "gaissa-seaa2023").string() +
                             " --few-shot 1 --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.contains("few_shot"));
  CHECK(j["few_shot"]["k"] == 1);
  const int calibration = j["few_shot"]["calibration_rows"], left = j["few_shot"]["uncalibrated_rows"];
  CHECK(calibration == 7);
  CHECK(calibration + left + j["all"]["rows"].get<int>() == 219);
  CHECK(r.err.find("few-shot, k = 1: 7 rows calibrate") != std::string::npos);
}

TEST_CASE("validate --serving gives each row the library's prediction, and a bad row is one located line",
          "[cli][validate][serving]") {
  TempDir dir;
  const std::string header =
      "model,hardware,prompt_size,batch_size,token_size,peak_power,average_power,prompt_time,token_time,"
      "e2e_time,tensor_parallel\n";
  dir.write("perf_model.csv", header +
                                  "llama2-70b,a100-80gb,512,1,128,1.0,0.74,196,54.8,7160,2\n"
                                  "llama2-70b,a100-80gb,512,8,128,1.0,0.43,765,46.5,6680,8\n"
                                  "llama2-70b,h100-80gb,512,1,128,0,0,84,37.0,4820,2\n"
                                  "bloom-176b,h100-80gb,1024,1,128,0,0,150,40.0,5270,8\n");
  const auto csv = dir / "rows.csv";
  const auto r = run_command(fleetwatt_command() + " validate " + dir.path().string() +
                             " --serving --json --rows " + csv.string());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["all"]["rows"] == 4);
  CHECK(j["all"]["power_rows"] == 2);
  // Each GPU's rows with the host time fitted on the other GPU's.
  const auto rows = read_splitwise_perf(dir.path());
  std::map<std::string, double> without;
  for (const std::string gpu : {"a100-sxm-80gb", "h100-sxm"}) {
    std::vector<const ServingMeasurement*> others;
    for (const auto& m : rows)
      if (m.gpu != gpu) others.push_back(&m);
    without[gpu] = fit_layer_overhead(others);
  }
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  CHECK(line.rfind("model,gpu,tp,prompt_tokens,batch,output_tokens,measured_prompt_s,predicted_prompt_s",
                   0) == 0);
  std::size_t n = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 14);
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const ServingMeasurement& m) {
      return m.model == f[0] && m.gpu == f[1] && std::to_string(m.tp) == f[2];
    });
    REQUIRE(it != rows.end());
    ServingConstants c;
    c.layer_overhead_s = without.at(it->gpu);
    c.decode_graphs = false;
    const ServingPrediction p = predict_serving_row(*it, c);
    CHECK(std::stod(f[7]) == Approx(p.prompt_s).epsilon(1e-12));
    CHECK(std::stod(f[9]) == Approx(p.token_s).epsilon(1e-12));
    CHECK(std::stod(f[13]) == Approx(p.power_fraction).epsilon(1e-12));
    ++n;
  }
  CHECK(n == 4);

  // The training predictor's options do not apply to the serving check.
  const auto mixed =
      run_command(fleetwatt_command() + " validate " + dir.path().string() + " --serving --few-shot 1");
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.err.find("--serving") != std::string::npos);

  dir.write("perf_model.csv", header + "llama2-70b,a100-80gb,512,1,128,1.0,0.74,196,-54.8,7160,2\n");
  const auto bad = run_command(fleetwatt_command() + " validate " + dir.path().string() + " --serving");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("perf_model.csv:2:") != std::string::npos);
  CHECK(bad.err.find("token_time") != std::string::npos);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
}

TEST_CASE(
    "validate --telemetry prints each window as the library predicts it, and --serving on Vidur's "
    "profiles each layer",
    "[cli][validate][serving]") {
  const auto folder = source_dir() / "examples" / "telemetry" / "h200-sxm" / "ctx1024";
  const auto r = run_command(fleetwatt_command() + " validate " + folder.string() + " --telemetry --json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto windows = fleetwatt::runs::read_telemetry_windows(folder);
  const auto check = fleetwatt::runs::check_telemetry(windows, folder);
  REQUIRE(j.at("windows").size() == check.rows.size());
  for (std::size_t i = 0; i < check.rows.size(); ++i) {
    CHECK(j["windows"][i]["name"] == check.rows[i].window->name);
    CHECK(j["windows"][i]["predicted_W"].get<double>() == Approx(check.rows[i].predicted_W).epsilon(1e-12));
    CHECK(j["windows"][i]["predicted_s"].get<double>() == Approx(check.rows[i].predicted_s).epsilon(1e-12));
  }
  CHECK(j["kinds"]["train"]["time_mre"].get<double>() ==
        Approx(check.kinds.at("train").time_mre).epsilon(1e-12));
  // Not with the training predictor's options, named on one line.
  const auto bad = run_command(fleetwatt_command() + " validate " + folder.string() + " --telemetry --fit");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--telemetry"));

  // Vidur's layer profiles: the rows written are the library's predictions.
  TempDir dir;
  std::filesystem::create_directories(dir / "compute/a100/org/Tiny");
  dir.write(
      "compute/a100/org/Tiny/mlp.csv",
      "time_stats.input_layernorm.median,time_stats.attn_pre_proj.median,time_stats.attn_rope.median,"
      "time_stats.attn_post_proj.median,time_stats.post_attention_layernorm.median,"
      "time_stats.mlp_up_proj.median,time_stats.mlp_act.median,time_stats.mlp_down_proj.median,"
      "time_stats.add.median,n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,"
      "num_tensor_parallel_workers\n"
      "0.003,0.010,0.004,0.005,0.003,0.020,0.004,0.012,0.002,8,2,1024,4096,0,True,256,1\n");
  const auto rows_csv = dir / "rows.csv";
  const auto v = run_command(fleetwatt_command() + " validate " + dir.path().string() + " --serving --rows " +
                             rows_csv.string());
  REQUIRE(v.exit_code == 0);
  const auto layers = read_vidur_layers(dir.path());
  const auto predicted = check_vidur_layers(layers).predicted.at(0);
  std::ifstream in(rows_csv);
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  std::vector<std::string> f;
  std::stringstream ss(line);
  for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
  REQUIRE(f.size() == 8);
  CHECK(std::stod(f[5]) == Approx(predicted.gemm_s).epsilon(1e-12));
  CHECK(std::stod(f[7]) == Approx(predicted.elementwise_s).epsilon(1e-12));

  // --few-shot 1 on Vidur's profiles: a group of one row has nothing to predict once it calibrates, so it
  // is left out; with a second token count, one calibrates and the other is predicted, by the library's rule.
  const auto one =
      run_command(fleetwatt_command() + " validate " + dir.path().string() + " --serving --few-shot 1");
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.err, Catch::Contains("0 rows calibrate their (GPU, model, tp) groups, 1 rows of groups"));
  CHECK_THAT(one.err, Catch::Contains("0 rows predicted"));
  std::ifstream profile_in(dir / "compute/a100/org/Tiny/mlp.csv");
  std::stringstream profile;
  profile << profile_in.rdbuf();
  dir.write(
      "compute/a100/org/Tiny/mlp.csv",
      profile.str() + "0.004,0.019,0.005,0.009,0.004,0.039,0.006,0.023,0.003,8,2,1024,4096,0,True,512,1\n");
  const auto two = run_command(fleetwatt_command() + " validate " + dir.path().string() +
                               " --serving --few-shot 1 --json");
  REQUIRE(two.exit_code == 0);
  const auto few = nlohmann::json::parse(two.out);
  CHECK(few["few_shot"]["calibration_rows"] == 1);
  const auto two_rows = read_vidur_layers(dir.path());  // the predictions point into these
  const auto lib = few_shot_vidur_layers(check_vidur_layers(two_rows), 1);
  REQUIRE(lib.check.predicted.size() == 1);
  CHECK(lib.check.predicted[0].row->tokens == 512.0);  // the middle of two counts is the smaller
  CHECK(few["all"]["rows"] == 1);
  CHECK(few["all"]["layer_mre"].get<double>() == Approx(lib.check.all.layer_mre).epsilon(1e-12));
}
