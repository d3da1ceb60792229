// [fleet] node_load_w_per_gpu_w: read, bounded and defaulted; and the campus scenarios' node power is the
// AcmeTrace server measurements (../shared/data/acmetrace, CC BY 4.0, Hu et al., NSDI 2024) worked
// independently here, scaled from a DGX A100 to a DGX H100 by their published ratings.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "fleetwatt/runs/scenario_loader.hpp"
#include "scenario_test_support.hpp"
#include "test_support.hpp"

using namespace fleetwatt::jobs;
using namespace fleetwatt::runs;
using fleetwatt::test::error_of;
using fleetwatt::test::kJobs;

namespace {
// A CDF file's first two columns: (value, percent) rows.
std::vector<std::pair<double, double>> read_cdf(const std::filesystem::path& file) {
  std::ifstream in(file);
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  std::vector<std::pair<double, double>> rows;
  while (std::getline(in, line)) {
    const auto a = line.find(',');
    const auto b = line.find(',', a + 1);
    rows.emplace_back(std::stod(line.substr(0, a)), std::stod(line.substr(a + 1, b - a - 1)));
  }
  return rows;
}

// The value at `percent` of a CDF, interpolated between its points.
double quantile(const std::vector<std::pair<double, double>>& cdf, double percent) {
  for (std::size_t i = 1; i < cdf.size(); ++i)
    if (cdf[i].second >= percent) {
      const auto [x0, p0] = cdf[i - 1];
      const auto [x1, p1] = cdf[i];
      return p1 == p0 ? x1 : x0 + (x1 - x0) * (percent - p0) / (p1 - p0);
    }
  return cdf.back().first;
}
}  // namespace

TEST_CASE("[fleet] node_load_w_per_gpu_w is read, defaults to 0 and is bounded", "[scenario][power]") {
  const auto plain = parse_scenario("[fleet]\nnodes = 2\n" + kJobs, "a.toml");
  CHECK(plain.fleet.node_load_fraction == 0.0);
  const auto given = parse_scenario("[fleet]\nnodes = 2\nnode_load_w_per_gpu_w = 0.3\n" + kJobs, "b.toml");
  CHECK(given.fleet.node_load_fraction == 0.3);
  const auto e = error_of("[fleet]\nnodes = 2\nnode_load_w_per_gpu_w = -0.1\n" + kJobs);
  CHECK(e.find("bad.toml:3:1") != std::string::npos);
  CHECK(e.find("fleet.node_load_w_per_gpu_w") != std::string::npos);
}

TEST_CASE("the campus's node power is AcmeTrace's A100 servers scaled to a DGX H100",
          "[scenario][power][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  // Kalos (LLM pre-training, 8 x A100-SXM4-80GB per server, whole servers per job): server power (IPMI)
  // against 8 x GPU power (DCGM), quantile to quantile, at the 5th and 95th percentiles (the tails hold
  // servers out of service and sensor spikes). Server = base + (1 + k) x GPUs.
  const auto server = read_cdf(data / "acmetrace/server_power_cdf.csv");
  const auto gpu = read_cdf(data / "acmetrace/gpu_power_kalos_cdf.csv");
  const double s5 = quantile(server, 5.0), s95 = quantile(server, 95.0);
  const double g5 = 8.0 * quantile(gpu, 5.0), g95 = 8.0 * quantile(gpu, 95.0);
  const double k = (s95 - s5) / (g95 - g5) - 1.0;
  const double base_a100 = s5 - (1.0 + k) * g5;
  INFO("k " << k << ", A100 server base " << base_a100 << " W");
  CHECK(k == Approx(0.256).margin(0.002));
  CHECK(base_a100 == Approx(890.0).margin(2.0));
  // The non-GPU share of the systems' maximum ratings (NVIDIA DGX A100 datasheet: 6.5 kW, 8 x 400 W;
  // DGX H100 datasheet: ~10.2 kW, 8 x 700 W) scales the base to an H100 server.
  const double base_h100 = base_a100 * (10200.0 - 8 * 700.0) / (6500.0 - 8 * 400.0);
  for (const char* name : {"llm-campus.toml", "llm-campus-smoothed.toml"}) {
    INFO(name);
    const auto s = load_scenario(fleetwatt::test::source_dir() / "examples/scenarios" / name);
    CHECK(s.fleet.node_load_fraction == Approx(k).margin(0.005));
    CHECK(s.fleet.node_base_W == Approx(base_h100).margin(5.0));
  }
}
