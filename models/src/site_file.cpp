// Reading and appending a site file's measured runs (models/site_file.hpp).
#include "fleetwatt/models/site_file.hpp"

#include <fmt/format.h>

#include <limits>

#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/core/toml_table.hpp"

namespace fleetwatt::models {

namespace {

// Plausible bounds: no GPU draws or is limited to 10 kW, no run's counts pass 2^32, no parameter or FLOP
// count passes 1e18 (a thousand times today's largest models).
constexpr double kMaxW = 10e3;
constexpr double kMaxCount = 1e18;

/// A TOML basic string: quotes and backslashes escaped, control characters as \uXXXX.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\u{:04X}", u);
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

SiteRun read_run(const core::TomlTable& t) {
  t.require_known({"gpu_type", "host", "model", "params", "flops", "batch_size", "data_size", "input_size",
                   "workers", "epochs", "gpus", "epoch_s", "power_w", "power_limit_w", "max_power_limit_w",
                   "source"});
  for (const char* key : {"gpu_type", "model", "batch_size", "data_size", "epoch_s"})
    if (!t.has(key))
      t.fail(key, "missing (a run needs its GPU, model, batch, samples per epoch and measured epoch)");
  SiteRun s;
  s.where = t.where();
  RecordedRun& r = s.run;
  r.gpu_type = *t.string("gpu_type");
  if (record_gpu(r.gpu_type).empty())
    t.fail("gpu_type", fmt::format("no GPU preset for '{}' (see `fleetwatt list`)", r.gpu_type));
  r.model = *t.string("model");
  if (r.model.empty()) t.fail("model", "must name the model");
  s.host = t.string("host").value_or("");
  s.source = t.string("source").value_or("");
  r.params = t.number_in("params", 0.0, kMaxCount).value_or(0.0);
  r.flops = t.number_in("flops", 0.0, kMaxCount).value_or(0.0);
  r.data_size = *t.number_in("data_size", 0.0, kMaxCount);
  if (!(r.data_size > 0.0)) t.fail("data_size", "must be positive (the samples of a measured epoch)");
  const auto whole = [&](const char* key, std::int64_t lo) {
    return static_cast<std::uint32_t>(
        t.integer(key, lo, std::numeric_limits<std::uint32_t>::max()).value_or(0));
  };
  r.batch_size = whole("batch_size", 1);
  r.input_size = whole("input_size", 0);
  r.workers = whole("workers", 0);
  r.epochs = whole("epochs", 0);
  r.gpus = whole("gpus", 0);
  r.epoch_s = *t.number_at_least("epoch_s", 0.0, true);
  r.power_W = t.number_in("power_w", 0.0, kMaxW).value_or(0.0);
  r.power_limit_W = t.number_in("power_limit_w", 0.0, kMaxW).value_or(0.0);
  r.max_power_limit_W = t.number_in("max_power_limit_w", 0.0, kMaxW).value_or(0.0);
  return s;
}

}  // namespace

namespace {

SiteFile site_from(const toml::table& root, const std::string& file, const std::string& default_name) {
  const core::TomlTable top(root, "", file);
  top.require_known({"name", "run"});
  SiteFile site;
  site.name = top.string("name").value_or(default_name);
  if (top.has("run") && top.tables("run").empty()) top.fail("run", "must be an array of tables ([[run]])");
  for (const core::TomlTable& t : top.tables("run")) site.runs.push_back(read_run(t));
  return site;
}

}  // namespace

SiteFile read_site_file(const std::filesystem::path& path) {
  return site_from(core::parse_toml_file(path), path.string(), path.stem().string());
}

SiteFile parse_site_file(std::string_view text, const std::string& file) {
  return site_from(core::parse_toml(text, file), file, "site");
}

std::string format_site_run(const SiteRun& s) {
  const RecordedRun& r = s.run;
  std::string out = "[[run]]\n";
  const auto text = [&](const char* key, const std::string& v) {
    if (!v.empty()) out += fmt::format("{} = {}\n", key, toml_string(v));
  };
  const auto number = [&](const char* key, double v) {
    if (v > 0.0) out += fmt::format("{} = {}\n", key, v);  // the shortest text that reads back as v
  };
  const auto whole = [&](const char* key, std::uint32_t v) {
    if (v > 0) out += fmt::format("{} = {}\n", key, v);
  };
  text("gpu_type", r.gpu_type);
  text("host", s.host);
  text("model", r.model);
  number("params", r.params);
  number("flops", r.flops);
  whole("batch_size", r.batch_size);
  number("data_size", r.data_size);
  whole("input_size", r.input_size);
  whole("workers", r.workers);
  whole("epochs", r.epochs);
  whole("gpus", r.gpus);
  number("epoch_s", r.epoch_s);
  out += fmt::format("power_w = {}\n", r.power_W);
  number("power_limit_w", r.power_limit_W);
  number("max_power_limit_w", r.max_power_limit_W);
  text("source", s.source);
  return out;
}

void append_site_run(const std::filesystem::path& path, const std::string& name, const SiteRun& run) {
  std::string text = core::read_file_text(path).value_or("");
  if (text.empty()) {
    text = fmt::format(
        "# A site's measured runs (fleetwatt calibrate ... --site FILE appends one [[run]] per log); "
        "`fleetwatt\n"
        "# predict --site`, `validate --site` and a scenario's [fleet] site correct predictions with them.\n"
        "name = {}\n",
        toml_string(name.empty() ? path.stem().string() : name));
  } else {
    (void)read_site_file(path);  // a file that is not a site file is left alone, with its error
    if (text.back() != '\n') text.push_back('\n');
  }
  text += "\n" + format_site_run(run);
  // Parsed back before it replaces the file: what is written is what the next read gets.
  (void)core::parse_toml(text, path.string());
  core::write_text_output(path, "--site", [&](std::ostream& out) { out << text; });
}

Measurement site_measurement(const SiteRun& run) {
  Measurement m = recorded_measurement(run.run, run.where);
  m.source = "site";
  // What a predictor refuses in the run (an unknown model) is an error at its [[run]] table.
  m.job.class_origin = run.where;
  return m;
}

}  // namespace fleetwatt::models
