// Records: trace summaries over GPUs, job metadata from TOML (core's TomlTable), the records CSV line, and
// the generic CSV table the fitting reads (core's tokenizer, with file/line/column for every cell).
#include "fleetwatt/models/fit/records.hpp"

#include "fleetwatt/core/text_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/toml_table.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models::fit {

using core::ConfigError;
using core::SourceLocation;
using core::TraceFormatError;

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
    s.power_limit_W = std::max(s.power_limit_W, g->limit_W);
    s.max_power_limit_W = std::max(s.max_power_limit_W, g->max_limit_W);
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
  const toml::table root = core::parse_toml_file(path);
  const core::TomlTable t(root, "", path.string());
  t.require_known({"model", "params", "flops", "batch_size", "data_size", "input_size", "workers", "epochs",
                   "gpus", "gpu_type"});
  JobRecordMeta m;
  // Absent keys stay unset (std::nullopt): the record then has an empty cell there.
  if (auto v = t.string("model")) m.model = *v;
  m.params = t.number("params");
  m.flops = t.number("flops");
  m.batch_size = t.number("batch_size");
  m.data_size = t.number("data_size");
  m.input_size = t.number("input_size");
  m.workers = t.number("workers");
  m.epochs = t.number("epochs");
  m.gpus = t.number("gpus");
  if (auto v = t.string("gpu_type")) m.gpu_type = *v;
  return m;
}

namespace {

std::string csv_text(const std::string& s) {
  return core::csv_quote(s);
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
  return core::parse_number(s);
}

}  // namespace

std::string record_header_without_epochs() {
  return "model,params,flops,batch_size,data_size,input_size,workers,epochs,gpus,gpu_type,valley_W,valley_s,"
         "peak_W,"
         "peak_s,n_valleys,energy_measured_J,energy_phases_J,source";
}

std::vector<std::string> record_headers() {
  const std::string before = record_header_without_epochs();
  return {before, before + ",epoch_s,epoch_W", record_header()};
}

std::string record_header() {
  return record_header_without_epochs() + ",epoch_s,epoch_W,power_limit_W,max_power_limit_W";
}

JobRecordMeta with_zoo_counts(JobRecordMeta meta, const SourceLocation& where) {
  if (!is_zoo_model(meta.model) || (meta.params && meta.flops)) return meta;
  const double size = meta.input_size.value_or(0.0);
  if (!(size >= 0.0 && size <= 1e6 && size == std::floor(size)))
    throw ConfigError(where, "input_size", fmt::format("{} is not an input size (a whole number)", size));
  ModelCount count;
  try {
    count = count_model(meta.model, static_cast<std::uint32_t>(size));
  } catch (const std::invalid_argument& e) {
    throw ConfigError(where, "input_size", e.what());
  }
  if (!meta.params) meta.params = count.params;
  if (!meta.flops) meta.flops = count.forward_flops;
  if (!meta.input_size) meta.input_size = count.input_size;
  return meta;
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
  for (const double v : {s.epoch_s, s.epoch_W, s.power_limit_W, s.max_power_limit_W})
    cells.push_back(v > 0.0 ? csv_number(v) : std::string());
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
  std::size_t columns = 0;  // of the file's layout; 0: a new file
  std::string existing;
  {
    std::string first;
    existing = core::read_file_text(path).value_or("");
    std::istringstream lines(existing);
    if (std::getline(lines, first)) {
      if (!first.empty() && first.back() == '\r') first.pop_back();
      for (const std::string& layout : record_headers())
        if (first == layout)
          columns = static_cast<std::size_t>(std::count(layout.begin(), layout.end(), ',')) + 1;
      if (columns == 0)
        throw ConfigError(SourceLocation{path.string(), 1, 1}, "header",
                          "the records file has a different header; expected '" + record_header() + "'");
      need_header = false;
    }
  }
  // A file of an earlier layout keeps it: its record leaves out the cells its header does not name.
  std::string line = record_line(meta, summary);
  // (The trailing cells are numbers: the last commas are theirs.)
  const std::string current = record_header();
  const auto all = static_cast<std::size_t>(std::count(current.begin(), current.end(), ',')) + 1;
  for (std::size_t i = columns; i > 0 && i < all; ++i) line.erase(line.rfind(','));
  // Rewritten through a temporary file rather than appended in place: a full disk then leaves the old
  // records intact instead of a torn last line.
  if (!existing.empty() && existing.back() != '\n') existing.push_back('\n');
  core::write_text_output(path, "file", [&](std::ostream& out) {
    out << existing;
    if (need_header) out << record_header() << '\n';
    out << line << '\n';
  });
}

RecordTable RecordTable::read(const std::filesystem::path& path) {
  const auto text = core::read_file_text(path);
  if (!text)
    throw TraceFormatError(SourceLocation{path.string(), 0, 0}, "file", "cannot open the records file");
  return parse(*text, path.string());
}

RecordTable RecordTable::parse(const std::string& text, const std::string& source) {
  RecordTable t;
  t.source_ = source;
  std::istringstream in(text);
  core::CsvReader csv(in, source);
  const auto head = csv.next();
  if (!head) throw TraceFormatError(SourceLocation{source, 1, 1}, "header", "the CSV file is empty");
  t.columns_ = head->texts();
  while (auto row = csv.next()) {
    if (row->fields.size() != t.columns_.size())
      throw TraceFormatError(SourceLocation{source, row->line, 1}, "record",
                             "has " + std::to_string(row->fields.size()) + " fields, the header has " +
                                 std::to_string(t.columns_.size()));
    std::vector<std::uint32_t> cols;
    for (const auto& f : row->fields) cols.push_back(f.column);
    t.cells_.push_back(row->texts());
    t.lines_.push_back(row->line);
    t.cell_columns_.push_back(std::move(cols));
  }
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
