// The Gym-style loop's binding: GymRun (gym_env.hpp) with the GIL released while the engine moves to the
// next decision point. fleetwatt.Env (python/fleetwatt/_env.py) adds rewards and the Gym conventions.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "gym_env.hpp"

namespace py = pybind11;

namespace fleetwatt::python {

namespace {

py::dict as_dict(const EnvState& s) {
  py::array_t<double> obs(static_cast<py::ssize_t>(s.observation.size()));
  std::copy(s.observation.begin(), s.observation.end(), obs.mutable_data());
  return py::dict(py::arg("observation") = obs, py::arg("now_s") = s.now_s,
                  py::arg("it_energy_J") = s.it_energy_J, py::arg("jobs_finished") = s.jobs_finished,
                  py::arg("queued") = s.queued, py::arg("started") = s.started, py::arg("done") = s.done);
}

}  // namespace

void bind_env(py::module_& m) {
  py::class_<GymRun>(m, "GymRun", "One episode of the Gym-style loop (use fleetwatt.Env)")
      .def(py::init<runs::Scenario, std::optional<std::uint64_t>, std::filesystem::path, std::uint32_t>(),
           py::arg("scenario"), py::arg("seed"), py::arg("output"), py::arg("slots"))
      .def("start",
           [](GymRun& r) {
             EnvState s;
             {
               py::gil_scoped_release release;
               s = r.start();
             }
             return as_dict(s);
           })
      .def(
          "step",
          [](GymRun& r, std::uint32_t action) {
            EnvState s;
            {
              py::gil_scoped_release release;
              s = r.step(action);
            }
            return as_dict(s);
          },
          py::arg("action"))
      .def_property_readonly("observation_size", &GymRun::observation_size)
      .def_readonly_static("max_slots", &GymRun::kMaxSlots, "The most queue slots an observation shows")
      .def_property_readonly("summary_text", &GymRun::summary_text)
      .def("close", &GymRun::close, py::call_guard<py::gil_scoped_release>(),
           "Stops the episode's run if it is still going (no result file) and joins its thread");
}

}  // namespace fleetwatt::python
