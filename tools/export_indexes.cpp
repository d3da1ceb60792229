// Exports of sweep indexes and region files (export_indexes.hpp).
#include "export_indexes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/time.hpp"
#include "fleetwatt/results/metrics/resample.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"

namespace fleetwatt::tools {

namespace {

/// A figure as CSV text: integers as integers, others in their shortest exact form; NaN empty.
std::string figure_field(double v, results::ResultReader::Kind kind) {
  if (std::isnan(v)) return {};
  if (kind == results::ResultReader::Kind::integer) return fmt::format("{}", static_cast<std::int64_t>(v));
  return fmt::format("{}", v);
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

/// "fleet.nodes=100; seed=3" (or "fleet.nodes = 100", as a region's sites write it) as (key, value) pairs.
std::vector<std::pair<std::string, std::string>> assignments(const std::string& overrides) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t at = 0;
  while (at < overrides.size()) {
    auto end = overrides.find("; ", at);
    if (end == std::string::npos) end = overrides.size();
    const std::string item = overrides.substr(at, end - at);
    const auto eq = item.find('=');
    if (eq != std::string::npos) out.emplace_back(trimmed(item.substr(0, eq)), trimmed(item.substr(eq + 1)));
    at = end + 2;
  }
  return out;
}

}  // namespace

std::string member_table_of(const results::ResultReader& h5) {
  if (h5.has("/sweep/members")) return "/sweep/members";
  if (h5.has("/region/sites")) return "/region/sites";
  return {};
}

bool is_region(const results::ResultReader& h5) {
  return h5.has("/region/facility_power_W") && h5.has("/region/summary/start_unix_s");
}

std::size_t export_member_table(std::ostream& out, const results::ResultReader& h5,
                                const std::string& table) {
  using Kind = results::ResultReader::Kind;
  const auto fields = h5.table_fields(table);
  struct Column {
    std::string name;
    Kind kind;
    std::vector<std::string> text;
    std::vector<double> numbers;
  };
  std::vector<Column> columns;
  std::size_t rows = 0;
  for (const auto& [name, kind] : fields) {
    Column c{name, kind, {}, {}};
    if (kind == Kind::text)
      c.text = h5.table_strings(table, name);
    else
      c.numbers = h5.table_doubles(table, name);
    rows = std::max(rows, std::max(c.text.size(), c.numbers.size()));
    const bool overrides = name == "overrides";
    columns.push_back(std::move(c));
    if (!overrides) continue;
    // One column per key the members set: the sweep's axes, readable without parsing the text.
    std::vector<std::string> keys;
    std::vector<std::vector<std::pair<std::string, std::string>>> per_row;
    for (const auto& text : columns.back().text) {
      per_row.push_back(assignments(text));
      for (const auto& kv : per_row.back())
        if (std::find(keys.begin(), keys.end(), kv.first) == keys.end()) keys.push_back(kv.first);
    }
    for (const auto& key : keys) {
      if (std::any_of(fields.begin(), fields.end(), [&](const auto& f) { return f.first == key; })) continue;
      Column axis{key, Kind::text, {}, {}};
      for (const auto& row : per_row) {
        std::string value;
        for (const auto& kv : row)
          if (kv.first == key) value = kv.second;
        axis.text.push_back(value);
      }
      columns.push_back(std::move(axis));
    }
  }
  for (std::size_t c = 0; c < columns.size(); ++c) out << (c ? "," : "") << csv_field(columns[c].name);
  out << '\n';
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (c) out << ',';
      const auto& col = columns[c];
      if (col.kind == Kind::text && r < col.text.size()) out << csv_field(col.text[r]);
      if (col.kind != Kind::text && r < col.numbers.size()) out << figure_field(col.numbers[r], col.kind);
    }
    out << '\n';
  }
  return rows;
}

std::size_t export_region(std::ostream& out, const results::ResultReader& h5, const RegionExport& how) {
  const auto names = h5.table_strings("/region/sites", "name");
  const auto total = h5.doubles("/region/facility_power_W");
  const auto it = h5.doubles("/region/it_power_W");
  const auto sites = h5.matrix("/region/site_facility_power_W");  // intervals x sites
  const double interval_s = h5.doubles("/region/summary/interval_s").at(0);
  const std::int64_t interval_ns = core::Duration::from_seconds(interval_s).ns();
  const results::WallClock utc{static_cast<std::int64_t>(h5.doubles("/region/summary/start_unix_s").at(0)),
                               0};
  // Each site's local clock: its own [output] start's offset, kept in its result file.
  std::vector<results::WallClock> local;
  for (const auto& name : names) {
    try {
      local.push_back({utc.start_unix_s, static_cast<std::int32_t>(
                                             h5.integer_attribute("/sites/" + name, "start_utc_offset_s"))});
    } catch (const std::exception&) {
      throw core::ConfigError({how.file, 0, 0}, "/sites/" + name,
                              "the site's result file is missing (its local clock is read there): keep the "
                              "region's .sites folder beside it");
    }
  }
  const std::size_t n = total.size();
  out << "timestamp_utc,time_s,region_grid_import_" << how.unit.name << ",region_it_power_" << how.unit.name;
  for (const auto& name : names) out << ',' << csv_field(name + "_grid_import_" + how.unit.name);
  for (const auto& name : names) out << ',' << csv_field(name + "_local_time");
  out << '\n';
  std::size_t rows = 0;
  results::Resampler resampler(
      interval_ns, static_cast<std::int64_t>(n) * interval_ns, how.width_ns, utc,
      std::vector<bool>(2 + names.size(), false), [&](const results::ResampledRow& r) {
        if (rows++ >= how.row_limit) return;
        out << utc.iso8601(r.start_ns) << ',' << fmt::format("{}", static_cast<double>(r.start_ns) / 1e9);
        for (double v : r.values) out << ',' << fixed_value(v / how.unit.watts, how.decimals);
        for (const auto& clock : local) out << ',' << clock.iso8601(r.start_ns);
        out << '\n';
      });
  std::vector<double> sample(2 + names.size());
  for (std::size_t i = 0; i < n; ++i) {
    sample[0] = total[i];
    sample[1] = it[i];
    for (std::size_t s = 0; s < names.size(); ++s) sample[2 + s] = sites.at(i, s);
    resampler.add(sample);
  }
  resampler.finish();
  return std::min(rows, how.row_limit);
}

}  // namespace fleetwatt::tools
