// Streams a run into an HDF5 file: facility and node series (interval means), GPU and network change
// points, the job table (finished jobs as the engine drops them, in blocks), summary totals and provenance
// attributes. Writes go to a temporary file beside the target, which is renamed only by commit(); a failed
// or interrupted run leaves nothing under the requested name.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/results/hdf5/service_record.hpp"
#include "fleetwatt/results/metrics/grid_metrics.hpp"
#include "fleetwatt/results/metrics/power_quality.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/engine/job_sink.hpp"
#include "fleetwatt/sim/engine/run_summary.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/fleet/fleet_layout.hpp"
#include "fleetwatt/sim/fleet/job.hpp"
#include "fleetwatt/sim/power/power_sink.hpp"

namespace fleetwatt::results {

/// Job-table rows buffered before they are appended to /jobs (about 1.5 MB of a block).
inline constexpr std::size_t kJobBlockRows = 4096;

/// Provenance stamped into the file's root attributes.
struct RunProvenance {
  std::string scenario_text;
  std::string scenario_file;
  std::uint64_t seed = 0;
  std::string version;
  std::string git_commit;
};

struct WriterLayout {
  std::uint32_t nodes = 1;
  std::uint32_t gpus_per_node = 1;
  double facility_interval_s = 1.0;
  double node_interval_s = 10.0;
  bool gpu_changes = true;
  std::uint32_t gpus = 0;  ///< GPUs in all when nodes differ (several node groups); 0: nodes x gpus_per_node
  // Grid metrics (/summary, /grid): the wall clock of [output] start, stored as root attributes too, and the
  // hours of [grid] system_peak_hours.
  WallClock clock{};
  std::string start_text = "2026-01-01T00:00:00Z";
  std::vector<int> system_peak_hours{};
};

class ResultWriter final : public sim::PowerSink, public sim::JobSink {
 public:
  /// Creates the temporary file; throws std::runtime_error naming the path when it cannot.
  ResultWriter(std::filesystem::path target, const WriterLayout& layout);
  /// Removes the temporary file unless commit() succeeded.
  ~ResultWriter() override;
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  void facility_sample(sim::Time start, double it_W, double facility_W, double energy_J) override;
  void node_samples(sim::Time start, std::span<const double> node_W) override;
  /// Per-interval carbon and cost: /facility/carbon_kg and /facility/cost beside the power series.
  void grid_sample(sim::Time start, double carbon_kg, double cost) override;
  void gpu_change(sim::Time t, std::span<const sim::GpuIndex> gpus, double power_W) override;
  /// Whether /gpus/changes is written (the layout's gpu_changes).
  [[nodiscard]] bool wants_gpu_changes() const override;
  /// Network power change points; written as /network/time_s and /network/power_W at commit.
  void network_change(sim::Time t, double power_W) override;
  /// With batteries: /facility/grid_import_W, battery_W and battery_soc beside the facility series.
  void battery_sample(sim::Time start, double import_W, double battery_W, double soc) override;
  void outage_sample(sim::Time start, double import_W, double ups_W, double unserved_W) override;

  /// Streams the job table: the engine hands each finished job over in job order and drops it; write_jobs
  /// then appends the jobs it still holds. Rows go to /jobs `block_rows` at a time. Call before run().
  void stream_jobs(sim::Engine& engine, std::size_t block_rows = kJobBlockRows);
  void job_done(sim::JobIndex index, const sim::Job& job) override;

  void write_jobs(const std::deque<sim::Job>& jobs, std::uint32_t gpus_per_node);
  /// The job table with node indices from the cluster's layout (any fleet, several node groups included);
  /// with `gpu_column`, also /jobs/gpu (the GPU preset each job ran on; for fleets of several groups).
  /// After stream_jobs: the jobs the engine still holds, after those it streamed (the same arguments).
  void write_jobs(const std::deque<sim::Job>& jobs, const sim::Cluster& cluster, bool gpu_column);
  /// /fleet: one row per node group (name, nodes, gpus_per_node, gpu, idle and TDP per GPU, node base);
  /// written for fleets of several node groups (a uniform fleet's file stays as it was).
  void write_fleet(const std::vector<sim::FleetGroup>& groups);
  /// /services/<name>: each LLM service's series (per facility interval) and totals.
  void write_services(const std::vector<ServiceRecord>& services);
  /// /summary (the run's totals and the grid metrics of its facility series) and /grid.
  void write_summary(const sim::RunSummary& summary);
  /// The grid metrics write_summary computed (for the printed summary); empty before it.
  [[nodiscard]] const GridMetrics& grid_metrics() const noexcept;
  /// The power-quality figures write_summary computed and wrote to /power_quality; empty before it.
  [[nodiscard]] const PowerQuality& power_quality() const noexcept;
  void write_provenance(const RunProvenance& provenance);

  /// Flushes, closes and renames the temporary file onto the target.
  void commit();

  [[nodiscard]] const std::filesystem::path& target() const noexcept { return target_; }
  [[nodiscard]] const std::filesystem::path& temporary() const noexcept { return temp_; }

 private:
  struct Impl;
  std::filesystem::path target_;
  std::filesystem::path temp_;
  std::unique_ptr<core::LiveTemporary> live_;
  std::unique_ptr<Impl> impl_;
  bool committed_ = false;
};

}  // namespace fleetwatt::results
