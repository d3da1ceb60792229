// The parts of the _fleetwatt extension, one function per file, called from module.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace fleetwatt::python {

/// ConfigError (bad input, with file, line, column and key) and the translation of the C++ errors.
void bind_errors(pybind11::module_& m);
/// Scenario, load_scenario.
void bind_scenario(pybind11::module_& m);
/// run_to_file, compare_csv, ResultFile (the C++ result reader).
void bind_results(pybind11::module_& m);
/// The scheduling context a Python policy sees, and runs with a Python policy.
void bind_policy(pybind11::module_& m);
/// predict_json: one job's prediction without a simulation.
void bind_predict(pybind11::module_& m);
/// serve_run: an LLM request trace played on replicas of a model.
void bind_serve(pybind11::module_& m);
/// The Gym-style loop.
void bind_env(pybind11::module_& m);

}  // namespace fleetwatt::python
