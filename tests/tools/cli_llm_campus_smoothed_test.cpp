// The shipped llm-campus-smoothed scenario against llm-campus through the fleetwatt
// binary: smoothing brings the 0.1-5 Hz fluctuation energy of the facility series to at most 20 % of the
// unsmoothed campus's, its extra energy is reported and positive and is exactly the GPU energy it adds, the
// jobs' timing is unchanged, and burn (the same floor, no slew) costs what it costs. Bad [smoothing] keys are
// refused with one line and exit status 2.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

struct Campus {
  double band_0p1_5Hz_W2;  ///< the 0.1-1 and 1-5 Hz bands' energy (variance), W^2
  double gpu_energy_J, it_energy_J, smoothing_J;
  std::vector<double> job_smoothing_J, job_end_s, job_energy_J;
};

Campus run_campus(const TempDir& dir, const std::string& file, const std::string& extra, const char* name) {
  const auto out = dir / name;
  const auto r =
      run_command(fleetwatt_binary().string() + " run -q " +
                  (source_dir() / "examples/scenarios" / file).string() + extra + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(out);
  Campus c{};
  c.band_0p1_5Hz_W2 = 1e12 * (h5.doubles("/power_quality/band_energy_0p1_1Hz_MW2").at(0) +
                              h5.doubles("/power_quality/band_energy_1_5Hz_MW2").at(0));
  c.gpu_energy_J = h5.doubles("/summary/gpu_energy_J").at(0);
  c.it_energy_J = h5.doubles("/summary/it_energy_J").at(0);
  c.job_end_s = h5.doubles("/jobs/end_s");
  c.job_energy_J = h5.doubles("/jobs/energy_J");
  if (file != "llm-campus.toml" || !extra.empty()) {
    c.smoothing_J = h5.doubles("/summary/smoothing_energy_J").at(0);
    c.job_smoothing_J = h5.doubles("/jobs/smoothing_J");
  }
  return c;
}

}  // namespace

TEST_CASE("llm-campus-smoothed: 0.1-5 Hz band energy at most 20 % of llm-campus's, extra energy positive",
          "[cli][smoothing][campus]") {
  TempDir dir;
  const Campus plain = run_campus(dir, "llm-campus.toml", "", "plain.h5");
  const Campus smooth = run_campus(dir, "llm-campus-smoothed.toml", "", "smooth.h5");
  INFO("band energy 0.1-5 Hz: " << plain.band_0p1_5Hz_W2 / 1e12 << " -> " << smooth.band_0p1_5Hz_W2 / 1e12
                                << " MW^2; extra " << smooth.smoothing_J / 3.6e9 << " MWh");
  REQUIRE(plain.band_0p1_5Hz_W2 > 0.0);
  // Smoothing must earn its keep: at most 20 % of the unsmoothed band energy, extra energy reported and
  // positive.
  CHECK(smooth.band_0p1_5Hz_W2 <= 0.2 * plain.band_0p1_5Hz_W2);
  CHECK(smooth.smoothing_J > 0.0);
  // Smoothing changes power only: every job ends when it did, and the extra energy is the GPU energy added,
  // job by job and in total (the jobs' sum is the summary's).
  REQUIRE(smooth.job_end_s.size() == plain.job_end_s.size());
  double sum = 0.0;
  for (std::size_t j = 0; j < plain.job_end_s.size(); ++j) {
    INFO("job " << j);
    CHECK((smooth.job_end_s[j] == plain.job_end_s[j] ||
           (std::isnan(smooth.job_end_s[j]) && std::isnan(plain.job_end_s[j]))));
    CHECK(smooth.job_energy_J[j] - plain.job_energy_J[j] ==
          Approx(smooth.job_smoothing_J[j]).epsilon(1e-9).margin(1.0));
    sum += smooth.job_smoothing_J[j];
  }
  CHECK(sum == Approx(smooth.smoothing_J).epsilon(1e-12));
  // (The ledger and the job meter add the same draws in different orders: ~1e-9 of 2e10 J apart.)
  CHECK(smooth.gpu_energy_J - plain.gpu_energy_J == Approx(smooth.smoothing_J).epsilon(1e-8));
  // Each GPU watt costs its server 0.26 W more (the campus's node_load_w_per_gpu_w: fans, conversion).
  CHECK(smooth.it_energy_J - plain.it_energy_J == Approx(1.26 * smooth.smoothing_J).epsilon(1e-8));

  // Burn: the same floor without slew limits holds nothing above it after a drop, so it costs less than
  // smooth and still takes the band under 20 %.
  const Campus burn = run_campus(dir, "llm-campus-smoothed.toml", " --set smoothing.mode=burn", "burn.h5");
  INFO("burn: " << burn.band_0p1_5Hz_W2 / 1e12 << " MW^2; extra " << burn.smoothing_J / 3.6e9 << " MWh");
  CHECK(burn.smoothing_J > 0.0);
  CHECK(burn.smoothing_J <= smooth.smoothing_J);
  CHECK(burn.band_0p1_5Hz_W2 <= 0.2 * plain.band_0p1_5Hz_W2);
}

TEST_CASE("[smoothing] keys are checked: one line, exit 2, no output", "[cli][smoothing]") {
  TempDir dir;
  const auto scenario = source_dir() / "examples/scenarios/llm-campus-smoothed.toml";
  const auto out = dir / "bad.h5";
  const auto refuse = [&](const std::string& set, const std::string& says) {
    const auto r = run_command(fleetwatt_binary().string() + " run -q " + scenario.string() + " --set '" +
                               set + "' -o " + out.string());
    INFO(set << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(says) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
  };
  refuse("smoothing.floor_fraction=1.5", "smoothing.floor_fraction");
  refuse("smoothing.ramp_down_w_per_s=0", "smoothing.ramp_down_w_per_s");
  refuse("smoothing.hysteresis_s=-1", "smoothing.hysteresis_s");
  refuse("smoothing.mode=\"steady\"", "unknown mode 'steady'");
  refuse("smoothing.floor_w=500", "floor_w");
}
