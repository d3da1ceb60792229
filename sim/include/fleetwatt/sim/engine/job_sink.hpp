// Where finished jobs go when a run streams its job table (results/ writes them to /jobs in blocks): the
// engine hands each job over once, in job order, when it and every job before it have finished, and then
// drops it, so a long run holds its running and queued jobs, not every job of its horizon.
#pragma once

#include "fleetwatt/sim/fleet/job.hpp"

namespace fleetwatt::sim {

class JobSink {
 public:
  virtual ~JobSink() = default;
  /// Job `index` (its row in the job table) is finished and is about to be dropped; `job` is valid only
  /// during the call.
  virtual void job_done(JobIndex index, const Job& job) = 0;
};

}  // namespace fleetwatt::sim
