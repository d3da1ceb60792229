// Generated scenarios through the real command: `fleetwatt run scenario.toml -o out.h5` as a child process,
// watched from outside for what the in-process generated test (tests/runs/scenario_generated_test.cpp)
// cannot see. For each seed a scenario is generated from seeded bytes (fuzz/scenario_generator.hpp, the
// fuzz target's ByteChoices path); about half the runs get SIGINT at a seeded moment between 5 ms and 2 s,
// the others run on. Each child must use at most 2 GB (peak RSS from wait4), end within 1 s of a SIGINT,
// print a progress line on its piped stderr before 60 s (the heartbeat, tools/heartbeat.hpp; it is then
// interrupted), and end with 0, 2 (one error line naming the scenario) or 130 after a SIGINT, leaving no
// result or temporary file unless it succeeded. FLEETWATT_GENERATED_CLI_RUNS raises the number of seeds
// for a campaign, FLEETWATT_GENERATED_CLI_FIRST moves the first (to replay one seed).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "scenario_generator.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace fleetwatt::test;

namespace {

constexpr long kMaxRssKiB = 2L * 1024 * 1024;  // the claim: at most 2 GB
constexpr double kSigintGraceS = 1.0;          // the claim: SIGINT is obeyed within 1 s
constexpr double kProgressDeadlineS = 60.0;    // the claim: no 60 s without progress output

/// When the watcher acts on a child.
struct WatchPlan {
  std::optional<double> sigint_after_s;              ///< SIGINT this long after the start, if given
  double progress_deadline_s = kProgressDeadlineS;   ///< still running then: look for progress, SIGINT
  double sigint_grace_s = kSigintGraceS;             ///< a child alive this long after SIGINT ignored it
  double kill_after_sigint_s = kSigintGraceS + 0.5;  ///< then SIGKILL, so the test goes on
};

/// What happened to a child.
struct Watched {
  int status = 0;                     ///< wait4's status
  double wall_s = 0;                  ///< start to exit
  std::optional<double> sigint_at_s;  ///< when SIGINT was sent
  bool killed = false;                ///< SIGKILLed after ignoring SIGINT
  bool past_deadline = false;         ///< still running at the progress deadline
  bool progress_by_deadline = false;  ///< ... and had printed a progress line by then
  long maxrss_kib = 0;
  std::string err;  ///< its stderr
  [[nodiscard]] std::optional<double> sigint_response_s() const {
    if (!sigint_at_s) return std::nullopt;
    return wall_s - *sigint_at_s;
  }
};

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// A heartbeat line (tools/heartbeat.hpp): "fleetwatt: PHASE..., N s elapsed", plain.
bool has_progress_line(const std::string& err) {
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("fleetwatt: ") && line.find(" elapsed") != std::string::npos) return true;
  return false;
}

