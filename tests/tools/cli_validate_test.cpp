// `fleetwatt validate` end to end: on a hand-written Zeus-layout file its row counts and mean relative
// errors equal a hand computation from the datasheet predictor's own predictions; --json parses; a
// malformed file exits 2 naming file:line and the key.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "fleetwatt/models/datasheet_predictor.hpp"
#include "fleetwatt/models/gpu_hardware.hpp"
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
    fleetwatt::workloads::JobSpec job;
    job.meta.model = "resnet50", job.meta.input_size = 224, job.meta.dataset_samples = 1281167;
    job.meta.batch_size = r.batch;
    // Zeus's PyTorch ran FP32 convolutions on the A40's TF32 tensor cores (the reader says so).
    job.meta.precision = fleetwatt::workloads::Precision::tf32;
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
