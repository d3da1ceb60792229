// Records: trace summaries over GPUs, job metadata from TOML, the records CSV line, and the generic CSV
// table the fitting reads (with file/line/column for every cell).
#include "fleetwatt/models/fit/records.hpp"

#include <toml++/toml.h>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "fleetwatt/workloads/input_error.hpp"

namespace fleetwatt::models::fit {

using workloads::ConfigError;
using workloads::SourceLocation;
using workloads::TraceFormatError;

TraceSummary summarise_trace(const PowerTrace& trace, std::optional<int> gpu, const SegmentOptions& options) {
  TraceSummary s;
  s.source = trace.source;
  std::vector<const GpuPowerSeries*> chosen;
  if (gpu) {
    chosen.push_back(&trace.gpu(*gpu));
  } else {
    for (const auto& g : trace.gpus) chosen.push_back(&g);
  }
  double peak_E = 0, peak_t = 0, valley_E = 0, valley_t = 0, idle_E = 0, idle_t = 0;
  double peak_count = 0, valley_count = 0;
  for (const auto* g : chosen) {
    Segmentation seg = segment_series(*g, options, trace.source);
    s.gpus.push_back(g->index);
    s.samples += g->power_W.size();
    s.duration_s = std::max(s.duration_s, seg.duration_s);
    s.energy_J += seg.measured_energy_J;
    s.phase_energy_J += seg.phase_energy_J;
    peak_E += seg.peak_W * seg.peak_total_s;
    peak_t += seg.peak_total_s;
    valley_E += seg.valley_W * seg.valley_total_s;
    valley_t += seg.valley_total_s;
    idle_E += seg.idle_W * seg.idle_s;
    idle_t += seg.idle_s;
    peak_count += double(seg.n_peaks);
    valley_count += double(seg.n_valleys);
    s.per_gpu.push_back(std::move(seg));
  }
  const double n = double(chosen.size());
  if (s.duration_s > 0) s.mean_power_W = s.energy_J / s.duration_s / n;
  if (peak_t > 0) s.peak_W = peak_E / peak_t;
  if (peak_count > 0) s.peak_s = peak_t / peak_count;
  if (valley_t > 0) s.valley_W = valley_E / valley_t;
  if (valley_count > 0) s.valley_s = valley_t / valley_count;
  if (idle_t > 0) s.idle_W = idle_E / idle_t;
  s.idle_s = idle_t / n;
  // Counts per GPU, rounded: GPUs of one job share their phases.
  s.n_peaks = static_cast<std::size_t>(std::lround(peak_count / n));
  s.n_valleys = static_cast<std::size_t>(std::lround(valley_count / n));
  return s;
}

JobRecordMeta read_job_meta_toml(const std::filesystem::path& path) {
  toml::table tbl;
  try {
    tbl = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    throw ConfigError(SourceLocation{path.string(), e.source().begin.line, e.source().begin.column}, "toml",
                      std::string(e.description()));
  }
  JobRecordMeta m;
  for (const auto& [key, node] : tbl) {
    const SourceLocation where{path.string(), node.source().begin.line, node.source().begin.column};
    const std::string k(key.str());
    auto number = [&]() -> double {
      if (const auto v = node.value<double>()) return *v;
      throw ConfigError(where, k, "must be a number");
    };
    auto text = [&]() -> std::string {
      if (const auto v = node.value<std::string>()) return *v;
      throw ConfigError(where, k, "must be a string");
    };
    if (k == "model")
      m.model = text();
    else if (k == "params")
      m.params = number();
    else if (k == "flops")
      m.flops = number();
    else if (k == "batch_size")
      m.batch_size = number();
    else if (k == "data_size")
      m.data_size = number();
    else if (k == "input_size")
      m.input_size = number();
    else if (k == "workers")
      m.workers = number();
    else if (k == "epochs")
      m.epochs = number();
    else if (k == "gpus")
      m.gpus = number();
    else if (k == "gpu_type")
      m.gpu_type = text();
    else
      throw ConfigError(where, k,
                        "unknown key (known: model, params, flops, batch_size, data_size, input_size, "
                        "workers, epochs, gpus, "
                        "gpu_type)");
  }
  return m;
}

namespace {

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_number(double v) {
  char buf[32];
  const auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, p);
}

std::string csv_number(const std::optional<double>& v) {
  return v ? csv_number(*v) : std::string();
}

std::optional<double> parse_cell(const std::string& s) {
  std::string_view v(s);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.remove_suffix(1);
  if (v.empty()) return std::nullopt;
  if (v.front() == '+') v.remove_prefix(1);
  double d = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec != std::errc() || p != v.data() + v.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

}  // namespace

std::string record_header() {
  return "model,params,flops,batch_size,data_size,input_size,workers,epochs,gpus,gpu_type,valley_W,valley_s,"
         "peak_W,"
         "peak_s,n_valleys,energy_measured_J,energy_phases_J,source";
}

std::string record_line(const JobRecordMeta& m, const TraceSummary& s) {
  std::vector<std::string> cells{csv_text(m.model)};
  for (const auto& v : {m.params, m.flops, m.batch_size, m.data_size, m.input_size, m.workers, m.epochs})
    cells.push_back(csv_number(v));
  cells.push_back(csv_number(m.gpus ? m.gpus : std::optional<double>(double(s.gpus.size()))));
  cells.push_back(csv_text(m.gpu_type));
  for (const double v :
       {s.valley_W, s.valley_s, s.peak_W, s.peak_s, double(s.n_valleys), s.energy_J, s.phase_energy_J})
    cells.push_back(csv_number(v));
  cells.push_back(csv_text(s.source));
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) line.push_back(',');
    line.append(cells[i]);
  }
  return line;
}

