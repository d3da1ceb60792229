// SimGrid's side of the fleetwatt / SimGrid side-by-side (bench/simgrid/README.md): reads one of this
// folder's scenario files (fleet-4k.toml, fleet-40k.toml) and the jobs CSV it names, and simulates the same
// fleet with SimGrid's s4u API and its host_energy plugin:
//
// - one SimGrid host per GPU (one core, 1 flop/s) and one per server (its base power, constant);
// - every power level a job's phases use is a power state (pstate) of every GPU host, "idle:P:P" in the
//   plugin's Idle:Epsilon:AllCores notation: a GPU draws the fleet's idle power while it computes nothing
//   and P while an execution runs on it in pstate P;
// - a job is an actor that, on each of its GPUs, switches to its peak pstate and executes peak_s flops, then
//   to its valley pstate and executes valley_s flops, epochs times; then it frees its GPUs;
// - an arrival actor queues each job at its submit time, and a scheduler actor runs fleetwatt's strict FIFO
//   with its first_fit placement (sim/src/policies/fifo.cpp, placement.cpp) once all of an instant's
//   completions and arrivals have been handled (fleetwatt's event priorities: phases, arrivals, then one
//   scheduling pass);
// - a sampler actor reads every host's energy at each facility interval and stops the run at the horizon.
//
// It prints the job counts and the GPU, IT and facility energies (facility = IT x PUE), to compare with
// `fleetwatt run`'s summary. --series writes the facility series (one row per interval), --jobs each job's
// start and end.
//
// Usage: simgrid_fleet SCENARIO.toml [--series FILE.csv] [--jobs FILE.csv] [SimGrid --cfg=... / --log=...]
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>
#include <simgrid/simix.hpp>
#include <simgrid/version.h>
#include <xbt/log.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "simgrid_fleet: %s\n", what.c_str());
  std::exit(2);
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// --- The scenario: the few keys this side models, read from the TOML file. Any other key is refused, so a
// scenario this program cannot reproduce is never compared.

struct Scenario {
  std::filesystem::path file;
  std::uint32_t nodes = 0, gpus_per_node = 0;
  double gpu_idle_W = NAN, gpu_tdp_W = NAN, node_base_W = NAN;
  double pue = NAN;
  double horizon_s = NAN;
  double interval_s = NAN;
  std::filesystem::path jobs_csv;
};

