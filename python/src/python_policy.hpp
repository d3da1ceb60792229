// The trampoline between the engine and a policy written in Python: a sim::Scheduler whose schedule()
// hands the pass's context to the Python object's schedule(ctx), under the GIL. The context object
// (PolicyContext) wraps the engine's SchedulerContext for that one call and refuses use after it.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/policies/scheduler.hpp"

namespace fleetwatt::python {

/// What a Python policy sees during one scheduling pass (bound as fleetwatt's SchedulerContext).
class PolicyContext {
 public:
  PolicyContext(sim::SchedulerContext& ctx, const sim::Engine* engine) : ctx_(&ctx), engine_(engine) {}
  /// The engine's context; throws once the pass is over.
  [[nodiscard]] sim::SchedulerContext& ctx() const;
  /// The engine (fleet layout, grid signals); throws once the pass is over.
  [[nodiscard]] const sim::Engine& engine() const;
  /// Ends the context's life (the pass returned).
  void close() { ctx_ = nullptr; }

 private:
  sim::SchedulerContext* ctx_;
  const sim::Engine* engine_;
};

/// A sim::Scheduler that calls `policy.schedule(ctx)`, and `policy.metrics()` when it has one.
class PythonPolicy final : public sim::Scheduler {
 public:
  explicit PythonPolicy(pybind11::object policy);
  ~PythonPolicy() override;
  [[nodiscard]] std::string_view name() const override { return name_; }
  void schedule(sim::SchedulerContext& ctx) override;
  [[nodiscard]] std::vector<std::pair<std::string, double>> metrics() const override;
  /// The engine the policy runs in (set before the run: the context shows its layout and grid signals).
  void set_engine(const sim::Engine* engine) { engine_ = engine; }

 private:
  pybind11::object policy_;
  pybind11::object schedule_;  ///< the bound method, looked up once
  std::string name_;
  const sim::Engine* engine_ = nullptr;
};

}  // namespace fleetwatt::python
