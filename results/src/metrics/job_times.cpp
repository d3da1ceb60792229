// Job waits and completion times (job_times.hpp).
#include "fleetwatt/results/metrics/job_times.hpp"

#include <limits>

namespace fleetwatt::results {

void JobTimes::add(const sim::Job& job) {
  const bool finished = job.state == sim::JobState::finished;
  if (finished || job.state == sim::JobState::running) {
    ++started_;
    wait_sum_s_ += (job.start - job.submit).seconds();
  }
  if (finished) {
    ++finished_;
    jct_sum_s_ += (job.end - job.submit).seconds();
  }
}

double JobTimes::wait_mean_s() const noexcept {
  return started_ ? wait_sum_s_ / static_cast<double>(started_) : std::numeric_limits<double>::quiet_NaN();
}

double JobTimes::jct_mean_s() const noexcept {
  return finished_ ? jct_sum_s_ / static_cast<double>(finished_) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace fleetwatt::results
