// Shortest predicted job first: queued jobs start in order of estimated run time, skipping those that
// cannot be placed.
#include <fmt/format.h>

#include <algorithm>

#include "fleetwatt/sim/policies/policies.hpp"
#include "policy_support.hpp"

namespace fleetwatt::sim {

void SjfScheduler::schedule(SchedulerContext& ctx) {
  auto q = queue_copy(ctx);
  std::stable_sort(q.begin(), q.end(), [&](JobIndex a, JobIndex b) {
    return estimated_runtime(ctx.job(a), source_) < estimated_runtime(ctx.job(b), source_);
  });
  for (JobIndex j : q)
    if (auto p = ctx.place(j)) ctx.start(j, std::move(*p));
}

EstimateSource estimate_source(const jobs::ParamSet& p) {
  const std::string s = p.get_string("estimate");
  if (s == "predictor") return EstimateSource::predictor;
  if (s == "user") return EstimateSource::user;
  throw jobs::ConfigError(p.where_of("estimate"), p.dotted("estimate"),
                          fmt::format("'{}' is not predictor or user", s));
}

const jobs::ParamSpec& estimate_param() {
  static const jobs::ParamSpec spec{
      "estimate",
      jobs::ParamType::string,
      std::string("predictor"),
      "",
      "",
      "run-time estimates: predictor, or user (the trace's user estimate; predictor where absent)",
      {}};
  return spec;
}

SchedulerEntry sjf_entry() {
  return {"sjf",
          "shortest predicted job first",
          {estimate_param()},
          [](const jobs::ParamSet& p, const sim::SchedulerConfig&) {
            return std::make_unique<SjfScheduler>(estimate_source(p));
          }};
}

}  // namespace fleetwatt::sim
