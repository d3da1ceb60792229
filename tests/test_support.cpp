// Test helpers: locations, temporary folders, running commands.
#include "test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace fleetwatt::test {

std::optional<std::filesystem::path> shared_data() {
  // FLEETWATT_TEST_NO_SHARED_DATA=1 makes a checkout with the data behave as a user's clone without it.
  if (const char* off = std::getenv("FLEETWATT_TEST_NO_SHARED_DATA"); off != nullptr && *off == '1')
    return std::nullopt;
  std::filesystem::path p = FLEETWATT_SHARED_DATA;
  if (std::filesystem::is_directory(p)) return p;
  return std::nullopt;
}

std::filesystem::path source_dir() {
  return FLEETWATT_SOURCE_DIR;
}

std::filesystem::path fleetwatt_binary() {
  // FLEETWATT_TEST_BINARY points the command-line tests at another build (an older commit's binary), so a
  // regression test can be shown to fail on the code before its fix.
  if (const char* other = std::getenv("FLEETWATT_TEST_BINARY"); other != nullptr && *other != '\0')
    return other;
  return FLEETWATT_BINARY;
}

TempDir::TempDir() {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  auto base = std::filesystem::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto p = base / ("fleetwatt-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
                     std::to_string(rd() % 100000));
    if (std::filesystem::create_directory(p)) {
      path_ = p;
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary folder");
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path TempDir::write(const std::string& name, const std::string& text) const {
  auto p = path_ / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

static std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CommandResult run_command(const std::string& command_line) {
  TempDir dir;
  auto out = dir / "out.txt";
  auto err = dir / "err.txt";
  std::string full = command_line + " >" + out.string() + " 2>" + err.string() + " </dev/null";
  int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

double json_number(const std::string& json, const std::string& name, std::size_t from) {
  const auto at = json.find("\"" + name + "\"", from);
  if (at == std::string::npos) throw std::runtime_error("no key " + name + " in: " + json);
  return std::stod(json.substr(json.find(':', at) + 1));
}

std::string small_vit_scenario(const std::string& facility, int horizon_s, int rate_per_hour,
                               int facility_interval_s) {
  return "seed = 11\n[fleet]\nnodes = 4\ngpus_per_node = 4\n[facility]\n" + facility +
         "\n[workload]\nhorizon_s = " + std::to_string(horizon_s) +
         "\n[workload.generator]\nrate_per_hour = " + std::to_string(rate_per_hour) +
         R"(
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 4, 8]
epochs = [1, 5]
dataset_samples = [10000, 30000]
[output]
facility_interval_s = )" +
         std::to_string(facility_interval_s) + "\n";
}

}  // namespace fleetwatt::test
