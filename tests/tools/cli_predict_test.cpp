// `fleetwatt predict` end to end: the JSON keys obey E = P T and the PUE, power limits cap and stretch,
// scenario jobs work (including class-only jobs via the table fallback), and bad input exits 2 naming the
// problem.
#include <catch2/catch.hpp>
#include <regex>

#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {
const std::string kResnet =
    " predict --model resnet50 --gpu a100-sxm-80gb --gpus 4 --batch 256 --image 224 --samples 1281167 "
    "--epochs 90 --pue 1.15 --json";
}  // namespace

TEST_CASE("predict explains its options", "[cli][predict]") {
  const auto r = run_command(fleetwatt_command() + " predict --help");
  CHECK(r.exit_code == 0);
  for (const char* opt : {"--model", "--gpu", "--gpus", "--batch", "--image", "--seq", "--samples",
                          "--epochs", "--precision", "--power-limit", "--predictor", "--pue", "--json"})
    CHECK(r.out.find(opt) != std::string::npos);
}

TEST_CASE("predict's JSON obeys E = P T, the PUE and the zoo counts", "[cli][predict]") {
  const auto r = run_command(fleetwatt_command() + kResnet);
  REQUIRE(r.exit_code == 0);
  const std::string& j = r.out;
  // ResNet-50: 25,557,032 parameters; 4.09 GMACs = 8.18 GFLOP forward at 224 (within 2 %).
  CHECK(json_number(j, "params") == 25557032.0);
  CHECK(json_number(j, "flops_per_sample") == Approx(8.18e9).epsilon(0.02));
  const double peak_W = json_number(j, "peak_W"), peak_s = json_number(j, "peak_s"),
               valley_W = json_number(j, "valley_W"), valley_s = json_number(j, "valley_s");
  CHECK(json_number(j, "epoch_s") == Approx(peak_s + valley_s));
  CHECK(json_number(j, "avg_power_W") ==
        Approx((peak_W * peak_s + valley_W * valley_s) / (peak_s + valley_s)));
  CHECK(json_number(j, "total_s") == Approx(90 * (peak_s + valley_s)));
  const double gpu = json_number(j, "gpu_energy_J");
  CHECK(gpu == Approx(4 * 90 * (peak_W * peak_s + valley_W * valley_s)));
  CHECK(json_number(j, "facility_energy_J") == Approx(1.15 * gpu));
  CHECK(json_number(j, "energy_low_J") < gpu);
  CHECK(json_number(j, "energy_high_J") > gpu);
  CHECK(peak_W <= 400.0);
  CHECK(j.find("\"predictor\": \"datasheet\"") != std::string::npos);
}

TEST_CASE("a power limit below the draw caps peak power and stretches the epoch", "[cli][predict]") {
  const auto free = run_command(fleetwatt_command() + kResnet);
  const auto capped = run_command(fleetwatt_command() + kResnet + " --power-limit 200");
  REQUIRE(free.exit_code == 0);
  REQUIRE(capped.exit_code == 0);
  REQUIRE(json_number(free.out, "peak_W") > 200.0);
  CHECK(json_number(capped.out, "peak_W") <= 200.0 + 1e-6);
  CHECK(json_number(capped.out, "peak_s") > json_number(free.out, "peak_s"));
}