/// Runs argv[0] (a path) with stdin and stdout on /dev/null and stderr into `err_file` (not a terminal),
/// default signal handling, the environment without FLEETWATT_HEARTBEAT_S (the command's real period) and,
/// outside ASan, a 4 GB address-space guard so a runaway ends in bad_alloc instead of exhausting the
/// machine (the 2 GB bound itself is checked on the peak RSS). Acts on it as `plan` says.
Watched watch(const std::vector<std::string>& args, const fs::path& err_file, const WatchPlan& plan) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e)
    if (!std::string_view(*e).starts_with("FLEETWATT_HEARTBEAT_S=")) env_text.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string err_path = err_file.string();

  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGINT, &dfl, nullptr);
    sigaction(SIGTERM, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (!kAsan) {
      const rlimit guard{4L << 30, 4L << 30};
      setrlimit(RLIMIT_AS, &guard);
    }
    const int null = open("/dev/null", O_RDWR);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (null < 0 || err < 0) _exit(126);
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  Watched w;
  bool sigkill_sent = false;
  for (;;) {
    rusage u{};
    const pid_t done = wait4(pid, &w.status, WNOHANG, &u);
    if (done == pid) {
      w.wall_s = since(t0);
      w.maxrss_kib = u.ru_maxrss;  // Linux: KiB
      break;
    }
    REQUIRE((done == 0 || errno == EINTR));
    const double t = since(t0);
    if (!w.sigint_at_s) {
      if (plan.sigint_after_s && t >= *plan.sigint_after_s) {
        ::kill(pid, SIGINT);
        w.sigint_at_s = t;
      } else if (!plan.sigint_after_s && t >= plan.progress_deadline_s) {
        w.past_deadline = true;
        w.progress_by_deadline = has_progress_line(read_text(err_file));
        ::kill(pid, SIGINT);
        w.sigint_at_s = t;
      }
    } else if (!sigkill_sent && t - *w.sigint_at_s >= plan.kill_after_sigint_s) {
      ::kill(pid, SIGKILL);
      sigkill_sent = true;
      w.killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  w.err = read_text(err_file);
  return w;
}

std::string last_line(const std::string& text) {
  std::string s = text;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  const auto nl = s.find_last_of('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

/// What breaks the claims in a watched run of `fleetwatt run SCENARIO -o OUT` (empty: nothing). `scenario`
/// and `out` may be empty for a child that is not fleetwatt (the watcher's own checks).
std::vector<std::string> problems(const Watched& w, const WatchPlan& plan, const fs::path& scenario,
                                  const fs::path& out) {
  std::vector<std::string> p;
  if (const auto r = w.sigint_response_s(); r && (w.killed || *r > plan.sigint_grace_s))
    p.push_back(w.killed
                    ? fmt::format("ignored SIGINT for {:.2f} s (killed)", *r)
                    : fmt::format("ended {:.3f} s after SIGINT (more than {:g} s)", *r, plan.sigint_grace_s));
  if (w.past_deadline && !w.progress_by_deadline)
    p.push_back(
        fmt::format("still running after {:g} s with no progress line on stderr", plan.progress_deadline_s));
  if (!kAsan && w.maxrss_kib > kMaxRssKiB)
    p.push_back(fmt::format("peak RSS {:.0f} MiB, above 2 GB", static_cast<double>(w.maxrss_kib) / 1024));
  int code = -1;
  if (WIFSIGNALED(w.status)) {
    // SIGINT's default action before fleetwatt installs its handler (or before exec) ends the child at once
    // with nothing written, as 130 would.
    if (!w.killed && WTERMSIG(w.status) == SIGINT && w.sigint_at_s)
      code = 130;
    else if (!w.killed)
      p.push_back(fmt::format("ended by signal {} ({})", WTERMSIG(w.status), strsignal(WTERMSIG(w.status))));
  } else {
    code = WEXITSTATUS(w.status);
    const bool allowed = code == 0 || code == 2 || (code == 130 && w.sigint_at_s);
    if (!allowed) p.push_back(fmt::format("exit status {}", code));
  }
  if (code == 2 && !scenario.empty()) {
    const std::string last = last_line(w.err);
    if (!last.starts_with("fleetwatt: error: ") || last.find(scenario.string()) == std::string::npos)
      p.push_back("exit 2 without a last line 'fleetwatt: error: ' naming the scenario: " + last);
  }
  if (!out.empty()) {
    std::error_code ec;
    const bool success = code == 0;
    if (!success && fs::exists(out, ec))
      p.push_back("exit " + std::to_string(code) + " left " + out.string());
    if (success && !fs::exists(out, ec)) p.push_back("exit 0 without " + out.string());
    const std::string tmp = out.filename().string() + ".tmp-";
    for (const auto& e : fs::directory_iterator(out.parent_path(), ec))
      if (e.path().filename().string().starts_with(tmp)) p.push_back("left " + e.path().string());
  }
  return p;
}

int env_int(const char* name, int fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atoi(text) : fallback;
}

}  // namespace

TEST_CASE("the watcher catches a child that ignores SIGINT, one silent past the deadline, a bad status",
          "[cli][signals][generated]") {
  TempDir dir;
  // Ignores SIGINT (the disposition survives exec): still alive 1 s after the signal.
  WatchPlan plan;
  plan.sigint_after_s = 0.1;
  auto w = watch({"/bin/sh", "-c", "trap '' INT; exec sleep 3"}, dir / "err1", plan);
  auto p = problems(w, plan, {}, {});
  INFO(fmt::format("{}", fmt::join(p, "; ")));
  CHECK(w.killed);
  REQUIRE_FALSE(p.empty());
  CHECK(p.front().starts_with("ignored SIGINT"));
  // A child past the (shortened) progress deadline without a line on stderr.
  WatchPlan quick;
  quick.progress_deadline_s = 0.3;
  w = watch({"/bin/sh", "-c", "exec sleep 2"}, dir / "err2", quick);
  p = problems(w, quick, {}, {});
  CHECK(w.past_deadline);
  CHECK(std::find_if(p.begin(), p.end(), [](const std::string& s) {
          return s.find("no progress line") != std::string::npos;
        }) != p.end());
  // ... and one that prints a heartbeat-like line in time passes that check.
  w = watch(
      {"/bin/sh", "-c", "echo 'fleetwatt: simulating, 0 s elapsed' >&2; trap 'exit 130' INT; sleep 2 & wait"},
      dir / "err3", quick);
  p = problems(w, quick, {}, {});
  INFO(fmt::format("{}", fmt::join(p, "; ")));
  CHECK(w.progress_by_deadline);
  CHECK(p.empty());
  // An exit status outside 0, 2 and 130.
  w = watch({"/bin/sh", "-c", "exit 3"}, dir / "err4", WatchPlan{});
  p = problems(w, WatchPlan{}, {}, {});
  REQUIRE(p.size() == 1);
  CHECK(p.front() == "exit status 3");
}

TEST_CASE("generated scenarios through fleetwatt run: SIGINT within 1 s, at most 2 GB, progress, clean exits",
          "[cli][signals][generated]") {
  const int first = env_int("FLEETWATT_GENERATED_CLI_FIRST", 0);
  const int count = env_int("FLEETWATT_GENERATED_CLI_RUNS", 100);
  const std::string binary = fs::absolute(fleetwatt_binary()).string();
  TempDir dir;
  std::map<int, int> by_status;  // exit status (-signal) -> runs
  double slowest_sigint = 0, slowest_run = 0;
  int slowest_sigint_seed = -1, slowest_run_seed = -1, peak_seed = -1, interrupted_runs = 0;
  long peak_kib = 0;
  int failures = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int seed = first; seed < first + count; ++seed) {
    // Every decision from this seed: the scenario's bytes, whether and when SIGINT comes.
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
    std::vector<std::uint8_t> bytes(1024);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng() & 0xff);
    fleetwatt::fuzz::ByteChoices choices(bytes.data(), bytes.size());
    const std::string text = fleetwatt::fuzz::generate_scenario(choices);
    WatchPlan plan;
    // The moment is log-uniform between 5 ms and 2 s: a generated run ends within a few tenths of a second
    // (the frame is small), so even times land in its start, its loading and preparation, its simulation
    // and its writing, and some after its end.
    if (rng() % 2 == 0) {
      const double u = static_cast<double>(rng() % 1000000) / 1000000.0;
      plan.sigint_after_s = 0.005 * std::pow(400.0, u);
    }

    const fs::path folder = dir / fmt::format("seed{}", seed);
    fs::create_directory(folder);
    const fs::path scenario = folder / "scenario.toml";
    std::ofstream(scenario, std::ios::binary) << text;
    const fs::path out = folder / "out.h5";
    const Watched w = watch({binary, "run", scenario.string(), "-o", out.string()},
                            dir / fmt::format("seed{}.err", seed), plan);
    const auto p = problems(w, plan, scenario, out);

    const int status = WIFEXITED(w.status) ? WEXITSTATUS(w.status) : -WTERMSIG(w.status);
    ++by_status[status];
    if (w.sigint_at_s) ++interrupted_runs;
    if (const auto r = w.sigint_response_s(); r && *r > slowest_sigint) {
      slowest_sigint = *r;
      slowest_sigint_seed = seed;
    }
    if (w.wall_s > slowest_run) {
      slowest_run = w.wall_s;
      slowest_run_seed = seed;
    }
    if (w.maxrss_kib > peak_kib) {
      peak_kib = w.maxrss_kib;
      peak_seed = seed;
    }
    if (!p.empty()) {
      ++failures;
      // The seed, what happened and the scenario: enough to replay it (FLEETWATT_GENERATED_CLI_FIRST).
      FAIL_CHECK(fmt::format("seed {}: {}\nSIGINT {}; stderr:\n{}\nscenario:\n{}", seed, fmt::join(p, "; "),
                             plan.sigint_after_s ? fmt::format("at {:.3f} s", *plan.sigint_after_s) : "none",
                             w.err, text));
    }
    fs::remove_all(folder);
  }
  std::string statuses;
  for (const auto& [s, n] : by_status) statuses += fmt::format(" {}: {}", s, n);
  // The campaign's figures, for the record (ctest -V shows them).
  std::cout << fmt::format(
      "generated CLI runs: seeds {}-{} in {:.1f} s; exit statuses (-N: signal N){}; SIGINT sent to {}, "
      "slowest "
      "response {:.3f} s (seed {}); slowest run {:.2f} s (seed {}); peak RSS {:.1f} MiB (seed {}); {} "
      "failing\n",
      first, first + count - 1, since(t0), statuses, interrupted_runs, slowest_sigint, slowest_sigint_seed,
      slowest_run, slowest_run_seed, static_cast<double>(peak_kib) / 1024, peak_seed, failures);
  // Every outcome is reached: the generated runs are not all refused nor all run, and SIGINT lands in some
  // runs (a replay of a few seeds need not reach them all).
  if (count >= 50) {
    CHECK(by_status[0] > 0);
    CHECK(by_status[2] > 0);
    CHECK(interrupted_runs > 0);
  }
}
