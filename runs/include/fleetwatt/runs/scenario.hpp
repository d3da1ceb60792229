// A scenario as typed structs: the fleet, facility, grid and output sections, and the sections its components
// own (the predictors' [predictor], the policies' [scheduler], the job sources' [workload]). Parsing lives
// in scenario_loader.cpp alone; everything else sees only these structs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/param_set.hpp"
#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/jobs/workload_config.hpp"
#include "fleetwatt/models/predictors/predictor_config.hpp"
#include "fleetwatt/runs/service_request.hpp"
#include "fleetwatt/sim/engine/failures_config.hpp"
#include "fleetwatt/sim/fleet/smoothing_config.hpp"
#include "fleetwatt/sim/policies/scheduler_config.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/serving/service_load.hpp"

namespace fleetwatt::runs {

using core::ParamSet;
using core::SourceLocation;
using core::WarningSink;
using jobs::WorkloadConfig;
using models::PredictorConfig;
using sim::FailureConfig;
using sim::GridSignalOptions;
using sim::SchedulerConfig;
using sim::SmoothingConfig;

/// One [[fleet.group]]: identical nodes of one GPU type.
struct FleetGroupConfig {
  std::string name;  ///< the scenario's name, else "group<k>" (k from 0, scenario order)
  std::uint32_t nodes = 1;
  std::uint32_t gpus_per_node = 1;
  std::string gpu;  ///< hardware preset id
  SourceLocation gpu_origin;
  std::optional<double> gpu_idle_W;   ///< overrides the preset's idle power
  std::optional<double> gpu_tdp_W;    ///< overrides the preset's TDP
  std::optional<double> node_base_W;  ///< else [fleet] node_base_w
  /// The group's site file (models/site_file.hpp), else [fleet] site: its runs of the group's GPU type
  /// correct the group's jobs. Groups of one GPU type share one.
  std::filesystem::path site;
  SourceLocation where;
};

struct FleetConfig {
  std::uint32_t nodes = 1;
  std::uint32_t gpus_per_node = 4;
  std::string gpu = "a800";  ///< hardware preset id
  SourceLocation gpu_origin;
  std::filesystem::path gpu_file;  ///< user GPU presets (TOML, the format of models/data/gpu_presets.toml)
  /// A site file of measured runs (models/site_file.hpp): every group's jobs (of a group without a site of
  /// its own) predicted corrected to the runs of their GPU type there. Empty: none.
  std::filesystem::path site;
  std::optional<double> gpu_idle_W;  ///< overrides the preset's idle power
  std::optional<double> gpu_tdp_W;   ///< overrides the preset's TDP
  double node_base_W = 0.0;          ///< CPU, memory, fans, NIC idle: drawn always
  /// Non-GPU power that follows the GPUs' (fans, power conversion, CPUs feeding them), per watt of GPU
  /// power ([fleet] node_load_w_per_gpu_w): a node draws node_base_W + (1 + this) x its GPUs' power.
  double node_load_fraction = 0.0;
  /// [[fleet.group]] tables in scenario order (empty: the identical nodes above). With groups, the loader
  /// sets nodes to the total, gpus_per_node to the largest node and gpu to the first group's preset.
  std::vector<FleetGroupConfig> groups;

