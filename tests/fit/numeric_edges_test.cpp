// The power log and the records CSV with each numeric field at ±1e300, NaN, ±inf, 2^63, 2^64, 2^32 and a
// subnormal (numeric_edges.hpp): a located error (file, line, field) or a finite value in its range.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/models/fit/records.hpp"
#include "fleetwatt/models/fit/telemetry.hpp"
#include "numeric_edges.hpp"

using namespace fleetwatt;
using test::Fields;

TEST_CASE("the power log's time, power and GPU index at the numeric edges are located or in range",
          "[telemetry][bad-input][edges]") {
  // A GPU index is an int of zero or more; a power is 0..1 MW (no GPU's or node's draw comes near; 1e300 W
  // made the trace's energy infinite), a subnormal one reading as about 0 W; a time lies within the clock's
  // input range of the first sample. The literal "nan" in the power column is nvidia-smi's missing sample,
  // counted and skipped.
  const Fields fields = {{"time_s", "1"}, {"power_W", "200"}, {"index", "0"}};
  const std::string text = "time_s,power_W,index\n0,100,0\n{time_s},{power_W},{index}\n2,300,0\n";
  {
    std::istringstream in(test::fill(text, fields, "", ""));
    REQUIRE(models::fit::read_power_trace(in, "power.csv").gpus.front().time_s.size() == 3);
  }
  for (const std::string& field : test::field_names(fields)) {
    for (const auto& value : test::numeric_edges()) {
      INFO(field << " = " << value);
      std::istringstream in(test::fill(text, fields, field, value));
      models::fit::PowerTrace got;
      if (const auto error =
              test::input_error_of([&] { got = models::fit::read_power_trace(in, "power.csv"); })) {
        // A time that runs backwards is refused at the row after it.
        const bool next_row = field == "time_s" && error->rfind("power.csv:4:", 0) == 0;
        test::check_located(*error, "power.csv", next_row ? 4 : 3, field);
        continue;
      }
      if (field == "power_W" && value == "nan") CHECK(got.report.missing_power == 1);
      for (const auto& s : got.gpus) {
        for (const double t : s.time_s) CHECK((std::isfinite(t) && std::fabs(t) <= core::kMaxInputSeconds));
        for (const double p : s.power_W) CHECK((p >= 0.0 && p <= 1e6));
        CHECK(std::isfinite(models::fit::trapezoid_energy_J(s)));
      }
      CHECK(std::isfinite(got.report.gap_s));
      CHECK(std::isfinite(got.report.max_interval_s));
    }
  }
}

TEST_CASE("every numeric records column at the numeric edges is located or a finite number",
          "[records][bad-input][edges]") {
  // The records table reads any finite number (its columns' meaning is the fit's: its dataset refuses
  // counts and sizes outside their ranges); NaN and the infinities are located errors, and 2^63, 2^64 and
  // 1e300 read as the finite numbers they are, 1e-320 as about zero.
  const std::string header = models::fit::record_header();
  const std::string good =
      "resnet50,25.6e6,4.1e9,256,1281167,224,8,1,8,A100,80,1.5,300,10.5,4,1000,990,run1,40.5,180,250,300";
  std::vector<std::string> columns, cells;
  for (std::size_t a = 0, b = 0; a <= header.size(); a = b + 1) {
    b = header.find(',', a);
    if (b == std::string::npos) b = header.size();
    columns.push_back(header.substr(a, b - a));
  }
  for (std::size_t a = 0, b = 0; a <= good.size(); a = b + 1) {
    b = good.find(',', a);
    if (b == std::string::npos) b = good.size();
    cells.push_back(good.substr(a, b - a));
  }
  REQUIRE(columns.size() == cells.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c] == "model" || columns[c] == "gpu_type" || columns[c] == "source") continue;
    for (const auto& value : test::numeric_edges()) {
      INFO(columns[c] << " = " << value);
      std::string row;
      for (std::size_t k = 0; k < cells.size(); ++k) row += (k ? "," : "") + (k == c ? value : cells[k]);
      const auto table =
          models::fit::RecordTable::parse(header + "\n" + good + "\n" + row + "\n", "records.csv");
      std::vector<double> got;
      if (const auto error = test::input_error_of([&] { got = table.numeric(columns[c]); })) {
        test::check_located(*error, "records.csv", 3, columns[c]);
        CHECK((value == "nan" || value == "inf" || value == "-inf"));
        continue;
      }
      REQUIRE(got.size() == 2);
      CHECK(std::isfinite(got[1]));
      CHECK(got[1] == Approx(std::strtod(value.c_str(), nullptr)).margin(1e-300));
    }
  }
}