Scenario read_scenario(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) fail(file.string() + ": cannot open");
  // section.key -> raw value (a quoted string keeps its quotes until read).
  std::map<std::string, std::string> kv;
  std::string line, section;
  for (int n = 1; std::getline(in, line); ++n) {
    // Strip a comment: a # outside a string.
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '"') quoted = !quoted;
      if (line[i] == '#' && !quoted) {
        line.resize(i);
        break;
      }
    }
    line = trim(line);
    if (line.empty()) continue;
    const std::string where = file.string() + ":" + std::to_string(n);
    if (line.front() == '[') {
      if (line.back() != ']' || line.rfind("[[", 0) == 0) fail(where + ": only plain [tables] are read here");
      section = trim(line.substr(1, line.size() - 2));
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) fail(where + ": expected key = value");
    const std::string key = (section.empty() ? "" : section + ".") + trim(line.substr(0, eq));
    kv[key] = trim(line.substr(eq + 1));
  }
  auto take = [&](const std::string& key) -> std::string {
    auto it = kv.find(key);
    if (it == kv.end()) fail(file.string() + ": " + key + " is required here (this program sets no defaults)");
    std::string v = it->second;
    kv.erase(it);
    return v;
  };
  auto number = [&](const std::string& key) {
    const std::string v = take(key);
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || *end != '\0' || !std::isfinite(d)) fail(file.string() + ": " + key + ": not a number");
    return d;
  };
  auto count = [&](const std::string& key) {
    const double d = number(key);
    if (d < 1 || d != std::floor(d) || d > 1e9) fail(file.string() + ": " + key + ": not a positive integer");
    return static_cast<std::uint32_t>(d);
  };
  auto text = [&](const std::string& key) {
    const std::string v = take(key);
    if (v.size() < 2 || v.front() != '"' || v.back() != '"') fail(file.string() + ": " + key + ": not a string");
    return v.substr(1, v.size() - 2);
  };
  Scenario s;
  s.file = file;
  s.nodes = count("fleet.nodes");
  s.gpus_per_node = count("fleet.gpus_per_node");
  s.gpu_idle_W = number("fleet.gpu_idle_w");
  s.gpu_tdp_W = number("fleet.gpu_tdp_w");
  s.node_base_W = number("fleet.node_base_w");
  s.pue = number("facility.pue");
  s.horizon_s = number("workload.horizon_s");
  s.interval_s = number("output.facility_interval_s");
  s.jobs_csv = file.parent_path() / text("workload.jobs_csv");  // relative to the scenario, as fleetwatt's
  if (text("scheduler.policy") != "fifo") fail(file.string() + ": scheduler.policy: only fifo is modelled");
  if (text("scheduler.placement") != "first_fit")
    fail(file.string() + ": scheduler.placement: only first_fit is modelled");
  if (number("workload.warmup_s") != 0) fail(file.string() + ": workload.warmup_s: only 0 is modelled");
  // Keys that change nothing this program computes: names, the GPU preset (its idle and TDP are given), the
  // node series' interval and whether fleetwatt writes per-GPU changes.
  for (const char* k : {"name", "description", "fleet.gpu", "output.node_interval_s", "output.gpu_changes"})
    kv.erase(k);
  if (!kv.empty()) fail(file.string() + ": " + kv.begin()->first + ": not modelled by this program");
  if (s.horizon_s <= 0 || s.interval_s <= 0) fail(file.string() + ": horizon and interval must be positive");
  if (s.pue < 1) fail(file.string() + ": facility.pue must be at least 1");
  return s;
}

// --- The jobs CSV, with fleetwatt's rules (jobs/src/jobs_csv.cpp): the eight columns in any order.

struct Job {
  std::int64_t id = 0;
  double submit_s = 0;
  std::uint32_t n_gpus = 0, epochs = 0;
  double peak_s = 0, peak_W = 0, valley_s = 0, valley_W = 0;
  unsigned long peak_state = 0, valley_state = 0;  // the GPU hosts' pstates of the two powers
  double start_s = NAN, end_s = NAN;               // as simulated
};

std::vector<Job> read_jobs(const std::filesystem::path& file, const Scenario& s) {
  std::ifstream in(file);
  if (!in) fail(file.string() + ": cannot open");
  const char* names[] = {"job_id", "submit_s", "n_gpus", "epochs", "peak_s", "peak_W", "valley_s", "valley_W"};
  auto split = [](const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) out.push_back(trim(cell));
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
  };
  std::string line;
  if (!std::getline(in, line)) fail(file.string() + ": empty");
  const auto header = split(line);
  std::size_t col[8];
  for (int c = 0; c < 8; ++c) {
    const auto it = std::find(header.begin(), header.end(), names[c]);
    if (it == header.end()) fail(file.string() + ": no column " + names[c]);
    col[c] = static_cast<std::size_t>(it - header.begin());
  }
  std::vector<Job> jobs;
  const std::uint64_t fleet = std::uint64_t{s.nodes} * s.gpus_per_node;
  for (int n = 2; std::getline(in, line); ++n) {
    if (trim(line).empty()) continue;
    const auto cells = split(line);
    const std::string where = file.string() + ":" + std::to_string(n);
    double v[8];
    for (int c = 0; c < 8; ++c) {
      if (col[c] >= cells.size()) fail(where + ": missing " + names[c]);
      char* end = nullptr;
      v[c] = std::strtod(cells[col[c]].c_str(), &end);
      if (end == cells[col[c]].c_str() || *end != '\0' || !std::isfinite(v[c]) || v[c] < 0)
        fail(where + ": " + names[c] + ": not a non-negative number");
    }
    Job j;
    j.id = static_cast<std::int64_t>(v[0]);
    j.submit_s = v[1];
    j.n_gpus = static_cast<std::uint32_t>(v[2]);
    j.epochs = static_cast<std::uint32_t>(v[3]);
    j.peak_s = v[4];
    j.peak_W = v[5];
    j.valley_s = v[6];
    j.valley_W = v[7];
    if (v[0] != std::floor(v[0]) || v[2] != std::floor(v[2]) || v[3] != std::floor(v[3]) || j.n_gpus < 1 ||
        j.epochs < 1)
      fail(where + ": job_id, n_gpus and epochs are positive integers");
    if (j.peak_s + j.valley_s <= 0) fail(where + ": an epoch needs a positive duration");
    if (j.peak_W > s.gpu_tdp_W || j.valley_W > s.gpu_tdp_W) fail(where + ": a power above the GPU's TDP");
    if (j.n_gpus > fleet) fail(where + ": more GPUs than the fleet");
    // Only the jobs that arrive before the horizon can act on it (fleetwatt ignores the rest likewise).
    if (j.submit_s < s.horizon_s) jobs.push_back(j);
  }
  // fleetwatt's job order: by submit time, ties in file order.
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });
  return jobs;
}

