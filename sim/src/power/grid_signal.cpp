// Grid signals: CSV reading (core's tokenizer and timestamp parser) and exact step-function integration.
#include "fleetwatt/sim/power/grid_signal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/time.hpp"
#include "fleetwatt/core/timestamp.hpp"

namespace fleetwatt::sim {

GridSignal::GridSignal(std::vector<double> t_s, std::vector<double> values, std::string unit, double period_s)
    : t_(std::move(t_s)), v_(std::move(values)), unit_(std::move(unit)), period_(period_s) {
  if (t_.size() != v_.size() || t_.empty())
    throw std::invalid_argument("a grid signal needs as many times as values, >= 1");
  for (std::size_t i = 1; i < t_.size(); ++i)
    if (!(t_[i] > t_[i - 1])) throw std::invalid_argument("grid signal times must increase strictly");
  if (period_ > 0.0 && !(period_ > t_.back() - t_.front()))
    throw std::invalid_argument("a grid signal's period must exceed the span of its samples");
  prefix_.resize(t_.size());
  prefix_[0] = 0.0;
  for (std::size_t i = 1; i < t_.size(); ++i) prefix_[i] = prefix_[i - 1] + v_[i - 1] * (t_[i] - t_[i - 1]);
}

double GridSignal::at(double t) const {
  if (period_ > 0.0) t = t_.front() + std::fmod(std::fmod(t - t_.front(), period_) + period_, period_);
  const auto it = std::upper_bound(t_.begin(), t_.end(), t);
  if (it == t_.begin()) return v_.front();
  return v_[static_cast<std::size_t>(it - t_.begin()) - 1];
}

double GridSignal::cumulative(double t) const {
  const auto it = std::upper_bound(t_.begin(), t_.end(), t);
  if (it == t_.begin()) return v_.front() * (t - t_.front());
  const auto i = static_cast<std::size_t>(it - t_.begin()) - 1;
  return prefix_[i] + v_[i] * (t - t_[i]);
}

double GridSignal::cumulative_wrapped(double t) const {
  if (!(period_ > 0.0)) return cumulative(t);
  const double x = t - t_.front();
  const double cycles = std::floor(x / period_);
  const double per_cycle = cumulative(t_.front() + period_);
  return cycles * per_cycle + cumulative(t_.front() + (x - cycles * period_));
}

double GridSignal::integral(double t0, double t1) const {
  if (t1 < t0) throw std::invalid_argument("GridSignal::integral: t1 < t0");
  if (t1 == t0) return 0.0;
  return cumulative_wrapped(t1) - cumulative_wrapped(t0);
}

void SignalIntegrator::add(double t0_s, double t1_s, double power_W) {
  if (t1_s <= t0_s || power_W == 0.0) return;
  const double x = power_W * signal_->integral(t0_s, t1_s);
  const double t = sum_ + x;
  compensation_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
  sum_ = t;
}

GridSignal read_grid_signal_csv(std::istream& in, const std::string& name, const GridSignalOptions& options) {
  core::CsvReader csv(in, name);
  auto fail = [&](std::uint32_t ln, std::uint32_t col, const std::string& field, const std::string& why) {
    throw core::TraceFormatError({name, ln, col}, field, why);
  };
  const auto head = csv.next();
  if (!head) fail(1, 0, "header", "the file is empty; expected a header row");
  const auto header = head->texts();
  std::optional<std::size_t> tc, vc;
  if (!options.time_column.empty()) {
    tc = core::find_column(header, options.time_column);
    if (!tc) fail(head->line, 0, options.time_column, "no such column");
  } else {
    for (std::size_t i = 0; i < header.size() && !tc; ++i) {
      const auto h = core::lower_case(header[i]);
      if (h.find("time") != std::string::npos || h.find("date") != std::string::npos) tc = i;
    }
    if (!tc)
      fail(head->line, 0, "time_column", "no column name contains 'time' or 'date'; name the time column");
  }
  std::vector<core::CsvRow> rows;
  while (auto row = csv.next()) rows.push_back(std::move(*row));
  if (rows.empty()) fail(head->line + 1, 0, "record", "the signal has no samples");
  if (!options.value_column.empty()) {
    vc = core::find_column(header, options.value_column);
    if (!vc) fail(head->line, 0, options.value_column, "no such column");
  } else if (auto v = core::find_column(header, "value")) {
    vc = v;
  } else {
    for (std::size_t i = header.size(); i-- > 0;)
      if (i != *tc && i < rows[0].fields.size() && core::parse_number(rows[0].fields[i].text)) {
        vc = i;
        break;
      }
    if (!vc)
      fail(rows[0].line, 0, "value_column", "no numeric column besides the time; name the value column");
  }
  std::vector<double> t, v;
  t.reserve(rows.size());
  v.reserve(rows.size());
  for (const auto& row : rows) {
    const auto& f = row.fields;
    if (f.size() != header.size())
      fail(row.line, 0, "record", fmt::format("has {} fields, the header has {}", f.size(), header.size()));
    const auto& time_text = f[*tc].text;
    auto time = core::parse_timestamp(time_text);
    if (!time) time = core::parse_number(time_text);
    if (!time)
      fail(row.line, static_cast<std::uint32_t>(*tc + 1), header[*tc],
           fmt::format("'{}' is neither a timestamp nor seconds", time_text));
    const auto value = core::parse_number(f[*vc].text);
    if (!value)
      fail(row.line, static_cast<std::uint32_t>(*vc + 1), header[*vc],
           fmt::format("'{}' is not a number", f[*vc].text));
    if (!t.empty() && !(*time > t.back()))
      fail(row.line, static_cast<std::uint32_t>(*tc + 1), header[*tc], "times must increase from row to row");
    // The series is met on the engine's clock: one spanning more than its input range (a time of 1e300 s)
    // would only overflow the signal's sums.
    if (!t.empty() && *time - t.front() > core::kMaxInputSeconds)
      fail(row.line, static_cast<std::uint32_t>(*tc + 1), header[*tc],
           fmt::format("{} s after the first row, beyond the {:.0e} s (31.7 years) a simulated time may span",
                       *time - t.front(), core::kMaxInputSeconds));
    // A grid's carbon intensity stays under ~2,000 g/kWh and wholesale prices under ~10,000 per MWh: a
    // bound far above both keeps the run's carbon and cost sums finite (1e308 made them NaN).
    const double scaled = *value * options.scale;
    if (!(std::abs(scaled) <= kMaxSignalMagnitude))
      fail(row.line, static_cast<std::uint32_t>(*vc + 1), header[*vc],
           fmt::format("{} (x scale {}) is outside +-{:g}: not a carbon intensity or price", *value,
                       options.scale, kMaxSignalMagnitude));
    t.push_back(*time);
    v.push_back(scaled);
  }
  double origin = t.front();
  if (!options.start.empty()) {
    auto s = core::parse_timestamp(options.start);
    if (!s) s = core::parse_number(options.start);
    if (!s)
      throw core::ConfigError({name, 0, 0}, "start",
                              fmt::format("'{}' is neither a timestamp nor seconds", options.start));
    origin = *s;
  }
  for (auto& x : t) x -= origin;
  double period = 0.0;
  if (options.repeat) {
    // The last sample holds for as long as the one before it (a regular series' step).
    const double last_step = t.size() > 1 ? t[t.size() - 1] - t[t.size() - 2] : 3600.0;
    period = t.back() - t.front() + last_step;
  }
  return GridSignal(std::move(t), std::move(v), options.unit, period);
}

GridSignal read_grid_signal_csv(const std::filesystem::path& file, const GridSignalOptions& options) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw core::TraceFormatError({file.string(), 0, 0}, "file", "cannot be opened");
  return read_grid_signal_csv(in, file.string(), options);
}

}  // namespace fleetwatt::sim
