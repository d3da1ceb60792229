// One fleet, two ledgers: a run that writes /gpus/changes keeps each GPU's power (and checks every change
// against it), one that does not changes servers only, O(servers) per phase change. Their results must be the
// same bit for bit: pipeline stages interleaved across servers, nodes put to sleep and woken, failures and
// restarts of a step-level job, jobs of 1 to 8 GPUs on 4-GPU servers.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "result_files_equal.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

// Llama 3 8B on tp 2, pp 2, dp 2 in tp-cp-pp-dp order: each stage is GPUs 0-1 and 4-5 (or 2-3, 6-7) of
// its 8, so stages interleave over two 4-GPU servers; it fails about 3 times in its half hour. Beside it,
// generated vision jobs, and servers asleep at 20 W after a minute idle.
const char* const kScenario = R"(name = "gpu-state"
seed = 5
[fleet]
nodes = 6
gpus_per_node = 4
gpu = "h100-sxm"
[predictor]
kind = "datasheet"
epoch_end_s = 1.0
[scheduler]
policy = "consolidate"
[scheduler.consolidate]
idle_timeout_s = 60
sleep_w = 20
wake_latency_s = 30
[failures]
enabled = true
rate_per_gpu_hour = 3
[workload]
horizon_s = 1800
[workload.generator]
rate_per_hour = 30
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 2, 4, 8]
epochs = [1, 3]
dataset_samples = [10000, 30000]
[[workload.jobs]]
id = 900
model = "llama3_8b"
precision = "bf16"
stack = "optimized"
tp = 2
pp = 2
dp = 2
rank_order = "tp-cp-pp-dp"
zero = 1
seq = 2048
global_batch = 16
dataset_samples = 3200
waveform = "steps"
checkpoint_every_steps = 20
failure_rate_per_gpu_hour = 10
[output]
facility_interval_s = 0.1
node_interval_s = 1
)";

}  // namespace

TEST_CASE("a run without /gpus/changes, servers only, equals the run that keeps every GPU, bit for bit",
          "[cli][ledger]") {
  TempDir dir;
  const auto scenario = dir.write("s.toml", kScenario);
  for (const char* kept : {"true", "false"}) {
    const auto r =
        run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " +
                    (dir / (std::string(kept) + ".h5")).string() + " --set output.gpu_changes=" + kept);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  CHECK(result_files_difference(dir / "true.h5", dir / "false.h5", "/gpus/").empty());

  // The run goes where the two ledgers could part: servers asleep (20 W), the step-level job interrupted,
  // and GPU changes written by one run only.
  const fleetwatt::results::ResultReader kept(dir / "true.h5"), lean(dir / "false.h5");
  const auto nodes = kept.doubles("/nodes/power_W");
  CHECK(*std::min_element(nodes.begin(), nodes.end()) == 20.0);
  const auto ids = kept.integers("/jobs/id");
  const auto interruptions = kept.integers("/jobs/interruptions");
  const auto at = std::find(ids.begin(), ids.end(), 900) - ids.begin();
  REQUIRE(at < static_cast<std::ptrdiff_t>(ids.size()));
  CHECK(interruptions[static_cast<std::size_t>(at)] >= 1);
  CHECK(kept.doubles("/jobs/step_s")[static_cast<std::size_t>(at)] > 0.0);
  CHECK(!kept.integers("/gpus/changes/gpu").empty());
  const auto names = lean.datasets();
  CHECK(std::none_of(names.begin(), names.end(),
                     [](const std::string& n) { return n.rfind("/gpus/changes", 0) == 0; }));
}
