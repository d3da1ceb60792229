// The fitted symbolic-regression model file: per target (peak_W, peak_s, valley_W, valley_s, or any
// records column) the formula text, its feature names and z-score scaler, fit metrics, data provenance and
// the online-update state. Loading validates every formula against its features and names the file, line,
// column and token of an error. Online updates keep an exponential moving average of residuals per target.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/models/fit/dataset.hpp"
#include "fleetwatt/models/fit/program.hpp"
#include "fleetwatt/models/fit/records.hpp"

namespace fleetwatt::models::fit {

/// One target's fitted formula.
struct SrTargetModel {
  std::string name;    ///< table name in the file: the role the simulator reads (peak_W, ...) or the target
  std::string target;  ///< the records column it was fitted to
  std::string formula;
  Program program;
  std::vector<std::string> features;
  Scaler scaler;
  std::map<std::string, double> metrics;          ///< e.g. test_mre_mean_percent
  std::map<std::string, std::string> provenance;  ///< records file, rows, seed, settings, version
  double update_alpha = 0.2;                      ///< EMA weight of a new residual
  double correction = 0.0;                        ///< EMA of residuals, added to the formula's value
  std::int64_t updates = 0;                       ///< records folded in so far

  /// The prediction for raw (unscaled) feature values, in the order of `features`.
  [[nodiscard]] double predict(const std::vector<double>& raw) const;
  /// The formula alone (without the online correction) for raw features.
  [[nodiscard]] double formula_value(const std::vector<double>& raw) const;
};

struct SrModelFile {
  std::vector<SrTargetModel> models;

  /// The model named `name`, or nullptr.
  [[nodiscard]] const SrTargetModel* find(const std::string& name) const;
  /// Adds a model or replaces the one with the same name.
  void upsert(SrTargetModel model);
};

/// Loads and validates a model file; throws jobs::ConfigError with file, line and column.
[[nodiscard]] SrModelFile load_sr_model(const std::filesystem::path& path);
/// The same from the file's text; `source` names it in messages.
[[nodiscard]] SrModelFile parse_sr_model(std::string_view text, const std::string& source);
/// Writes a model file (TOML).
void save_sr_model(const std::filesystem::path& path, const SrModelFile& file);
/// The TOML text of a model file.
[[nodiscard]] std::string sr_model_text(const SrModelFile& file);

/// What an online update did to one target.
struct UpdateReport {
  std::string name;
  std::size_t records = 0;
  double correction_before = 0.0, correction_after = 0.0;
  double mre_before_percent = 0.0;  ///< on the new records, with the correction before the update
  double mre_after_percent = 0.0;   ///< on the same records, with the updated correction
};

/// Folds new records into every model whose target column the table has, in row order:
/// correction <- (1 - alpha) correction + alpha (y - formula(x)). Throws ConfigError when no model's target
/// is in the table and TraceFormatError for bad cells.
[[nodiscard]] std::vector<UpdateReport> update_models(SrModelFile& file, const RecordTable& records);

}  // namespace fleetwatt::models::fit
