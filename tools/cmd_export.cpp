// `fleetwatt export RESULT.h5`: a result file as CSV for the people and tools that plan grid connections
// and tariffs: the facility load profile resampled exactly onto clock-aligned rows
// (results/metrics/resample.hpp), per-node power, a comparison's per-policy series, the job table, or each
// LLM service's series; or the
// meter's profile as an OpenDSS LoadShape or a GridLAB-D player (export_grid_formats.hpp). Rows carry ISO
// 8601 time stamps on the clock of the scenario's [output] start (stored in the file) and seconds since the
// start; every header names its unit; values are rounded to the meter's resolution (export_values.hpp).
// Writes to a temporary file beside -o and renames it when done; without -o, to stdout.
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>

#include "cli_support.hpp"
#include "commands.hpp"
#include "export_grid_formats.hpp"
#include "export_indexes.hpp"
#include "export_values.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/results/metrics/resample.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"

namespace fleetwatt::tools {

namespace {

struct ExportOptions {
  std::string file;
  std::string interval;  // empty: the stored interval
  std::string what;      // empty: by the file's kind (see what_for)
  std::string output;
  std::string format = "csv";
  std::string units = "kW";
  std::optional<int> digits;      // empty: the meter's resolution (export_values.hpp)
  std::optional<double> base_kw;  // OpenDSS: 1.0 pu; empty: the peak
  bool year = false;              // 8,760 hourly rows
};

/// A year profile's rows: 365 days of hours, what tariff and planning tools take.
constexpr std::size_t kYearRows = 8760;
constexpr std::int64_t kHourNs = 3'600'000'000'000;

/// How the value columns of one export are written: the power unit and each column's decimals.
struct ValueStyle {
  PowerUnit unit;
  int power_decimals = 4;
  int total_decimals = kTotalsDecimals;
};

ValueStyle value_style(const ExportOptions& o) {
  ValueStyle style;
  style.unit = *power_unit(o.units);
  style.power_decimals = o.digits.value_or(decimals_for(kPowerResolutionW, style.unit.watts));
  style.total_decimals = o.digits.value_or(kTotalsDecimals);
  return style;
}

/// A stored series to resample: its dataset, whether it holds per-interval totals, and how it is written.
struct SeriesColumn {
  std::string path;
  bool is_total = false;
  double divisor = 1.0;  ///< stored value / divisor = written value
  int decimals = 4;
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

/// Seconds since the start as written in the time_s column.
std::string seconds(std::int64_t ns) {
  return number(static_cast<double>(ns) / 1e9);
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

/// The row interval: --interval, one hour for --year, or the stored one.
std::int64_t row_width(const ExportOptions& o, std::int64_t stored_ns) {
  if (o.year) return kHourNs;
  if (o.interval.empty()) return stored_ns;
  const auto ns = results::parse_interval(o.interval);
  if (!ns)
    refuse("command line", "--interval",
           fmt::format("'{}' is not an interval (a positive number and a unit: 1s, 15min, 1h, 1d, 500ms)",
                       o.interval));
  return *ns;
}

/// Streams `columns` (1-D series of one length, stored at `interval_ns`) through a resampler and hands each
/// row to `on_row`, at most `row_limit` rows. Memory stays bounded: the file is read kChunk samples at a
/// time.
std::size_t resample_series(const results::ResultReader& h5, const std::vector<SeriesColumn>& columns,
                            std::int64_t interval_ns, std::int64_t horizon_ns, std::int64_t width_ns,
                            const results::WallClock& clock, std::size_t row_limit,
                            const std::function<void(const results::ResampledRow&)>& on_row) {
  std::size_t rows = 0;
  std::vector<bool> is_total;
  for (const auto& c : columns) is_total.push_back(c.is_total);
  results::Resampler resampler(interval_ns, horizon_ns, width_ns, clock, is_total,
                               [&](const results::ResampledRow& r) {
                                 if (rows < row_limit) on_row(r);
                                 ++rows;
                               });
  const std::size_t n = h5.length(columns.front().path);
  std::vector<double> sample(columns.size());
  for (std::size_t offset = 0; offset < n && rows < row_limit; offset += kChunk) {
    std::vector<std::vector<double>> chunk;
    for (const auto& c : columns) chunk.push_back(h5.doubles(c.path, offset, kChunk));
    for (std::size_t i = 0; i < chunk.front().size(); ++i) {
      for (std::size_t c = 0; c < columns.size(); ++c) sample[c] = chunk[c][i];
      resampler.add(sample);
    }
  }
  resampler.finish();
  return std::min(rows, row_limit);
}

/// Writes the resampled `columns` as CSV rows (time stamp, seconds, then each column).
std::size_t write_series(std::ostream& out, const results::ResultReader& h5,
                         const std::vector<SeriesColumn>& columns, std::int64_t interval_ns,
                         std::int64_t horizon_ns, std::int64_t width_ns, const results::WallClock& clock,
                         std::size_t row_limit) {
  return resample_series(h5, columns, interval_ns, horizon_ns, width_ns, clock, row_limit,
                         [&](const results::ResampledRow& r) {
                           out << clock.iso8601(r.start_ns) << ',' << seconds(r.start_ns);
                           for (std::size_t c = 0; c < r.values.size(); ++c)
                             out << ',' << fixed_value(r.values[c] / columns[c].divisor, columns[c].decimals);
                           out << '\n';
                         });
}

bool is_comparison(const results::ResultReader& h5) {
  return h5.has("/comparison/policy");
}

/// A run's (or a region's) meter series: checked to be there, and to cover a year when --year asks, with
/// its stored interval and horizon.
struct FacilitySeries {
  std::int64_t interval_ns = 0;
  std::int64_t horizon_ns = 0;
  std::string import_path;  ///< what the utility's meter reads
  std::string meter;        ///< which meter that is, in words
  results::WallClock clock;
};

/// --year: the run must cover the year's 8,760 hours from a start on the hour.
void check_year(const ExportOptions& o, const FacilitySeries& f) {
  if (!o.year) return;
  if (f.horizon_ns < static_cast<std::int64_t>(kYearRows) * kHourNs)
    refuse(o.file, "--year",
           fmt::format("the run covers {:.1f} h; a year profile needs 8760 h (set [workload] horizon_s = "
                       "31536000)",
                       static_cast<double>(f.horizon_ns) / kHourNs));
  if (f.clock.local_start_s() % 3600 != 0)
    refuse(o.file, "--year", "the run's [output] start is not on the hour, so its hours are not the clock's");
}

FacilitySeries facility_series(const results::ResultReader& h5, const ExportOptions& o) {
  const std::string what = o.format == "csv" ? "--what facility" : "--format " + o.format;
  if (is_comparison(h5))
    refuse(o.file, what, "a comparison result: its series are per policy (--what policies)");
  FacilitySeries f;
  if (is_region(h5)) {  // the coincident total on the region's common UTC base
    f.interval_ns = to_ns(scalar(h5, "/region/summary/interval_s"));
    f.horizon_ns = static_cast<std::int64_t>(h5.length("/region/facility_power_W")) * f.interval_ns;
    f.import_path = "/region/facility_power_W";
    f.meter = "the region's coincident load (its sites' meters summed)";
    f.clock = {static_cast<std::int64_t>(scalar(h5, "/region/summary/start_unix_s")), 0};
    check_year(o, f);
    return f;
  }
  if (!member_table_of(h5).empty())
    refuse(o.file, what,
           "a sweep index: its members are runs of their own (--what members, or export a member)");
  if (!h5.has("/facility/facility_power_W") || !h5.has("/summary/horizon_s"))
    refuse(o.file, what, "not a fleetwatt run result (no /facility series and /summary)");
  f.clock = clock_of(h5);
  f.interval_ns = to_ns(h5.double_attribute("/facility", "interval_s"));
  f.horizon_ns = to_ns(scalar(h5, "/summary/horizon_s"));
  // What the utility's meter reads beside what the facility draws: with batteries the grid import (on which
  // carbon and cost are charged), without them the facility power itself.
  const bool batteries = h5.has("/facility/grid_import_W");
  f.import_path = batteries ? "/facility/grid_import_W" : "/facility/facility_power_W";
  f.meter =
      batteries ? "grid import (the meter, after the batteries)" : "facility power (the meter: no batteries)";
  check_year(o, f);
  return f;
}

std::size_t row_limit(const ExportOptions& o) {
  return o.year ? kYearRows : std::numeric_limits<std::size_t>::max();
}

std::size_t export_facility(std::ostream& out, const results::ResultReader& h5, const ExportOptions& o) {
  const auto f = facility_series(h5, o);
  const auto style = value_style(o);
  if (is_region(h5))
    return export_region(
        out, h5, {o.file, row_width(o, f.interval_ns), style.unit, style.power_decimals, row_limit(o)});
  const std::string u = style.unit.name;
  const double w = style.unit.watts;
  const int p = style.power_decimals, t = style.total_decimals;
  out << fmt::format(
      "timestamp_iso8601,time_s,it_power_{0},facility_power_{0},grid_import_{0},carbon_kg,"
      "cost_currency\n",
      u);
  return write_series(out, h5,
                      {{"/facility/it_power_W", false, w, p},
                       {"/facility/facility_power_W", false, w, p},
                       {f.import_path, false, w, p},
                       {"/facility/carbon_kg", true, 1.0, t},
                       {"/facility/cost", true, 1.0, t}},
                      f.interval_ns, f.horizon_ns, row_width(o, f.interval_ns), f.clock, row_limit(o));
}

/// The meter's rows (grid import in W) for the grid-tool formats, each pass reading the file again.
MeterRows meter_rows(const results::ResultReader& h5, const ExportOptions& o, const FacilitySeries& f) {
  return [&h5, &o, f](const std::function<void(const MeterRow&)>& row) {
    resample_series(h5, {{f.import_path, false, 1.0, 0}}, f.interval_ns, f.horizon_ns,
                    row_width(o, f.interval_ns), f.clock, row_limit(o), [&](const results::ResampledRow& r) {
                      row({r.start_ns, r.length_ns, r.values[0]});
                    });
  };
}

MeterSeriesInfo meter_info(const ExportOptions& o, const FacilitySeries& f) {
  return {std::filesystem::path(o.file).filename().string(), f.meter, row_width(o, f.interval_ns), f.clock};
}

std::size_t export_gridlabd(std::ostream& out, const results::ResultReader& h5, const ExportOptions& o) {
  const auto f = facility_series(h5, o);
  if (row_width(o, f.interval_ns) % 1'000'000'000 != 0)
    refuse("command line", "--format gridlabd",
           "a GridLAB-D player steps in whole seconds: give --interval 1s or a multiple of it");
  const auto style = value_style(o);
  return write_gridlabd(out, meter_rows(h5, o, f), meter_info(o, f), style.unit, style.power_decimals);
}

std::size_t export_nodes(std::ostream& out, const results::ResultReader& h5, const ExportOptions& o) {
  if (is_comparison(h5)) refuse(o.file, "--what nodes", "a comparison result keeps no node series");
  if (!h5.has("/nodes/power_W") || !h5.has("/summary/horizon_s"))
    refuse(o.file, "--what nodes", "not a fleetwatt run result (no /nodes series and /summary)");
  const std::int64_t interval = to_ns(h5.double_attribute("/nodes", "interval_s"));
  const std::int64_t width = row_width(o, interval);
  const auto clock = clock_of(h5);
  const auto nodes = h5.matrix_columns("/nodes/power_W", 0, 0).rows;
  const auto style = value_style(o);
  out << "timestamp_iso8601,time_s";
  for (std::size_t n = 0; n < nodes; ++n) out << ",node" << n << "_power_" << style.unit.name;
  out << '\n';
  std::size_t rows = 0;
  results::Resampler resampler(interval, to_ns(scalar(h5, "/summary/horizon_s")), width, clock,
                               std::vector<bool>(nodes, false), [&](const results::ResampledRow& r) {
                                 out << clock.iso8601(r.start_ns) << ',' << seconds(r.start_ns);
                                 for (double v : r.values)
                                   out << ',' << fixed_value(v / style.unit.watts, style.power_decimals);
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

/// Each LLM service's series (/services/<name>), side by side: power, arrivals and completions (sums over a
/// row), output tokens/s and replicas active (means), requests that met the SLO (sums); the latency
/// percentiles only at the stored interval (percentiles of intervals do not combine into a row's).
std::size_t export_services(std::ostream& out, const results::ResultReader& h5, const ExportOptions& o) {
  if (is_comparison(h5)) refuse(o.file, "--what services", "a comparison result keeps no service series");
  std::vector<std::string> names;
  for (const auto& d : h5.datasets()) {
    if (d.rfind("/services/", 0) != 0) continue;
    const std::string name = d.substr(10, d.find('/', 10) - 10);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty() || !h5.has("/summary/horizon_s"))
    refuse(o.file, "--what services", "the run has no LLM service ([[workload.service]])");
  const std::int64_t interval = to_ns(h5.double_attribute("/services/" + names.front(), "interval_s"));
  const std::int64_t width = row_width(o, interval);
  const bool percentiles = width == interval;
  const auto style = value_style(o);
  std::vector<SeriesColumn> columns;
  out << "timestamp_iso8601,time_s";
  for (const auto& name : names) {
    // Service names are the scenario's; written as given, quoted where CSV needs it.
    const std::string g = "/services/" + name + "/";
    const auto column = [&](const std::string& header, const std::string& dataset, bool total, double divisor,
                            int decimals) {
      out << ',' << csv_field(name + "_" + header);
      columns.push_back({g + dataset, total, divisor, decimals});
    };
    column("power_" + style.unit.name, "power_W", false, style.unit.watts, style.power_decimals);
    column("arrivals", "arrivals", true, 1.0, 0);
    column("completions", "completions", true, 1.0, 0);
    column("output_tokens_per_s", "output_tokens_per_s", false, 1.0, 1);
    column("replicas_active", "replicas_active", false, 1.0, 3);
    // What the requests did (written since the load series were added: an older file has none).
    if (h5.has(g + "batch_occupancy")) {
      column("admitted", "admitted", true, 1.0, 0);
      column("queued", "queued", false, 1.0, 3);
      column("running", "running", false, 1.0, 3);
      column("batch_occupancy", "batch_occupancy", false, 1.0, 4);
      column("prefill_tokens_per_s", "prefill_tokens_per_s", false, 1.0, 1);
      column("decode_tokens_per_s", "decode_tokens_per_s", false, 1.0, 1);
    }
    if (h5.has(g + "slo_met")) column("slo_met", "slo_met", true, 1.0, 0);
    if (h5.has(g + "absorb_lag_s")) column("absorb_lag_s", "absorb_lag_s", false, 1.0, 4);
    if (percentiles)
      for (const char* p : {"ttft_p50_s", "ttft_p99_s", "tpot_p50_s", "tpot_p99_s"})
        column(p, p, false, 1.0, 4);
  }
  out << '\n';
  return write_series(out, h5, columns, interval, to_ns(scalar(h5, "/summary/horizon_s")), width,
                      clock_of(h5), row_limit(o));
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
  const auto style = value_style(o);
  std::vector<SeriesColumn> columns;
  out << "timestamp_iso8601,time_s";
  for (const auto& p : policies) {
    // Policy names are registry names (letters, digits, underscores): safe as header words.
    const std::string group = "/policies/" + p + "/facility/";
    out << ',' << p << "_facility_power_" << style.unit.name;
    columns.push_back({group + "facility_power_W", false, style.unit.watts, style.power_decimals});
    if (h5.has(group + "grid_import_W")) {  // batteries: the meter beside the demand, as a run's export
      out << ',' << p << "_grid_import_" << style.unit.name;
      columns.push_back({group + "grid_import_W", false, style.unit.watts, style.power_decimals});
    }
    out << ',' << p << "_carbon_kg," << p << "_cost_currency";
    columns.push_back({group + "carbon_kg", true, 1.0, style.total_decimals});
    columns.push_back({group + "cost", true, 1.0, style.total_decimals});
  }
  out << '\n';
  return write_series(out, h5, columns, interval, to_ns(scalar(h5, first + "/summary/horizon_s")), width,
                      clock_of(h5), std::numeric_limits<std::size_t>::max());
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
      if (col.kind == results::ResultReader::Kind::text && i < col.text.size()) out << csv_field(col.text[i]);
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

/// The options that shape the values and the format, checked before the file is opened.
void check_format_options(const ExportOptions& o) {
  if (o.format != "csv" && o.format != "opendss" && o.format != "gridlabd")
    refuse("command line", "--format", fmt::format("'{}' is not csv, opendss or gridlabd", o.format));
  if (!power_unit(o.units))
    refuse("command line", "--units", fmt::format("'{}' is not W, kW or MW", o.units));
  if (o.digits && (*o.digits < 0 || *o.digits > 15))
    refuse("command line", "--digits", fmt::format("{} is not 0 to 15 decimals", *o.digits));
  if (o.base_kw && o.format != "opendss")
    refuse("command line", "--base-kw", "sets the 1.0 pu of an OpenDSS LoadShape: give --format opendss");
  if (o.base_kw && !(std::isfinite(*o.base_kw) && *o.base_kw > 0))
    refuse("command line", "--base-kw", fmt::format("{} is not a positive power in kW", *o.base_kw));
  if (o.format == "opendss" && o.output.empty())
    refuse("command line", "--format opendss",
           "writes two files (the LoadShape and its multipliers): give -o NAME.dss");
  if (o.year && !o.interval.empty() && results::parse_interval(o.interval) != kHourNs)
    refuse("command line", "--year",
           fmt::format("has hourly rows; --interval {} asks for others", o.interval));
}

std::size_t export_members(std::ostream& out, const results::ResultReader& h5, const ExportOptions& o) {
  if (!o.interval.empty()) refuse("command line", "--interval", "does not apply to --what members");
  const std::string table = member_table_of(h5);
  if (table.empty())
    refuse(o.file, "--what members",
           "not a sweep index or a region file (fleetwatt sweep or a region's run)");
  return export_member_table(out, h5, table);
}

/// --what as given, or by the file's kind: a comparison's series per policy, a sweep's member table, a
/// run's or a region's facility series.
std::string what_for(const ExportOptions& o, const results::ResultReader& h5) {
  if (!o.what.empty()) return o.what;
  if (is_comparison(h5)) return "policies";
  if (!member_table_of(h5).empty() && !is_region(h5)) return "members";
  return "facility";
}

/// Writes the export `o` asks for (its --what settled) from `h5`. The grid formats and --year are the
/// meter's profile: checked here, once --what is known, whether given or taken from the file's kind.
int export_file(const ExportOptions& o, const results::ResultReader& h5) {
  if (o.format != "csv" && o.what != "facility")
    refuse("command line", "--format " + o.format,
           fmt::format("writes the meter's load profile (--what facility), not --what {}", o.what));
  if (o.year && o.what != "facility")
    refuse("command line", "--year", fmt::format("is a profile of the meter, not of --what {}", o.what));
  if (o.format == "opendss") {
    const auto f = facility_series(h5, o);
    const auto shape = write_opendss(o.output, meter_rows(h5, o, f), meter_info(o, f), o.base_kw, o.digits);
    std::cerr << fmt::format("fleetwatt export: LoadShape.{} of {} points (1.0 pu = {} kW) to {} and {}\n",
                             shape.name, shape.points, shape.base_kW, o.output, shape.mult_file.string());
    return 0;
  }
  auto body = [&](std::ostream& out) {
    if (o.format == "gridlabd") return export_gridlabd(out, h5, o);
    if (o.what == "facility") return export_facility(out, h5, o);
    if (o.what == "nodes") return export_nodes(out, h5, o);
    if (o.what == "policies") return export_policies(out, h5, o);
    if (o.what == "members") return export_members(out, h5, o);
    if (o.what == "services") return export_services(out, h5, o);
    return export_jobs(out, h5, o);
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

int run_export(const ExportOptions& given) {
  namespace fs = std::filesystem;
  // Checked here rather than by CLI11, whose usage errors take two lines.
  if (!given.what.empty() && given.what != "facility" && given.what != "nodes" && given.what != "policies" &&
      given.what != "jobs" && given.what != "members" && given.what != "services")
    refuse("command line", "--what",
           fmt::format("'{}' is not facility, nodes, policies, jobs, members or services", given.what));
  check_format_options(given);
  const ExportOptions& o = given;
  std::error_code missing;
  if (!fs::is_regular_file(o.file, missing)) refuse(o.file, "RESULT", "no such file");
  std::optional<results::ResultReader> h5;
  try {
    h5.emplace(o.file);
  } catch (const std::runtime_error&) {
    refuse(o.file, "RESULT", "not an HDF5 file or damaged (a fleetwatt run, compare or sweep result)");
  }
  if (!o.output.empty()) {
    std::error_code ec;
    if (fs::equivalent(o.output, o.file, ec)) refuse("command line", "-o", "is the result file itself");
    check_output_path(o.output, {"command line", 0, 0}, "-o", o.file);
  }
  ExportOptions chosen = o;
  chosen.what = what_for(o, *h5);
  return export_file(chosen, *h5);
}

}  // namespace

void add_export_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand("export",
                                     "Write a result file as CSV: the facility load profile resampled "
                                     "exactly to clock-aligned rows, per-node "
                                     "power, a comparison's per-policy series, or the job table; or the "
                                     "meter's profile for OpenDSS or GridLAB-D");
  cmd->footer(
      "Examples:\n"
      "  fleetwatt export day.h5 --interval 15min -o day.csv\n"
      "  fleetwatt export day.h5 --interval 15min --units MW\n"
      "  fleetwatt export day.h5 --format opendss --interval 15min -o day.dss\n"
      "  fleetwatt export day.h5 --format gridlabd --interval 1min -o day.player\n"
      "  fleetwatt export year.h5 --year -o year-8760.csv\n"
      "  fleetwatt export campus.h5 --what services --interval 1min -o services.csv\n"
      "  fleetwatt export region.h5 --interval 1h -o region.csv\n"
      "  fleetwatt export sweep.h5 -o members.csv");
  cmd->add_option("result", opts->file,
                  "Result file (HDF5) of fleetwatt run (a scenario or a region), fleetwatt compare -o, or a "
                  "fleetwatt sweep index")
      ->required();
  cmd->add_option(
      "--interval", opts->interval,
      "Row interval: 1s, 15min, 1h, 1d, ... (default: the stored interval). Rows are aligned to "
      "the clock of the scenario's [output] start; each is the overlap-weighted mean of the stored "
      "interval means (carbon and cost: their sums)");
  cmd->add_option(
      "--what", opts->what,
      "facility (time stamp, seconds, IT kW, facility demand kW, grid import kW, carbon kg, cost; a "
      "region's file: the coincident total, each site's power and local time), nodes (kW per node), "
      "policies (a compare result's series per policy), jobs (the job table), members (a sweep "
      "index's or a region's table, one row per member with its grid values and figures) or services "
      "(each LLM service's power, arrivals, completions, tokens/s, replicas and, at the stored "
      "interval, latency percentiles). Default: policies for a comparison, members for a sweep index, "
      "else facility");
  cmd->add_option(
      "--format", opts->format,
      "csv (default); opendss: the meter's profile as an OpenDSS LoadShape (-o NAME.dss, beside it "
      "NAME_mult.csv of per-unit multipliers); gridlabd: a GridLAB-D player file");
  cmd->add_option("--units", opts->units, "Power unit of the values: W, kW (default) or MW");
  cmd->add_option("--digits", opts->digits,
                  "Decimals of every value (default: powers to 0.1 W, i.e. 4 in kW and 7 in MW; carbon and "
                  "cost 4; OpenDSS multipliers to 0.1 W of the base)");
  cmd->add_option("--base-kw", opts->base_kw, "OpenDSS: the power of 1.0 pu in kW (default: the peak row)");
  cmd->add_flag("--year", opts->year,
                "8,760 hourly rows from the start (a run of at least 365 days starting on the hour)");
  cmd->add_option("-o,--output", opts->output,
                  "File to write (default: standard output; --format opendss: NAME.dss, required)");
  cmd->callback([opts, &action] { action = [opts] { return run_export(*opts); }; });
}

}  // namespace fleetwatt::tools
