// `fleetwatt bench --instructions` (bench_instructions.hpp): each case a `fleetwatt run` of this binary
// under callgrind in a child process, several at once, their counts compared with the baseline file or
// written into it.
#include "bench_instructions.hpp"

#include <fcntl.h>
#include <gnu/libc-version.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "cli_support.hpp"
#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "instruction_baseline.hpp"

#ifndef FLEETWATT_BUILD_TYPE
#define FLEETWATT_BUILD_TYPE ""
#endif

namespace fleetwatt::tools {

namespace {
namespace fs = std::filesystem;
using core::ConfigError;

/// What built this binary: a count means something only against one measured with the same compiler and
/// optimisation (CI's gcc Release build against a baseline from a gcc Release build).
std::string this_compiler() {
#if defined(__clang__)
  std::string c = fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  std::string c = fmt::format("gcc {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  std::string c = "an unknown compiler";
#endif
  const std::string type = FLEETWATT_BUILD_TYPE;
  c += type.empty() ? ", no build type" : ", " + type;
#if defined(__SANITIZE_ADDRESS__)
  c += ", ASan";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  c += ", ASan";
#endif
#endif
  return c;
}

/// Where the counts were measured: the CPU (its features choose the C library's string routines), the C
/// library and valgrind. Not the host name: the VM's is a container's, meaningless a week later.
std::string this_machine(const std::string& valgrind) {
  std::string cpu = "unknown CPU";
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      cpu = line.substr(line.find(':') + 1);
      cpu.erase(0, cpu.find_first_not_of(' '));
      break;
    }
  return fmt::format("{} ({} hardware threads), glibc {}, {}", cpu, std::thread::hardware_concurrency(),
                     gnu_get_libc_version(), valgrind.empty() ? "valgrind" : valgrind);
}

/// valgrind on PATH, as a shell would find it.
std::optional<fs::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "";
  while (true) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

/// The temporaries of one invocation: a folder of its own, removed with everything in it however the
/// command ends (a failed case, Ctrl-C).
class ScratchFolder {
 public:
  ScratchFolder()
      : path_(fs::temp_directory_path() / fmt::format("fleetwatt-instructions-{}", static_cast<long>(getpid()))) {
    fs::remove_all(path_);  // a folder left by an earlier process of the same id (killed with SIGKILL)
    fs::create_directory(path_);
  }
  ~ScratchFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

/// One case's measurement.
struct Measured {
  std::uint64_t instructions = 0;
  double wall_s = 0.0;
  double cpu_s = 0.0;  ///< valgrind's user + system time
  std::string valgrind;  ///< "Valgrind-3.19.0"
};

/// A case running under callgrind.
struct Running {
  std::size_t index = 0;
  std::chrono::steady_clock::time_point start;
};

/// The last non-empty line of a file (a failed child's message), or "".
std::string last_line(const fs::path& file) {
  const auto text = core::read_file_text(file).value_or("");
  std::string last;
  std::size_t from = 0;
  while (from < text.size()) {
    auto nl = text.find('\n', from);
    if (nl == std::string::npos) nl = text.size();
    if (nl > from) last = text.substr(from, nl - from);
    from = nl + 1;
  }
  return last;
}

pid_t start_case(const fs::path& valgrind, const fs::path& self, const InstructionCase& c, const fs::path& dir,
                 std::size_t index) {
  const auto file = [&](const char* ext) { return (dir / fmt::format("{}.{}", index, ext)).string(); };
  // --fair-sched: the result writer compresses on a thread of its own, and how its work interleaves with the
  // engine's (how many chunk buffers are reused rather than allocated and zeroed) moves the count. Valgrind
  // runs one thread at a time; its ticket lock hands them turns in order and halved that spread (the default
  // day: 0.19 % over nine runs without it, 0.10 % over ten with it), at about a fifth more CPU time.
  std::vector<std::string> args{valgrind.string(),
                                "--tool=callgrind",
                                "--fair-sched=yes",
                                "--callgrind-out-file=" + file("callgrind"),
                                "--log-file=" + file("log"),
                                self.string(),
                                "run",
                                "-q",
                                c.scenario_path.string()};
  args.insert(args.end(), c.args.begin(), c.args.end());
  args.insert(args.end(), {"-o", file("h5")});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The child's own output: stdout (nothing, with -q) dropped, stderr kept to quote a failure's reason.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  const std::string err = file("err");
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, valgrind.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw std::runtime_error(fmt::format("bench: cannot start {}: {}", valgrind.string(), std::strerror(rc)));
  return pid;
}

/// The count and figures of a case whose valgrind ended; throws when the run failed.
Measured finish_case(const InstructionCase& c, const fs::path& dir, std::size_t index, int status,
                     const rusage& u, double wall_s) {
  const auto file = [&](const char* ext) { return dir / fmt::format("{}.{}", index, ext); };
  const std::string log = core::read_file_text(file("log")).value_or("");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = last_line(file("err"));
    if (why.empty()) why = last_line(file("log"));
    const std::string how = WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                              : fmt::format("signal {}", WTERMSIG(status));
    // fleetwatt's bad-input status: the case's scenario or arguments are what is wrong, so the baseline file.
    if (WIFEXITED(status) && WEXITSTATUS(status) == kExitBadInput)
      throw ConfigError(c.where, fmt::format("case '{}'", c.name),
                        fmt::format("`fleetwatt run` refused it: {}", why));
    throw std::runtime_error(fmt::format("bench: case '{}': `fleetwatt run` under callgrind ended with {}: {}",
                                         c.name, how, why));
  }
  Measured m;
  m.wall_s = wall_s;
  const auto secs = [](const timeval& v) {
    return static_cast<double>(v.tv_sec) + 1e-6 * static_cast<double>(v.tv_usec);
  };
  m.cpu_s = secs(u.ru_utime) + secs(u.ru_stime);
  m.valgrind = valgrind_version(log);
  auto n = callgrind_collected(log);
  if (!n) n = callgrind_totals(core::read_file_text(file("callgrind")).value_or(""));
  if (!n)
    throw std::runtime_error(fmt::format(
        "bench: case '{}': callgrind's log has no 'Collected :' line and its output file no 'totals:' line",
        c.name));
  m.instructions = *n;
  return m;
}

/// Runs the cases under callgrind, up to `jobs` at once, each a child process; progress on stderr. A
/// failed case or a stop request (Ctrl-C, SIGTERM) ends the others (SIGTERM) before it is reported.
std::vector<Measured> measure(const std::vector<const InstructionCase*>& cases, const fs::path& valgrind,
                              unsigned jobs) {
  // /proc/self/exe would name valgrind itself in the child: resolve it here.
  const fs::path self = fs::read_symlink("/proc/self/exe");
  ScratchFolder scratch;
  std::vector<Measured> out(cases.size());
  std::map<pid_t, Running> running;
  const auto stop_all = [&running] {
    for (const auto& entry : running) kill(entry.first, SIGTERM);
    for (const auto& entry : running) {
      int status = 0;
      while (waitpid(entry.first, &status, 0) < 0 && errno == EINTR) {
      }
    }
    running.clear();
  };
  std::size_t next = 0, done = 0;
  try {
    while (done < cases.size()) {
      while (next < cases.size() && running.size() < jobs) {
        const pid_t pid = start_case(valgrind, self, *cases[next], scratch.path(), next);
        running[pid] = {next, std::chrono::steady_clock::now()};
        std::cerr << fmt::format("bench: {}: `fleetwatt run` under callgrind ({} of {})\n", cases[next]->name,
                                 next + 1, cases.size());
        ++next;
      }
      // Polled rather than blocked in: fleetwatt's signal handlers restart a blocked wait, and the stop flag
      // must be seen within a moment.
      int status = 0;
      rusage u{};
      const pid_t pid = wait4(-1, &status, WNOHANG, &u);
      if (pid < 0 && errno != EINTR) throw std::runtime_error("bench: waiting for callgrind failed");
      if (pid <= 0 || !running.count(pid)) {
        if (stop_flag().load()) throw core::Interrupted();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      const Running r = running[pid];
      running.erase(pid);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
      if (stop_flag().load()) throw core::Interrupted();  // a child ended by the same Ctrl-C
      out[r.index] = finish_case(*cases[r.index], scratch.path(), r.index, status, u, wall);
      for (const char* ext : {"h5", "callgrind", "log", "err"})
        fs::remove(scratch.path() / fmt::format("{}.{}", r.index, ext));
      ++done;
      std::cerr << fmt::format("bench: {}: {} instructions, {:.1f} s wall, {:.1f} s CPU under callgrind\n",
                               cases[r.index]->name, group_digits(out[r.index].instructions),
                               out[r.index].wall_s, out[r.index].cpu_s);
    }
  } catch (...) {
    stop_all();
    throw;
  }
  return out;
}
}  // namespace

int bench_instructions(const InstructionOptions& o) {
  // The default names a file of the checkout from its root: elsewhere, say so rather than "cannot be opened".
  std::error_code ec;
  if (o.baseline == InstructionOptions{}.baseline && !fs::exists(o.baseline, ec))
    throw ConfigError({o.baseline, 0, 0}, "--baseline",
                      "no such file (the default is relative to the current folder: run from the repository "
                      "root, or name the file)");
  const InstructionBaseline baseline = read_instruction_baseline(o.baseline);
  std::vector<const InstructionCase*> cases;
  for (const std::string& name : o.cases) {
    const auto it = std::find_if(baseline.cases.begin(), baseline.cases.end(),
                                 [&](const InstructionCase& c) { return c.name == name; });
    if (it == baseline.cases.end()) {
      std::vector<std::string> names;
      for (const auto& c : baseline.cases) names.push_back(c.name);
      throw ConfigError({}, "--case",
                        fmt::format("no case named '{}' in {} (its cases: {})", name, o.baseline,
                                    fmt::join(names, ", ")));
    }
    if (std::find(cases.begin(), cases.end(), &*it) == cases.end()) cases.push_back(&*it);
  }
  if (o.cases.empty())
    for (const auto& c : baseline.cases) cases.push_back(&c);
  const auto valgrind = find_on_path("valgrind");
  if (!valgrind)
    throw ConfigError({}, "--instructions",
                      "valgrind is not on PATH (the counts are callgrind's; Debian: apt-get install valgrind, "
                      "or tools/install-deps.sh)");
  const std::string compiler = this_compiler();
  std::set<std::string> warned;
  for (const InstructionCase* c : cases)
    if (!o.update && !c->compiler.empty() && c->compiler != compiler && warned.insert(c->compiler).second)
      std::cerr << fmt::format(
          "bench: warning: {} was measured with {}, this fleetwatt was built with {}: the counts differ for "
          "that alone\n",
          baseline.file.string(), c->compiler, compiler);

  const unsigned jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Measured> measured = measure(cases, *valgrind, jobs);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::size_t width = 4;
  for (const InstructionCase* c : cases) width = std::max(width, c->name.size());
  std::cout << fmt::format("instruction counts under callgrind, {} (tolerance {:g} %; {} case{} in {:.1f} s, "
                           "{} at a time)\n",
                           o.baseline, o.tolerance_pct, cases.size(), cases.size() == 1 ? "" : "s", wall,
                           std::min<std::size_t>(jobs, cases.size()));
  std::cout << fmt::format("  {:<{}}  {:>15}  {:>15}  {:>9}  {}\n", "case", width, "baseline", "measured",
                           "change", "callgrind run");
  std::vector<std::string> over, under;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const InstructionCase& c = *cases[i];
    const Measured& m = measured[i];
    std::string change = "-";
    if (c.instructions) {
      const InstructionJudgement j = judge_instructions(*c.instructions, m.instructions, o.tolerance_pct);
      change = fmt::format("{:+.2f} %", j.change_pct);
      if (j.verdict == InstructionVerdict::slower)
        over.push_back(fmt::format("{}: {:.2f} % over its baseline ({} -> {} instructions; tolerance {:g} %)",
                                   c.name, j.change_pct, group_digits(*c.instructions),
                                   group_digits(m.instructions), o.tolerance_pct));
      else if (j.verdict == InstructionVerdict::faster)
        under.push_back(fmt::format("{}: {:.2f} % under its baseline", c.name, -j.change_pct));
    } else if (!o.update) {
      over.push_back(fmt::format("{}: no instruction count in {} yet (tools/scripts/update-instruction-baseline.sh "
                                 "measures it)",
                                 c.name, o.baseline));
    }
    std::cout << fmt::format("  {:<{}}  {:>15}  {:>15}  {:>9}  {:.1f} s wall, {:.1f} s CPU\n", c.name, width,
                             c.instructions ? group_digits(*c.instructions) : "none",
                             group_digits(m.instructions), change, m.wall_s, m.cpu_s);
  }
  if (!baseline.cases.empty() && !cases.front()->machine.empty())
    std::cout << fmt::format("  baseline measured with {}; {}\n", cases.front()->compiler, cases.front()->machine);

