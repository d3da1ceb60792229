// `fleetwatt sweep SCENARIO --grid KEY=VALUES ... -o sweep.h5`: the Cartesian product of the grid's values,
// each member a whole, independent run written to its own file (as `fleetwatt run --set ... --seed k` would
// write it), and one index file with a table of every member. Serial, or over MPI ranks under mpirun.
//
// Files: OUT (the index, written last, under a temporary name then renamed) and OUT.members/ holding
// mNNNNNN.h5 (one per completed member, each renamed into place when whole), plan.txt (what the sweep is, so
// that --resume refuses another sweep's members) and journal.tsv (each member's outcome as it arrives, so
// that a resumed sweep still knows who ran what and how long it took). OUT.lock (output_lock.hpp), held by
// rank 0 for the whole sweep, keeps a second sweep from writing into the same files meanwhile.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/results/hdf5/sweep_index.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "heartbeat.hpp"
#include "output_lock.hpp"
#include "scenario_run.hpp"
#include "sweep_distribute.hpp"
#include "sweep_plan.hpp"
#include "version.hpp"

namespace fleetwatt::tools {

namespace {

/// A figure of the member table: "–" where the member has none (it failed, or no job started).
std::string figure(double v, int decimals) {
  return std::isnan(v) ? "\u2013" : fmt::format("{:.{}f}", v, decimals);
}

namespace fs = std::filesystem;

struct SweepOptions {
  std::string scenario;
  std::string output;
  std::vector<std::string> grid;
  std::string bands;
  std::vector<std::string> overrides;
  bool resume = false;
  bool quiet = false;
  std::uint64_t max_output = kDefaultMaxOutputBytes;  ///< per member
  std::uint64_t max_memory = 0;  ///< per member (0: the default, 2 GiB or the available memory)
};

fs::path members_dir(const fs::path& out) {
  fs::path d = out;
  d += ".members";
  return d;
}

// FNV-1a of the scenario text: plan.txt names the text it was made from without copying it.
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string plan_text(const SweepOptions& o, const std::string& scenario_text,
                      const std::vector<SweepMember>& members) {
  std::string t = fmt::format("fleetwatt sweep plan\nscenario {}\nscenario_fnv1a {:016x}\n", o.scenario,
                              fnv1a(scenario_text));
  for (const auto& s : o.overrides) t += "set " + s + "\n";
  for (const auto& m : members) t += fmt::format("member {} {}\n", m.name(), m.label());
  return t;
}

std::string read_file(const fs::path& p) {
  return core::read_file_text(p).value_or("");
}

// journal.tsv: "index TAB status TAB rank TAB wall_s TAB error" per line; later lines win.
std::map<std::size_t, MemberOutcome> read_journal(const fs::path& p) {
  std::map<std::size_t, MemberOutcome> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    MemberOutcome o;
    std::string index, rank, wall;
    if (!std::getline(f, index, '\t') || !std::getline(f, o.status, '\t') || !std::getline(f, rank, '\t') ||
        !std::getline(f, wall, '\t'))
      continue;  // a line cut short by a kill
    std::getline(f, o.error);
    try {
      o.index = std::stoull(index);
      o.rank = std::stoi(rank);
      o.wall_s = std::stod(wall);
    } catch (const std::exception&) {
      continue;
    }
    out[o.index] = o;
  }
  return out;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

// A grid key the scenario does not know would fail every member: it is the sweep's error (exit 2, nothing
// run or written), found by loading the scenario with each axis at its first value. Any other error of that
// value is left to its member, as a value the next member changes may be fine.
void refuse_unknown_keys(const SweepOptions& o, const std::vector<SweepAxis>& axes) {
  for (const auto& axis : axes) {
    if (axis.key == "seed" || axis.key == "band" || axis.values.empty()) continue;
    std::vector<std::string> sets = o.overrides;
    sets.push_back(axis.key + "=" + axis.values.front());
    try {
      (void)runs::load_scenario(o.scenario, sets);
    } catch (const core::ConfigError& e) {
      if (e.message().starts_with("unknown key"))
        throw core::ConfigError({}, "--grid", fmt::format("{}: {}", axis.key, e.message()));
    }
  }
}

MemberOutcome run_member(const SweepOptions& o, const SweepMember& m, const fs::path& file, int rank,
                         Heartbeat& heartbeat) {
  const auto t0 = std::chrono::steady_clock::now();
  MemberOutcome out{m.index, "done", "", rank, 0.0};
  try {
    // The sweep's own --set first, then the member's: the order `fleetwatt run --set ...` would apply.
    std::vector<std::string> sets = o.overrides;
    sets.insert(sets.end(), m.overrides.begin(), m.overrides.end());
    heartbeat.phase(fmt::format("member {}: drawing the workload", m.name()));
    runs::PreparedRun r =
        runs::prepare_run(runs::load_scenario(o.scenario, sets), {m.seed, band_override(m.band)},
                          {&stop_flag(), memory_limit_bytes(o.max_memory)});
    check_output_size(r, o.max_output);
    check_memory_size(r, o.max_memory);
    heartbeat.phase(fmt::format("member {}: simulating", m.name()));
    (void)simulate_to_file(r, file, heartbeat.callback({}), &stop_flag());
  } catch (const sim::Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    // A bad override (or any failure of this member alone) is recorded; the sweep goes on.
    out.status = "failed";
    out.error = one_line(e.what());
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// Member files being written when an earlier sweep was killed (mNNNNNN.h5.tmp-PID, of any rank on any
// host): under the output lock no other sweep writes here, so each is a dead writer's. Removed, with a count.
void remove_member_temporaries(const fs::path& dir) {
  std::error_code ec;
  std::size_t removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.size() > 15 && n[0] == 'm' && n.compare(7, 8, ".h5.tmp-") == 0 && fs::remove(it->path(), ec))
      ++removed;
  }
  if (removed)
    std::cerr << fmt::format(
        "fleetwatt: warning: removed {} unfinished member file{} (*.h5.tmp-PID) in {} left by a sweep that "
        "was killed while writing\n",
        removed, removed == 1 ? "" : "s", dir.string());
}

// Rank 0 readies OUTPUT.members: a fresh sweep empties it of an earlier sweep's files and writes its plan; a
// resumed one checks the plan is this sweep's and reads the journal of outcomes so far.
void prepare_members(const SweepOptions& o, const fs::path& dir, const std::string& plan, bool lead,
                     std::map<std::size_t, MemberOutcome>& earlier) {
  if (!lead) return;
  remove_member_temporaries(dir);
  if (o.resume) {
    if (!fs::exists(dir / "plan.txt"))
      throw core::ConfigError({}, "--resume", fmt::format("{} holds no interrupted sweep", dir.string()));
    if (read_file(dir / "plan.txt") != plan)
      throw core::ConfigError(
          {}, "--resume",
          fmt::format("the members in {} are another sweep's (the scenario, --set, --grid or "
                      "--band differ); run without --resume to start again",
                      dir.string()));
    earlier = read_journal(dir / "journal.tsv");
    return;
  }
  // Members left by an earlier sweep must not pass for this one's.
  std::error_code ec;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string n = e.path().filename().string();
      if ((n.size() == 10 && n[0] == 'm' && e.path().extension() == ".h5") || n == "journal.tsv" ||
          n == "plan.txt")
        fs::remove(e.path());
    }
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw core::ConfigError({}, "-o", fmt::format("{}: cannot create the members' folder", dir.string()));
  std::ofstream(dir / "plan.txt", std::ios::binary) << plan;
}

// How this process takes part: its rank, the members' distribution, and a vote of every rank (true
// serially) so that no rank waits for members when another could not start the sweep.
struct Distribution {
  MpiPlace place;
  std::function<bool(const std::vector<std::size_t>&, const RunMember&, const RecordOutcome&)> distribute;
  std::function<bool(bool)> all_ranks = [](bool v) { return v; };
};

int sweep(const SweepOptions& o, const Distribution& d) {
  const auto t0 = std::chrono::steady_clock::now();
  const MpiPlace place = d.place;
  const bool lead = place.rank == 0;
  const fs::path out = o.output;
  const fs::path dir = members_dir(out);
  std::vector<SweepMember> members;
  std::optional<runs::Scenario> base_scenario;
  std::map<std::size_t, MemberOutcome> earlier;
  std::vector<std::size_t> todo;
  // Rank 0 alone holds the lock, for the whole sweep: the other ranks write only the members it hands out.
  std::optional<OutputLock> lock;
  // Lines on a stderr that is not a terminal, from rank 0 alone (heartbeat.hpp); -q asks for no progress.
  Heartbeat heartbeat(heartbeat_period(), lead && !o.quiet && !stderr_is_terminal());
  heartbeat.phase("loading the scenario");
  try {
    std::vector<SweepAxis> axes;
    for (const auto& g : o.grid) axes.push_back(parse_grid_axis(g));
    if (!o.bands.empty()) {
      SweepAxis band{"band", {}};
      std::stringstream ss(o.bands);
      for (std::string b; std::getline(ss, b, ',');) band.values.push_back(b);
      axes.push_back(band);
    }
    members = expand_sweep(axes);
    // The scenario with the sweep's own --set must be good before any member runs: its errors are the
    // sweep's (exit 2, nothing written); only the grid's values may fail member by member.
    base_scenario = runs::load_scenario(o.scenario, o.overrides);
    refuse_unknown_keys(o, axes);
    check_run_output_path(out, {}, "-o", *base_scenario);
    if (lead) lock.emplace(out, "-o");
    prepare_members(o, dir, plan_text(o, read_file(o.scenario), members), lead, earlier);
    for (const auto& m : members) {
      // Done before: its file is whole (files are renamed into place only when complete).
      if (o.resume && fs::exists(dir / (m.name() + ".h5"))) continue;
      todo.push_back(m.index);
    }
  } catch (...) {
    (void)d.all_ranks(false);
    throw;
  }
  // Another rank could not start (rank 0 says why).
  if (!d.all_ranks(true)) return kExitBadInput;
  const runs::Scenario& base = *base_scenario;
  if (lead) print_warnings(base);

  std::map<std::size_t, MemberOutcome> outcomes;
  std::ofstream journal;
  if (lead) journal.open(dir / "journal.tsv", std::ios::app);
  std::size_t finished = 0;
  const RecordOutcome record = [&](const MemberOutcome& r) {
    outcomes[r.index] = r;
    journal << fmt::format("{}\t{}\t{}\t{:.17g}\t{}\n", r.index, r.status, r.rank, r.wall_s, r.error)
            << std::flush;
    ++finished;
    heartbeat.spoke();
    if (!o.quiet)
      std::cerr << fmt::format("  [{}/{}] {} {} {} (rank {}, {:.2f} s){}\n", finished, todo.size(),
                               members[r.index].name(), members[r.index].label(), r.status, r.rank, r.wall_s,
                               r.error.empty() ? "" : ": " + r.error);
  };
  const RunMember run = [&](std::size_t index, int rank) {
    return run_member(o, members[index], dir / (members[index].name() + ".h5"), rank, heartbeat);
  };
  const bool complete = d.distribute(todo, run, record);
  heartbeat.phase("writing the index");
  if (!lead) return complete ? 0 : interrupted_exit_status();
  if (!complete) {
    std::size_t done = 0;
    for (const auto& m : members)
      if (fs::exists(dir / (m.name() + ".h5"))) ++done;
    std::cerr << fmt::format(
        "fleetwatt: interrupted; {} of {} members are done in {}; run the same command with --resume to "
        "finish "
        "(no index was written)\n",
        done, members.size(), dir.string());
    return interrupted_exit_status();
  }

  std::vector<results::SweepMemberRow> rows;
  std::size_t failed = 0, resumed = 0;
  for (const auto& m : members) {
    results::SweepMemberRow row;
    row.member = static_cast<std::int64_t>(m.index);
    row.name = m.name();
    row.overrides = fmt::format("{}", fmt::join(m.overrides, "; "));
    row.seed = static_cast<std::int64_t>(m.seed.value_or(base.seed));
    row.band = m.band;
    const fs::path file = dir / (m.name() + ".h5");
    auto it = outcomes.find(m.index);
    if (it == outcomes.end()) {
      // Completed by an earlier, interrupted run of this sweep.
      ++resumed;
      auto e = earlier.find(m.index);
      if (e != earlier.end()) {
        row.rank = e->second.rank;
        row.wall_s = e->second.wall_s;
      }
      row.status = "done";
    } else {
      row.status = it->second.status;
      row.error = it->second.error;
      row.rank = it->second.rank;
      row.wall_s = it->second.wall_s;
    }
    if (row.status == "done") {
      row.file = (dir.filename() / file.filename()).string();
      row.figures = results::read_member_figures(file);
    } else {
      ++failed;
    }
    rows.push_back(std::move(row));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string command;
  for (const auto& s : o.overrides) command += " --set '" + s + "'";
  for (const auto& g : o.grid) command += " --grid '" + g + "'";
  if (!o.bands.empty()) command += " --band " + o.bands;
  results::write_sweep_index(out, rows,
                             {base.text, base.file.string(), command.empty() ? "" : command.substr(1),
                              place.ranks, wall, FLEETWATT_VERSION, FLEETWATT_GIT_COMMIT});
  heartbeat.stop();  // no line after the table
  if (!o.quiet) {
    std::cout << fmt::format("fleetwatt sweep: {} members ({} done, {} failed{}) on {} rank{} in {:.2f} s\n",
                             members.size(), members.size() - failed, failed,
                             resumed ? fmt::format(", {} from the interrupted run", resumed) : "",
                             place.ranks, place.ranks == 1 ? "" : "s", wall);
    std::cout << fmt::format("  {:<9}{:>7}{:>12}{:>10}{:>8}{:>8}{:>6}{:>9}  {}\n", "member", "status",
                             "energy MWh", "peak MW", "wait h", "job h", "rank", "wall s",
                             "overrides, seed, band");
    for (const auto& r : rows) {
      const auto& f = r.figures;
      std::cout << fmt::format("  {:<9}{:>7}{:>12}{:>10}{:>8}{:>8}{:>6}{:>9.2f}  {}\n", r.name, r.status,
                               figure(f.facility_energy_J / 3.6e9, 3), figure(f.peak_facility_W / 1e6, 3),
                               figure(f.wait_mean_s / 3600, 2), figure(f.jct_mean_s / 3600, 2), r.rank,
                               r.wall_s, members[static_cast<std::size_t>(r.member)].label());
    }
    std::cout << fmt::format("  {:<28}{}\n  {:<28}{}\n", "index", out.string(), "members", dir.string());
  }
  // Failed members are in the index with their errors; the status says some are missing.
  return failed ? 1 : 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run the Cartesian product of scenario variants (--grid, --band), each a whole run; serially, or over "
      "MPI ranks under mpirun; one index file with a table of every member");
  cmd->add_option("scenario", o->scenario, "Scenario TOML file")->required()->check(CLI::ExistingFile);
  cmd->add_option(
         "--grid", o->grid,
         "An axis of the sweep (repeatable): KEY=[v1, v2, ...] (TOML values or bare words), KEY=A..B "
         "(the integers A to B) or KEY=v; KEY is a scenario key as for --set, or seed (the run's "
         "--seed). Example: --grid 'scheduler.powercap.cap_w=[1.8e6,2.0e6]' --grid seed=1..32")
      ->type_name("KEY=VALUES")
      ->allow_extra_args(false);
  cmd->add_option("--band", o->bands,
                  "An axis of predictor bands: a comma-separated list of low, mid, high (as `fleetwatt run "
                  "--band`)");
  add_set_option(*cmd, o->overrides);
  add_max_output_option(*cmd, o->max_output);
  add_max_memory_option(*cmd, o->max_memory);
  cmd->add_option("-o,--output", o->output,
                  "The index file (HDF5); the members' result files go into the folder OUTPUT.members")
      ->required();
  cmd->add_flag("--resume", o->resume,
                "Finish an interrupted sweep: skip the members whose files are in OUTPUT.members (same "
                "scenario and flags); member files a killed sweep left half-written are removed");
  cmd->add_flag("-q,--quiet", o->quiet, "Print no table and no progress lines");
  cmd->footer(
      "Under mpirun (mpirun -np N fleetwatt sweep ...) rank 0 hands out members one at a time to whichever "
      "rank is free, and writes the index; OUTPUT must be on a file system every rank sees. The sweep holds "
      "OUTPUT.lock while it runs: a second sweep into the same OUTPUT is refused (exit 2). Exit status: 0 "
      "every member done, 1 some failed (see /sweep/members status and error), 2 bad input, 130 interrupted "
      "(run again with --resume).");
  cmd->callback([o, &action] {
    action = [o]() -> int {
#ifdef FLEETWATT_MPI
      if (launched_by_mpirun()) {
        MpiSession mpi;
        const MpiPlace place = mpi.place();
        Distribution d;
        d.place = place;
        d.distribute = [&](const std::vector<std::size_t>& todo, const RunMember& run,
                           const RecordOutcome& record) {
          return run_members_over_mpi(mpi, todo, run, record);
        };
        d.all_ranks = all_ranks;
        // Every rank checks the input alike; only rank 0 says what is wrong.
        int status = 0;
        if (place.rank == 0) {
          status = guarded([&] { return sweep(*o, d); });
        } else {
          try {
            status = sweep(*o, d);
          } catch (const std::exception&) {
            status = kExitBadInput;
          }
        }
        return status;
      }
#else
      if (launched_by_mpirun() && std::getenv("OMPI_COMM_WORLD_SIZE") &&
          std::string(std::getenv("OMPI_COMM_WORLD_SIZE")) != "1")
        throw core::ConfigError({}, "mpirun",
                                "this fleetwatt was built without MPI (install libopenmpi-dev and rebuild); "
                                "run the sweep without mpirun");
#endif
      Distribution d;
      d.distribute = [](const std::vector<std::size_t>& todo, const RunMember& run,
                        const RecordOutcome& record) {
        try {
          run_members_serially(todo, run, record);
        } catch (const sim::Interrupted&) {
          return false;
        }
        return true;
      };
      return sweep(*o, d);
    };
  });
}

}  // namespace fleetwatt::tools
