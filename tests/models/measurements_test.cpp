// Measurement readers: the Zeus, GAISSA, NeuSight and fleetwatt records layouts turn into rows with the
// mapping the validation tests use; a folder is read whole; malformed files are located errors.
#include "fleetwatt/models/fit/measurements.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <set>

#include "fleetwatt/models/fit/records.hpp"
#include "fleetwatt/models/validation_report.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models;
using fleetwatt::jobs::ConfigError;

namespace {

const Measurement* find_row(const MeasurementSet& set, const std::string& file_end, std::uint32_t line) {
  for (const auto& m : set.rows) {
    const std::string& f = m.where.file;
    if (f.size() >= file_end.size() &&
        f.compare(f.size() - file_end.size(), file_end.size(), file_end) == 0 && m.where.line == line)
      return &m;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("GPU names as the sources spell them map to presets", "[models][measurements]") {
  CHECK(preset_for_gpu_name("Tesla_V100-PCIE-32GB") == "v100-pcie-32gb");
  CHECK(preset_for_gpu_name("NVIDIA_A100-PCIE-40GB") == "a100-pcie-40gb");
  CHECK(preset_for_gpu_name("NVIDIA_A100-SXM4-40GB") == "a100-sxm4-40gb");
  CHECK(preset_for_gpu_name("NVIDIA_A100_80GB_PCIe") == "a100-pcie-80gb");
  CHECK(preset_for_gpu_name("NVIDIA_L4") == "l4");
  CHECK(preset_for_gpu_name("Tesla_P4") == "p4");
  CHECK(preset_for_gpu_name("Tesla_T4") == "t4");
  CHECK(preset_for_gpu_name("AMD_Instinct_MI100") == "mi100");
  CHECK(preset_for_gpu_name("AMD_Instinct_MI210") == "mi210");
  CHECK(preset_for_gpu_name("AMD_Instinct_MI250") == "mi250");
  CHECK(preset_for_gpu_name("NVIDIA GeForce RTX 3070") == "rtx3070");
  CHECK(preset_for_gpu_name("NVIDIA GeForce GTX 750 Ti") == "gtx750ti");
  CHECK(preset_for_gpu_name("a40") == "a40");
  CHECK(preset_for_gpu_name("rtx6000") == "rtx6000");
  CHECK(preset_for_gpu_name("v100") == "v100-pcie-32gb");
  CHECK(preset_for_gpu_name("l40s") == "l40s");
  CHECK(preset_for_gpu_name("Voodoo 5 6000").empty());
  CHECK(preset_for_gpu_name("").empty());
}

TEST_CASE("The shared data reads whole: rows per source and GPU", "[models][measurements]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const MeasurementSet set = read_measurements(data);
  std::map<std::string, std::size_t> counts;
  for (const auto& m : set.rows) ++counts[m.source + " " + m.gpu];
  std::map<std::string, std::size_t> skipped;
  for (const auto& s : set.skipped)
    ++skipped[std::filesystem::path(s.where.file).parent_path().filename().string()];
  std::string report = "rows per source and GPU:\n";
  for (const auto& [k, n] : counts) report += fmt::format("  {:<28} {}\n", k, n);
  for (const auto& [k, n] : skipped) report += fmt::format("  skipped in {:<22} {}\n", k, n);
  WARN(report);
  // Zeus: every row of the three files, less deepspeech2 and BERT on sentiment140 (352 skipped).
  CHECK(counts["zeus a40"] == 369);
  CHECK(counts["zeus rtx6000"] == 282);
  CHECK(counts["zeus v100-pcie-32gb"] == 336);
  CHECK(skipped["zeus-nsdi23"] == 352);
  CHECK(counts["gaissa rtx3070"] == 159);
  CHECK(counts["gaissa gtx750ti"] == 60);
  // NeuSight: 110 label files; 12 of them 4-GPU (dp4, tp4, pp4) or mixture-of-experts runs.
  CHECK(counts["neusight v100-pcie-32gb"] == 11);
  CHECK(counts["neusight a100-pcie-40gb"] == 14);
  CHECK(counts["neusight a100-pcie-80gb"] == 8);
  CHECK(counts["neusight a100-sxm4-40gb"] == 0);
  CHECK(counts["neusight l4"] == 14);
  CHECK(counts["neusight t4"] == 5);
  CHECK(counts["neusight p4"] == 3);
  CHECK(counts["neusight mi100"] == 11);
  CHECK(counts["neusight mi210"] == 16);
  CHECK(counts["neusight mi250"] == 16);
  std::size_t neusight = 0, neusight_skipped = 0;
  for (const auto& m : set.rows) neusight += m.source == "neusight";
  for (const auto& s : set.skipped) neusight_skipped += s.where.file.find("neusight") != std::string::npos;
  CHECK(neusight == 98);
  CHECK(neusight_skipped == 12);
  CHECK(set.rows.size() == 369 + 282 + 336 + 159 + 60 + 98);
}

TEST_CASE("A Zeus row maps to the job of the validation test", "[models][measurements]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const MeasurementSet set = read_measurements(data / "zeus-nsdi23" / "summary_power_a40.csv");
  // Line 2: cifar100,shufflenetv2,1024,adadelta,100,27.130000000000003,106.88881213499654
  const Measurement* m = find_row(set, "summary_power_a40.csv", 2);
  REQUIRE(m != nullptr);
  CHECK(m->source == "zeus");
  CHECK(m->gpu == "a40");
  CHECK(m->workload == "shufflenetv2/cifar100");
  CHECK(m->power_limit_W == 100.0);
  CHECK(m->epoch_s == Approx(27.13));
  CHECK(m->avg_power_W == Approx(106.88881213499654));
  CHECK(m->step_s == 0.0);
  CHECK(m->job.meta.model == "shufflenet_v2");
  CHECK(m->job.meta.batch_size == 1024);
  CHECK(m->job.meta.input_size == 32);
  CHECK(m->job.meta.dataset_samples == 50000.0);
  CHECK(m->job.meta.flops_per_sample == Approx(shufflenet_v2(32, 100).forward_flops));
  // The V100 file is the PCIe card's; deepspeech2 rows are skipped with a reason.
  const MeasurementSet v100 = read_measurements(data / "zeus-nsdi23" / "summary_power_v100.csv");
  REQUIRE(!v100.rows.empty());
  CHECK(v100.rows.front().gpu == "v100-pcie-32gb");
  // PyTorch of 2022 ran FP32 matmuls and convolutions on TF32 tensor cores where the GPU has them (the A40),
  // not on the V100.
  CHECK(m->job.meta.precision == fleetwatt::jobs::Precision::tf32);
  CHECK(v100.rows.front().job.meta.precision == fleetwatt::jobs::Precision::fp32);
  REQUIRE(!v100.skipped.empty());
  CHECK(v100.skipped.front().why.find("deepspeech2") != std::string::npos);
}

TEST_CASE("A GAISSA row maps to the job of the validation test", "[models][measurements]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const MeasurementSet set =
      read_measurements(data / "gaissa-seaa2023" / "dl-training-energy-consumption-dataset.csv");
  CHECK(set.rows.size() == 219);
  // Line 2: GTX 750 Ti, mobilenet_v2 run 0: 1.993915 h, 82 "trained epochs" (73 run: GAISSA counts the
  // early-stopping patience past the restored epoch), 2,784,064 images over the 82, 27.946 W, 60 W limit.
  const Measurement* m = find_row(set, "dl-training-energy-consumption-dataset.csv", 2);
  REQUIRE(m != nullptr);
  CHECK(m->source == "gaissa");
  CHECK(m->gpu == "gtx750ti");
  CHECK(m->workload == "keras-mobilenet_v2");
  CHECK(m->job.meta.model == "keras-mobilenet_v2");
  CHECK(m->job.meta.params == 3.54e6);
  CHECK(m->job.meta.flops_per_sample == Approx(0.06402816e9));
  CHECK(m->job.meta.training_flops_per_sample == m->job.meta.flops_per_sample);
  CHECK(m->job.meta.batch_size == 32);
  CHECK(m->job.meta.dataset_samples == Approx(2784064.0 / 82));
  CHECK(m->job.epochs == 73);
  CHECK(m->epoch_s == Approx(1.993915 * 3600 / 73));
  CHECK(m->avg_power_W == Approx(27.946062717770033));
  CHECK(m->tdp_W == 60.0);
  CHECK(m->power_limit_W == 0.0);
  // Its "gpu usage (%)", 94.399 %: nvidia-smi's utilization.gpu averaged over the run.
  CHECK(m->gpu_busy == Approx(0.943990243902439));
  // The Maxwell board has no TF32; the RTX 3070 (TensorFlow >= 2.4's default) runs FP32 convolutions as TF32.
  CHECK(m->job.meta.stack == fleetwatt::jobs::SoftwareStack::eager);
  CHECK(m->job.meta.precision == fleetwatt::jobs::Precision::fp32);
  bool rtx3070_tf32 = false;
  for (const auto& r : set.rows)
    if (r.gpu == "rtx3070") rtx3070_tf32 = r.job.meta.precision == fleetwatt::jobs::Precision::tf32;
  CHECK(rtx3070_tf32);
}

TEST_CASE("NeuSight's GPT-3 XL is predicted in the shape it ran", "[models][measurements]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto folder = data / "neusight-asplos25" / "label" / "NVIDIA_A100_80GB_PCIe";
  const MeasurementSet set = read_measurements(folder);
  const Measurement* xl = nullptr;
  for (const auto& m : set.rows)
    if (m.where.file.ends_with("gpt3_xl-train-2048-1.json")) xl = &m;
  REQUIRE(xl != nullptr);
  // Its per-operator CSV: c_attn [2048, 3072] x [3072, 9216], c_fc 3072 -> 12288, 24 heads of 128.
  REQUIRE(xl->shape.has_value());
  CHECK(xl->shape->d_model == 3072);
  CHECK(xl->shape->heads == 24);
  CHECK(xl->shape->layers == 24);
  CHECK(xl->shape->d_ff == 12288);
  // Hand count: 24 x (12 d^2 + 13 d) + (50257 + 2048) d + 2 d (final LayerNorm), d = 3072.
  const double d = 3072.0;
  CHECK(transformer(*xl->shape).params == Approx(24 * (12 * d * d + 13 * d) + (50257 + 2048) * d + 2 * d));
  // The validation path gives the predictor that shape's parameters and FLOPs.
  const auto job = as_predicted(*xl);
  CHECK(job.meta.params == Approx(transformer(*xl->shape).params));
  CHECK(job.meta.flops_per_sample == Approx(transformer(*xl->shape).forward_flops));
}

TEST_CASE("A NeuSight label file is one step of one GPU", "[models][measurements]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto folder = data / "neusight-asplos25" / "label" / "Tesla_V100-PCIE-32GB";
  const MeasurementSet set = read_measurements(folder);
  CHECK(set.rows.size() + set.skipped.size() == 13);
  const Measurement* train = nullptr;
  const Measurement* inf = nullptr;
  for (const auto& m : set.rows) {
    if (m.where.file.ends_with("bert_large-train-512-8.json")) train = &m;
    if (m.where.file.ends_with("bert_large-inf-512-16.json")) inf = &m;
  }
  REQUIRE(train != nullptr);
  // {"e2e_latency": 841.1236450195313, ...}
  CHECK(train->source == "neusight");
  CHECK(train->gpu == "v100-pcie-32gb");
  CHECK(train->workload == "bert_large-train");
  CHECK(train->step_s == Approx(0.8411236450195313));
  CHECK(train->epoch_s == 0.0);
  CHECK(!train->inference);
  CHECK(is_zoo_model(train->job.meta.model));
  CHECK(train->job.meta.batch_size == 8);
  CHECK(train->job.meta.input_size == 512);
  CHECK(train->job.meta.dataset_samples == 8.0);
  CHECK(train->job.meta.training_flops_per_sample == 0.0);
  REQUIRE(inf != nullptr);
  CHECK(inf->inference);
  CHECK(inf->job.meta.training_flops_per_sample == Approx(count_model("bert-large", 512).forward_flops));
  // Mixture-of-experts runs are skipped with the reason.
  bool moe = false;
  for (const auto& s : set.skipped) moe = moe || s.why.find("mixture-of-experts") != std::string::npos;
  CHECK(moe);
}

TEST_CASE("NeuSight multi-GPU and fused runs", "[models][measurements]") {
  fleetwatt::test::TempDir dir;
  std::filesystem::create_directories(dir / "NVIDIA_L4");
  dir.write("NVIDIA_L4/gpt2_large-inf-1024-4-fusion.json", R"({"num_layer": 36, "e2e_latency": 500.0})");
  dir.write("NVIDIA_L4/gpt2_large-train-1024-4-dp4.json", R"({"num_layer": 36, "e2e_latency": 900.0})");
  dir.write("NVIDIA_L4/gpt2_large-inf-1024-4.csv", ",name,op\n0,x,y\n");  // per-operator file: ignored
  const MeasurementSet set = read_measurements(dir.path());
  REQUIRE(set.rows.size() == 1);
  CHECK(set.rows[0].gpu == "l4");
  CHECK(set.rows[0].job.meta.stack == fleetwatt::jobs::SoftwareStack::compiled);
  CHECK(set.rows[0].step_s == Approx(0.5));
  CHECK(set.rows[0].inference);
  REQUIRE(set.skipped.size() == 1);
  CHECK(set.skipped[0].why.find("dp4") != std::string::npos);
  // A label file without e2e_latency is an error naming the file and key.
  dir.write("NVIDIA_L4/opt_13-inf-2048-2.json", R"({"num_layer": 24})");
  CHECK_THROWS_WITH(read_measurements(dir.path()),
                    Catch::Contains("opt_13-inf-2048-2.json") && Catch::Contains("e2e_latency"));
}

TEST_CASE("A fleetwatt records CSV maps each record to a measured epoch", "[models][measurements]") {
  fleetwatt::test::TempDir dir;
  const auto file =
      dir.write("records.csv", fit::record_header_without_epochs() +
                                   "\nresnet50,25557032,8.18e9,256,1281167,224,8,3,1,a100-sxm-80gb,"
                                   "100,20,350,980,2,1e6,1e6,trace.csv\n"
                                   "resnet50,,,256,1281167,224,8,3,1,Voodoo,100,20,350,980,2,1e6,1e6,x\n");
  const MeasurementSet set = read_measurements(file);
  REQUIRE(set.rows.size() == 1);
  const Measurement& m = set.rows[0];
  CHECK(m.source == "records");
  CHECK(m.gpu == "a100-sxm-80gb");
  CHECK(m.where.line == 2);
  CHECK(m.job.meta.model == "resnet50");
  CHECK(m.job.meta.batch_size == 256);
  CHECK(m.job.meta.dataset_samples == 1281167.0);
  CHECK(m.job.epochs == 3);
  CHECK(m.epoch_s == Approx(1000.0));
  CHECK(m.avg_power_W == Approx((350.0 * 980 + 100.0 * 20) / 1000.0));
  REQUIRE(set.skipped.size() == 1);
  CHECK(set.skipped[0].where.line == 3);
}

TEST_CASE("A malformed measurement file is an error naming file, line and key", "[models][measurements]") {
  fleetwatt::test::TempDir dir;
  const auto file =
      dir.write("summary_power_a40.csv",
                "dataset,network,batch_size,optimizer,power_limit,time_per_epoch,average_power\n"
                "imagenet,resnet50,256,adam,300,1000,250\n"
                "imagenet,resnet50,256,adam,300,fast,250\n");
  try {
    (void)read_measurements(file);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("summary_power_a40.csv:3") != std::string::npos);
    CHECK(e.field() == "time_per_epoch");
  }
  // The same file inside a folder is still read (and fails the same way).
  CHECK_THROWS_AS(read_measurements(dir.path()), ConfigError);
}

TEST_CASE("A file of no known layout is refused alone and ignored in a folder", "[models][measurements]") {
  fleetwatt::test::TempDir dir;
  const auto other = dir.write("notes.csv", "a,b,c\n1,2,3\n");
  CHECK_THROWS_WITH(read_measurements(other), Catch::Contains("notes.csv") && Catch::Contains("layout"));
  dir.write("summary_power_rtx6000.csv",
            "dataset,network,batch_size,optimizer,power_limit,time_per_epoch,average_power\n"
            "imagenet,resnet50,256,adam,260,1000,250\n");
  const MeasurementSet set = read_measurements(dir.path());
  REQUIRE(set.rows.size() == 1);
  CHECK(set.rows[0].gpu == "rtx6000");
  CHECK_THROWS_AS(read_measurements(dir / "absent.csv"), ConfigError);
}

TEST_CASE("validate_measurements: errors of the measured kind, power where measured, band shares",
          "[models][measurements][validate]") {
  MeasurementSet set;
  Measurement epoch_row;
  epoch_row.gpu = "a40", epoch_row.epoch_s = 100.0, epoch_row.avg_power_W = 200.0;
  Measurement step_row;
  step_row.gpu = "l4", step_row.step_s = 0.5;  // per step, no power
  Measurement bad_row;
  bad_row.gpu = "a40", bad_row.epoch_s = 10.0, bad_row.job.meta.model = "unknown";
  set.rows = {epoch_row, step_row, bad_row};
  SkippedMeasurement earlier;
  earlier.where.file = "x.csv", earlier.where.line = 3, earlier.why = "deepspeech2";
  set.skipped.push_back(earlier);
  const auto report = validate_measurements(set, [](const Measurement& m) {
    if (m.job.meta.model == "unknown") throw std::invalid_argument("unknown model");
    Prediction p;
    p.epoch_s = 110.0, p.step_s = 0.4, p.avg_power_W = 250.0;
    p.band.level = 0.8, p.band.time_low = 0.8, p.band.time_high = 1.2;
    p.band.power_low = 0.9, p.band.power_high = 1.1;
    return p;
  });
  REQUIRE(report.gpus.count("a40") == 1);
  CHECK(report.gpus.at("a40").rows == 1);
  CHECK(report.gpus.at("a40").time_mre == Approx(0.1));
  CHECK(report.gpus.at("a40").power_mre == Approx(0.25));
  CHECK(report.gpus.at("a40").time_in_band == 1.0);   // 100 in [88, 132]
  CHECK(report.gpus.at("a40").power_in_band == 0.0);  // 200 outside [225, 275]
  CHECK(report.gpus.at("a40").band_level == Approx(0.8));
  CHECK(report.gpus.at("l4").time_mre == Approx(0.2));  // step time: |0.4 - 0.5| / 0.5
  CHECK(report.gpus.at("l4").power_rows == 0);
  CHECK(report.gpus.at("l4").time_in_band == 0.0);  // 0.5 outside [0.32, 0.48]
  CHECK(report.all.rows == 2);
  CHECK(report.all.time_mre == Approx(0.15));
  CHECK(report.all.power_mre == Approx(0.25));
  REQUIRE(report.skipped.size() == 2);
  CHECK(report.skipped[1].why == "unknown model");
}

TEST_CASE(
    "validate_measurements: a measured busy share is compared only with a prediction that splits its time",
    "[models][measurements][validate]") {
  MeasurementSet set;
  Measurement row;
  row.gpu = "rtx3070", row.workload = "keras-vgg16", row.epoch_s = 100.0, row.gpu_busy = 0.9;
  set.rows = {row, row};
  // 50 steps of 1.6 s GPU work under 0.1 s of launches, nothing else: the GPU runs 80 s of the steps' time.
  const TimeSplit split{50.0, 1.6, 0.1, 1.0, 0.0, 0.0};
  const auto with_split = [&](const Measurement&) {
    Prediction p;
    p.epoch_s = split.time_s(1.0, 1.0), p.split = split;
    return p;
  };
  const ValidationReport compared = validate_measurements(set, with_split);
  REQUIRE(compared.compared.size() == 2);
  CHECK(compared.compared[0].measured_busy == 0.9);
  CHECK(compared.compared[0].predicted_busy == Approx(80.0 / split.time_s(1.0, 1.0)));
  const std::vector<BusyShare> busy = busy_shares(set, compared);
  REQUIRE(busy.size() == 1);
  CHECK(busy[0].rows == 2);
  CHECK(busy[0].measured == Approx(0.9));
  CHECK(busy[0].predicted == Approx(80.0 / split.time_s(1.0, 1.0)));
  // A prediction without a split (a site's correction, another predictor) states no share: not compared,
  // rather than compared with 0.
  const ValidationReport unsplit = validate_measurements(set, [](const Measurement&) {
    Prediction p;
    p.epoch_s = 100.0;
    return p;
  });
  REQUIRE(unsplit.compared.size() == 2);
  CHECK(unsplit.compared[0].measured_busy == 0.0);
  CHECK(unsplit.compared[0].predicted_busy == 0.0);
  CHECK(busy_shares(set, unsplit).empty());
}

TEST_CASE("Every numeric records column at ±1e300, NaN and 2^63 is a located error or a finite value",
          "[models][measurements][edges]") {
  // batch_size = 1e300 was cast to 32 bits unchecked (undefined behaviour). Counts are refused outside 32
  // bits; real-valued columns take any finite value of zero or more (the row's epoch time and mean power
  // stay finite); n_valleys is written by `calibrate` but not read.
  const std::vector<std::string> columns = {"params",  "flops",  "batch_size", "data_size", "input_size",
                                            "workers", "epochs", "gpus",       "valley_W",  "valley_s",
                                            "peak_W",  "peak_s", "n_valleys"};
  const std::set<std::string> counts = {"batch_size", "input_size", "workers", "epochs", "gpus"};
  const std::map<std::string, std::string> good = {
      {"params", "25557032"}, {"flops", "8.18e9"}, {"batch_size", "256"}, {"data_size", "1281167"},
      {"input_size", "224"},  {"workers", "8"},    {"epochs", "3"},       {"gpus", "1"},
      {"valley_W", "100"},    {"valley_s", "20"},  {"peak_W", "350"},     {"peak_s", "980"},
      {"n_valleys", "2"}};
  // The row in the header's order (gpu_type after gpus) with one column replaced, and that column's number.
  const auto row_with = [&](const std::string& column, const std::string& value) {
    std::string row = "resnet50";
    for (const auto& c : columns) {
      row += "," + (c == column ? value : good.at(c));
      if (c == "gpus") row += ",a100-sxm-80gb";
    }
    return row + ",1e6,1e6,trace.csv";
  };
  // The 1-based character column where the field of `column` starts in `row` (errors give characters).
  const auto column_of = [&](const std::string& row, const std::string& column) {
    const std::string header = fit::record_header_without_epochs() + ",";
    std::size_t at = 0, field_at = 0;
    for (std::size_t h = 0; header.substr(h, header.find(',', h) - h) != column; h = header.find(',', h) + 1)
      field_at = (at = row.find(',', at) + 1);
    return field_at + 1;
  };
  fleetwatt::test::TempDir dir;
  for (const auto& column : columns) {
    for (const std::string value : {"1e300", "-1e300", "nan", "9223372036854775808"}) {
      INFO(column << " = " << value);
      const std::string row = row_with(column, value);
      const auto file = dir.write("records.csv", fit::record_header_without_epochs() + "\n" + row + "\n");
      const std::string at = fmt::format("records.csv:2:{}: {}: ", column_of(row, column), column);
      std::string expected;
      if (column == "n_valleys") {
        expected = "";
      } else if (value == "nan") {
        expected = at + "'nan' is not a number";
      } else if (counts.count(column) > 0) {
        const std::string shown = value == "9223372036854775808" ? "9.223372036854776e+18"
                                                                 : value.substr(0, value.size() - 3) + "+300";
        expected = at + "must be an integer from 0 to 4294967295, got " + shown;
      } else if (value == "-1e300") {
        expected = at + "must not be negative";
      }
      try {
        const MeasurementSet set = read_measurements(file);
        CHECK(expected == "");
        REQUIRE(set.rows.size() == 1);
        CHECK(std::isfinite(set.rows[0].epoch_s));
        CHECK(std::isfinite(set.rows[0].avg_power_W));
      } catch (const ConfigError& e) {
        const std::string what = e.what();
        CHECK(what.substr(what.find("records.csv:")) == expected);
      }
    }
  }
}
