// How long jobs waited and took, gathered one job record at a time: a run's /summary (whose job table is
// streamed, so the jobs are never all in memory), a comparison's rows and a sweep's member table all read
// these two figures from here, so they are the same numbers.
#pragma once

#include <cstdint>

#include "fleetwatt/sim/fleet/job.hpp"

namespace fleetwatt::results {

class JobTimes {
 public:
  /// Counts one job: its wait (start - submit) if it is running or finished, its job time (end - submit)
  /// if it finished; both on the simulated clock (whole nanoseconds).
  void add(const sim::Job& job);

  [[nodiscard]] std::uint64_t started() const noexcept { return started_; }
  [[nodiscard]] std::uint64_t finished() const noexcept { return finished_; }
  /// Mean start - submit over the jobs that started; NaN when none did.
  [[nodiscard]] double wait_mean_s() const noexcept;
  /// Mean end - submit (job completion time) over the jobs that finished; NaN when none did.
  [[nodiscard]] double jct_mean_s() const noexcept;

 private:
  std::uint64_t started_ = 0, finished_ = 0;
  double wait_sum_s_ = 0.0, jct_sum_s_ = 0.0;
};

}  // namespace fleetwatt::results