void append_record(const std::filesystem::path& path, const JobRecordMeta& meta,
                   const TraceSummary& summary) {
  bool need_header = true;
  {
    std::ifstream in(path);
    std::string first;
    if (in && std::getline(in, first)) {
      if (!first.empty() && first.back() == '\r') first.pop_back();
      if (first != record_header())
        throw ConfigError(SourceLocation{path.string(), 1, 1}, "header",
                          "the records file has a different header; expected '" + record_header() + "'");
      need_header = false;
    }
  }
  std::ofstream out(path, std::ios::app);
  if (!out) throw ConfigError(SourceLocation{path.string(), 0, 0}, "file", "cannot write the records file");
  if (need_header) out << record_header() << '\n';
  out << record_line(meta, summary) << '\n';
}

RecordTable RecordTable::read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw TraceFormatError(SourceLocation{path.string(), 0, 0}, "file", "cannot open the records file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path.string());
}

RecordTable RecordTable::parse(const std::string& text, const std::string& source) {
  RecordTable t;
  t.source_ = source;
  std::vector<std::string> row;
  std::vector<std::uint32_t> cols;
  std::string cell;
  std::uint32_t line = 1, row_line = 1, col = 1, cell_col = 1;
  bool quoted = false, any = false;
  auto end_cell = [&] {
    row.push_back(cell);
    cols.push_back(cell_col);
    cell.clear();
  };
  auto end_row = [&] {
    end_cell();
    const bool blank = row.size() == 1 && row[0].find_first_not_of(" \r") == std::string::npos;
    if (!blank) {
      if (t.columns_.empty()) {
        for (auto& c : row) {
          while (!c.empty() && (c.back() == ' ' || c.back() == '\r')) c.pop_back();
          while (!c.empty() && c.front() == ' ') c.erase(c.begin());
        }
        t.columns_ = row;
      } else {
        if (row.size() != t.columns_.size())
          throw TraceFormatError(SourceLocation{source, row_line, 1}, "record",
                                 "has " + std::to_string(row.size()) + " fields, the header has " +
                                     std::to_string(t.columns_.size()));
        t.cells_.push_back(row);
        t.lines_.push_back(row_line);
        t.cell_columns_.push_back(cols);
      }
    }
    row.clear();
    cols.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    any = true;
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
        col += 2;
        continue;
      }
      if (c == '"')
        quoted = false;
      else
        cell += c;
      if (c == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
      continue;
    }
    if (c == '"' && cell.empty()) {
      quoted = true;
      ++col;
    } else if (c == ',') {
      end_cell();
      ++col;
      cell_col = col;
    } else if (c == '\n') {
      end_row();
      ++line;
      row_line = line;
      col = cell_col = 1;
    } else {
      cell += c;
      ++col;
    }
  }
  if (any && !(cell.empty() && row.empty())) end_row();
  if (t.columns_.empty())
    throw TraceFormatError(SourceLocation{source, 1, 1}, "header", "the CSV file is empty");
  return t;
}

bool RecordTable::has_column(const std::string& name) const {
  for (const auto& c : columns_)
    if (c == name) return true;
  return false;
}

std::size_t RecordTable::column(const std::string& name) const {
  std::string known;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == name) return i;
    known += (i ? ", " : "") + columns_[i];
  }
  throw ConfigError(SourceLocation{source_, 1, 0}, name,
                    "no such column in the records (columns: " + known + ")");
}

std::vector<double> RecordTable::numeric(const std::string& name) const {
  const std::size_t c = column(name);
  std::vector<double> out(cells_.size());
  for (std::size_t r = 0; r < cells_.size(); ++r) {
    const auto v = parse_cell(cells_[r][c]);
    if (!v)
      throw TraceFormatError(
          SourceLocation{source_, lines_[r], cell_columns_[r][c]}, name,
          cells_[r][c].empty() ? "is empty; a number is needed" : "'" + cells_[r][c] + "' is not a number");
    out[r] = *v;
  }
  return out;
}

bool RecordTable::is_numeric(const std::string& name) const {
  const std::size_t c = column(name);
  for (const auto& row : cells_)
    if (!parse_cell(row[c])) return false;
  return !cells_.empty();
}

RecordTable RecordTable::filtered(const std::string& name, const std::string& value) const {
  const std::size_t c = column(name);
  RecordTable t;
  t.source_ = source_;
  t.columns_ = columns_;
  for (std::size_t r = 0; r < cells_.size(); ++r)
    if (cells_[r][c] == value) {
      t.cells_.push_back(cells_[r]);
      t.lines_.push_back(lines_[r]);
      t.cell_columns_.push_back(cell_columns_[r]);
    }
  return t;
}

}  // namespace fleetwatt::models::fit