  /// GPUs in the fleet.
  [[nodiscard]] std::uint64_t total_gpus() const;
  /// The most GPUs one job can get: a job runs within one node group.
  [[nodiscard]] std::uint64_t largest_group_gpus() const;
};

/// [[workload.service]]: an LLM service on GPUs of one node group that no training job gets. Its requests
/// (a trace played or a generator fed by the trace's lengths), model, replicas and batching are serve's
/// (runs/service_request.hpp); the group gives the GPU, the workload its horizon, [output] its interval.
struct ServiceScenarioConfig {
  std::string name;   ///< the scenario's, else "service<k>" (k from 0, scenario order)
  std::string group;  ///< [[fleet.group]] name; empty: the fleet's only group
  ServeRequest request;
  bool replicas_given = false;  ///< false: as many replicas as the group's GPUs hold
  /// absorb = true: the service takes up the other GPUs' swings (sim/serving/service_load.hpp).
  sim::AbsorbConfig absorb;
  /// Where each key was written (the table's own place for a key not written), for errors found when the
  /// service is prepared.
  std::map<std::string, SourceLocation> where;
  SourceLocation at;   ///< the table
  std::string prefix;  ///< its dotted path, "workload.service[0]"
};

/// [[facility.battery]]: on-site storage (sim/power/site_battery.hpp), in scenario units.
struct BatteryScenarioConfig {
  double energy_kwh = 0.0, power_kw = 0.0;
  double round_trip_efficiency = 0.9;
  double soc_min = 0.0, soc_max = 1.0, soc_initial = 0.5;
  std::string mode = "peak_shave";  ///< peak_shave, ramp_limit or carbon
  double ramp_limit_kw_per_min = 0.0;
  double charge_below_g_per_kwh = 0.0, discharge_above_g_per_kwh = 0.0;
  SourceLocation where;
};

struct FacilityConfig {
  double pue = 1.0;              ///< facility power / IT power (cooling "constant")
  SourceLocation pue_origin;     ///< where pue is written (for its warning)
  double carbon_kg_per_J = 0.0;  ///< grid carbon intensity (scenario key is kg/kWh)
  /// A registered cooling kind (sim/power/facility_model.hpp): "constant" (IT x pue) or "weather".
  std::string cooling = "constant";
  SourceLocation cooling_origin;
  /// The kind's own keys ([facility] keys other than the ones above and below), checked by its declaration.
  ParamSet cooling_params;
  std::filesystem::path weather_csv;  ///< resolved against the scenario's folder; empty: none
  std::string weather_start;          ///< weather time of simulation time zero; empty: the first row
  std::vector<BatteryScenarioConfig>
      batteries;  ///< applied in order, each to the import the one before leaves
  /// How the campus meets a grid event (sim/power/ride_through.hpp). The defaults are assumptions, not
  /// measurements: the ITIC curve's 20 ms that IT power supplies hold through a full voltage loss, five
  /// minutes of UPS, an immediate transfer, and a return after 5 minutes at 10 MW/min.
  double ride_through_s = 0.02;
  double ups_autonomy_s = 300.0;
  double transfer_delay_s = 0.0;
  double return_delay_s = 300.0;
  double return_ramp_kw_per_min = 10'000.0;
};

/// [[grid.event]]: a voltage dip or fault on the grid at the campus's connection.
struct GridEventConfig {
  double at_s = 0.0;         ///< when it starts, seconds since the run's start
  double duration_s = 0.0;   ///< how long the voltage is out of tolerance
  std::string kind = "dip";  ///< "dip" or "fault" (a label: the campus meets both the same way)
  SourceLocation where;
};

/// [grid.carbon] / [grid.price]: a time series read from CSV (see grid_signal.hpp).
struct GridSignalConfig {
  std::filesystem::path file;
  GridSignalOptions options;
  SourceLocation where;
};

struct GridConfig {
  std::optional<GridSignalConfig> carbon;  ///< carbon intensity, g/kWh after `scale`
  std::optional<GridSignalConfig> price;   ///< electricity price, currency per MWh after `scale`
  /// [grid] system_peak_hours: hours of the day (0-23, on the clock of [output] start) in which the grid
  /// peaks; the run reports the facility's demand in them (coincident peak). Empty: none given.
  std::vector<int> system_peak_hours;
  double import_limit_kw = 0.0;         ///< interconnection limit (0: none); peak_shave batteries hold it
  std::vector<GridEventConfig> events;  ///< [[grid.event]], in time order
};

/// The shortest [output] series interval: 1 ms resolves the fastest power swings the models produce (step
/// phases of tens of milliseconds), while every buffer sized by the interval (the power-quality spectrum's
/// segment of 1000 s, the series held for the load-duration curve) stays within tens of megabytes.
inline constexpr double kMinSeriesIntervalS = 1e-3;

struct OutputConfig {
  /// The result file; a relative [output] path (and the default) resolves against the scenario's folder.
  std::filesystem::path path = "fleetwatt.h5";
  /// Where `path` was given (the scenario file alone for the default), for errors about it.
  SourceLocation path_where;
  double facility_interval_s = 1.0;
  double node_interval_s = 10.0;
  bool gpu_changes = true;  ///< write /gpus/changes
  /// Jobs with waveform = "auto" run step by step when their step period is at least this (unset: twice
  /// facility_interval_s, so each step spans at least two samples).
  std::optional<double> step_waveform_min_s;
  /// Write every step segment of step-level jobs to /gpus/changes (false: their phase means only).
  bool step_gpu_changes = false;
  /// [output] start: the wall-clock instant simulated time 0 stands for (ISO 8601), as written, and read:
  /// seconds since 1970-01-01T00:00:00Z and the UTC offset it was written in (0 for "Z" or none).
  std::string start = "2026-01-01T00:00:00Z";
  std::int64_t start_unix_s = 1767225600;
  std::int32_t start_utc_offset_s = 0;
};

struct Scenario {
  std::filesystem::path file;  ///< where it was read from (relative paths resolve against its folder)
  std::string text;            ///< the TOML as read, stored in results for reproducibility
  std::uint64_t seed = 1;
  FleetConfig fleet;
  FacilityConfig facility;
  PredictorConfig predictor;
  SchedulerConfig scheduler;
  WorkloadConfig workload;
  std::vector<ServiceScenarioConfig> services;  ///< [[workload.service]], in scenario order
  GridConfig grid;
  OutputConfig output;
  /// [failures]: job interruptions with restart and lost work (off unless enabled).
  FailureConfig failures;
  /// [smoothing]: GPU power smoothing or burn of running jobs (off unless a mode is given).
  SmoothingConfig smoothing;
  /// [topology]: the interconnect, read by topologies::parse_topology_config; absent: no network model.
  std::optional<ParamSet> topology;
  /// Deprecated spellings met while reading it and building its components: the command line prints them
  /// (library code never prints). Shared by the scenario's ParamSets.
  std::shared_ptr<WarningSink> warnings = std::make_shared<WarningSink>();
};

}  // namespace fleetwatt::runs
