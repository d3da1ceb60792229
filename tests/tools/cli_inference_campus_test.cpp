// The shipped inference-campus scenario through the fleetwatt binary, over its morning (two hours from
// 08:00 of its day, where the load rises and parked replicas wake): the service's draw is every GPU's
// (GPU, IT and facility energy balance to 1e-9 against its own series and the servers' base power), the
// replicas follow the load within their bounds, and the summary names the service.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

TEST_CASE("inference-campus: the service's draw balances at the meter and its replicas follow the load",
          "[cli][serving][campus]") {
  TempDir dir;
  const auto scenario = source_dir() / "examples/scenarios/inference-campus.toml";
  const auto out = dir / "campus.h5";
  const auto r =
      run_command(fleetwatt_binary().string() + " run " + scenario.string() + " -o " + out.string() +
                  " --set workload.horizon_s=7200 --set workload.service[0].start_hour=8");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("service chat                4096 h100-sxm GPUs: 1024 replicas of llama2_70b at tp 4") !=
        std::string::npos);
  const fleetwatt::results::ResultReader f(out);
  const auto power = f.doubles("/services/chat/power_W");
  REQUIRE(power.size() == 7200);
  const double service_J = std::accumulate(power.begin(), power.end(), 0.0);  // 1-s intervals
  // Every GPU is the service's: the GPU energy is its series'. Each of the 512 servers draws 1,240 W and
  // 0.26 W per GPU watt beside its GPUs; the facility 1.2 x IT.
  const double gpu_J = f.doubles("/summary/gpu_energy_J").at(0);
  const double it_J = f.doubles("/summary/it_energy_J").at(0);
  CHECK(gpu_J == Approx(service_J).epsilon(1e-9));
  CHECK(it_J == Approx(1.26 * gpu_J + 512 * 1240.0 * 7200.0).epsilon(1e-9));
  CHECK(f.doubles("/summary/facility_energy_J").at(0) == Approx(1.2 * it_J).epsilon(1e-9));
  CHECK(f.doubles("/services/chat/energy_J").at(0) == Approx(service_J).epsilon(1e-12));
  // Replicas between the 128 kept and the 1,024 there are, more of them before 10:00 than after 08:00 (the
  // hourly curve goes from 6 to 8 of its peak 10: a third more load).
  const auto active = f.doubles("/services/chat/replicas_active");
  REQUIRE(active.size() == 7200);
  CHECK(*std::min_element(active.begin(), active.end()) >= 128.0);
  CHECK(*std::max_element(active.begin(), active.end()) <= 1024.0);
  const double early = std::accumulate(active.begin() + 300, active.begin() + 900, 0.0) / 600.0;
  const double late = std::accumulate(active.end() - 600, active.end(), 0.0) / 600.0;
  CHECK(late > 1.15 * early);
  // The arrivals of the last ten minutes (09:50-10:00) at 3,000/s x the hour's 8 over the curve's mean,
  // 128.4 / 24: within 5 % (bursty gamma arrivals of shape 0.5 over 600 s).
  const auto arrivals = f.integers("/services/chat/arrivals");
  const double rate = std::accumulate(arrivals.end() - 600, arrivals.end(), 0.0) / 600.0;
  CHECK(rate == Approx(3000.0 * 8.0 / (128.4 / 24.0)).epsilon(0.05));
  // export --what services at 15 min: eight rows whose arrivals sum to the file's and whose mean powers
  // (kW) give the service's energy; no latency percentile columns (they do not combine across intervals).
  const auto e = run_command(fleetwatt_binary().string() + " export " + out.string() +
                             " --what services --interval 15min --units W");
  REQUIRE(e.exit_code == 0);
  std::istringstream csv(e.out);
  std::string line;
  std::getline(csv, line);
  CHECK(line ==
        "timestamp_iso8601,time_s,chat_power_W,chat_arrivals,chat_completions,chat_output_tokens_per_s,"
        "chat_replicas_active,chat_admitted,chat_queued,chat_running,chat_batch_occupancy,"
        "chat_prefill_tokens_per_s,chat_decode_tokens_per_s,chat_slo_met");
  double energy_J = 0.0, arrived = 0.0, admitted = 0.0;
  bool occupancy = true;
  int rows = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string v; std::getline(fields, v, ',');) f.push_back(v);
    REQUIRE(f.size() == 14);
    energy_J += std::stod(f[2]) * 900.0;
    arrived += std::stod(f[3]);
    admitted += std::stod(f[7]);
    occupancy = occupancy && std::stod(f[10]) > 0.0 && std::stod(f[10]) <= 1.0;
    ++rows;
  }
  CHECK(rows == 8);
  CHECK(energy_J == Approx(service_J).epsilon(1e-7));  // powers written to 0.1 W
  CHECK(arrived == Approx(std::accumulate(arrivals.begin(), arrivals.end(), 0.0)));
  // Autoscaling keeps up: every request enters a batch in the interval it arrives in.
  CHECK(admitted == arrived);
  CHECK(occupancy);
}

TEST_CASE("inference-campus: an SLO no token can meet is one located line, exit 2 and no file",
          "[cli][serving][campus]") {
  TempDir dir;
  const auto scenario = source_dir() / "examples/scenarios/inference-campus.toml";
  const auto out = dir / "campus.h5";
  const auto r = run_command(fleetwatt_binary().string() + " run " + scenario.string() + " -o " +
                             out.string() + " --set workload.service[0].slo_tpot_s=0.002");
  CHECK(r.exit_code == 2);
  CHECK(
      r.err.find("workload.service[0].slo_tpot_s: 2 ms is below one iteration of a llama2_70b replica on 4 x "
                 "h100-sxm") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(out));
}
