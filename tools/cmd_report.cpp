// `fleetwatt report RESULT.h5 -o report.html`: one self-contained HTML page of a result's figures and
// metrics: a run (power on the meter, batteries, PUE, load-duration, profile, occupancy, power quality), a
// `compare` file (a panel per metric across the policies), a region (each site and the coincident total) or a
// sweep index (the members and their figures). The figures are drawn by matplotlib in tools/report/
// fleetwatt_report.py; this command checks the inputs, runs that module and puts the page in place.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "heartbeat.hpp"

extern char** environ;

namespace fleetwatt::tools {

namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string result;
  std::string output;
};

// Refuses, with one line, a result file that is missing or that fleetwatt did not write.
void check_result_file(const fs::path& file) {
  auto refuse = [&](const std::string& why) { throw jobs::ConfigError({file.string()}, "", why); };
  std::error_code ec;
  if (!fs::exists(file, ec)) refuse("file not found");
  if (!fs::is_regular_file(file, ec)) refuse("is not a regular file");
  std::unique_ptr<results::ResultReader> reader;
  try {
    reader = std::make_unique<results::ResultReader>(file);
  } catch (const std::exception&) {
    refuse("not an HDF5 file (give a result of fleetwatt run, compare -o or sweep -o)");
  }
  const bool run = reader->has("/facility/time_s") && reader->has("/facility/facility_power_W");
  const bool comparison = reader->has("/comparison/policy");
  const bool region = reader->has("/region/facility_power_W");
  const bool sweep = reader->has("/sweep/members");
  bool scenario = true;
  try {
    (void)reader->string_attribute("/", "scenario");
  } catch (const std::exception&) {
    scenario = false;
  }
  if (!scenario || !(run || comparison || region || sweep))
    refuse(
        "not a fleetwatt result (no scenario attribute, /facility series, /comparison table, /region series "
        "or /sweep/members table)");
}

// The interpreter: $FLEETWATT_PYTHON, else the one CMake found with matplotlib, numpy and h5py.
std::string report_python() {
  if (const char* env = std::getenv("FLEETWATT_PYTHON"); env && *env) return env;
  const std::string configured = FLEETWATT_REPORT_PYTHON;
  if (configured.empty())
    throw std::runtime_error(
        "report: no Python 3 with matplotlib, numpy and h5py was found when fleetwatt was configured; "
        "run tools/install-deps.sh and re-run cmake, or set FLEETWATT_PYTHON");
  return configured;
}

// The module's status for a failure it has already explained in one line on stderr (a page that cannot be
// written, a file it cannot read): nothing more is said.
constexpr int kModuleSaidWhy = 3;

// Runs the plotting module on `result`, writing `page` (named `shown` in its messages); returns its exit
// status (the module says why on stderr when it fails). Ctrl-C (the stop flag) ends the module at once:
// drawing a figure can take seconds in which Python would not see a signal.
int run_module(const std::string& python, const fs::path& result, const fs::path& page,
               const fs::path& shown) {
  const std::string script = FLEETWATT_REPORT_SCRIPT;
  std::vector<std::string> args{python, script, result.string(), page.string(), shown.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int err = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ); err != 0)
    throw std::runtime_error(fmt::format("report: cannot start {} ({})", python, std::strerror(err)));
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR)
      throw std::runtime_error(fmt::format("report: waiting for {} failed", python));
    if (stop_flag().load()) {
      ::kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      throw sim::Interrupted();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

int report(const ReportOptions& o) {
  const fs::path result = o.result;
  check_result_file(result);
  fs::path out = o.output.empty() ? fs::path(result).replace_extension(".html") : fs::path(o.output);
  std::error_code ec;
  if (fs::equivalent(out, result, ec))
    throw jobs::ConfigError({}, "-o", fmt::format("{}: is the result file itself", out.string()));
  check_output_path(out, {}, "-o", result);
  const std::string python = report_python();
  if (stderr_is_terminal()) std::cerr << fmt::format("fleetwatt report: drawing {} ...\n", result.string());
  // The page is written beside the target and renamed only when the module succeeded.
  const fs::path temp = core::temporary_beside(out);
  const core::LiveTemporary live(temp);  // a second Ctrl-C removes it on the way out
  int status = 0;
  {
    Heartbeat heartbeat;  // lines on a stderr that is not a terminal (heartbeat.hpp)
    heartbeat.phase(fmt::format("drawing {}", out.string()));
    try {
      status = run_module(python, result, temp, out);
    } catch (...) {
      fs::remove(temp, ec);
      throw;
    }
  }
  if (stop_flag().load() || status != 0) {
    fs::remove(temp, ec);
    if (stop_flag().load()) throw sim::Interrupted();
    if (status == kModuleSaidWhy) return 1;
    throw std::runtime_error(fmt::format("report: {} {} failed (status {}); no page was written", python,
                                         FLEETWATT_REPORT_SCRIPT, status));
  }
  fs::rename(temp, out);
  const std::string page = core::read_file_text(out).value_or("");
  std::cout << fmt::format("fleetwatt report: {} ({} figures, {:.0f} KB) from {}\n", out.string(),
                           count_of(page, "<figure "), static_cast<double>(page.size()) / 1024.0,
                           result.string());
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write one self-contained HTML page of a result file: a run's power on the meter, batteries, PUE, "
      "profiles, job occupancy, power quality and metrics; a compare file's policies side by side; a "
      "region's sites and their coincident total; a sweep index's members");
  cmd->add_option("result", o->result,
                  "Result file (HDF5) of fleetwatt run (a scenario or a region), compare -o or sweep -o")
      ->required();
  cmd->add_option("-o,--output", o->output, "HTML page to write (default: the result's name with .html)");
  cmd->footer(
      "Figures are drawn with matplotlib (Debian's python3-matplotlib, python3-numpy, python3-h5py); "
      "FLEETWATT_PYTHON names another Python 3 that has them.");
  cmd->callback([o, &action] { action = [o] { return report(*o); }; });
}

}  // namespace fleetwatt::tools
