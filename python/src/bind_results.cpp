// Runs into result files and reading them back through the C++ result reader (fleetwatt.run, open and
// compare build their DataFrames on these).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <sstream>
#include <thread>

#include "bindings.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/results/metrics/summary_report.hpp"
#include "fleetwatt/runs/output_path.hpp"
#include "fleetwatt/runs/policy_comparison.hpp"
#include "fleetwatt/runs/run_to_file.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"
#include "python_policy.hpp"
#include "run_interruptibly.hpp"
#include "version.hpp"

namespace py = pybind11;

namespace fleetwatt::python {

namespace {

template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* owner = new std::vector<T>(std::move(v));
  py::capsule free_it(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owner->size()), owner->data(), free_it);
}

// `fleetwatt run`'s summary text (as printed), from a finished run.
std::string summary_text(const runs::RunOutcome& done) {
  return results::format_summary(done.summary, done.grid, done.clock, done.quality);
}

}  // namespace

void bind_results(py::module_& m) {
  m.def(
      "run_to_file",
      [](const runs::Scenario& scenario, std::optional<std::uint64_t> seed,
         const std::filesystem::path& out) {
        std::string text;
        // Before anything is simulated, as the command line checks -o: a path that cannot be written or
        // that the run reads (the scenario itself, its jobs or trace) is refused.
        runs::check_output_path(out, {"run", 0, 0}, "output", runs::scenario_inputs(scenario));
        runs::PreparedRun r;
        // Prepared on the worker too: drawing and matching a large workload takes seconds, and Ctrl-C
        // reaches it through the same flag as the run.
        run_interruptibly([&](const std::atomic<bool>& stop) {
          r = runs::prepare_run(scenario, {seed, std::nullopt}, {&stop});
          runs::RunToFileOptions o;
          o.stop = &stop;
          o.version = FLEETWATT_VERSION;
          o.git_commit = FLEETWATT_GIT_COMMIT;
          text = summary_text(runs::run_to_file(r, out, std::move(o)));
        });
        return text;
      },
      py::arg("scenario"), py::arg("seed"), py::arg("output"),
      "Runs the scenario (with its own policy) into a result file, as `fleetwatt run -o`; returns the "
      "printed summary");

  m.def(
      "compare_csv",
      [](const runs::Scenario& scenario, const py::list& policies, std::optional<std::uint64_t> seed,
         unsigned threads) {
        // Built-in policies by name run as `fleetwatt compare` runs them (in parallel); Python policies
        // (objects with schedule(ctx)) run one after the other, as each needs the GIL at every scheduling
        // pass.
        std::vector<std::string> names;
        std::vector<std::unique_ptr<PythonPolicy>> objects(policies.size());
        for (std::size_t i = 0; i < policies.size(); ++i) {
          const py::handle p = policies[i];
          if (py::isinstance<py::str>(p)) {
            const auto name = p.cast<std::string>();
            bool known = false;
            for (const auto& e : sim::scheduler_entries()) known = known || e.name == name;
            if (!known) throw jobs::ConfigError({}, "policies", "unknown policy '" + name + "'");
            names.push_back(name);
          } else {
            if (!py::hasattr(p, "schedule"))
              throw py::type_error(
                  "policies: each must be a built-in policy's name or a fleetwatt.Scheduler");
            objects[i] = std::make_unique<PythonPolicy>(py::reinterpret_borrow<py::object>(p));
          }
        }
        std::ostringstream csv;
        run_interruptibly([&](const std::atomic<bool>& stop) {
          // As `fleetwatt compare`: one prepared workload, no node series, each policy built first.
          runs::PreparedRun r = runs::prepare_run(scenario, {seed, std::nullopt}, {&stop});
          for (const auto& p : names) (void)sim::make_scheduler(sim::with_policy(r.scenario.scheduler, p));
          r.setup.node_interval =
              sim::Duration::from_seconds(std::max(3600.0, r.scenario.workload.horizon_s));
          const unsigned n = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
          std::vector<results::ComparisonRow> built = runs::compare_policies(r, names, n, &stop);
          std::vector<results::ComparisonRow> rows;
          for (std::size_t i = 0, b = 0; i < objects.size(); ++i) {
            if (!objects[i]) {
              rows.push_back(std::move(built[b++]));
              continue;
            }
            PythonPolicy* adapter = objects[i].get();
            const std::string name(adapter->name());
            rows.push_back(runs::run_policy(
                r, name, std::move(objects[i]), [adapter](sim::Engine& e) { adapter->set_engine(&e); },
                &stop));
          }
          results::write_comparison_csv(csv, rows);
        });
        return csv.str();
      },
      py::arg("scenario"), py::arg("policies"), py::arg("seed") = std::nullopt, py::arg("threads") = 0,
      "The `fleetwatt compare --csv` table of the policies (built-in names or Python policies) on the "
      "scenario's workload");

  using results::ResultReader;
  py::class_<ResultReader>(m, "ResultFile", "A fleetwatt result file, read through the C++ result reader")
      .def(py::init<const std::filesystem::path&>(), py::arg("path"))
      .def("has", &ResultReader::has)
      .def("datasets", &ResultReader::datasets)
      .def("length", &ResultReader::length, "Values of a 1-D dataset; 0 for a scalar")
      .def("kind",
           [](const ResultReader& r, const std::string& path) {
             switch (r.kind(path)) {
               case ResultReader::Kind::text:
                 return "text";
               case ResultReader::Kind::integer:
                 return "integer";
               case ResultReader::Kind::real:
                 break;
             }
             return "real";
           })
      .def("doubles",
           [](const ResultReader& r, const std::string& path) { return to_numpy(r.doubles(path)); })
      .def("integers",
           [](const ResultReader& r, const std::string& path) { return to_numpy(r.integers(path)); })
      .def("strings", &ResultReader::strings)
      .def("matrix",
           [](const ResultReader& r, const std::string& path) {
             results::Matrix mx = r.matrix(path);
             const auto rows = static_cast<py::ssize_t>(mx.rows), cols = static_cast<py::ssize_t>(mx.cols);
             return to_numpy(std::move(mx.values)).reshape({rows, cols});
           })
      .def("has_attribute", &ResultReader::has_attribute)
      .def("string_attribute", &ResultReader::string_attribute)
      .def("integer_attribute", &ResultReader::integer_attribute)
      .def("double_attribute", &ResultReader::double_attribute);
}

}  // namespace fleetwatt::python
