// Policies in Python: the scheduling context (queue, jobs with their predicted run times, phases, power and
// deadlines, free GPUs per node and group, facility power, grid signals at ctx.now, and the actions the C++
// policies use) and runs with a Python policy (fleetwatt.run(scenario, scheduler=...)).
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>

#include "bindings.hpp"
#include "fleetwatt/core/time.hpp"
#include "fleetwatt/results/metrics/summary_report.hpp"
#include "fleetwatt/runs/output_path.hpp"
#include "fleetwatt/runs/run_to_file.hpp"
#include "fleetwatt/sim/policies/policies.hpp"
#include "python_policy.hpp"
#include "run_interruptibly.hpp"
#include "version.hpp"

namespace py = pybind11;

namespace fleetwatt::python {

namespace {

// A job of the running engine, seen through a scheduling context (valid while that pass lasts). Views hold
// the context's Python object, so a view kept past its pass raises instead of reading freed memory.
struct JobView {
  py::object owner;
  const PolicyContext* context;
  sim::JobIndex index;
  [[nodiscard]] const sim::Job& job() const { return context->ctx().job(index); }
};

// The queue or the running jobs of a pass, read afresh at every access (starting a job changes the queue).
struct IndexView {
  py::object owner;
  const PolicyContext* context;
  bool running;
  [[nodiscard]] std::span<const sim::JobIndex> span() const {
    return running ? context->ctx().running() : context->ctx().queue();
  }
};

std::optional<double> seconds_or_none(sim::Time t, bool set) {
  return set ? std::optional<double>(t.seconds()) : std::nullopt;
}

const char* phase_name(sim::JobPhase p) {
  switch (p) {
    case sim::JobPhase::peak:
      return "peak";
    case sim::JobPhase::valley:
      return "valley";
    case sim::JobPhase::startup:
      return "startup";
    case sim::JobPhase::restart:
      return "restart";
    case sim::JobPhase::none:
      break;
  }
  return "none";
}

std::optional<double> signal_at(const std::shared_ptr<const sim::GridSignal>& s, sim::Time now) {
  if (!s) return std::nullopt;
  return s->at(now.seconds());
}

// A numeric argument of the context's actions: NaN or inf (or a negative power) would reach the power ledger
// and the result file, or be taken silently as "no cap".
double checked(double v, const char* name, double lo, double hi) {
  if (!std::isfinite(v) || v < lo || v > hi)
    throw py::value_error(fmt::format("{}={} is not a finite number in [{:g}, {:g}]", name, v, lo, hi));
  return v;
}
constexpr double kMaxPower_W = 1e9;  // per GPU or per node: any finite power a policy means is below it

// Indices named by a policy: out of range they would read past the engine's tables.
sim::JobIndex checked_job(const PolicyContext& c, sim::JobIndex j) {
  if (!c.engine().holds(j)) throw py::index_error(fmt::format("index={} is not a job of this run", j));
  return j;
}
sim::NodeIndex checked_node(const PolicyContext& c, sim::NodeIndex n) {
  if (n >= c.ctx().cluster().nodes())
    throw py::index_error(
        fmt::format("node={} is not a node of this fleet (0..{})", n, c.ctx().cluster().nodes() - 1));
  return n;
}

void bind_job_view(py::module_& m) {
  using J = JobView;
  py::class_<J>(m, "Job", "A job as a policy sees it during one scheduling pass (SI units)")
      .def_property_readonly(
          "index", [](const J& v) { return v.index; }, "Its index in the run (ctx.job(index))")
      .def_property_readonly("id", [](const J& v) { return v.job().spec.id; })
      .def_property_readonly("job_class", [](const J& v) { return v.job().spec.job_class; })
      .def_property_readonly("n_gpus", [](const J& v) { return v.job().spec.n_gpus; })
      .def_property_readonly("epochs", [](const J& v) { return v.job().spec.epochs; })
      .def_property_readonly("epochs_done", [](const J& v) { return v.job().epochs_done; })
      .def_property_readonly("state", [](const J& v) { return std::string(sim::to_string(v.job().state)); })
      .def_property_readonly("phase", [](const J& v) { return phase_name(v.job().phase); })
      .def_property_readonly("submit_s", [](const J& v) { return v.job().spec.submit_s; })
      .def_property_readonly("start_s",
                             [](const J& v) {
                               const auto& j = v.job();
                               return seconds_or_none(j.start, j.state == sim::JobState::running ||
                                                                   j.state == sim::JobState::finished);
                             })
      .def_property_readonly(
          "predicted_runtime_s", [](const J& v) { return v.job().predicted_runtime().seconds(); },
          "epochs x (peak + valley) on an idle fleet")
      .def_property_readonly(
          "expected_runtime_s", [](const J& v) { return v.job().expected_runtime().seconds(); },
          "min(predicted run time, limit_s)")
      .def_property_readonly(
          "estimated_runtime_s",
          [](const J& v) {
            return sim::estimated_runtime(v.job(), sim::EstimateSource::predictor).seconds();
          },
          "The run time the C++ policies assume (a capped job's phases stretched)")
      .def_property_readonly(
          "peak_w", [](const J& v) { return v.job().peak_W(); }, "Per GPU")
      .def_property_readonly("peak_s", [](const J& v) { return v.job().epoch.peak.seconds(); })
      .def_property_readonly(
          "valley_w", [](const J& v) { return v.job().valley_W(); }, "Per GPU")
      .def_property_readonly("valley_s", [](const J& v) { return v.job().epoch.valley.seconds(); })
      .def_property_readonly("deferrable", [](const J& v) { return v.job().spec.deferrable; })
      .def_property_readonly("deadline_s", [](const J& v) { return v.job().spec.deadline_s; })
      .def_property_readonly("limit_s", [](const J& v) { return v.job().spec.limit_s; })
      .def_property_readonly("user_estimate_s", [](const J& v) { return v.job().spec.user_estimate_s; })
      .def_property_readonly(
          "power_cap_w", [](const J& v) { return v.job().controls.power_cap_W; }, "0: none")
      .def_property_readonly("paused", [](const J& v) { return v.job().controls.paused; })
      .def_property_readonly(
          "gpus", [](const J& v) { return v.job().gpus; }, "Its GPUs (running)")
      .def_property_readonly("group",
                             [](const J& v) {
                               const auto g = v.job().gpu_type.group;
                               return g == sim::kNoGroup ? std::optional<std::uint32_t>()
                                                         : std::optional<std::uint32_t>(g);
                             })
      .def_property_readonly(
          "gpu", [](const J& v) { return v.job().gpu_type.preset; }, "GPU preset it runs on")
      .def_property_readonly("gpu_idle_w", [](const J& v) { return v.job().gpu_type.idle_W; })
      .def_property_readonly("gpu_tdp_w", [](const J& v) { return v.job().gpu_type.tdp_W; })
      .def_property_readonly(
          "queued_peak_w", [](const J& v) { return v.job().queued_peak_W; },
          "Several GPU types, queued: the highest per-GPU phase power over the types (0: "
          "use peak_w)")
      .def_property_readonly("queued_idle_w", [](const J& v) { return v.job().queued_idle_W; })
      .def_property_readonly(
          "drawn_w", [](const J& v) { return v.job().drawn_W; }, "Per GPU, now")
      .def_property_readonly("energy_j", [](const J& v) { return v.job().energy_J; })
      .def("__repr__", [](const J& v) {
        const auto& j = v.job();
        return "<fleetwatt.Job " + std::to_string(j.spec.id) + " " + sim::to_string(j.state) + ", " +
               std::to_string(j.spec.n_gpus) + " GPUs>";
      });
}

void bind_context(py::module_& m) {
  py::class_<IndexView>(m, "JobIndices", "Job indices of the queue (arrival order) or the running jobs")
      .def("__len__", [](const IndexView& v) { return v.span().size(); })
      .def("__bool__", [](const IndexView& v) { return !v.span().empty(); })
      .def("__getitem__",
           [](const IndexView& v, py::ssize_t i) {
             const auto s = v.span();
             const auto n = static_cast<py::ssize_t>(s.size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("job index out of range");
             return s[static_cast<std::size_t>(i)];
           })
      .def("__iter__",
           [](const IndexView& v) {
             // A copy: a policy may start jobs while it walks the queue.
             const auto s = v.span();
             return py::iter(py::cast(std::vector<sim::JobIndex>(s.begin(), s.end())));
           })
      .def("tolist", [](const IndexView& v) {
        const auto s = v.span();
        return std::vector<sim::JobIndex>(s.begin(), s.end());
      });

  py::class_<sim::FleetPower>(m, "FleetPower", "Power figures of the fleet for power-aware policies (W)")
      .def_readonly("gpu_idle_w", &sim::FleetPower::gpu_idle_W)
      .def_readonly("gpu_tdp_w", &sim::FleetPower::gpu_tdp_W)
      .def_readonly("node_base_w", &sim::FleetPower::node_base_W)
      .def_readonly("pue", &sim::FleetPower::pue)
      .def_readonly("idle_it_w", &sim::FleetPower::idle_it_W,
                    "Several node groups: the fleet's idle IT power; None: nodes x node_base_w + GPUs x "
                    "gpu_idle_w")
      .def_readonly("network_w", &sim::FleetPower::network_W);

  using C = PolicyContext;
  py::class_<C>(m, "SchedulerContext", "What a policy sees and may do during one scheduling pass")
      .def_property_readonly(
          "now", [](const C& c) { return c.ctx().now().seconds(); }, "Simulated time, s")
      .def_property_readonly("now_ns", [](const C& c) { return c.ctx().now().ns(); })
      .def_property_readonly(
          "queue",
          [](py::object self) {
            return IndexView{self, &self.cast<const C&>(), false};
          },
          "Queued jobs' indices in arrival order")
      .def_property_readonly(
          "running",
          [](py::object self) {
            return IndexView{self, &self.cast<const C&>(), true};
          },
          "Running jobs' indices (paused ones included) in start order")
      .def(
          "job",
          [](py::object self, sim::JobIndex j) {
            const C& c = self.cast<const C&>();
            if (!c.engine().holds(j)) throw py::index_error("no job " + std::to_string(j));
            return JobView{self, &c, j};
          },
          py::arg("index"))
      .def(
          "place", [](const C& c, sim::JobIndex j) { return c.ctx().place(checked_job(c, j)); },
          py::arg("index"), "GPUs the configured placement would give the job now, or None")
      .def(
          "start",
          [](C& c, sim::JobIndex j, sim::Placement gpus) {
            c.ctx().start(checked_job(c, j), std::move(gpus));
          },
          py::arg("index"), py::arg("gpus"), "Starts a queued job on these free GPUs")
      .def(
          "wake_at",
          [](C& c, double t_s) {
            // A pass asked for at the current instant would ask again, and simulated time would never move.
            const sim::Time now = c.ctx().now();
            if (std::isfinite(t_s) && std::fabs(t_s) > core::kMaxInputSeconds)
              throw py::value_error(fmt::format("wake_at({}): t_s is beyond the simulated clock (+-{:g} s)",
                                                t_s, core::kMaxInputSeconds));
            if (!std::isfinite(t_s) || sim::Time::from_seconds(t_s) <= now)
              throw py::value_error(fmt::format(
                  "wake_at({}) must be a time later than ctx.now ({} s): a pass asked for now would repeat "
                  "forever",
                  t_s, now.seconds()));
            c.ctx().wake_at(sim::Time::from_seconds(t_s));
          },
          py::arg("t_s"), "Asks for another scheduling pass at simulated time t_s (later than ctx.now)")
      .def_property_readonly("fleet_power", [](const C& c) { return c.ctx().fleet_power(); })
      .def_property_readonly(
          "facility_power_w", [](const C& c) { return c.ctx().facility_power_W(); },
          "Facility power drawn right now")
      .def(
          "pause", [](C& c, sim::JobIndex j) { c.ctx().pause(checked_job(c, j)); }, py::arg("index"))
      .def(
          "resume", [](C& c, sim::JobIndex j) { c.ctx().resume(checked_job(c, j)); }, py::arg("index"))
      .def(
          "set_power_cap",
          [](C& c, sim::JobIndex j, double cap_w) {
            c.ctx().set_power_cap(checked_job(c, j), checked(cap_w, "cap_w", 0.0, kMaxPower_W));
          },
          py::arg("index"), py::arg("cap_w"), "Per-GPU cap of a job, W (0: none)")
      .def(
          "node_power",
          [](const C& c, sim::NodeIndex n) {
            switch (c.ctx().node_power(checked_node(c, n))) {
              case sim::NodePower::sleeping:
                return "sleeping";
              case sim::NodePower::waking:
                return "waking";
              case sim::NodePower::on:
                break;
            }
            return "on";
          },
          py::arg("node"))
      .def(
          "sleep_node",
          [](C& c, sim::NodeIndex n, double sleep_w) {
            c.ctx().sleep_node(checked_node(c, n), checked(sleep_w, "sleep_w", 0.0, kMaxPower_W));
          },
          py::arg("node"), py::arg("sleep_w"))
      .def(
          "wake_node",
          [](C& c, sim::NodeIndex n, double latency_s, double wake_energy_j) {
            c.ctx().wake_node(
                checked_node(c, n),
                sim::Duration::from_seconds(checked(latency_s, "latency_s", 0.0, core::kMaxInputSeconds)),
                checked(wake_energy_j, "wake_energy_j", 0.0, kMaxPower_W * core::kMaxInputSeconds));
          },
          py::arg("node"), py::arg("latency_s"), py::arg("wake_energy_j"))
      .def_property_readonly("nodes", [](const C& c) { return c.ctx().cluster().nodes(); })
      .def_property_readonly("gpus", [](const C& c) { return c.ctx().cluster().gpus(); })
      .def_property_readonly("free_gpus", [](const C& c) { return c.ctx().cluster().free_gpus(); })
      .def(
          "free_gpus_on",
          [](const C& c, sim::NodeIndex n) { return c.ctx().cluster().free_gpus(checked_node(c, n)); },
          py::arg("node"))
      .def(
          "node_of",
          [](const C& c, sim::GpuIndex g) {
            if (g >= c.ctx().cluster().gpus())
              throw py::index_error(fmt::format("gpu={} is not a GPU of this fleet", g));
            return c.ctx().cluster().node_of(g);
          },
          py::arg("gpu"))
      .def("free_gpus_per_node",
           [](const C& c) {
             const auto& cl = c.ctx().cluster();
             py::array_t<std::uint32_t> out(cl.nodes());
             auto w = out.mutable_unchecked<1>();
             for (sim::NodeIndex n = 0; n < cl.nodes(); ++n) w(n) = cl.free_gpus(n);
             return out;
           })
      .def("free_gpus_per_group",
           [](const C& c) {
             // Node groups in layout order ([[fleet.group]]; one group for a uniform fleet).
             const auto& layout = c.engine().layout();
             const auto& cl = c.ctx().cluster();
             std::vector<std::uint32_t> free(layout.groups().size(), 0);
             for (sim::NodeIndex n = 0; n < cl.nodes(); ++n) free[layout.group_of_node(n)] += cl.free_gpus(n);
             return free;
           })
      .def_property_readonly(
          "groups",
          [](const C& c) {
            std::vector<py::dict> out;
            for (const auto& g : c.engine().layout().groups())
              out.push_back(py::dict(py::arg("name") = g.name, py::arg("nodes") = g.nodes,
                                     py::arg("gpus_per_node") = g.gpus_per_node, py::arg("gpu") = g.gpu.id,
                                     py::arg("node_base_w") = g.node_base_W));
            return out;
          })
      .def_property_readonly(
          "carbon_intensity",
          [](const C& c) { return signal_at(c.engine().setup().carbon_signal, c.ctx().now()); },
          "[grid.carbon] at ctx.now (g/kWh), or None without one")
      .def_property_readonly(
          "price", [](const C& c) { return signal_at(c.engine().setup().price_signal, c.ctx().now()); },
          "[grid.price] at ctx.now (currency/MWh), or None without one")
      .def(
          "carbon_signal",
          [](const C& c) -> std::optional<std::pair<std::vector<double>, std::vector<double>>> {
            const auto& s = c.engine().setup().carbon_signal;
            if (!s) return std::nullopt;
            return std::make_pair(s->times(), s->values());
          },
          "The [grid.carbon] samples (times s, values g/kWh), or None")
      .def(
          "predicted_peak_facility_w",
          [](const C& c, double extra_cap_w) {
            return sim::predicted_peak_facility_W(c.ctx(),
                                                  checked(extra_cap_w, "extra_cap_w", 0.0, kMaxPower_W));
          },
          py::arg("extra_cap_w") = 0.0,
          "Facility power with every running, unpaused job at its peak (the C++ policies' estimate)")
      .def(
          "peak_increment_per_gpu_w",
          [](const C& c, sim::JobIndex j, double gpu_idle_w, double extra_cap_w) {
            return sim::peak_increment_per_gpu_W(c.ctx().job(checked_job(c, j)),
                                                 checked(gpu_idle_w, "gpu_idle_w", 0.0, kMaxPower_W),
                                                 checked(extra_cap_w, "extra_cap_w", 0.0, kMaxPower_W));
          },
          py::arg("index"), py::arg("gpu_idle_w"), py::arg("extra_cap_w") = 0.0,
          "A job's increment over idle at its peak, per GPU (the C++ policies' estimate)");
}

}  // namespace

void bind_policy(py::module_& m) {
  bind_job_view(m);
  bind_context(m);
  m.def(
      "run_policy_to_file",
      [](const runs::Scenario& scenario, py::object policy, std::optional<std::uint64_t> seed,
         const std::filesystem::path& out) {
        std::string text;
        // Before anything is simulated, as the command line checks -o: a path that cannot be written or
        // that the run reads (the scenario itself, its jobs or trace) is refused.
        runs::check_output_path(out, {"run", 0, 0}, "output", runs::scenario_inputs(scenario));
        runs::PreparedRun r;
        auto owned = std::make_unique<PythonPolicy>(std::move(policy));
        PythonPolicy* adapter = owned.get();
        // Prepared on the worker, as fleetwatt.run does: Ctrl-C reaches the drawing of the workload too.
        run_interruptibly([&](const std::atomic<bool>& stop) {
          r = runs::prepare_run(scenario, {seed, std::nullopt}, {&stop});
          runs::RunToFileOptions o;
          o.stop = &stop;
          o.version = FLEETWATT_VERSION;
          o.git_commit = FLEETWATT_GIT_COMMIT;
          o.scheduler = std::move(owned);
          o.before_run = [adapter](sim::Engine& e) { adapter->set_engine(&e); };
          const auto done = runs::run_to_file(r, out, std::move(o));
          text = results::format_summary(done.summary, done.grid, done.clock, done.quality);
        });
        return text;
      },
      py::arg("scenario"), py::arg("policy"), py::arg("seed"), py::arg("output"),
      "Runs the scenario with a Python policy (an object with name and schedule(ctx)) into a result file");
}

}  // namespace fleetwatt::python