// --- fleetwatt's Cluster and FirstFitPlacement (sim/src/fleet/cluster.cpp, sim/src/policies/placement.cpp),
// on one uniform node group: the same GPUs for the same state, so the same start times.

class Cluster {
 public:
  Cluster(std::uint32_t nodes, std::uint32_t g)
      : nodes_(nodes), g_(g), free_(nodes, g), owned_(std::size_t{nodes} * g, false), by_free_(g + 1) {
    for (std::uint32_t n = 0; n < nodes; ++n) by_free_[g].insert(by_free_[g].end(), n);
    free_total_ = std::uint64_t{nodes} * g;
  }

  /// The GPUs (ascending) first_fit gives a job of k GPUs now, or none.
  std::vector<std::uint32_t> place(std::uint32_t k) const {
    std::vector<std::uint32_t> out;
    if (k == 0 || k > free_total_) return out;
    if (k <= g_) {
      // A job that fits one server goes to the lowest-numbered server with room, never split.
      std::uint32_t best = nodes_;
      for (std::uint32_t f = k; f <= g_; ++f)
        if (!by_free_[f].empty()) best = std::min(best, *by_free_[f].begin());
      if (best == nodes_) return out;
      for (std::uint32_t i = best * g_; i < (best + 1) * g_ && out.size() < k; ++i)
        if (!owned_[i]) out.push_back(i);
      return out;
    }
    // Whole free servers first, lowest-numbered first...
    std::uint32_t remaining = k;
    std::vector<std::uint32_t> used;
    for (std::uint32_t n : by_free_[g_]) {
      if (remaining < g_) break;
      for (std::uint32_t i = n * g_; i < (n + 1) * g_; ++i) out.push_back(i);
      used.push_back(n);
      remaining -= g_;
    }
    // ...then the rest from the lowest-numbered servers with room.
    for (std::uint32_t n = 0; n < nodes_ && remaining > 0; ++n) {
      if (free_[n] == 0 || std::find(used.begin(), used.end(), n) != used.end()) continue;
      for (std::uint32_t i = n * g_; i < (n + 1) * g_ && remaining > 0; ++i)
        if (!owned_[i]) {
          out.push_back(i);
          --remaining;
        }
    }
    if (remaining > 0) return {};
    std::sort(out.begin(), out.end());
    return out;
  }

  void take(const std::vector<std::uint32_t>& gpus) { change(gpus, true); }
  void give_back(const std::vector<std::uint32_t>& gpus) { change(gpus, false); }

