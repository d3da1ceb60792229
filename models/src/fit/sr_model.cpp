// Model files of the symbolic-regression predictor: TOML writing and validating reads, predictions with the
// saved scaler, and the EMA online update.
#include "fleetwatt/models/fit/sr_model.hpp"

#include <toml++/toml.h>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "fleetwatt/workloads/input_error.hpp"

namespace fleetwatt::models::fit {

using workloads::ConfigError;
using workloads::SourceLocation;

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

SourceLocation where(const std::filesystem::path& path, const toml::node& n) {
  return SourceLocation{path.string(), n.source().begin.line, n.source().begin.column};
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
  std::ofstream out(path, std::ios::binary);
  if (!out) throw ConfigError(SourceLocation{path.string(), 0, 0}, "file", "cannot write the model file");
  out << text;
}

SrModelFile load_sr_model(const std::filesystem::path& path) {
  toml::table root;
  try {
    root = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    throw ConfigError(SourceLocation{path.string(), e.source().begin.line, e.source().begin.column}, "toml",
                      std::string(e.description()));
  }
  const SourceLocation top{path.string(), 1, 1};
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (key != "format" && key != "version" && key != "models")
      throw ConfigError(where(path, v), key, "unknown key (known: format, version, models)");
  }
  if (root["format"].value_or(std::string()) != "fleetwatt-sr")
    throw ConfigError(root["format"].node() ? where(path, *root["format"].node()) : top, "format",
                      "not a fleetwatt symbolic-regression model (expected format = \"fleetwatt-sr\")");
  const toml::table* models = root["models"].as_table();
  if (!models || models->empty()) throw ConfigError(top, "models", "the file has no [models.NAME] table");
  SrModelFile file;
  for (const auto& [name_key, node] : *models) {
    const std::string name(name_key.str());
    const toml::table* t = node.as_table();
    if (!t) throw ConfigError(where(path, node), "models." + name, "must be a table");
    const SourceLocation at = where(path, node);
    SrTargetModel m;
    m.name = name;
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      static const std::vector<std::string> known{"target",     "formula", "features",   "scaler_mean",
                                                  "scaler_std", "metrics", "provenance", "update"};
      if (std::find(known.begin(), known.end(), key) == known.end())
        throw ConfigError(where(path, v), "models." + name + "." + key,
                          "unknown key (known: target, formula, features, scaler_mean, scaler_std, metrics, "
                          "provenance, update)");
    }
    auto field = [&](const char* key) -> const toml::node& {
      const toml::node* n = t->get(key);
      if (!n) throw ConfigError(at, "models." + name + "." + key, "is missing");
      return *n;
    };
    const std::string prefix = "models." + name + ".";
    m.target = field("target").value_or(std::string());
    if (m.target.empty())
      throw ConfigError(where(path, field("target")), prefix + "target", "must be a non-empty string");
    const toml::node& feats = field("features");
    if (!feats.is_array())
      throw ConfigError(where(path, feats), prefix + "features", "must be an array of strings");
    for (const auto& f : *feats.as_array()) {
      if (!f.is_string())
        throw ConfigError(where(path, f), prefix + "features", "must be an array of strings");
      m.features.push_back(*f.value<std::string>());
    }
    auto numbers = [&](const char* key) {
      const toml::node& n = field(key);
      if (!n.is_array()) throw ConfigError(where(path, n), prefix + key, "must be an array of numbers");
      const auto& a = *n.as_array();
      if (a.size() != m.features.size())
        throw ConfigError(where(path, n), prefix + key,
                          "has " + std::to_string(a.size()) + " values for " +
                              std::to_string(m.features.size()) + " features");
      Eigen::VectorXd v(static_cast<Eigen::Index>(a.size()));
      for (std::size_t i = 0; i < a.size(); ++i) {
        const auto d = a[i].value<double>();
        if (!d || !std::isfinite(*d))
          throw ConfigError(where(path, a[i]), prefix + key, "must be finite numbers");
        v(static_cast<Eigen::Index>(i)) = *d;
      }
      return v;
    };
    m.scaler.mean = numbers("scaler_mean");
    m.scaler.std = numbers("scaler_std");
    for (Eigen::Index i = 0; i < m.scaler.std.size(); ++i)
      if (!(m.scaler.std(i) > 0))
        throw ConfigError(where(path, field("scaler_std")), prefix + "scaler_std", "values must be positive");
    const toml::node& f = field("formula");
    if (!f.is_string()) throw ConfigError(where(path, f), prefix + "formula", "must be a string");
    m.formula = *f.value<std::string>();
    FormulaError err;
    m.program = parse_formula(m.formula, m.features, &err);
    if (m.program.empty()) {
      // The token's column: the string's opening quote plus the offset inside it.
      SourceLocation loc = where(path, f);
      loc.column += static_cast<std::uint32_t>(err.offset);
      throw ConfigError(loc, prefix + "formula", err.message + " (at '" + err.token + "')");
    }
    if (const toml::table* mt = t->get_as<toml::table>("metrics"))
      for (const auto& [k, v] : *mt)
        if (const auto d = v.value<double>()) m.metrics[std::string(k.str())] = *d;
    if (const toml::table* pt = t->get_as<toml::table>("provenance"))
      for (const auto& [k, v] : *pt) {
        if (const auto s = v.value<std::string>()) m.provenance[std::string(k.str())] = *s;
      }
    if (const toml::table* ut = t->get_as<toml::table>("update")) {
      m.update_alpha = ut->get("alpha") ? ut->get("alpha")->value_or(0.2) : 0.2;
      m.correction = ut->get("correction") ? ut->get("correction")->value_or(0.0) : 0.0;
      m.updates = ut->get("updates") ? ut->get("updates")->value_or(std::int64_t{0}) : 0;
      if (!(m.update_alpha > 0 && m.update_alpha <= 1))
        throw ConfigError(where(path, *ut->get("alpha")), prefix + "update.alpha", "must lie in (0, 1]");
    }
    file.models.push_back(std::move(m));
  }
  return file;
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
