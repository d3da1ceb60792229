// The result file's size before the run (output_estimate.hpp), from the layout result_writer.cpp writes.
#include "fleetwatt/runs/output_estimate.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "fleetwatt/sim/fleet/job.hpp"

namespace fleetwatt::runs {

namespace {
// /facility holds time_s, it_power_W, facility_power_W, pue, energy_J, carbon_kg and cost: 7 doubles per
// interval; /nodes/power_W one double per server per interval (plus its time); a /jobs row holds some forty
// numeric and string columns (about 400 bytes with its strings).
constexpr double kFacilityBytesPerRow = 7 * 8.0;
constexpr double kNodeBytesPerValue = 8.0;
constexpr double kJobBytesPerRow = 400.0;

// In memory: each facility interval's meter value (the load-duration curve sorts them at the end); the
// power-quality segment of M samples as a ring, a copy, its zero-padded FFT input, the complex spectrum and
// the periodogram sum (8 + 8 + 8 + 16 + 4 bytes a sample); held jobs at kHeldJobBytes.
constexpr double kMeterBytesPerRow = 8.0;
constexpr double kSpectrumBytesPerSample = 44.0;
constexpr double kSegmentMinS = 1000.0;  // results/src/metrics/power_quality.cpp: M x interval >= 1000 s

// The fleet's own state and its interconnect's graph, routes and link state, per server, as measured
// (fleetwatt run, 100,000 servers of 8 GPUs, one explicit job, peak RSS less the 20 MB floor; 2026-11-29):
// without a [topology] ~430 B a server and ~40 B a GPU; with one, 7.9 kB more a server with 1 NIC and
// 14.7 kB with 8 (fat_tree; leaf_spine, torus and ring within 5 % of it), so ~7 kB + ~1 kB a NIC. Rounded up.
constexpr double kFleetBytesPerServer = 500.0;
constexpr double kFleetBytesPerGpu = 50.0;
constexpr double kFabricBytesPerServer = 8000.0;
constexpr double kFabricBytesPerNic = 1000.0;

std::uint64_t intervals(sim::Time horizon, sim::Duration interval) {
  if (interval.ns() <= 0) return 0;
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(horizon.ns()) / static_cast<double>(interval.ns())));
}
}  // namespace

OutputEstimate estimate_output(const runs::PreparedRun& run) {
  OutputEstimate e;
  double gpus = 0.0;
  for (const auto& g : sim::fleet_groups(run.setup)) {
    e.nodes += g.nodes;
    gpus += static_cast<double>(g.nodes) * g.gpus_per_node;
  }
  e.facility_rows = intervals(run.setup.horizon, run.setup.facility_interval);
  e.node_samples = intervals(run.setup.horizon, run.setup.node_interval);
  e.jobs = run.streamed ? run.job_count : run.jobs.size();
  e.held_jobs = run.streamed ? run.held_job_count : e.jobs;
  const double facility = kFacilityBytesPerRow * static_cast<double>(e.facility_rows);
  const double nodes =
      kNodeBytesPerValue * static_cast<double>(e.node_samples) * static_cast<double>(e.nodes + 1);
  e.bytes = facility + nodes + kJobBytesPerRow * static_cast<double>(e.jobs);
  e.dominant_key = nodes > facility ? "output.node_interval_s" : "output.facility_interval_s";
  // The spectrum's segment covers kSegmentMinS, or the whole run when shorter (power_quality.cpp).
  const double interval_s = std::max(1e-9, static_cast<double>(run.setup.facility_interval.ns()) / 1e9);
  const auto segment = std::bit_ceil(static_cast<std::uint64_t>(std::ceil(kSegmentMinS / interval_s)));
  e.spectrum_samples = std::max<std::uint64_t>(8, std::min(segment, std::bit_ceil(e.facility_rows + 2)));
  const double series = kMeterBytesPerRow * static_cast<double>(e.facility_rows) +
                        kSpectrumBytesPerSample * static_cast<double>(e.spectrum_samples);
  const double held = kHeldJobBytes * static_cast<double>(e.held_jobs);
  const double servers = static_cast<double>(e.nodes);
  double fleet = kFleetBytesPerServer * servers + kFleetBytesPerGpu * gpus;
  if (run.setup.topology)
    fleet += (kFabricBytesPerServer + kFabricBytesPerNic * run.setup.topology->node.nics) * servers;
  e.fleet_memory_bytes = fleet;
  e.memory_bytes = series + held + fleet;
  e.memory_key = fleet > std::max(series, held) ? "fleet.nodes"
                 : held > series                ? "workload"
                                                : "output.facility_interval_s";
  return e;
}

void limit_held_jobs(runs::PreparedRun& run, double max_bytes) {
  if (!run.streamed || !(max_bytes > 0.0)) return;
  const double room = max_bytes - estimate_output(run).memory_bytes;
  const auto& w = run.scenario.workload;
  sim::HeldJobsLimit& limit = run.setup.held_jobs;
  // At least one job: a run whose estimate alone fills the memory is refused before it starts.
  limit.jobs = static_cast<std::uint64_t>(std::max(1.0, std::floor(room / kHeldJobBytes)));
  limit.bytes_per_job = kHeldJobBytes;
  limit.where = w.generator ? w.generator->rate_where : w.warmup_where;
  limit.key = w.generator ? "workload.generator.rate_per_hour" : "workload";
}

}  // namespace fleetwatt::runs
