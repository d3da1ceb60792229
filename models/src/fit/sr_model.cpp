// Model files of the symbolic-regression predictor: TOML writing and validating reads, predictions with the
// saved scaler, and the EMA online update. Reading goes through core's TomlTable, like every TOML file.
#include "fleetwatt/models/fit/sr_model.hpp"

#include "fleetwatt/core/text_output.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/toml_table.hpp"

namespace fleetwatt::models::fit {

using core::ConfigError;
using core::SourceLocation;

double SrTargetModel::formula_value(const std::vector<double>& raw) const {
  std::vector<double> z(raw.size());
  for (std::size_t j = 0; j < raw.size(); ++j)
    z[j] = (raw[j] - scaler.mean(static_cast<Eigen::Index>(j))) / scaler.std(static_cast<Eigen::Index>(j));
  return evaluate_row(program, z.data());
}

double SrTargetModel::predict(const std::vector<double>& raw) const {
  return formula_value(raw) + correction;
}

const SrTargetModel* SrModelFile::find(const std::string& name) const {
  for (const auto& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

void SrModelFile::upsert(SrTargetModel model) {
  for (auto& m : models)
    if (m.name == model.name) {
      m = std::move(model);
      return;
    }
  models.push_back(std::move(model));
}

namespace {

toml::array to_array(const Eigen::VectorXd& v) {
  toml::array a;
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(v(i));
  return a;
}

}  // namespace

std::string sr_model_text(const SrModelFile& file) {
  toml::table root;
  root.insert("format", "fleetwatt-sr");
  root.insert("version", 1);
  toml::table models;
  for (const auto& m : file.models) {
    toml::table t;
    t.insert("target", m.target);
    t.insert("formula", m.formula);
    toml::array feats;
    for (const auto& f : m.features) feats.push_back(f);
    t.insert("features", feats);
    t.insert("scaler_mean", to_array(m.scaler.mean));
    t.insert("scaler_std", to_array(m.scaler.std));
    toml::table metrics;
    for (const auto& [k, v] : m.metrics) metrics.insert(k, v);
    t.insert("metrics", metrics);
    toml::table prov;
    for (const auto& [k, v] : m.provenance) prov.insert(k, v);
    t.insert("provenance", prov);
    toml::table upd;
    upd.insert("alpha", m.update_alpha);
    upd.insert("correction", m.correction);
    upd.insert("updates", m.updates);
    t.insert("update", upd);
    models.insert(m.name, t);
  }
  root.insert("models", models);
  std::ostringstream os;
  os << "# fleetwatt symbolic-regression model (written by `fleetwatt fit`).\n"
        "# Each [models.NAME] predicts one target: value = formula(z) + update.correction, where\n"
        "# z_i = (feature_i - scaler_mean_i) / scaler_std_i. div, log, sqrt and inv are protected as in "
        "gplearn:\n"
        "# div(a, b) = 1 and inv(x) = 0 when |divisor| <= 0.001; log(x) = ln|x| (0 when |x| <= 0.001);\n"
        "# sqrt(x) = sqrt(|x|); sig(x) = 1 / (1 + exp(-x)).\n"
     << toml::toml_formatter(root) << "\n";
  return os.str();
}

void save_sr_model(const std::filesystem::path& path, const SrModelFile& file) {
  const std::string text = sr_model_text(file);
  core::write_text_output(path, "file", [&](std::ostream& out) { out << text; });
}

namespace {

// The metric SrPredictor::uncertainty() reads as its band.
constexpr const char* kBandMetric = "test_mre_mean_percent_sr";

// The checks shared by the file and the text entry points.
SrModelFile model_from_toml(const toml::table& root, const std::string& source) {
  const core::TomlTable top(root, "", source);
  top.require_known({"format", "version", "models"});
  if (top.string("format").value_or("") != "fleetwatt-sr")
    top.fail("format", "not a fleetwatt symbolic-regression model (expected format = \"fleetwatt-sr\")");
  if (const auto v = top.integer("version", 1, std::numeric_limits<std::int64_t>::max()); v && *v != 1)
    top.fail("version", "unsupported version " + std::to_string(*v) + " (this build reads version 1)");
  const auto models = top.table("models");
  if (!models || models->raw().empty()) top.fail("models", "the file has no [models.NAME] table");
  SrModelFile file;
  for (const auto& entry : models->named_tables()) {
    // Named, not a structured binding: clang 14 cannot capture a binding in the lambda below.
    const std::string& name = entry.first;
    const core::TomlTable& t = entry.second;
    t.require_known(
        {"target", "formula", "features", "scaler_mean", "scaler_std", "metrics", "provenance", "update"});
    for (const char* key : {"target", "formula", "features", "scaler_mean", "scaler_std"})
      if (!t.has(key)) t.fail(key, "is missing");
    SrTargetModel m;
    m.name = name;
    m.target = *t.string("target");
    if (m.target.empty()) t.fail("target", "must be a non-empty string");
    m.features = *t.strings("features");
    // A scaler's mean and standard deviation, and the correction, are in the units of a record's column
    // (FLOPs, bytes, seconds, watts): 1e30 bounds any of them (1e25 FLOPs trains the largest models). The
    // standard deviation divides, so it has a floor too: 1e-30 keeps z within 1e60, finite through a
    // formula's squares.
    constexpr double kMagnitude = 1e30;
    auto numbers = [&](const char* key, double lo, double hi) {
      const auto v = *t.numbers(key);
      if (v.size() != m.features.size())
        t.fail(key, "has " + std::to_string(v.size()) + " values for " + std::to_string(m.features.size()) +
                        " features");
      Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!std::isfinite(v[i])) t.fail(key, "must be finite numbers");
        if (!(v[i] >= lo && v[i] <= hi))
          t.fail(key, fmt::format("values must lie in [{}, {}], got {}", lo, hi, v[i]));
        out(static_cast<Eigen::Index>(i)) = v[i];
      }
      return out;
    };
    m.scaler.mean = numbers("scaler_mean", -kMagnitude, kMagnitude);
    m.scaler.std = numbers("scaler_std", 1e-30, kMagnitude);
    m.formula = *t.string("formula");
    FormulaError err;
    m.program = parse_formula(m.formula, m.features, &err);
    if (m.program.empty()) {
      // The token's column: the string's opening quote plus the offset inside it.
      SourceLocation loc = t.value_where("formula");
      loc.column += static_cast<std::uint32_t>(err.offset);
      throw ConfigError(loc, t.dotted("formula"), err.message + " (at '" + err.token + "')");
    }
    // Metrics and provenance are notes for people: values of other kinds are skipped, not refused, and so
    // are non-finite metrics (a statistic of a degenerate split has no value). The sr predictor's band reads
    // one: test_mre_mean_percent_sr, a mean relative error in percent, refused outside [0, 1e6] (1e6 % is
    // an error of 10^4 times the value, past any fit worth a band).
    if (const auto mt = t.table("metrics"))
      for (const auto& [k, v] : mt->raw()) {
        const std::string key(k.str());
        const auto d = v.value<double>();
        if (key == kBandMetric && d && !(*d >= 0.0 && *d <= 1e6))
          mt->fail(key, fmt::format("must be a percentage from 0 to 1e6, got {}", *d));
        if (d && std::isfinite(*d)) m.metrics[key] = *d;
      }
    if (const auto pt = t.table("provenance"))
      for (const auto& [k, v] : pt->raw())
        if (const auto str = v.value<std::string>()) m.provenance[std::string(k.str())] = *str;
    if (const auto ut = t.table("update")) {
      ut->require_known({"alpha", "correction", "updates"});
      m.update_alpha = ut->number("alpha", 0.2);
      m.correction = ut->number_in("correction", -kMagnitude, kMagnitude).value_or(0.0);
      m.updates = ut->integer("updates", 0, std::numeric_limits<std::int64_t>::max()).value_or(0);
      if (!(m.update_alpha > 0 && m.update_alpha <= 1)) ut->fail("alpha", "must lie in (0, 1]");
    }
    file.models.push_back(std::move(m));
  }
  return file;
}

}  // namespace

SrModelFile load_sr_model(const std::filesystem::path& path) {
  return model_from_toml(core::parse_toml_file(path), path.string());
}

SrModelFile parse_sr_model(std::string_view text, const std::string& source) {
  return model_from_toml(core::parse_toml(text, source), source);
}

std::vector<UpdateReport> update_models(SrModelFile& file, const RecordTable& records) {
  std::vector<UpdateReport> out;
  for (auto& m : file.models) {
    if (!records.has_column(m.target)) continue;
    const auto y = records.numeric(m.target);
    std::vector<std::vector<double>> cols;
    for (const auto& f : m.features) cols.push_back(records.numeric(f));
    UpdateReport r;
    r.name = m.name;
    r.records = y.size();
    r.correction_before = m.correction;
    std::vector<double> base(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
      std::vector<double> raw;
      for (const auto& c : cols) raw.push_back(c[i]);
      base[i] = m.formula_value(raw);
    }
    auto mre = [&](double corr) {
      double s = 0;
      int n = 0;
      for (std::size_t i = 0; i < y.size(); ++i)
        if (y[i] != 0) {
          s += std::abs(base[i] + corr - y[i]) / std::abs(y[i]);
          ++n;
        }
      return n ? 100.0 * s / n : 0.0;
    };
    r.mre_before_percent = mre(m.correction);
    for (std::size_t i = 0; i < y.size(); ++i) {
      m.correction = (1.0 - m.update_alpha) * m.correction + m.update_alpha * (y[i] - base[i]);
      ++m.updates;
    }
    r.correction_after = m.correction;
    r.mre_after_percent = mre(m.correction);
    out.push_back(r);
  }
  if (out.empty()) {
    std::string names;
    for (const auto& m : file.models) names += (names.empty() ? "" : ", ") + m.target;
    throw ConfigError(SourceLocation{records.source(), 1, 0}, "records",
                      "has none of the model's target columns (" + names + ")");
  }
  return out;
}

}  // namespace fleetwatt::models::fit