 private:
  void change(const std::vector<std::uint32_t>& gpus, bool take) {
    for (std::uint32_t i : gpus) {
      if (owned_[i] == take) fail("internal error: a GPU taken twice or freed twice");
      owned_[i] = take;
      const std::uint32_t n = i / g_;
      by_free_[free_[n]].erase(n);
      free_[n] = take ? free_[n] - 1 : free_[n] + 1;
      by_free_[free_[n]].insert(n);
      free_total_ = take ? free_total_ - 1 : free_total_ + 1;
    }
  }

  std::uint32_t nodes_, g_;
  std::vector<std::uint32_t> free_;
  std::vector<bool> owned_;
  std::vector<std::set<std::uint32_t>> by_free_;  ///< [k] = servers with exactly k free GPUs
  std::uint64_t free_total_ = 0;
};

// --- The simulation.

struct Fleet {
  Scenario scenario;
  std::vector<Job> jobs;
  std::vector<sg4::Host*> gpu_hosts, node_hosts;
  Cluster cluster;
  std::deque<std::size_t> queue;  ///< indices into jobs, FIFO
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr wake = sg4::ConditionVariable::create();
  bool pass_requested = false;
  // Samples at the end of each interval: cumulative GPU and server energy (J).
  std::vector<double> sample_end_s, gpu_J, node_J;

  Fleet(Scenario s, std::vector<Job> j)
      : scenario(std::move(s)), jobs(std::move(j)), cluster(scenario.nodes, scenario.gpus_per_node) {}

  void request_pass() {
    // Actors run one at a time: the flag needs no lock; the condition variable's wait does.
    pass_requested = true;
    wake->notify_one();
  }
};

// One job: each epoch a peak then a valley on all its GPUs, as executions in the phase's pstate.
void run_job(Fleet* f, std::size_t j, std::vector<std::uint32_t> gpus) {
  Job& job = f->jobs[j];
  std::vector<sg4::ExecPtr> execs(gpus.size());
  auto phase = [&](unsigned long state, double seconds) {
    if (seconds <= 0) return;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      sg4::Host* h = f->gpu_hosts[gpus[i]];
      h->set_pstate(state);
      execs[i] = sg4::this_actor::exec_init(seconds)->set_host(h);  // 1 flop/s: seconds of work
      execs[i]->start();
    }
    // The executions have the same work on hosts of the same speed, started together: they end in the same
    // instant. Waiting for one only keeps the job's reaction to that instant in one scheduling round of
    // SimGrid's maestro (each further wait would be a simcall, a round later), so a job that ends frees its
    // GPUs in the round that wakes it, before the scheduler's pass (see scheduler()).
    execs.front()->wait();
  };
  for (std::uint32_t e = 0; e < job.epochs; ++e) {
    phase(job.peak_state, job.peak_s);
    phase(job.valley_state, job.valley_s);
  }
  job.end_s = sg4::Engine::get_clock();
  f->cluster.give_back(gpus);
  f->request_pass();
}

// fleetwatt's strict FIFO: start queue heads while first_fit places them; the head blocks the rest.
//
// fleetwatt runs one scheduling pass at an instant after all of that instant's phase ends, completions and
// arrivals. Here, the actors whose executions or sleeps end at an instant are all woken in the same round of
// SimGrid's maestro (its solver hands over every action done at that date at once), and each of them frees
// its GPUs or queues its jobs before its first simcall; the scheduler, woken by their notifications (a
// simcall), runs in a later round of the same instant, so its pass sees them all. A further notification at
// the same instant (a pass that starts jobs takes several rounds) only runs the pass again, which changes
// nothing: nothing else frees GPUs or queues jobs at that instant.
void scheduler(Fleet* f) {
  std::unique_lock lock(*f->mutex);
  for (;;) {
    f->wake->wait(lock, [f] { return f->pass_requested; });
    f->pass_requested = false;
    while (!f->queue.empty()) {
      const std::size_t j = f->queue.front();
      auto gpus = f->cluster.place(f->jobs[j].n_gpus);
      if (gpus.empty()) break;
      f->queue.pop_front();
      f->cluster.take(gpus);
      f->jobs[j].start_s = sg4::Engine::get_clock();
      sg4::Host* where = f->gpu_hosts[gpus.front()];
      sg4::Actor::create("job-" + std::to_string(f->jobs[j].id), where, run_job, f, j, std::move(gpus))
          ->daemonize();
    }
  }
}

