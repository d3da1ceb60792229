// `fleetwatt bench [SCENARIO]`: docs/development.md's figures: events per second, wall time and peak memory
// of a whole run (HDF5 output included), the default predictor's predictions per second (predict-100k), and
// the peak memory of a short and a long run of the same fleet (each `fleetwatt run` in a process of its own,
// so neither shares the other's peak), on this machine. `--network-scaling N` times the scenario at N x its
// fleet and arrivals with and without its [topology], and at 100,000 GPUs with it, each in a child process of
// its own so that peak memory is each run's alone (the goals: the network at most 1.5x the time and 2x the
// memory, 100,000 GPUs in 4 GiB). `--instructions` is the instruction-count gate instead
// (bench_instructions.hpp): the baseline file's cases under callgrind, against their committed counts.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <thread>
#include <tuple>
#include <vector>

#include "bench_instructions.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/event_queue.hpp"
#include "fleetwatt/core/median.hpp"
#include "fleetwatt/models/predict_bench.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/results/hdf5/result_writer.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "heartbeat.hpp"

namespace fleetwatt::tools {

namespace {
struct BenchOptions {
  std::string scenario = "examples/scenarios/day-fleet.toml";
  std::string output;
  bool no_output = false;
  std::uint64_t queue_events = 2'000'000;
  std::size_t predict_jobs = 100'000;
  std::vector<std::string> overrides;  ///< --set
  double scale = 1.0;                  ///< fleet nodes and generated arrivals times this
  bool no_topology = false;            ///< drop [topology]
  double network_scaling = 0.0;        ///< > 0: the scaling comparison in child processes
  std::uint64_t network_gpus = 100'000;
  unsigned network_repeats = 3;  ///< with/without pairs of --network-scaling, alternating
  /// Horizons (days) of the memory cases; empty: none.
  std::vector<double> memory_days{1.0, 30.0};
  /// Times the scenario runs, one after another; the figures are the median run's, with the range.
  unsigned repeat = 1;
};

/// The network model's scaling goals the comparison checks: at most 1.5x the time and 2x the memory of the
/// run without it, and 100,000 GPUs in 4 GiB.
constexpr double kTimeRatioGoal = 1.5, kMemoryRatioGoal = 2.0, kBigRunGoalMiB = 4096.0;

/// Scales a generated workload's fleet: nodes x factor (rounded) and arrivals x the same node ratio, so
/// the load per GPU stays the scenario's. A fleet of node groups or a workload that is not generated is
/// refused (exit 2): their scale is not one number.
void scale_scenario(runs::Scenario& s, double factor, const std::string& option) {
  const jobs::SourceLocation where{s.file.string(), 0, 0};
  if (!s.fleet.groups.empty())
    throw jobs::ConfigError(where, option, "scaling needs a fleet of one node kind, not [[fleet.group]]");
  if (!s.workload.generator || !s.workload.jobs.empty() || s.workload.trace || s.workload.preset)
    throw jobs::ConfigError(where, option, "scaling needs a [workload.generator] workload and nothing else");
  const double nodes = std::round(static_cast<double>(s.fleet.nodes) * factor);
  if (!(nodes >= 1.0 && nodes <= 1e7))
    throw jobs::ConfigError(where, option,
                            fmt::format("{} x {} nodes is out of range", factor, s.fleet.nodes));
  s.workload.generator->mean_rate_per_s *= nodes / static_cast<double>(s.fleet.nodes);
  s.fleet.nodes = static_cast<std::uint32_t>(nodes);
}

/// This process's resident set now (VmRSS), MiB.
double resident_MiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  return 0.0;
}

double peak_rss_MiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

/// Raw event-queue throughput: a steady population of pending events, each rescheduling itself.
double queue_events_per_s(std::uint64_t n) {
  sim::EventQueue q;
  std::uint64_t left = n;
  std::uint64_t state = 88172645463325252ull;
  std::function<void()> tick = [&] {
    if (left == 0) return;
    --left;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    q.schedule_in(sim::Duration::from_ns(static_cast<std::int64_t>(state % 1'000'000'000)), tick);
  };
  for (int i = 0; i < 4096; ++i) q.schedule_in(sim::Duration::from_ns(i), tick);
  const auto t0 = std::chrono::steady_clock::now();
  while (q.step()) {
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(q.events_run()) / s;
}

/// Peak RSS (MiB) and wall time of `fleetwatt run SCENARIO` over `days`, in a child process of its own:
/// hourly facility intervals, one node interval, no GPU changes (the long-run settings, where memory
/// should follow the running jobs, not the horizon). Throws when the child fails.
std::pair<double, double> run_memory_case(const std::string& scenario, double days, const std::string& out) {
  const std::string horizon = fmt::format("workload.horizon_s={:.0f}", days * 86400.0);
  const std::string nodes = fmt::format("output.node_interval_s={:.0f}", days * 86400.0);
  std::vector<std::string> args{"fleetwatt", "run",
                                scenario,    "-q",
                                "-o",        out,
                                "--set",     horizon,
                                "--set",     "output.facility_interval_s=3600",
                                "--set",     nodes,
                                "--set",     "output.gpu_changes=false"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("bench: cannot start a child fleetwatt for the memory cases");
  int status = 0;
  rusage u{};
  if (wait4(pid, &status, 0, &u) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (stop_flag().load()) throw sim::Interrupted();  // Ctrl-C reached the child too
    throw std::runtime_error(fmt::format("bench: the {:g}-day memory case failed", days));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::filesystem::remove(out);
  return {static_cast<double>(u.ru_maxrss) / 1024.0, wall};  // Linux reports KiB
}

/// One timed run of the scenario: its engine loop's and its whole wall time, and what it simulated.
struct TimedRun {
  double engine_s = 0.0, wall_s = 0.0;
  std::uint64_t events = 0;
  std::uint32_t gpus = 0;
  double horizon_s = 0.0;
  std::uint64_t jobs = 0;
};
TimedRun time_scenario(const BenchOptions& o);
/// The runs' figures: the median run's, with the range when there are several.
void print_timed_runs(const BenchOptions& o, std::vector<TimedRun> runs);

int bench(const BenchOptions& o) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::cout << fmt::format("fleetwatt bench on {} ({} hardware threads)\n", host,
                           std::thread::hardware_concurrency());
  // Memory against the horizon, first: the same fleet over a short and a long span, each a `fleetwatt run`
  // of its own. A child's ru_maxrss starts from what its parent held when it was started (Linux carries the
  // resident set across exec), so the children are started while this process is small, and that floor is
  // printed. Finished jobs leave memory as they are written and arrivals are drawn as they come, so the
  // peaks should differ little (the goal: by less than 25 %).
  std::vector<double> peaks;
  if (!o.memory_days.empty())
    std::cout << fmt::format(
        "  {:<28}{:.1f} MiB (this process when the runs start: a floor of their peaks)\n",
        "memory cases' floor", resident_MiB());
  for (const double days : o.memory_days) {
    const auto tmp = std::filesystem::temp_directory_path() /
                     fmt::format("fleetwatt-bench-mem-{}.h5", static_cast<long>(getpid()));
    const auto [rss, wall_s] = run_memory_case(o.scenario, days, tmp.string());
    peaks.push_back(rss);
    std::cout << fmt::format(
        "  {:<28}{:.1f} MiB peak RSS, {:.1f} s wall (`fleetwatt run`, 1 h facility "
        "intervals, no node series or GPU changes)\n",
        fmt::format("memory, {:g} day{}", days, days == 1.0 ? "" : "s"), rss, wall_s);
    if (stop_flag().load()) throw sim::Interrupted();
  }
  if (peaks.size() >= 2) {
    std::cout << fmt::format("  {:<28}{:+.1f} % (longest over shortest; goal: under 25 %)\n", "memory growth",
                             100.0 * (peaks.back() - peaks.front()) / peaks.front());
  }

  std::cout << fmt::format("  event queue alone           {:.2f} M events/s\n",
                           queue_events_per_s(o.queue_events) / 1e6);

  if (o.predict_jobs > 0) {
    // The default predictor as a scenario builds it (the registry, default [predictor] section).
    const auto predictor = models::PredictorRegistry::with_builtins().make(models::PredictorConfig{});
    const auto w = models::predict_bench_workload(o.predict_jobs);
    const auto p = models::run_predict_bench(*predictor, w);
    const std::string label = o.predict_jobs % 1000 == 0 ? fmt::format("predict-{}k", o.predict_jobs / 1000)
                                                         : fmt::format("predict-{}", o.predict_jobs);
    std::cout << fmt::format("  {:<28}{} jobs on {} GPU types in {:.3f} s = {:.0f} predictions/s ({})\n",
                             label, p.jobs, w.gpus.size(), p.seconds, static_cast<double>(p.jobs) / p.seconds,
                             predictor->name());
  }

  // The scenario's run, `repeat` times: a shared VM's wall time varies by a fifth from one minute to the
  // next, and a median of several runs says more than any one of them.
  std::vector<TimedRun> runs;
  for (unsigned k = 0; k < o.repeat; ++k) {
    runs.push_back(time_scenario(o));
    if (stop_flag().load()) throw sim::Interrupted();
  }
  print_timed_runs(o, runs);
  std::cout << fmt::format("  peak memory (max RSS)       {:.1f} MiB\n", peak_rss_MiB());
  return 0;
}

TimedRun time_scenario(const BenchOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  Heartbeat heartbeat;  // lines on a stderr that is not a terminal (heartbeat.hpp)
  heartbeat.phase("loading the scenario");
  runs::Scenario scenario = runs::load_scenario(o.scenario, o.overrides);
  if (o.scale != 1.0) scale_scenario(scenario, o.scale, "--scale");
  if (o.no_topology) scenario.topology.reset();
  std::filesystem::path out = o.output.empty()
                                  ? std::filesystem::temp_directory_path() /
                                        fmt::format("fleetwatt-bench-{}.h5", static_cast<long>(getpid()))
                                  : std::filesystem::path(o.output);
  if (!o.no_output) check_run_output_path(out, {}, "-o", scenario);
  // As `fleetwatt run`: generated jobs drawn as the run goes, finished ones streamed to the file.
  heartbeat.phase("drawing the workload");
  runs::PreparedRun r = runs::prepare_streamed_run(std::move(scenario));
  print_warnings(r.scenario);
  const auto engine_ptr = runs::make_engine_taking_jobs(r);
  sim::Engine& engine = *engine_ptr;
  std::optional<results::ResultWriter> writer;
  if (!o.no_output) {
    writer.emplace(out, results::WriterLayout{
                            r.setup.nodes, r.setup.gpus_per_node, r.scenario.output.facility_interval_s,
                            r.scenario.output.node_interval_s, r.scenario.output.gpu_changes,
                            engine.cluster().uniform() ? 0 : engine.cluster().gpus()});
    engine.attach(&*writer);
    writer->stream_jobs(engine);
  }
  heartbeat.phase("simulating");
  engine.run(heartbeat.callback(progress_printer()), 100000, &stop_flag());
  if (writer) {
    const bool groups = engine.layout().groups().size() > 1;
    writer->write_jobs(engine.jobs(), engine.cluster(), groups);
    if (groups) writer->write_fleet(engine.layout().groups());
    writer->write_summary(engine.summary());
    writer->commit();
  }
  heartbeat.stop();  // no line among the figures
  TimedRun t;
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& s = engine.summary();
  t.engine_s = s.wall_s;
  t.events = s.events;
  t.gpus = engine.cluster().gpus();
  t.horizon_s = s.horizon_s;
  t.jobs = s.jobs_total;
  if (writer && o.output.empty()) std::filesystem::remove(out);
  return t;
}

void print_timed_runs(const BenchOptions& o, std::vector<TimedRun> runs) {
  const TimedRun& first = runs.front();
  std::cout << fmt::format("  scenario                    {} ({} GPUs, {:.1f} h, {} jobs)\n", o.scenario,
                           first.gpus, first.horizon_s / 3600, first.jobs);
  // The median of an even count is the lower middle run: a run that happened, not a mean of two.
  const auto median = [&](auto key) {
    std::sort(runs.begin(), runs.end(),
              [&](const TimedRun& a, const TimedRun& b) { return key(a) < key(b); });
    return std::tuple{key(runs[(runs.size() - 1) / 2]), key(runs.front()), key(runs.back())};
  };
  const auto range = [&](double lo, double hi) {
    return runs.size() < 2 ? std::string() : fmt::format("; {} runs: {:.3f}-{:.3f} s", runs.size(), lo, hi);
  };
  const auto [engine_s, engine_lo, engine_hi] = median([](const TimedRun& r) { return r.engine_s; });
  std::cout << fmt::format(
      "  engine events               {} in {:.3f} s = {:.2f} M events/s (engine loop incl. "
      "power accounting{}{}{})\n",
      first.events, engine_s, static_cast<double>(first.events) / engine_s / 1e6,
      o.no_output ? "" : " and HDF5 streaming", runs.size() < 2 ? "" : "; the median",
      range(engine_lo, engine_hi));
  const auto [wall_s, wall_lo, wall_hi] = median([](const TimedRun& r) { return r.wall_s; });
  std::cout << fmt::format("  whole run wall time         {:.3f} s (load, predict, simulate{}{})\n", wall_s,
                           o.no_output ? "" : ", write HDF5", range(wall_lo, wall_hi));
}

struct ChildRun {
  double wall_s = 0.0;
  double cpu_s = 0.0;  ///< user + system: steadier than wall time on a shared machine
  double peak_MiB = 0.0;
};

/// Runs bench(o) in a forked child (before this process has threads or HDF5 state) and measures its wall
/// time and peak RSS from the parent: the child's peak is its own, not shared with the other runs.
ChildRun run_in_child(const BenchOptions& o) {
  std::cout.flush();
  std::cerr.flush();
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int rc = guarded([&] { return bench(o); });
    std::cout.flush();
    std::cerr.flush();
    _exit(rc);
  }
  int status = 0;
  rusage u{};
  while (wait4(pid, &status, 0, &u) < 0) {
    if (errno != EINTR) throw std::runtime_error("wait4 failed");
  }
  ChildRun r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.peak_MiB = static_cast<double>(u.ru_maxrss) / 1024.0;
  const auto secs = [](const timeval& v) {
    return static_cast<double>(v.tv_sec) + 1e-6 * static_cast<double>(v.tv_usec);
  };
  r.cpu_s = secs(u.ru_utime) + secs(u.ru_stime);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(fmt::format("a benchmark run failed (status {})", status));
  return r;
}

int network_scaling(const BenchOptions& o) {
  // Check the scenario and both scalings here, so that bad input is one line and exit 2 before any run.
  runs::Scenario s = runs::load_scenario(o.scenario, o.overrides);
  if (!s.topology)
    throw jobs::ConfigError({s.file.string(), 0, 0}, "--network-scaling", "the scenario has no [topology]");
  const double base_nodes = static_cast<double>(s.fleet.nodes);
  scale_scenario(s, o.network_scaling, "--network-scaling");
  // The large run: --network-gpus GPUs in nodes of the scenario's size (25,000 for the default day).
  const double big_factor =
      static_cast<double>(o.network_gpus) / static_cast<double>(s.fleet.gpus_per_node) / base_nodes;
  BenchOptions child = o;
  child.network_scaling = 0.0;
  child.repeat = 1;  // the pairs are the repeats here
  child.predict_jobs = 0;
  child.memory_days.clear();
  child.queue_events = 1000;
  child.scale = o.network_scaling;
  std::cout << fmt::format("network scaling: {} at {}x its fleet and arrivals ({} GPUs)\n", o.scenario,
                           o.network_scaling, s.fleet.nodes * s.fleet.gpus_per_node);
  // Pairs alternate (with, without, with, ...) and the goals are judged on the median pair: on a shared
  // machine one pair's wall times were seen to vary by 25 % from run to run.
  std::vector<double> t, m, c;
  for (unsigned i = 0; i < o.network_repeats; ++i) {
    child.no_topology = false;
    std::cout << fmt::format("with [topology] ({} of {}):\n", i + 1, o.network_repeats);
    const ChildRun with = run_in_child(child);
    child.no_topology = true;
    std::cout << fmt::format("without [topology] ({} of {}):\n", i + 1, o.network_repeats);
    const ChildRun without = run_in_child(child);
    t.push_back(with.wall_s / without.wall_s);
    m.push_back(with.peak_MiB / without.peak_MiB);
    c.push_back(with.cpu_s / without.cpu_s);
    std::cout << fmt::format(
        "  pair {}: wall {:.2f} / {:.2f} s = {:.2f}x; CPU {:.2f} / {:.2f} s = {:.2f}x; "
        "peak RSS {:.0f} / {:.0f} MiB = {:.2f}x\n",
        i + 1, with.wall_s, without.wall_s, t.back(), with.cpu_s, without.cpu_s, c.back(), with.peak_MiB,
        without.peak_MiB, m.back());
  }
  const auto range = [](const std::vector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return fmt::format("{:.2f}-{:.2f}", *lo, *hi);
  };
  const double tm = core::median(t), mm = core::median(m), cm = core::median(c);
  std::cout << fmt::format(
      "  {}x with / without the network, median of {} pairs: wall {:.2f}x (range {}; goal <= {}x{}); CPU "
      "{:.2f}x (range {}); peak RSS {:.2f}x (range {}; goal <= {}x{})\n",
      o.network_scaling, t.size(), tm, range(t), kTimeRatioGoal, tm <= kTimeRatioGoal ? "" : ", MISSED", cm,
      range(c), mm, range(m), kMemoryRatioGoal, mm <= kMemoryRatioGoal ? "" : ", MISSED");
  if (o.network_gpus > 0) {
    child.no_topology = false;
    child.scale = big_factor;
    std::cout << fmt::format("{} GPUs with [topology]:\n", o.network_gpus);
    const ChildRun big = run_in_child(child);
    std::cout << fmt::format(
        "  {} GPUs with the network: wall {:.2f} s, CPU {:.2f} s, peak RSS {:.0f} MiB (goal <= {:.0f} "
        "MiB{})\n",
        o.network_gpus, big.wall_s, big.cpu_s, big.peak_MiB, kBigRunGoalMiB,
        big.peak_MiB <= kBigRunGoalMiB ? "" : ", MISSED");
  }
  return 0;
}
}  // namespace

void add_bench_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<BenchOptions>();
  auto gate = std::make_shared<InstructionOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Measure events/s, wall time and peak memory of a whole run; with --instructions, check the instruction "
      "counts of bench/instructions.toml's runs (callgrind)");
  cmd->footer(
      "Examples:\n"
      "  fleetwatt bench                              # speed and memory figures of the default day\n"
      "  fleetwatt bench --no-output --no-memory --repeat 9   # the engine's events/s, median of 9 runs\n"
      "  fleetwatt bench --network-scaling 10         # the network's cost at 10x the fleet\n"
      "  fleetwatt bench --instructions               # the instruction-count gate (exit 1: a slowdown)\n"
      "  fleetwatt bench --instructions --case llm-campus --tolerance 1");
  cmd->add_option("scenario", opts->scenario, "Scenario to time")->capture_default_str();
  cmd->add_option("-o,--output", opts->output,
                  "Keep the result file here (default: a temporary file, removed)");
  cmd->add_flag("--no-output", opts->no_output, "Time the simulation without writing HDF5");
  cmd->add_option("--queue-events", opts->queue_events, "Events for the raw event-queue benchmark")
      ->capture_default_str();
  cmd->add_option("--predict-jobs", opts->predict_jobs,
                  "Jobs for the predictor benchmark (predict-100k: 10 GPU types; 0: skip it)")
      ->capture_default_str();
  add_set_option(*cmd, opts->overrides);
  cmd->add_option("--scale", opts->scale,
                  "Time the scenario at this many times its fleet.nodes, with arrivals of its "
                  "[workload.generator] scaled alike (one node kind, generated workload)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--no-topology", opts->no_topology,
                "Time the scenario without its [topology] (no network model)");
  cmd->add_option("--network-scaling", opts->network_scaling,
                  "Compare, each in its own process: the scenario at N x its fleet and arrivals with its "
                  "[topology] and without, and at --network-gpus GPUs with it (wall time, peak RSS, the "
                  "network model's goals: <= 1.5x time, <= 2x memory, <= 4 GiB)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--network-gpus", opts->network_gpus,
                  "GPUs of the large run of --network-scaling (0: skip it)")
      ->capture_default_str();
  cmd->add_option("--network-repeats", opts->network_repeats,
                  "With/without pairs of --network-scaling, alternating; the goals are judged on the median")
      ->capture_default_str()
      ->check(CLI::Range(1u, 99u));
  cmd->add_option("--memory-days", opts->memory_days,
                  "Horizons (days) of the memory cases: `fleetwatt run` of the scenario in a process each, "
                  "peak RSS reported")
      ->capture_default_str()
      ->delimiter(',');
  cmd->add_flag_callback(
      "--no-memory", [opts] { opts->memory_days.clear(); }, "Skip the memory cases");
  cmd->add_option("--repeat", opts->repeat,
                  "Run the scenario this many times, one after another, and give the median run's engine "
                  "and wall time with the range (a shared machine's times vary from minute to minute)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 99u));
  CLI::Option* instructions = cmd->add_flag(
      "--instructions", gate->enabled,
      "Count the instructions of each case of --baseline (a `fleetwatt run` of this binary under valgrind's "
      "callgrind) and compare: exit 1 when one is more than --tolerance over its count");
  // The timing options are refused beside it (its runs are the baseline file's cases, arguments included),
  // by the action rather than CLI11's excludes(), which would tag every one of them in --help.
  std::vector<const CLI::Option*> timing;
  for (const char* name : {"scenario", "--output", "--no-output", "--queue-events", "--predict-jobs", "--set",
                           "--scale", "--no-topology", "--network-scaling", "--network-gpus",
                           "--network-repeats", "--memory-days", "--no-memory", "--repeat"})
    timing.push_back(cmd->get_option(name));
  cmd->add_option("--baseline", gate->baseline,
                  "The cases and their counts (scenario paths relative to its `root`, default its folder)")
      ->needs(instructions)
      ->capture_default_str();
  cmd->add_option("--tolerance", gate->tolerance_pct,
                  "Percent over its baseline a case may count; more than this under it passes and asks for "
                  "the baseline to be lowered")
      ->needs(instructions)
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_flag("--update-baseline", gate->update,
                "Write the measured counts (and compiler, machine) into --baseline, keeping its cases")
      ->needs(instructions);
  cmd->add_option("--case", gate->cases, "Measure this case alone (repeatable; default: every case)")
      ->needs(instructions);
  cmd->add_option("-j,--jobs", gate->jobs, "Cases measured at once (default: one per hardware thread)")
      ->needs(instructions)
      ->check(CLI::Range(1u, 256u));
  cmd->callback([opts, gate, timing, &action] {
    action = [opts, gate, timing] {
      if (gate->enabled) {
        for (const CLI::Option* t : timing)
          if (t->count() > 0)
            throw jobs::ConfigError({}, "--instructions",
                                    fmt::format("measures the cases of --baseline and takes no {}: give a "
                                                "case's arguments in its [[case]] table",
                                                t->get_name(false, true)));
        return bench_instructions(*gate);
      }
      return opts->network_scaling > 0.0 ? network_scaling(*opts) : bench(*opts);
    };
  });
}

}  // namespace fleetwatt::tools
