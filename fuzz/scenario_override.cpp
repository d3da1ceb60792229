// Fuzz target: `--set key=value` overrides (runs/scenario_override). Each line of the input is one
// assignment, applied in order to a small valid scenario that has tables, arrays of tables and a generator
// to address, and the result goes through the scenario's checks as a command's --set would.
#include <string>
#include <vector>

#include "fleetwatt/runs/scenario_loader.hpp"
#include "fuzz_support.hpp"

namespace {

constexpr const char* kBase = R"(seed = 3
[fleet]
nodes = 10
gpus_per_node = 8
[facility]
pue = 1.1
[scheduler]
policy = "fifo"
[workload]
horizon_s = 3600
[[workload.jobs]]
n_gpus = 1
class = "vit"
[[workload.jobs]]
n_gpus = 2
class = "bert"
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  const auto text = fuzz::as_text(data, size);
  std::vector<std::string> overrides;
  std::size_t begin = 0;
  while (begin <= text.size() && overrides.size() < 16) {
    const auto end = std::min(text.find('\n', begin), text.size());
    if (end > begin) overrides.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  fuzz::expect_input_errors(
      [&] { (void)runs::parse_scenario(kBase, "/nonexistent-fuzz/scenario.toml", overrides); });
  return 0;
}
