// Finite results: every shipped scenario, and every input fuzzing or hostile values found
// that still gives a result, writes a file whose numbers are all finite, except the datasets the result
// table of docs/results.md documents as NaN when a figure is not available, and those are NaN or finite,
// never inf.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <H5Cpp.h>

#include <limits>

#include "documented_nan.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using fleetwatt::results::ResultReader;

namespace {

// The first dataset value that breaks the rule, as "dataset[i] = value", or "" when there is none.
std::string first_non_finite(const std::filesystem::path& file) {
  const ResultReader r(file);
  for (const auto& name : r.datasets()) {
    if (r.kind(name) != ResultReader::Kind::real) continue;  // text and integers cannot be NaN or inf
    const bool nan_allowed = fleetwatt::fuzz::nan_documented(name);
    const auto values = r.doubles(name);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double v = values[i];
      if (std::isfinite(v) || (nan_allowed && std::isnan(v))) continue;
      return name + "[" + std::to_string(i) + "] = " + std::to_string(v);
    }
  }
  return "";
}

}  // namespace

TEST_CASE("every shipped scenario's result is finite but where docs/results.md documents NaN",
          "[cli][scenarios][finite]") {
  TempDir dir;
  std::size_t runs = 0;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / "examples" / "scenarios")) {
    if (e.path().extension() != ".toml") continue;
    INFO(e.path().filename().string());
    const auto out = dir / (e.path().stem().string() + ".h5");
    const auto r =
        run_command(fleetwatt_binary().string() + " run -q " + e.path().string() + " -o " + out.string());
    REQUIRE(r.exit_code == 0);
    CHECK(first_non_finite(out) == "");
    ++runs;
  }
  CHECK(runs >= 7);  // every shipped scenario runs from a clone alone
}

TEST_CASE("the check finds inf anywhere and NaN outside the documented datasets", "[finite]") {
  // The check must be able to fail: files written here with one value each.
  TempDir dir;
  auto file_with = [&](const std::string& group, const std::string& name, double value) {
    const auto path = dir / (group + "-" + name + ".h5");
    H5::H5File f(path.string(), H5F_ACC_TRUNC);
    H5::Group g = f.createGroup("/" + group);
    const hsize_t n = 2;
    const double values[2] = {1.0, value};
    H5::DataSet ds = g.createDataSet(name, H5::PredType::NATIVE_DOUBLE, H5::DataSpace(1, &n));
    ds.write(values, H5::PredType::NATIVE_DOUBLE);
    return path;
  };
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  CHECK(first_non_finite(file_with("summary", "carbon_kg", 2.0)) == "");
  CHECK(first_non_finite(file_with("summary", "carbon_kg", inf)) == "/summary/carbon_kg[1] = inf");
  CHECK(first_non_finite(file_with("facility", "energy_J", nan)) == "/facility/energy_J[1] = nan");
  CHECK(first_non_finite(file_with("jobs", "start_s", nan)) == "");  // documented: never started
  CHECK(first_non_finite(file_with("jobs", "start_s", -inf)) == "/jobs/start_s[1] = -inf");
}

TEST_CASE("values at the edges of their accepted ranges give finite results", "[cli][finite]") {
  // Hostile but accepted input: each of these passes the scenario's checks, so the run must give numbers.
  // Before the fix, carbon_kg_per_kwh = 1e308 passed and made /facility/carbon_kg and the summary inf.
  TempDir dir;
  const auto scenario = dir.write("s.toml", R"(seed = 11
[fleet]
nodes = 4
gpus_per_node = 8
[facility]
pue = 1.2
[workload]
horizon_s = 3600
[workload.generator]
rate_per_hour = 30
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 4, 8]
epochs = [1, 3]
dataset_samples = [10000, 30000]
)");
  for (const char* set : {"facility.pue=5", "facility.carbon_kg_per_kwh=10", "fleet.node_base_w=100000",
                          "fleet.gpu_idle_w=0", "workload.horizon_s=1", "output.facility_interval_s=3600",
                          "output.facility_interval_s=0.01", "workload.generator.rate_per_hour=3600"}) {
    INFO(set);
    const auto out = dir / "x.h5";
    const auto r = run_command(fleetwatt_binary().string() + " run -q " + scenario.string() + " --set " +
                               set + " -o " + out.string());
    REQUIRE(r.exit_code == 0);
    CHECK(first_non_finite(out) == "");
  }
}
