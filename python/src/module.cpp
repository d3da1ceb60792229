// The _fleetwatt extension module: the C++ engine, scenario loader and result reader for the fleetwatt
// Python package (python/fleetwatt/__init__.py wraps it with pandas).
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "version.hpp"

PYBIND11_MODULE(_fleetwatt, m) {
  m.doc() = "fleetwatt's C++ engine; use the fleetwatt package, which wraps it";
  m.attr("__version__") = FLEETWATT_VERSION;
  m.attr("git_commit") = FLEETWATT_GIT_COMMIT;
  fleetwatt::python::bind_errors(m);
  fleetwatt::python::bind_scenario(m);
  fleetwatt::python::bind_results(m);
  fleetwatt::python::bind_policy(m);
  fleetwatt::python::bind_predict(m);
  fleetwatt::python::bind_serve(m);
  fleetwatt::python::bind_env(m);
}
