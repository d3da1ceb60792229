// The shipped mixed-campus scenario through the fleetwatt binary, with its serving pool absorbing the
// training jobs' swings and without: absorbing lowers the 0.1-5 Hz band energy of the facility series and
// the 1-s swings without raising the peak, costs the service's work a lag it reports and its requests'
// latencies show, and moves energy only by what the service ran behind its plan; the training jobs are
// untouched.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using fleetwatt::results::ResultReader;

namespace {

double scalar(const ResultReader& f, const std::string& path) {
  return f.doubles(path).at(0);
}

double band_0p1_5Hz(const ResultReader& f) {
  return scalar(f, "/power_quality/band_energy_0p1_1Hz_MW2") +
         scalar(f, "/power_quality/band_energy_1_5Hz_MW2");
}

}  // namespace

TEST_CASE("mixed-campus: the serving pool absorbs training's swings at a reported lag, not the peak",
          "[cli][serving][campus]") {
  TempDir dir;
  const auto scenario = (source_dir() / "examples/scenarios/mixed-campus.toml").string();
  const auto with = dir / "absorb.h5", without = dir / "plain.h5";
  const auto a = run_command(fleetwatt_binary().string() + " run " + scenario + " -o " + with.string());
  INFO(a.err);
  REQUIRE(a.exit_code == 0);
  CHECK(a.out.find("    absorbing                 work late by") != std::string::npos);
  CHECK(a.out.find("    end to end                p50 ") != std::string::npos);
  const auto b = run_command(fleetwatt_binary().string() + " run -q " + scenario + " -o " + without.string() +
                             " --set workload.service[0].absorb=false");
  REQUIRE(b.exit_code == 0);
  const ResultReader fa(with), fb(without);
  // Measured: 16.49 MW^2 in the 0.1-5 Hz bands without, 10.38 with (-37 %); the pool's 4,096 GPUs can
  // take up at most their headroom to 700 W (about 1.4 MW) of the pretraining job's ~13 MW swings.
  const double band_with = band_0p1_5Hz(fa), band_without = band_0p1_5Hz(fb);
  CHECK(band_with < 0.70 * band_without);
  CHECK(band_with > 0.55 * band_without);
  // The largest 1-s fall shrinks (measured 17.07 -> 15.05 MW); the peak stays where training puts it.
  CHECK(scalar(fa, "/power_quality/ramp_down_1s_MW") < 0.95 * scalar(fb, "/power_quality/ramp_down_1s_MW"));
  CHECK(scalar(fa, "/summary/peak_facility_interval_mean_W") <=
        scalar(fb, "/summary/peak_facility_interval_mean_W") * (1.0 + 1e-9));
  // The lag: 0.17 s on average, 1.08 s at most (absorb_latency_s = 1 s bounds it but for the peak rule).
  const double mean_lag = scalar(fa, "/services/chat/absorb_mean_lag_s");
  CHECK(mean_lag > 0.0);
  CHECK(mean_lag < 0.25);
  CHECK(scalar(fa, "/services/chat/absorb_max_lag_s") < 1.2);
  CHECK_FALSE(fb.has("/services/chat/absorb_mean_lag_s"));
  // The lag interval by interval: its mean is the time-mean (equal intervals), its largest at most the
  // largest.
  const auto lag = fa.doubles("/services/chat/absorb_lag_s");
  REQUIRE(lag.size() == fa.doubles("/services/chat/power_W").size());
  CHECK(std::accumulate(lag.begin(), lag.end(), 0.0) / double(lag.size()) == Approx(mean_lag).epsilon(1e-9));
  CHECK(*std::max_element(lag.begin(), lag.end()) <= scalar(fa, "/services/chat/absorb_max_lag_s") + 1e-12);
  // The requests see it: their first tokens and ends come out as late as the work at those times, so the
  // window's first-token percentiles rise by about the lag (measured p50 0.129 -> 0.297 s, p99 0.157 ->
  // 0.933 s), never by more than the largest lag (and the 1 % bins); a few requests end past the horizon.
  const double p50_with = scalar(fa, "/services/chat/ttft_p50_s_window");
  const double p50_without = scalar(fb, "/services/chat/ttft_p50_s_window");
  CHECK(p50_with - p50_without > 0.5 * mean_lag);
  CHECK(p50_with - p50_without < 1.5 * mean_lag);
  CHECK(scalar(fa, "/services/chat/ttft_p99_s_window") <=
        1.01 *
            (scalar(fb, "/services/chat/ttft_p99_s_window") + scalar(fa, "/services/chat/absorb_max_lag_s")));
  CHECK(scalar(fa, "/services/chat/requests_served") < scalar(fb, "/services/chat/requests_served"));
  // Energy moves only by what the service ran ahead of (or behind) its plan; the plan is the same.
  const double service_with = scalar(fa, "/services/chat/energy_J");
  const double service_without = scalar(fb, "/services/chat/energy_J");
  CHECK(service_with - service_without ==
        Approx(scalar(fa, "/services/chat/absorb_bank_J")).margin(1e-9 * service_without));
  CHECK(scalar(fa, "/summary/gpu_energy_J") - scalar(fb, "/summary/gpu_energy_J") ==
        Approx(service_with - service_without).margin(1e-9 * scalar(fb, "/summary/gpu_energy_J")));
  // IT from GPUs, servers and network: 1.26 x the GPUs' plus the servers' base; the network's draw is the
  // same in both runs, so the IT difference is 1.26 x the GPU difference; facility 1.2 x IT.
  CHECK(scalar(fa, "/summary/it_energy_J") - scalar(fb, "/summary/it_energy_J") ==
        Approx(1.26 * (service_with - service_without)).margin(1e-9 * scalar(fb, "/summary/it_energy_J")));
  CHECK(scalar(fa, "/summary/facility_energy_J") ==
        Approx(1.2 * scalar(fa, "/summary/it_energy_J")).epsilon(1e-12));
  // The training jobs are untouched, job by job.
  CHECK(fa.doubles("/jobs/energy_J") == fb.doubles("/jobs/energy_J"));
  // The report's services figure says what the file holds.
  const auto page = dir / "absorb.html";
  const auto rep =
      run_command(fleetwatt_binary().string() + " report " + with.string() + " -o " + page.string());
  REQUIRE(rep.exit_code == 0);
  std::ifstream in(page);
  const std::string html{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  CHECK(html.find("id=\"services\"") != std::string::npos);
  const auto served = fa.integers("/services/chat/requests_served").at(0);
  std::string digits = std::to_string(served), grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  CHECK(html.find("chat: 4096 h100-sxm GPUs, " + grouped + " requests served") != std::string::npos);
  // The service's series sums to its energy (0.1 s intervals).
  const auto power = fa.doubles("/services/chat/power_W");
  CHECK(std::accumulate(power.begin(), power.end(), 0.0) * 0.1 == Approx(service_with).epsilon(1e-9));
}
