// `fleetwatt export RESULT.h5`: a result file as CSV for the people and tools that plan grid connections
// and tariffs: the facility load profile resampled exactly onto clock-aligned rows
// (results/metrics/resample.hpp), per-node power, a comparison's per-policy series, or the job table. Rows
// carry ISO 8601 time stamps on the clock of the scenario's [output] start (stored in the file) and seconds
// since the start; every header names its unit. Writes to a temporary file beside -o and renames it when
// done; without -o, to stdout.
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/results/metrics/resample.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"

namespace fleetwatt::tools {

namespace {

struct ExportOptions {
  std::string file;
  std::string interval;  // empty: the stored interval
  std::string what = "facility";
  std::string output;
};

// Stored samples read at a time: memory stays bounded for a year at 1 s.
constexpr std::size_t kChunk = 1u << 20;

[[noreturn]] void refuse(const std::string& where, const std::string& field, const std::string& message) {
  throw jobs::ConfigError({where, 0, 0}, field, message);
}

/// A number as CSV text: the shortest form that reads back to the same double; NaN as an empty field.
std::string number(double v) {
  return std::isnan(v) ? std::string() : fmt::format("{}", v);
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string text_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

results::WallClock clock_of(const results::ResultReader& h5) {
  results::WallClock clock;
  // Files written before [output] start existed have no attribute: they read on the default clock.
  try {
    clock.start_unix_s = h5.integer_attribute("/", "start_unix_s");
    clock.utc_offset_s = static_cast<std::int32_t>(h5.integer_attribute("/", "start_utc_offset_s"));
  } catch (const std::runtime_error&) {
  }
  return clock;
}

std::int64_t to_ns(double seconds) {
  return core::Duration::from_seconds(seconds).ns();
}

double scalar(const results::ResultReader& h5, const std::string& path) {
  return h5.doubles(path).at(0);
}

/// The row interval: --interval, or the stored one.
std::int64_t row_width(const ExportOptions& o, std::int64_t stored_ns) {
  if (o.interval.empty()) return stored_ns;
  const auto ns = results::parse_interval(o.interval);
  if (!ns)
    refuse("command line", "--interval",
           fmt::format("'{}' is not an interval (a positive number and a unit: 1s, 15min, 1h, 1d, 500ms)",
                       o.interval));
  return *ns;
}

/// Streams `columns` (1-D series of one length, stored at `interval_ns`) through a resampler; columns
/// whose flag is set are per-interval totals. Each output value is divided by `divisor[c]` (1000: W -> kW).
std::size_t write_series(std::ostream& out, const results::ResultReader& h5,
                         const std::vector<std::string>& columns, const std::vector<bool>& is_total,
                         const std::vector<double>& divisor, std::int64_t interval_ns,
                         std::int64_t horizon_ns, std::int64_t width_ns, const results::WallClock& clock) {
  std::size_t rows = 0;
  results::Resampler resampler(
      interval_ns, horizon_ns, width_ns, clock, is_total, [&](const results::ResampledRow& r) {
        out << clock.iso8601(r.start_ns) << ',' << number(static_cast<double>(r.start_ns) / 1e9);
        for (std::size_t c = 0; c < r.values.size(); ++c) out << ',' << number(r.values[c] / divisor[c]);
        out << '\n';
        ++rows;
      });
  const std::size_t n = h5.length(columns.front());
  std::vector<double> sample(columns.size());
  for (std::size_t offset = 0; offset < n; offset += kChunk) {
    std::vector<std::vector<double>> chunk;
    for (const auto& c : columns) chunk.push_back(h5.doubles(c, offset, kChunk));
    for (std::size_t i = 0; i < chunk.front().size(); ++i) {
      for (std::size_t c = 0; c < columns.size(); ++c) sample[c] = chunk[c][i];
      resampler.add(sample);
    }
  }
  resampler.finish();
  return rows;
}

bool is_comparison(const results::ResultReader& h5) {
  return h5.has("/comparison/policy");
}

std::size_t export_facility(std::ostream& out, const results::ResultReader& h5, const ExportOptions& o) {
  if (is_comparison(h5))
    refuse(o.file, "--what facility", "a comparison result: its series are per policy (--what policies)");
  if (!h5.has("/facility/facility_power_W") || !h5.has("/summary/horizon_s"))
    refuse(o.file, "--what facility", "not a fleetwatt run result (no /facility series and /summary)");
  const std::int64_t interval = to_ns(h5.double_attribute("/facility", "interval_s"));
  const std::int64_t width = row_width(o, interval);
  // What the utility's meter reads beside what the facility draws: with batteries the grid import (on which
  // carbon and cost are charged), without them the facility power itself.
  const std::string import =
      h5.has("/facility/grid_import_W") ? "/facility/grid_import_W" : "/facility/facility_power_W";
  out << "timestamp_iso8601,time_s,it_power_kW,facility_power_kW,grid_import_kW,carbon_kg,cost_currency\n";
  return write_series(
      out, h5,
      {"/facility/it_power_W", "/facility/facility_power_W", import, "/facility/carbon_kg", "/facility/cost"},
      {false, false, false, true, true}, {1e3, 1e3, 1e3, 1.0, 1.0}, interval,
      to_ns(scalar(h5, "/summary/horizon_s")), width, clock_of(h5));
}

std::size_t export_nodes(std::ostream& out, const results::ResultReader& h5, const ExportOptions& o) {
  if (is_comparison(h5)) refuse(o.file, "--what nodes", "a comparison result keeps no node series");
  if (!h5.has("/nodes/power_W") || !h5.has("/summary/horizon_s"))
    refuse(o.file, "--what nodes", "not a fleetwatt run result (no /nodes series and /summary)");
  const std::int64_t interval = to_ns(h5.double_attribute("/nodes", "interval_s"));
  const std::int64_t width = row_width(o, interval);
  const auto clock = clock_of(h5);
  const auto nodes = h5.matrix_columns("/nodes/power_W", 0, 0).rows;
  out << "timestamp_iso8601,time_s";
  for (std::size_t n = 0; n < nodes; ++n) out << ",node" << n << "_power_kW";
  out << '\n';
  std::size_t rows = 0;
  results::Resampler resampler(interval, to_ns(scalar(h5, "/summary/horizon_s")), width, clock,
                               std::vector<bool>(nodes, false), [&](const results::ResampledRow& r) {
                                 out << clock.iso8601(r.start_ns) << ','
                                     << number(static_cast<double>(r.start_ns) / 1e9);
                                 for (double v : r.values) out << ',' << number(v / 1e3);
                                 out << '\n';
                                 ++rows;
                               });
  // Node-major storage, read a block of columns (stored intervals) at a time.
  const std::size_t block = std::max<std::size_t>(1, kChunk / std::max<std::size_t>(1, nodes));
  std::vector<double> sample(nodes);
  for (std::size_t col = 0;; col += block) {
    const auto m = h5.matrix_columns("/nodes/power_W", col, block);
    if (m.cols == 0) break;
    for (std::size_t k = 0; k < m.cols; ++k) {
      for (std::size_t n = 0; n < nodes; ++n) sample[n] = m.at(n, k);
      resampler.add(sample);
    }
  }
  resampler.finish();
  return rows;
}

std::size_t export_policies(std::ostream& out, const results::ResultReader& h5, const ExportOptions& o) {
  if (!is_comparison(h5))
    refuse(o.file, "--what policies", "not a comparison result (fleetwatt compare -o FILE.h5 writes one)");
  const auto policies = h5.strings("/comparison/policy");
  if (policies.empty()) refuse(o.file, "--what policies", "the comparison has no policies");
  const std::string first = "/policies/" + policies.front();
  if (!h5.has(first + "/facility/facility_power_W") || !h5.has(first + "/summary/horizon_s"))
    refuse(o.file, "--what policies",
           "written by an older fleetwatt (no facility_power_W and summary per policy): run compare again");
  const std::int64_t interval = to_ns(h5.double_attribute(first + "/facility", "interval_s"));
  const std::int64_t width = row_width(o, interval);
  std::vector<std::string> columns;
  std::vector<bool> is_total;
  std::vector<double> divisor;
  out << "timestamp_iso8601,time_s";
  for (const auto& p : policies) {
    // Policy names are registry names (letters, digits, underscores): safe as header words.
    out << ',' << p << "_facility_power_kW," << p << "_carbon_kg," << p << "_cost_currency";
    for (const char* c : {"facility_power_W", "carbon_kg", "cost"})
      columns.push_back("/policies/" + p + "/facility/" + c);
    is_total.insert(is_total.end(), {false, true, true});
    divisor.insert(divisor.end(), {1e3, 1.0, 1.0});
  }
  out << '\n';
  return write_series(out, h5, columns, is_total, divisor, interval,
                      to_ns(scalar(h5, first + "/summary/horizon_s")), width, clock_of(h5));
}

/// The job table of `group` (one dataset per column): id and the core columns first, the rest by name.
std::vector<std::string> job_columns(const results::ResultReader& h5, const std::string& group) {
  static const std::vector<std::string> first{"id",       "class",   "n_gpus", "nodes",  "state",
                                              "submit_s", "start_s", "end_s",  "epochs", "epochs_done"};
  std::vector<std::string> out;
  for (const auto& c : first)
    if (h5.has(group + "/" + c)) out.push_back(c);
  for (const auto& d : h5.datasets()) {
    if (d.rfind(group + "/", 0) != 0) continue;
    const std::string name = d.substr(group.size() + 1);
    if (name.find('/') == std::string::npos && std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  }
  return out;
}

void write_job_rows(std::ostream& out, const results::ResultReader& h5, const std::string& group,
                    const std::vector<std::string>& columns, const std::string& policy) {
  struct Column {
    results::ResultReader::Kind kind;
    std::vector<std::string> text;
    std::vector<std::int64_t> integers;
    std::vector<double> reals;
  };
  std::vector<Column> data;
  std::size_t rows = 0;
  for (const auto& c : columns) {
    const std::string path = group + "/" + c;
    Column col{h5.kind(path), {}, {}, {}};
    if (col.kind == results::ResultReader::Kind::text) col.text = h5.strings(path);
    if (col.kind == results::ResultReader::Kind::integer) col.integers = h5.integers(path);
    if (col.kind == results::ResultReader::Kind::real) col.reals = h5.doubles(path);
    rows = std::max({rows, col.text.size(), col.integers.size(), col.reals.size()});
    data.push_back(std::move(col));
  }
  for (std::size_t i = 0; i < rows; ++i) {
    if (!policy.empty()) out << policy << ',';
    for (std::size_t c = 0; c < data.size(); ++c) {
      if (c) out << ',';
      const auto& col = data[c];
      if (col.kind == results::ResultReader::Kind::text && i < col.text.size())
        out << text_field(col.text[i]);
      if (col.kind == results::ResultReader::Kind::integer && i < col.integers.size()) out << col.integers[i];
      if (col.kind == results::ResultReader::Kind::real && i < col.reals.size()) out << number(col.reals[i]);
    }
    out << '\n';
  }
}

std::size_t export_jobs(std::ostream& out, const results::ResultReader& h5, const ExportOptions& o) {
  if (!o.interval.empty()) refuse("command line", "--interval", "does not apply to --what jobs");
  if (is_comparison(h5)) {
    // One table: every policy's jobs, a policy column first.
    const auto policies = h5.strings("/comparison/policy");
    if (policies.empty()) refuse(o.file, "--what jobs", "the comparison has no policies");
    const auto columns = job_columns(h5, "/policies/" + policies.front() + "/jobs");
    out << "policy";
    for (const auto& c : columns) out << ',' << c;
    out << '\n';
    std::size_t rows = 0;
    for (const auto& p : policies) {
      write_job_rows(out, h5, "/policies/" + p + "/jobs", columns, p);
      rows += h5.length("/policies/" + p + "/jobs/id");
    }
    return rows;
  }
  if (!h5.has("/jobs/id")) refuse(o.file, "--what jobs", "not a fleetwatt run result (no /jobs table)");
  const auto columns = job_columns(h5, "/jobs");
  for (std::size_t c = 0; c < columns.size(); ++c) out << (c ? "," : "") << columns[c];
  out << '\n';
  write_job_rows(out, h5, "/jobs", columns, "");
  return h5.length("/jobs/id");
}

int run_export(const ExportOptions& o) {
  namespace fs = std::filesystem;
  // Checked here rather than by CLI11, whose usage errors take two lines.
  if (o.what != "facility" && o.what != "nodes" && o.what != "policies" && o.what != "jobs")
    refuse("command line", "--what", fmt::format("'{}' is not facility, nodes, policies or jobs", o.what));
  if (!fs::is_regular_file(o.file)) refuse(o.file, "RESULT", "no such file");
  std::optional<results::ResultReader> h5;
  try {
    h5.emplace(o.file);
  } catch (const std::runtime_error&) {
    refuse(o.file, "RESULT", "not an HDF5 file (a fleetwatt run or compare result)");
  }
  if (!o.output.empty()) {
    std::error_code ec;
    if (fs::equivalent(o.output, o.file, ec)) refuse("command line", "-o", "is the result file itself");
    check_output_path(o.output, {"command line", 0, 0}, "-o", o.file);
  }
  auto body = [&](std::ostream& out) {
    if (o.what == "facility") return export_facility(out, *h5, o);
    if (o.what == "nodes") return export_nodes(out, *h5, o);
    if (o.what == "policies") return export_policies(out, *h5, o);
    return export_jobs(out, *h5, o);
  };
  if (o.output.empty()) {
    body(std::cout);
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  // A temporary file beside the target, renamed when complete: a failed export leaves nothing behind.
  std::size_t rows = 0;
  core::write_text_output(o.output, "-o", [&](std::ostream& out) { rows = body(out); });
  std::cerr << fmt::format("fleetwatt export: {} rows ({}) to {}\n", rows, o.what, o.output);
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand("export",
                                     "Write a result file as CSV: the facility load profile resampled "
                                     "exactly to clock-aligned rows, per-node "
                                     "power, a comparison's per-policy series, or the job table");
  cmd->add_option("result", opts->file, "Result file (HDF5) of fleetwatt run, or of fleetwatt compare -o")
      ->required();
  cmd->add_option(
      "--interval", opts->interval,
      "Row interval: 1s, 15min, 1h, 1d, ... (default: the stored interval). Rows are aligned to "
      "the clock of the scenario's [output] start; each is the overlap-weighted mean of the stored "
      "interval means (carbon and cost: their sums)");
  cmd->add_option(
      "--what", opts->what,
      "facility (time stamp, seconds, IT kW, facility demand kW, grid import kW, carbon kg, cost), "
      "nodes (kW per node), "
      "policies (a compare result's series per policy) or jobs (the job table)");
  cmd->add_option("-o,--output", opts->output, "CSV file to write (default: standard output)");
  cmd->callback([opts, &action] { action = [opts] { return run_export(*opts); }; });
}

}  // namespace fleetwatt::tools