  if (o.update) {
    std::vector<InstructionUpdate> updates;
    const std::string machine = this_machine(measured.front().valgrind);
    for (std::size_t i = 0; i < cases.size(); ++i)
      updates.push_back({cases[i]->name, measured[i].instructions, compiler, machine});
    const auto text = core::read_file_text(baseline.file);
    if (!text) throw ConfigError({baseline.file.string(), 0, 0}, "file", "cannot be opened");
    const std::string rewritten = rewrite_instruction_counts(*text, baseline.file.string(), updates);
    core::write_text_output(baseline.file, "--baseline", [&](std::ostream& out) { out << rewritten; });
    std::cout << fmt::format("wrote {} count{} to {} ({}; {})\n", updates.size(),
                             updates.size() == 1 ? "" : "s", o.baseline, compiler, machine);
    return 0;
  }
  // Gains are locked in by lowering the baseline: otherwise a later slowdown of the same size passes unseen.
  for (const std::string& line : under)
    std::cout << fmt::format("{}: lower the baseline to keep the gain (tools/scripts/update-instruction-baseline.sh)\n",
                             line);
  for (const std::string& line : over) std::cerr << "fleetwatt: bench: " << line << '\n';
  return over.empty() ? 0 : 1;
}

}  // namespace fleetwatt::tools
