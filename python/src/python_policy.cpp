// The Python policy trampoline (see python_policy.hpp).
#include "python_policy.hpp"

#include "fleetwatt/core/assert.hpp"

#include <stdexcept>

namespace py = pybind11;

namespace fleetwatt::python {

sim::SchedulerContext& PolicyContext::ctx() const {
  FLEETWATT_ASSERT(ctx_, "a scheduling context is only valid during the schedule() call it was given to");
  return *ctx_;
}

const sim::Engine& PolicyContext::engine() const {
  FLEETWATT_ASSERT(ctx_ && engine_,
                   "a scheduling context is only valid during the schedule() call it was given to");
  return *engine_;
}

PythonPolicy::PythonPolicy(py::object policy) : policy_(std::move(policy)) {
  schedule_ = policy_.attr("schedule");
  name_ = py::str(policy_.attr("name"));
}

PythonPolicy::~PythonPolicy() {
  // The engine may be destroyed on a thread that does not hold the GIL.
  py::gil_scoped_acquire acquire;
  schedule_ = py::object();
  policy_ = py::object();
}

void PythonPolicy::schedule(sim::SchedulerContext& ctx) {
  py::gil_scoped_acquire acquire;
  auto* context = new PolicyContext(ctx, engine_);
  py::object wrapped = py::cast(context, py::return_value_policy::take_ownership);
  try {
    schedule_(wrapped);
  } catch (...) {
    context->close();
    throw;
  }
  context->close();  // a policy that kept it gets an error, not a dangling engine
}

std::vector<std::pair<std::string, double>> PythonPolicy::metrics() const {
  py::gil_scoped_acquire acquire;
  if (!py::hasattr(policy_, "metrics")) return {};
  std::vector<std::pair<std::string, double>> out;
  for (auto item : policy_.attr("metrics")().cast<py::dict>())
    out.emplace_back(py::str(item.first), item.second.cast<double>());
  return out;
}

}  // namespace fleetwatt::python
