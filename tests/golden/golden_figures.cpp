// Golden figures from a result file: the /summary group, series statistics and the printed counts.
#include "golden_figures.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "fleetwatt/results/hdf5/result_reader.hpp"

namespace fleetwatt::golden {

namespace {

// Sums skip NaN: a job that never started has NaN times, and one NaN would hide every other value.
double sum_of(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v)
    if (!std::isnan(x)) s += x;
  return s;
}

double mean_of(const std::vector<double>& v) {
  return v.empty() ? 0.0 : sum_of(v) / static_cast<double>(v.size());
}

// Population standard deviation, two-pass (the one-pass formula loses digits on a large mean).
double std_of(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  const double m = mean_of(v);
  double ss = 0.0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size()));
}

std::uint64_t printed_count(std::string_view printed, const std::string& pattern, const char* what) {
  std::smatch m;
  const std::string text(printed);
  if (!std::regex_search(text, m, std::regex(pattern)))
    throw std::runtime_error(std::string("the printed summary has no ") + what + " figure");
  return std::stoull(m[1].str());
}

}  // namespace

nlohmann::json figures(const std::filesystem::path& result_file, std::string_view printed) {
  const results::ResultReader h5(result_file);
  nlohmann::json out;
  nlohmann::json& summary = out["summary"];
  for (const auto& name : h5.datasets()) {
    if (name.rfind("/summary/", 0) != 0) continue;
    summary[name.substr(9)] = h5.doubles(name).at(0);
  }
  nlohmann::json& series = out["series"];
  const auto facility = h5.doubles("/facility/facility_power_W");
  series["facility_power_samples"] = facility.size();
  series["facility_power_mean_W"] = mean_of(facility);
  series["facility_power_max_W"] =
      facility.empty() ? 0.0 : *std::max_element(facility.begin(), facility.end());
  series["facility_power_min_W"] =
      facility.empty() ? 0.0 : *std::min_element(facility.begin(), facility.end());
  series["facility_power_std_W"] = std_of(facility);
  series["node_power_total_W"] = sum_of(h5.matrix("/nodes/power_W").values);
  series["jobs"] = h5.doubles("/jobs/id").size();
  series["job_energy_sum_J"] = sum_of(h5.doubles("/jobs/energy_J"));
  for (const char* column : {"compute_s", "comm_s", "io_s", "checkpoint_s"})
    if (h5.has(std::string("/jobs/") + column))
      series[std::string("job_") + column + "_sum"] = sum_of(h5.doubles(std::string("/jobs/") + column));
  if (h5.has("/network/power_W")) {
    // A change series: power_W[i] holds from time_s[i] to the next change, the last one to the horizon.
    const auto t = h5.doubles("/network/time_s");
    const auto w = h5.doubles("/network/power_W");
    const double horizon = h5.doubles("/summary/horizon_s").at(0);
    double energy = 0.0;
    for (std::size_t i = 0; i < w.size(); ++i)
      energy += w[i] * ((i + 1 < t.size() ? t[i + 1] : horizon) - t[i]);
    series["network_changes"] = w.size();
    series["network_power_mean_W"] = horizon > 0.0 ? energy / horizon : 0.0;
  }
  // What only the printed summary says: "(119371 events; ..." and "3653 of 3751 arrived".
  out["printed"]["events"] = printed_count(printed, R"(\((\d+) events;)", "events");
  out["printed"]["jobs_arrived"] = printed_count(printed, R"(\d+ of (\d+) arrived)", "arrived-jobs");
  return out;
}

std::filesystem::path golden_file(const std::filesystem::path& source_dir,
                                  const std::filesystem::path& scenario) {
  return source_dir / "tests" / "golden" / (scenario.stem().string() + ".json");
}

bool agree(double expected, double actual) {
  return std::fabs(expected - actual) <=
         kRelativeTolerance * std::max(std::fabs(expected), std::fabs(actual)) + 1e-12;
}

namespace {
bool unavailable(const nlohmann::json& figure) {
  return figure.is_null() || (figure.is_number_float() && std::isnan(figure.get<double>()));
}
}  // namespace

std::vector<std::string> differences(const nlohmann::json& expected, const nlohmann::json& actual) {
  std::vector<std::string> out;
  for (const char* group : {"summary", "series", "printed"}) {
    const auto& e = expected.contains(group) ? expected.at(group) : nlohmann::json::object();
    const auto& a = actual.contains(group) ? actual.at(group) : nlohmann::json::object();
    for (const auto& [name, value] : e.items()) {
      const std::string key = std::string(group) + "." + name;
      if (!a.contains(name)) {
        out.push_back(key + ": in the golden file, not in the result");
      } else if (unavailable(value) || unavailable(a.at(name))) {
        // A figure not available (NaN, written as JSON's null: a 1-h ramp of a 1-h run) agrees only with
        // another one.
        if (!(unavailable(value) && unavailable(a.at(name))))
          out.push_back(key + ": expected " + value.dump() + ", got " + a.at(name).dump());
      } else if (!agree(value.get<double>(), a.at(name).get<double>())) {
        out.push_back(key + ": expected " + value.dump() + ", got " + a.at(name).dump());
      }
    }
    for (const auto& [name, value] : a.items())
      if (!e.contains(name)) out.push_back(std::string(group) + "." + name + ": new, not in the golden file");
  }
  return out;
}

}  // namespace fleetwatt::golden
