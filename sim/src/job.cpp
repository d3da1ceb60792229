// Names of job states for tables and messages; a plan's peak parts.
#include "fleetwatt/sim/job.hpp"

namespace fleetwatt::sim {

const char* to_string(JobState s) noexcept {
  switch (s) {
    case JobState::pending:
      return "pending";
    case JobState::queued:
      return "queued";
    case JobState::running:
      return "running";
    case JobState::finished:
      return "finished";
  }
  return "?";
}

PeakSplit PeakSplit::of(const workloads::EpochPlan& plan) noexcept {
  using workloads::PartKind;
  PeakSplit s;
  s.compute_s = plan[PartKind::compute].s, s.compute_W = plan[PartKind::compute].W;
  s.comm_s = plan[PartKind::comm].s, s.comm_W = plan[PartKind::comm].W;
  s.io_s = plan[PartKind::io].s, s.io_W = plan[PartKind::io].W;
  s.bubble_s = plan.bubble.s, s.bubble_W = plan.bubble.W;
  s.comm_by_group = plan.comm_by_group;
  return s;
}

}  // namespace fleetwatt::sim
