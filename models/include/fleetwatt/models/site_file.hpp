// A site file: an operator's own measured runs, one [[run]] table each (what `fleetwatt calibrate ...
// --site FILE` appends), for predictions corrected to that site (models/site_correction.hpp). TOML:
//
//   name = "lab-a"
//   [[run]]
//   gpu_type = "rtx3070"    # preset id or the GPU's name; host = "..." optional
//   model = "resnet50"      # zoo model, keras-<architecture>, or a name with params and flops
//   batch_size = 32
//   data_size = 50000       # samples per epoch; params, flops, input_size, workers, epochs, gpus optional
//   epoch_s = 40.4          # measured epoch
//   power_w = 179.3         # measured mean GPU power (0: not measured)
//   power_limit_w = 0       # the run's limit (0: the board's default); max_power_limit_w the board's maximum
//   source = "gpu-power.csv"
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/measurements.hpp"

namespace fleetwatt::models {

struct SiteRun {
  core::SourceLocation where;  ///< its [[run]] table
  RecordedRun run;
  std::string host;    ///< the machine it ran on (optional)
  std::string source;  ///< the log it was measured from (optional)
};

struct SiteFile {
  std::string name;
  std::vector<SiteRun> runs;
};

/// Reads a site file; a bad key or value is a core::ConfigError naming file, line, column and key (a run
/// on a GPU without a preset is one too: the site could not correct it).
[[nodiscard]] SiteFile read_site_file(const std::filesystem::path& path);
/// The same from a site file's text (`file` names it in errors; the name defaults to "site").
[[nodiscard]] SiteFile parse_site_file(std::string_view text, const std::string& file);

/// The run as the [[run]] table read_site_file reads back (each number the shortest text of its value).
[[nodiscard]] std::string format_site_run(const SiteRun& run);

/// Appends `run` to the site file at `path`, creating it (named `name`, or the file's stem) when absent; the
/// file is checked first and rewritten through a temporary file.
void append_site_run(const std::filesystem::path& path, const std::string& name, const SiteRun& run);

/// The run as a measurement (models/fit/measurements.hpp's recorded_measurement).
[[nodiscard]] Measurement site_measurement(const SiteRun& run);

}  // namespace fleetwatt::models
