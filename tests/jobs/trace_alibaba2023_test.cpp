// Tests for the Alibaba GPU 2023 reader on the real trace (../shared/data/alibaba-gpu-v2023). The expected
// counts and GPU-hours were computed independently with a short Python csv script over the same file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "fleetwatt/jobs/trace.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::jobs;
using namespace fleetwatt::runs;

namespace {

TraceRead read_default(const std::filesystem::path& data, TraceOptions options = {}) {
  options.format = TraceFormat::alibaba2023;
  return read_trace(data / "alibaba-gpu-v2023" / "openb_pod_list_default.csv", options);
}

const JobSpec& by_name(const TraceRead& r, const std::string& name) {
  const auto it =
      std::find_if(r.jobs.begin(), r.jobs.end(), [&](const JobSpec& j) { return j.trace_id == name; });
  REQUIRE(it != r.jobs.end());
  return *it;
}

}  // namespace

TEST_CASE("the Alibaba 2023 trace has 8,152 tasks of which 6,203 GPU tasks ran", "[traces][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto r = read_default(data);
  CHECK(r.skipped.empty());
  CHECK(r.records == 8152);  // SOURCE.txt: "8,152 tasks (pods)"
  // 1,088 pods ask for no GPU; 861 GPU pods (and 36 CPU pods) were never scheduled.
  CHECK(r.no_gpu == 1088 - 36);
  CHECK(r.no_runtime == 861 + 36);
  CHECK(r.jobs.size() == 6203);
  const auto stats = trace_stats(r.jobs);
  CHECK(stats.by_status[static_cast<int>(JobStatus::running)] == 4149);
  CHECK(stats.by_status[static_cast<int>(JobStatus::failed)] == 1869);
  CHECK(stats.by_status[static_cast<int>(JobStatus::completed)] == 185);
  // GPU-hours: sum of num_gpu x (deletion - scheduled) / 3600, and the same weighted by gpu_milli / 1000.
  CHECK(stats.allocated_gpu_hours == Approx(59612.2105555).epsilon(1e-9));
  CHECK(stats.gpu_hours == Approx(51470.6741583).epsilon(1e-9));
  CHECK(stats.gpus_max == 8);
  CHECK(stats.runtime_p50_s == 655.0);
  CHECK(stats.runtime_mean_s == Approx(30851.14896018).epsilon(1e-9));
}

TEST_CASE("hand-checked Alibaba 2023 rows", "[traces][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto r = read_default(data);
  // openb-pod-0001: 1 GPU at 460 milli, created and scheduled at 427061, deleted at 12902960, Running.
  const auto& p1 = by_name(r, "openb-pod-0001");
  CHECK(p1.id == 1);
  CHECK(p1.submit_s == 427061.0);
  CHECK(p1.n_gpus == 1);
  CHECK(p1.gpu_fraction == 0.46);
  CHECK(*p1.recorded_runtime_s == 12902960.0 - 427061.0);
  CHECK(p1.status == JobStatus::running);
  CHECK_FALSE(p1.limit_s);
  // openb-pod-0017: 8 whole GPUs, Succeeded, 9437497 -> 10769854.
  const auto& p17 = by_name(r, "openb-pod-0017");
  CHECK(p17.n_gpus == 8);
  CHECK(p17.gpu_fraction == 1.0);
  CHECK(*p17.recorded_runtime_s == 10769854.0 - 9437497.0);
  CHECK(p17.status == JobStatus::completed);
  // openb-pod-0128: 8 GPUs, Failed after 10035454 - 10034615 = 839 s; it stops there in replay.
  const auto& p128 = by_name(r, "openb-pod-0128");
  CHECK(p128.status == JobStatus::failed);
  CHECK(*p128.limit_s == 839.0);
  // Every replayed job is flagged for the model fields the trace lacks.
  CHECK((p128.inferred & inferred::model) != 0);
  CHECK((p128.inferred & inferred::epochs) != 0);
}

TEST_CASE("a submit-time window keeps and re-bases the jobs inside it", "[traces][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  TraceOptions o;
  o.from_s = 10.0e6;
  o.to_s = 10.1e6;
  const auto r = read_default(data, o);
  CHECK(r.jobs.size() == 155);
  CHECK(r.jobs.front().submit_s == 483.0);  // first creation_time in the window: 10,000,483
  CHECK(trace_stats(r.jobs).allocated_gpu_hours == Approx(212.4716667).epsilon(1e-9));
  for (const auto& j : r.jobs) CHECK(j.submit_s < 0.1e6);

  // Doubling the arrival rate halves every submit time.
  o.arrival_scale = 2.0;
  const auto fast = read_default(data, o);
  REQUIRE(fast.jobs.size() == r.jobs.size());
  for (std::size_t i = 0; i < r.jobs.size(); ++i) CHECK(fast.jobs[i].submit_s == r.jobs[i].submit_s / 2.0);
}

TEST_CASE("fleet_scale shrinks the fleet and speeds arrivals up alike", "[traces][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const std::string trace = (data / "alibaba-gpu-v2023" / "openb_pod_list_default.csv").string();
  const auto s =
      parse_scenario("[fleet]\nnodes = 1213\ngpus_per_node = 5\n[workload.trace]\nfile = \"" + trace +
                         "\"\nformat = \"alibaba2023\"\nfleet_scale = 0.5\narrival_scale = 2\n",
                     "s.toml");
  CHECK(s.fleet.nodes == 607);                    // round(1213 x 0.5)
  CHECK(s.workload.trace->arrival_scale == 1.0);  // 2 x 0.5: half the fleet, half the arrival rate
}

TEST_CASE("a GPU count beyond 32 bits is a malformed record, not a wrapped count", "[traces][bad-input]") {
  // Found by fuzzing (fuzz/trace_alibaba2023): num_gpu = 4294967296 was converted to 32 bits (undefined
  // behaviour; 0 GPUs on x86) and the job kept.
  std::istringstream in(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
      "scheduled_time\n"
      "pod-a,6000,12288,4294967296,1000,,LS,Succeeded,0,100,10\n"
      "pod-b,6000,12288,4294967295,1000,,LS,Succeeded,0,100,10\n");
  TraceOptions options;
  options.format = TraceFormat::alibaba2023;
  const auto r = read_trace(in, "pods.csv", options);
  REQUIRE(r.skipped.size() == 1);
  CHECK(r.skipped[0].where.line == 2);
  CHECK(r.skipped[0].field == "num_gpu");
  CHECK(r.skipped[0].reason == "must be a whole number in [0, 4294967295]");
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.jobs[0].n_gpus == 4294967295u);  // the largest count still fits
}