TEST_CASE("predict takes a job from a scenario, class-only jobs included", "[cli][predict]") {
  // Job 1 names a class and gives model metadata (the datasheet predictor reads the metadata); job 2 names
  // only a class (the datasheet predictor falls back to the table's class profile).
  TempDir dir;
  const auto file = dir.write("s.toml", R"([fleet]
gpu = "a800"
[facility]
pue = 1.3
[[workload.jobs]]
id = 1
n_gpus = 4
epochs = 2
class = "vit"
model = "vit-b16"
batch_size = 512
dataset_samples = 1281167
input_size = 224
precision = "bf16"
[[workload.jobs]]
id = 2
n_gpus = 4
class = "vit"
)");
  const auto meta =
      run_command(fleetwatt_command() + " predict --json --predictor datasheet --scenario " + file.string());
  INFO(meta.err);
  REQUIRE(meta.exit_code == 0);
  CHECK(json_number(meta.out, "params") == 86567656.0);
  CHECK(json_number(meta.out, "facility_energy_J") == Approx(1.3 * json_number(meta.out, "gpu_energy_J")));
  CHECK(json_number(meta.out, "total_s") == Approx(2 * json_number(meta.out, "epoch_s")));
  const auto cls = run_command(fleetwatt_command() + " predict --json --predictor datasheet --scenario " +
                               file.string() + " --job 2");
  INFO(cls.err);
  REQUIRE(cls.exit_code == 0);
  CHECK(json_number(cls.out, "peak_W") > 0.0);
  CHECK(cls.out.find("\"predictor\": \"datasheet\"") != std::string::npos);
}

TEST_CASE("predict refuses bad input with exit status 2 and one clear line", "[cli][predict]") {
  struct Case {
    std::string args, expect;
  };
  for (const Case& c : {
           Case{"--model resnet51 --batch 32 --samples 1000", "resnet50"},             // lists known models
           Case{"--model resnet50 --gpu h999 --batch 32 --samples 1000", "h100-sxm"},  // lists known GPUs
           Case{"--model bert-base --image 224 --batch 32 --samples 1000", "--seq"},
           Case{"--model gpt2-medium --gpu rtx3070 --seq 1024 --batch 64 --samples 1000", "GiB"},
           Case{"--model resnet50 --batch 0 --samples 1000", "--batch"},
           Case{"--model resnet50 --batch 32 --samples -5", "--samples"},
           Case{"--model resnet50 --batch 32 --samples 1000 --precision fp12", "fp12"},
       }) {
    const std::string cmd = fleetwatt_command() + " predict " + c.args;
    const auto r = run_command(cmd);
    INFO(cmd << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expect) != std::string::npos);
  }
}

TEST_CASE("predict refuses a size whose times overflow, and its JSON has no inf or nan",
          "[cli][predict][edges]") {
  // --samples 1e300 printed "inf" and "-nan" (not JSON) with exit 0.
  const std::string base =
      " predict --model resnet50 --gpu a100-sxm-80gb --gpus 4 --batch 256 --image 224 --json";
  const auto huge = run_command(fleetwatt_command() + base + " --samples 1e300");
  CHECK(huge.exit_code == 2);
  CHECK(huge.out.empty());
  CHECK(huge.err == "fleetwatt: error: command line: --samples: 1e+300 is too large (at most 1e+15)\n");
  for (const char* flag :
       {" --params 1e16 --flops 1e9", " --params 1e9 --flops 1e25", " --power-limit 2e6"}) {
    INFO(flag);
    const auto r = run_command(fleetwatt_command() + kResnet + flag);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("is too large (at most") != std::string::npos);
  }
  // The largest accepted sizes still give finite numbers: every value parses as a JSON number.
  const auto most = run_command(fleetwatt_command() + base + " --samples 1e15 --epochs 16777216");
  REQUIRE(most.exit_code == 0);
  CHECK(most.out.find("inf") == std::string::npos);
  CHECK(most.out.find("nan") == std::string::npos);
  CHECK(most.out.find("null") == std::string::npos);
  CHECK(json_number(most.out, "gpu_energy_J") > 1e20);
}

