// A job list in memory as a job source (see job_source.hpp).
#include "fleetwatt/jobs/job_source.hpp"

#include <algorithm>

namespace fleetwatt::jobs {

bool smooths_itself(const JobSpec& job) noexcept {
  return job.smoothing && *job.smoothing != SmoothingMode::off;
}

void sort_by_submit(std::vector<JobSpec>& jobs) {
  const auto earlier = [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; };
  if (!std::is_sorted(jobs.begin(), jobs.end(), earlier)) std::stable_sort(jobs.begin(), jobs.end(), earlier);
}

JobList::JobList(std::vector<JobSpec> jobs)
    : jobs_(std::move(jobs)), any_smoothing_(std::any_of(jobs_.begin(), jobs_.end(), smooths_itself)) {}

std::optional<JobSpec> JobList::next() {
  if (next_ >= jobs_.size()) {
    // Exhausted: the moved-from specs' storage goes now, not with the engine.
    std::vector<JobSpec>().swap(jobs_);
    next_ = 0;
    return std::nullopt;
  }
  return std::move(jobs_[next_++]);
}

}  // namespace fleetwatt::jobs
