// Scenarios from Python: load_scenario(path, overrides) with the loader's own key checking, and the
// errors of the C++ side as typed Python exceptions: fleetwatt.ConfigError (bad input, with file, line,
// column, key as attributes), fleetwatt.ResultError (a result file not written or not readable) and
// fleetwatt.InterruptedError (Ctrl-C).
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <stdlib.h>  // on_exit (glibc)
#include <cstdlib>

#include "bindings.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/results/hdf5/hdf5_error.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/runs/scenario_override.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace py = pybind11;

namespace fleetwatt::python {

void bind_errors(py::module_& m) {
  // Python classes made here so that the translator can fill in their attributes; never released, as the
  // translator may run until the interpreter is gone.
  static const py::handle config_error = py::handle(PyErr_NewExceptionWithDoc(
      "fleetwatt.ConfigError",
      "Bad input (scenario key or value, CSV record, argument): .file, .line, .column (0: unknown), "
      ".key and .message; str() is 'file:line:column: key: message', as the command line prints it.",
      PyExc_ValueError, nullptr));
  static const py::handle result_error = py::handle(PyErr_NewExceptionWithDoc(
      "fleetwatt.ResultError",
      "A result file that cannot be written (a full disk: the message names the file and the system's "
      "reason; nothing is left) or read (missing, not an HDF5 file, damaged).",
      PyExc_OSError, nullptr));
  static const py::handle interrupted_error = py::handle(PyErr_NewExceptionWithDoc(
      "fleetwatt.InterruptedError",
      "A run stopped by Ctrl-C (a KeyboardInterrupt, so `except KeyboardInterrupt` catches it); no result "
      "file was written.",
      PyExc_KeyboardInterrupt, nullptr));
  // HDF5 prints its error stack on stderr unless told not to, per thread: this is the interpreter's main
  // thread, where its exit handler closes what a failed write left (results/src/hdf5/hdf5_commit.hpp).
  results::quiet_hdf5_errors();
  // Registered after HDF5's own exit handler (installed by the call above), so run before it, once the
  // interpreter has finished: a result file thrown away after a failed write cannot be closed. HDF5's
  // handler would print "infinite loop closing library" about it, or crash closing it (a failed direct
  // chunk write leaves its index half updated), so the process ends here with the interpreter's exit
  // status, as the command line does (glibc's on_exit hands the handler that status).
  on_exit(
      [](int status, void*) {
        if (results::hdf5_file_abandoned()) results::end_before_hdf5_exit_handler(status);
      },
      nullptr);
  m.attr("ConfigError") = py::reinterpret_borrow<py::object>(config_error);
  m.attr("ResultError") = py::reinterpret_borrow<py::object>(result_error);
  m.attr("InterruptedError") = py::reinterpret_borrow<py::object>(interrupted_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const core::InputError& e) {
      py::object err = config_error(e.what());
      err.attr("file") = e.where().file;
      err.attr("line") = e.where().line;
      err.attr("column") = e.where().column;
      err.attr("key") = e.field();
      err.attr("message") = e.message();
      PyErr_SetObject(config_error.ptr(), err.ptr());
    } catch (const sim::Interrupted&) {
      PyErr_SetString(interrupted_error.ptr(), "fleetwatt: run interrupted; no result file was written");
    } catch (const results::ResultFileError& e) {
      PyErr_SetString(result_error.ptr(), e.what());
    } catch (const std::exception&) {
      throw;  // pybind11's own translation: MemoryError, ValueError, RuntimeError, ...
    } catch (...) {
      // Not a std::exception: HDF5's own (a write or read failure), else a bug. Never "unknown exception".
      if (const auto h5 = results::hdf5_error_text(std::current_exception()))
        PyErr_SetString(result_error.ptr(), h5->c_str());
      else
        PyErr_SetString(PyExc_RuntimeError,
                        "fleetwatt: internal error: an unexpected exception; please report it");
    }
  });
}

void bind_scenario(py::module_& m) {
  py::class_<runs::Scenario>(m, "Scenario",
                             "A scenario as the loader read it (fleetwatt.load_scenario builds one)")
      .def_property_readonly("file", [](const runs::Scenario& s) { return s.file.string(); })
      .def_property_readonly(
          "text", [](const runs::Scenario& s) { return s.text; },
          "The TOML text (with overrides, the overridden document)")
      .def_property_readonly("seed", [](const runs::Scenario& s) { return s.seed; })
      .def_property_readonly(
          "scheduler", [](const runs::Scenario& s) { return s.scheduler.policy; },
          "The [scheduler] policy's name")
      .def_property_readonly("horizon_s", [](const runs::Scenario& s) { return s.workload.horizon_s; })
      .def_property_readonly("output_path", [](const runs::Scenario& s) { return s.output.path.string(); })
      .def(
          "take_warnings", [](const runs::Scenario& s) { return s.warnings->take_new(); },
          "Warnings about the scenario not returned before (the command line prints them on stderr)")
      .def("__repr__", [](const runs::Scenario& s) {
        return "<fleetwatt.Scenario " + s.file.string() + ", scheduler " + s.scheduler.policy + ">";
      });
  m.def(
      "load_scenario",
      [](const std::filesystem::path& file, const std::vector<std::pair<std::string, std::string>>& set) {
        // The command line's --set mechanism (runs/scenario_override.hpp): "key=value" assignments,
        // whose errors name this function instead of the command line's flag.
        std::vector<std::string> overrides;
        for (const auto& [k, v] : set) {
          runs::check_override_key(k, "load_scenario");
          overrides.push_back(k + "=" + v);
        }
        return runs::load_scenario(file, overrides, "load_scenario");
      },
      py::arg("file"), py::arg("overrides") = std::vector<std::pair<std::string, std::string>>{},
      "Loads a scenario; overrides are (dotted key, TOML value text) pairs");
}

}  // namespace fleetwatt::python