TEST_CASE("predict's JSON carries the calibrated band, and energy follows from it", "[cli][predict][band]") {
  const auto r =
      run_command(fleetwatt_command() +
                  " predict --json --model shufflenet_v2 --image 32 --gpu v100-pcie-32gb --batch 8 "
                  "--samples 50000");
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "band_level") == Approx(0.8));
  const double w = json_number(r.out, "avg_power_W"), t = json_number(r.out, "epoch_s"),
               e = json_number(r.out, "gpu_energy_J");
  CHECK(json_number(r.out, "avg_power_low_W") < w);
  CHECK(json_number(r.out, "avg_power_high_W") > w);
  CHECK(json_number(r.out, "epoch_s_low") < t);
  CHECK(json_number(r.out, "epoch_s_high") > t);
  // Energy's band is the product of the time and power bands (one epoch, one GPU).
  CHECK(json_number(r.out, "energy_low_J") ==
        Approx(e * (json_number(r.out, "epoch_s_low") / t) * (json_number(r.out, "avg_power_low_W") / w)));
  CHECK(json_number(r.out, "energy_high_J") ==
        Approx(e * (json_number(r.out, "epoch_s_high") / t) * (json_number(r.out, "avg_power_high_W") / w)));
  // Zeus measured 39.1-39.4 W for this job on its V100 (summary_power_v100.csv, batch 8, 250 W).
  CHECK(w == Approx(39.0).epsilon(0.25));
  // An unknown stack is bad input.
  CHECK(run_command(fleetwatt_command() + " predict --model resnet50 --batch 8 --samples 100 --stack turbo")
            .exit_code == 2);
}

TEST_CASE("predict's high power and energy never exceed the power limit", "[cli][predict][band]") {
  // ResNet-50 at batch 256 per A100 SXM4 80GB (TDP 400 W) is compute-bound and draws near the TDP; the
  // calibrated power band alone would put its high end above 400 W.
  for (const auto& [flags, limit_W] : {std::pair<std::string, double>{"", 400.0},
                                       std::pair<std::string, double>{" --power-limit 300", 300.0}}) {
    const auto r = run_command(fleetwatt_command() + kResnet + flags);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(json_number(r.out, "band_level") > 0.0);
    CHECK(json_number(r.out, "avg_power_high_W") <= limit_W);
    CHECK(json_number(r.out, "avg_power_high_W") == Approx(limit_W));
    // 4 GPUs, 90 epochs, each epoch at most the band's longest at the limit.
    const double cap_J = limit_W * json_number(r.out, "epoch_s_high") * 4 * 90;
    CHECK(json_number(r.out, "energy_high_J") <= cap_J * (1 + 1e-12));
    CHECK(json_number(r.out, "energy_high_J") == Approx(cap_J));
  }
}

TEST_CASE("a scenario job's stack predicts as --stack does", "[cli][predict][stack]") {
  // The same ResNet-50 job from a scenario (stack = "compiled") and from flags (--stack compiled): one
  // prediction; eager (the default) differs, as fused element-wise kernels shorten the step.
  TempDir dir;
  const auto file = dir.write("s.toml", R"([fleet]
gpu = "a100-sxm-80gb"
[[workload.jobs]]
n_gpus = 1
model = "resnet50"
batch_size = 128
input_size = 224
dataset_samples = 100000
stack = "compiled"
)");
  const auto from_file = run_command(fleetwatt_command() + " predict --json --scenario " + file.string());
  INFO(from_file.err);
  REQUIRE(from_file.exit_code == 0);
  const std::string flags =
      " predict --json --model resnet50 --gpu a100-sxm-80gb --batch 128 --image 224 --samples 100000";
  const auto compiled = run_command(fleetwatt_command() + flags + " --stack compiled");
  const auto eager = run_command(fleetwatt_command() + flags);
  REQUIRE(compiled.exit_code == 0);
  REQUIRE(eager.exit_code == 0);
  CHECK(json_number(from_file.out, "epoch_s") == json_number(compiled.out, "epoch_s"));
  CHECK(json_number(from_file.out, "avg_power_W") == json_number(compiled.out, "avg_power_W"));
  CHECK(json_number(from_file.out, "epoch_s") < json_number(eager.out, "epoch_s"));
}
