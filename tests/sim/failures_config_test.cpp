// [failures] keys: defaults (the Llama 3 rate, stated as arithmetic), values read, the per-job override, and
// bad input refused with the file, line:column and dotted key.
#include <catch2/catch.hpp>

#include "../runs/scenario_test_support.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"

using namespace fleetwatt::sim;
using namespace fleetwatt::runs;
using fleetwatt::test::error_of;
using fleetwatt::test::kJobs;

TEST_CASE("the default rate is the Llama 3 report's 419 interruptions per 54 days on 16,384 GPUs",
          "[scenario][failures]") {
  // 54 days x 24 h x 16,384 GPUs = 21,233,664 GPU-hours; 419 / 21,233,664 = 1.97328e-5.
  CHECK(54.0 * 24.0 * 16384.0 == 21233664.0);
  CHECK(kLlama3InterruptionsPerGpuHour == Approx(1.97328e-5).epsilon(1e-5));
  // One 16,384-GPU job then fails every 1 / (16,384 x 1.97328e-5) = 3.093 h (54 x 24 / 419).
  CHECK(1.0 / (16384.0 * kLlama3InterruptionsPerGpuHour) == Approx(54.0 * 24.0 / 419.0));
  const auto s = parse_scenario(kJobs, "s.toml");
  CHECK_FALSE(s.failures.enabled);  // off unless enabled
  CHECK(s.failures.rate_per_gpu_hour == kLlama3InterruptionsPerGpuHour);
}

TEST_CASE("a [failures] table and a job's own rate are read", "[scenario][failures]") {
  const auto s = parse_scenario(R"(
[workload]
[[workload.jobs]]
n_gpus = 1
class = "vit"
[[workload.jobs]]
n_gpus = 1
class = "vit"
failure_rate_per_gpu_hour = 0
[failures]
enabled = true
rate_per_gpu_hour = 0.002
restart_delay_s = 300
restart_ramp_s = 45.5
)",
                                "s.toml");
  CHECK(s.failures.enabled);
  CHECK(s.failures.rate_per_gpu_hour == 0.002);
  CHECK(s.failures.restart_delay_s == 300.0);
  CHECK(s.failures.restart_ramp_s == 45.5);
  CHECK_FALSE(s.workload.jobs[0].failure_rate_per_gpu_hour);
  REQUIRE(s.workload.jobs[1].failure_rate_per_gpu_hour);
  CHECK(*s.workload.jobs[1].failure_rate_per_gpu_hour == 0.0);
}

TEST_CASE("bad [failures] keys name the file, line:column and key", "[scenario][failures]") {
  CHECK(error_of(kJobs + "[failures]\nenabled = true\nrate_per_gpu_hr = 1\n") ==
        "bad.toml:7:1: failures.rate_per_gpu_hr: unknown key (known here: enabled, rate_per_gpu_hour, "
        "restart_delay_s, restart_ramp_s)");
  CHECK(error_of(kJobs + "[failures]\nrestart_delay_s = -5\n") ==
        "bad.toml:6:1: failures.restart_delay_s: must be zero or more, got -5");
  CHECK(
      error_of(kJobs + "[failures]\nenabled = \"yes\"\n").find("bad.toml:6:1: failures.enabled: expected") ==
      0);
  CHECK(
      error_of("[workload]\n[[workload.jobs]]\nn_gpus = 1\nclass = \"vit\"\nfailure_rate_per_gpu_hour = -1\n")
          .find("bad.toml:5:") == 0);
}
