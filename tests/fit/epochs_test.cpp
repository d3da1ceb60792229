// Finding epochs in a power log: a synthetic two-stage run with known epochs, and every public GAISSA RTX
// 3070 run against the epochs it ran.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include "fleetwatt/jobs/random.hpp"

#include "fleetwatt/models/fit/epochs.hpp"
#include "fleetwatt/models/fit/measurements.hpp"
#include "fleetwatt/models/fit/records.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models::fit;

namespace {

/// 1 Hz: 20 s idle at 25 W; stage 1, `head` epochs of 19 s at 160 W each ending in 4 s at 185 W; an 8 s gap
/// at 60 W; stage 2, `tune` epochs of 43 s at 178 W each ending in 5 s at 189 W; 20 s idle. Noise: 1 W
/// Gaussian (Box-Muller over the portable generator) and, in stage 2, epochs 1 s longer or shorter at random.
GpuPowerSeries two_stage_run(int head, int tune, std::uint64_t seed) {
  fleetwatt::jobs::Random rng(seed);
  GpuPowerSeries s;
  const auto add = [&](double level, int count) {
    for (int i = 0; i < count; ++i) {
      const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
      s.time_s.push_back(static_cast<double>(s.time_s.size()));
      s.power_W.push_back(level + std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
    }
  };
  add(25, 20);
  for (int e = 0; e < head; ++e) add(160, 15), add(185, 4);
  add(60, 8);
  for (int e = 0; e < tune; ++e) add(178, 38 + static_cast<int>(rng.uniform() * 3.0) - 1), add(189, 5);
  add(25, 20);
  return s;
}

}  // namespace

TEST_CASE("a two-stage run's epochs are found stage by stage, with their periods and energies", "[epochs]") {
  const GpuPowerSeries s = two_stage_run(10, 30, 7);
  const EpochFinding f = find_epochs(s);
  REQUIRE(f.stages.size() == 2);
  CHECK(f.stages[0].epochs == 10);
  CHECK(f.stages[1].epochs == 30);
  CHECK(f.stages[0].period_s == Approx(19.0).margin(0.5));
  CHECK(f.stages[1].period_s == Approx(43.0).margin(1.0));
  REQUIRE(f.epochs.size() == 40);
  // Epochs tile their stage from its start, each ending in its bump: the second stage's epochs last 42-44 s
  // and draw (38 x 178 + 5 x 189) / 43 = 179.3 W on average.
  for (std::size_t i = 11; i < 40; ++i) {
    INFO(i);
    CHECK(f.epochs[i].start_s == f.epochs[i - 1].end_s);
    CHECK(f.epochs[i].duration_s() == Approx(43.0).margin(3.0));
    CHECK(f.epochs[i].mean_W() == Approx(179.3).margin(2.0));
  }
  // A log of noise around one level has no epochs to find: one stage without a period, counted as one epoch.
  fleetwatt::jobs::Random rng(3);
  GpuPowerSeries flat;
  for (int i = 0; i < 300; ++i) flat.time_s.push_back(i), flat.power_W.push_back(150.0 + 2.0 * rng.uniform());
  const EpochFinding one = find_epochs(flat);
  REQUIRE(one.stages.size() == 1);
  CHECK(one.stages[0].period_s == 0.0);
  CHECK(one.epochs.size() == 1);
  CHECK(find_epochs(GpuPowerSeries{0, {0.0, 1.0}, {10.0, 20.0}, {}, {}}).epochs.empty());
}

TEST_CASE("every public GAISSA RTX 3070 run's epochs are found, as many as it ran", "[epochs][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto dir = data / "gaissa-seaa2023";
  // The runs' records: the five logs of each architecture are its runs 0-4 in time order (SOURCE.txt; their
  // lengths match the records' durations to seconds). A record's "trained epochs" is, by GAISSA's
  // preprocessing (src/data/preprocessing.py, _get_number_of_trained_epochs): the 10 head epochs plus the
  // restored fine-tuning epoch's absolute 0-based index plus the early-stopping patience, 20. The run stopped
  // at that index + 20, so it ran 10 + (index + 20 - 10 + 1) = trained - 9 epochs.
  std::map<std::pair<std::string, int>, int> trained;
  {
    std::ifstream in(dir / "dl-training-energy-consumption-dataset.csv");
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      std::stringstream ss(line);
      for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
      if (cells.size() < 29 || cells[4].find("3070") == std::string::npos) continue;
      trained[{cells[1], std::stoi(cells[2])}] = std::stoi(cells[28]);
    }
  }
  int runs = 0, found_right = 0;
  for (const char* arch : {"mobilenet_v2", "nasnet_mobile", "resnet50", "vgg16", "xception"}) {
    std::vector<std::filesystem::path> logs;
    for (const auto& f : std::filesystem::directory_iterator(dir / "rtx3070" / arch))
      logs.push_back(f.path());
    std::sort(logs.begin(), logs.end());
    REQUIRE(logs.size() == 5);
    for (int run = 0; run < 5; ++run) {
      const int ran = trained.at({arch, run}) - 9;
      const EpochFinding f = find_epochs(read_power_trace(logs[run]).gpu(0));
      INFO(logs[run].string() << ": found " << f.epochs.size() << ", ran " << ran);
      CHECK(static_cast<int>(f.epochs.size()) == ran);
      // Every run trained 10 epochs with its backbone frozen first: its first stage, give or take the epoch
      // at the boundary where no gap marks it (a shift of level only).
      REQUIRE(f.stages.size() >= 2);
      CHECK(std::abs(static_cast<int>(f.stages.front().epochs) - 10) <= 1);
      ++runs;
      found_right += static_cast<int>(f.epochs.size()) == ran;
    }
  }
  CHECK(runs == 25);
  CHECK(found_right == 25);
}