// Each job joins the queue at its submit time. All of an instant's arrivals are queued before the one
// notification (a simcall: the actor runs again only in the next round), so the pass sees them all.
void arrivals(Fleet* f) {
  for (std::size_t j = 0; j < f->jobs.size();) {
    if (f->jobs[j].submit_s > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(f->jobs[j].submit_s);
    const double now = sg4::Engine::get_clock();
    while (j < f->jobs.size() && f->jobs[j].submit_s <= now) f->queue.push_back(j++);
    f->request_pass();
  }
}

// Reads every host's energy at the end of each interval; returning at the horizon ends the simulation (every
// other actor is a daemon). The reads run as one simcall: from an actor, each sg_host_get_consumed_energy()
// that brings a host up to date is a simcall of its own (a maestro round each), and
// sg_host_energy_update_all() sorts every host by name on each call (Engine::get_all_hosts()); in the
// maestro, the plugin brings each host up to date directly.
void sampler(Fleet* f) {
  const double h = f->scenario.horizon_s, dt = f->scenario.interval_s;
  for (std::uint64_t k = 1;; ++k) {
    const double t = std::min(h, static_cast<double>(k) * dt);
    sg4::this_actor::sleep_until(t);
    double gpu = 0, node = 0;
    simgrid::kernel::actor::simcall_answered([f, &gpu, &node] {
      for (const sg4::Host* hst : f->gpu_hosts) gpu += sg_host_get_consumed_energy(hst);
      for (const sg4::Host* hst : f->node_hosts) node += sg_host_get_consumed_energy(hst);
    });
    f->sample_end_s.push_back(t);
    f->gpu_J.push_back(gpu);
    f->node_J.push_back(node);
    if (t >= h) return;
  }
}

std::string watts(double w) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", w);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  const auto wall_start = std::chrono::steady_clock::now();
  sg4::Engine engine(&argc, argv);  // takes SimGrid's own --cfg= and --log= arguments out of argv
  // The energy plugin logs every host's energy when the hosts are destroyed: tens of thousands of lines.
  xbt_log_control_set("host_energy.thres:warning");
  std::string scenario_file, series_file, jobs_file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--series" || a == "--jobs") && i + 1 < argc)
      (a == "--series" ? series_file : jobs_file) = argv[++i];
    else if (scenario_file.empty() && !a.empty() && a[0] != '-')
      scenario_file = a;
    else
      fail("usage: simgrid_fleet SCENARIO.toml [--series FILE.csv] [--jobs FILE.csv] [--cfg=... --log=...]");
  }
  if (scenario_file.empty())
    fail("usage: simgrid_fleet SCENARIO.toml [--series FILE.csv] [--jobs FILE.csv] [--cfg=... --log=...]");
  Scenario s = read_scenario(scenario_file);
  std::vector<Job> jobs = read_jobs(s.jobs_csv, s);

  // The power levels of the jobs' phases, each a pstate of every GPU host.
  std::vector<double> levels;
  for (const Job& j : jobs) {
    levels.push_back(j.peak_W);
    levels.push_back(j.valley_W);
  }
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  if (levels.empty()) levels.push_back(s.gpu_idle_W);
  auto state_of = [&](double w) {
    return static_cast<unsigned long>(std::lower_bound(levels.begin(), levels.end(), w) - levels.begin());
  };
  for (Job& j : jobs) {
    j.peak_state = state_of(j.peak_W);
    j.valley_state = state_of(j.valley_W);
  }
  std::string gpu_wattage;
  for (double w : levels) {
    if (!gpu_wattage.empty()) gpu_wattage += ",";
    gpu_wattage += watts(s.gpu_idle_W) + ":" + watts(w) + ":" + watts(w);
  }

  auto fleet = std::make_unique<Fleet>(s, std::move(jobs));
  Fleet* f = fleet.get();
  sg_host_energy_plugin_init();
  // No network: nothing here communicates, so an empty zone (no routes) holds the hosts.
  auto* zone = sg4::create_empty_zone("fleet");
  const std::vector<double> speeds(levels.size(), 1.0);
  const std::string node_wattage = watts(s.node_base_W) + ":" + watts(s.node_base_W);
  for (std::uint32_t n = 0; n < s.nodes; ++n) {
    f->node_hosts.push_back(
        zone->create_host("node-" + std::to_string(n), 1.0)->set_property("wattage_per_state", node_wattage)->seal());
    for (std::uint32_t g = 0; g < s.gpus_per_node; ++g)
      f->gpu_hosts.push_back(zone->create_host("gpu-" + std::to_string(n) + "-" + std::to_string(g), speeds)
                                 ->set_core_count(1)
                                 ->set_property("wattage_per_state", gpu_wattage)
                                 ->seal());
  }
  zone->seal();

  sg4::Actor::create("scheduler", f->node_hosts.front(), scheduler, f)->daemonize();
  sg4::Actor::create("arrivals", f->node_hosts.front(), arrivals, f)->daemonize();
  sg4::Actor::create("sampler", f->node_hosts.front(), sampler, f);
  engine.run();

  // Counts as fleetwatt's summary gives them: what happened before the horizon.
  const double h = s.horizon_s;
  std::uint64_t finished = 0, running = 0, queued = 0;
  for (const Job& j : f->jobs) {
    if (j.end_s < h)
      ++finished;
    else if (j.start_s < h)
      ++running;
    else
      ++queued;
  }
  const double gpu_J = f->gpu_J.back(), node_J = f->node_J.back(), it_J = gpu_J + node_J;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  std::printf("simgrid_fleet (SimGrid %d.%d.%d): %s, %.2f h simulated in %.2f s\n", major, minor, patch,
              scenario_file.c_str(), h / 3600, wall);
  std::printf("  GPUs                        %u (%u servers of %u; %zu power states per GPU host)\n",
              s.nodes * s.gpus_per_node, s.nodes, s.gpus_per_node, levels.size());
  std::printf("  jobs                        %zu arrived\n", f->jobs.size());
  std::printf("  jobs finished               %llu\n", static_cast<unsigned long long>(finished));
  std::printf("  jobs running at the end     %llu\n", static_cast<unsigned long long>(running));
  std::printf("  jobs still queued           %llu\n", static_cast<unsigned long long>(queued));
  std::printf("  GPU energy                  %.6f kWh (%.3f J)\n", gpu_J / 3.6e6, gpu_J);
  std::printf("  IT energy                   %.6f kWh (%.3f J)\n", it_J / 3.6e6, it_J);
  std::printf("  facility energy             %.6f kWh (%.3f J)\n", it_J * s.pue / 3.6e6, it_J * s.pue);

  if (!series_file.empty()) {
    std::ofstream out(series_file);
    out << "time_s,it_power_W,facility_power_W,energy_J\n";
    out.precision(17);
    double prev_t = 0, prev_J = 0;
    for (std::size_t k = 0; k < f->sample_end_s.size(); ++k) {
      const double t = f->sample_end_s[k], J = f->gpu_J[k] + f->node_J[k];
      const double it_W = (J - prev_J) / (t - prev_t);
      out << prev_t << ',' << it_W << ',' << it_W * s.pue << ',' << J * s.pue << '\n';
      prev_t = t;
      prev_J = J;
    }
    if (!out) fail(series_file + ": cannot write");
  }
  if (!jobs_file.empty()) {
    std::ofstream out(jobs_file);
    out << "job_id,submit_s,start_s,end_s\n";
    out.precision(17);
    for (const Job& j : f->jobs)
      out << j.id << ',' << j.submit_s << ',' << (j.start_s < h ? j.start_s : NAN) << ','
          << (j.end_s < h ? j.end_s : NAN) << '\n';
    if (!out) fail(jobs_file + ": cannot write");
  }
  return 0;
}
