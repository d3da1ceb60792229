// Names of job states for tables and messages.
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

}  // namespace fleetwatt::sim