TEST_CASE("fleetwatt calibrate says how many epochs it found against how many it was told",
          "[epochs][command]") {
  const auto bin = fleetwatt::test::fleetwatt_binary();
  if (bin.empty() || !std::filesystem::exists(bin)) {
    WARN("skipped: the fleetwatt binary is not built");
    return;
  }
  // The two-stage run as a plain time_s,power_W log: 10 + 30 epochs.
  const GpuPowerSeries s = two_stage_run(10, 30, 11);
  std::string text = "time_s,power_W\n";
  for (std::size_t i = 0; i < s.time_s.size(); ++i)
    text += fmt::format("{},{:.3f}\n", s.time_s[i], s.power_W[i]);
  fleetwatt::test::TempDir dir;
  const auto log = dir.write("run.csv", text);
  const auto r = fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --epochs 38");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("GPU 0: 40 epochs found (38 told)") && Catch::Contains("10 x 19.") &&
                        Catch::Contains("30 x 4"));
  CHECK_THAT(r.err, Catch::Contains("40 epochs found in the log, 38 told (--epochs)"));
  const auto j = fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --json");
  REQUIRE(j.exit_code == 0);
  CHECK_THAT(j.out,
             Catch::Contains("\"epochs\": [{\"gpu\": 0, \"found\": 40, \"told\": null, \"stages\": [{"));
  CHECK(j.err.empty());
  // The record takes the epochs found when none are given.
  const auto rec = dir / "rec.csv";
  REQUIRE(fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --records " +
                                       rec.string() + " --model resnet50")
              .exit_code == 0);
  CHECK(RecordTable::read(rec).numeric("epochs")[0] == 40.0);
}

TEST_CASE("epoch finding takes any series: short, spiky, with repeated or backward times", "[epochs]") {
  fleetwatt::jobs::Random rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    GpuPowerSeries s;
    const int n = 1 + static_cast<int>(rng.uniform() * 400);
    for (int i = 0; i < n; ++i) {
      s.time_s.push_back(trial % 7 == 0 ? 0.0 : i * (trial % 5 == 0 ? -1.0 : 0.5));
      s.power_W.push_back(rng.uniform() < 0.05 ? 1e4 * rng.uniform() : 100.0 + 50.0 * rng.uniform());
    }
    const EpochFinding f = find_epochs(s);
    std::size_t sum = 0;
    for (const auto& st : f.stages) {
      sum += st.epochs;
      CHECK(st.first < st.end);
      CHECK(st.end <= s.power_W.size());
    }
    CHECK(sum == f.epochs.size());
    CHECK(f.epochs.size() <= s.power_W.size());
  }
}

TEST_CASE("checkpoint valleys down to the idle level are epochs, not stages", "[epochs]") {
  // 60 epochs of 400 s at 300 W, each ending in a 30 s checkpoint at 200 W, with no idle around them (a log
  // cut from a longer run): every valley is below the active level and a shift of level, yet they recur at
  // one spacing, so they close epochs of one stage.
  fleetwatt::jobs::Random rng(9);
  GpuPowerSeries s;
  for (int e = 0; e < 60; ++e)
    for (int i = 0; i < 430; ++i) {
      const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
      s.time_s.push_back(static_cast<double>(s.time_s.size()));
      s.power_W.push_back((i < 400 ? 300.0 : 200.0) +
                          2.0 * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
    }
  const EpochFinding f = find_epochs(s);
  REQUIRE(f.stages.size() == 1);
  CHECK(f.stages[0].period_s == Approx(430.0).margin(1.0));
  CHECK(f.epochs.size() == 60);
}

TEST_CASE("a calibrated GAISSA record's epoch is the run's: its length over the epochs it ran",
          "[epochs][command][shared]") {
  const auto bin = fleetwatt::test::fleetwatt_binary();
  if (bin.empty() || !std::filesystem::exists(bin)) {
    WARN("skipped: the fleetwatt binary is not built");
    return;
  }
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  // ResNet-50's run 0 (the first log in time order): 4,018 s of training (the record's 1.1162 h), 108
  // "trained epochs" in GAISSA's record, 99 run (see above): 40.6 s an epoch. The square wave's peak and
  // valley would make it 334 s.
  std::vector<std::filesystem::path> logs;
  for (const auto& f : std::filesystem::directory_iterator(data / "gaissa-seaa2023" / "rtx3070" / "resnet50"))
    logs.push_back(f.path());
  std::sort(logs.begin(), logs.end());
  fleetwatt::test::TempDir dir;
  const auto rec = dir / "rec.csv";
  const auto r =
      fleetwatt::test::run_command(bin.string() + " calibrate " + logs.front().string() + " --records " +
                                   rec.string() + " --model resnet50 --gpu-type rtx3070 --batch-size 32");
  REQUIRE(r.exit_code == 0);
  const auto set = fleetwatt::models::read_measurements(rec);
  REQUIRE(set.rows.size() == 1);
  CHECK(set.rows[0].job.epochs == 99);
  CHECK(set.rows[0].epoch_s == Approx(4018.0 / 99.0).epsilon(0.02));
  // The record's power is the epochs' mean: the run's 178.7 W mean less its idle ends.
  CHECK(set.rows[0].avg_power_W == Approx(179.0).margin(2.0));
}
