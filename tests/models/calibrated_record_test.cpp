// A run calibrated from its own power log and the same run as its data set curates it are one job with one
// prediction: `fleetwatt calibrate` on a GAISSA RTX 3070 log, then `validate` on the record, against
// GAISSA's row of that run.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <vector>

#include "fleetwatt/models/fit/measurements.hpp"
#include "fleetwatt/models/validation_report.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models;

TEST_CASE("a calibrated GAISSA record and GAISSA's own row of the run agree within 2 %",
          "[models][validation][shared][command]") {
  const auto bin = fleetwatt::test::fleetwatt_binary();
  if (bin.empty() || !std::filesystem::exists(bin)) {
    WARN("skipped: the fleetwatt binary is not built");
    return;
  }
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto dir = data / "gaissa-seaa2023";
  // ResNet-50's run 0 on the RTX 3070: the first log in time order, the first RTX 3070 resnet50 row of the
  // records (1.11612 h, 108 "trained epochs", 99 run, 178.39 W). The record states what the row states:
  // GAISSA's 2.524383 GFLOPs, batch 32, 3,666,816 images seen over 108 counted epochs (33,952 an epoch).
  std::vector<std::filesystem::path> logs;
  for (const auto& f : std::filesystem::directory_iterator(dir / "rtx3070" / "resnet50"))
    logs.push_back(f.path());
  std::sort(logs.begin(), logs.end());
  REQUIRE_FALSE(logs.empty());
  fleetwatt::test::TempDir tmp;
  const auto rec = tmp / "rec.csv";
  const auto r = fleetwatt::test::run_command(
      bin.string() + " calibrate " + logs.front().string() + " --records " + rec.string() +
      " --model keras-resnet50 --flops 2.524383e9 --batch-size 32 --data-size 33952 --gpu-type rtx3070");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);

  const MeasurementSet calibrated = read_measurements(rec);
  const MeasurementSet curated = read_measurements(dir / "dl-training-energy-consumption-dataset.csv");
  REQUIRE(calibrated.rows.size() == 1);
  const Measurement* row = nullptr;
  for (const Measurement& m : curated.rows)
    if (m.gpu == "rtx3070" && m.workload == "keras-resnet50") {
      row = &m;
      break;
    }
  REQUIRE(row != nullptr);
  const Measurement& record = calibrated.rows[0];
  // The log read as the record: the board's 240 W maximum (the log's power.max_limit, GAISSA's "max power
  // limit"), the 99 epochs of 4,018 s of training, the epochs' power.
  CHECK(record.tdp_W == Approx(240.0));
  CHECK(row->tdp_W == Approx(240.0));
  CHECK(record.job.epochs == row->job.epochs);
  CHECK(row->epoch_s == Approx(1.11612 * 3600.0 / 99.0).epsilon(1e-5));
  CHECK(record.epoch_s == Approx(row->epoch_s).epsilon(0.02));
  CHECK(record.avg_power_W == Approx(row->avg_power_W).epsilon(0.02));

  // The same job to the predictor: the same prediction, hence the same error within the measurements' 2 %.
  const auto predict = registry_predictor();
  const Prediction a = predict(record), b = predict(*row);
  CHECK(a.epoch_s == Approx(b.epoch_s).epsilon(1e-6));  // GFLOPs given to 7 digits
  CHECK(a.avg_power_W == Approx(b.avg_power_W).epsilon(1e-6));
  const double error_record = std::abs(a.epoch_s / record.epoch_s - 1.0);
  const double error_row = std::abs(b.epoch_s / row->epoch_s - 1.0);
  CHECK(std::abs(error_record - error_row) < 0.02);
}
