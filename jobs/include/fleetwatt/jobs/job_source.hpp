// Where an engine takes its jobs from, one at a time in submit order: a list already in memory, or a
// stream drawn as the run goes (jobs/job_stream.hpp), so that a long run holds the jobs it is running
// and queuing, not every job of its horizon.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::jobs {

class JobSource {
 public:
  virtual ~JobSource() = default;
  /// The next job in submit order (ties in workload order), or none when the workload is exhausted.
  [[nodiscard]] virtual std::optional<JobSpec> next() = 0;
  /// Whether some job of the whole workload sets its own [smoothing] mode: the job table's smoothing column
  /// and the summary's smoothing figures are decided before the first job is simulated.
  [[nodiscard]] virtual bool any_job_smoothing() const = 0;
  /// True for a list already in memory: the engine then predicts every job up front, so a bad job fails
  /// before anything is simulated or written.
  [[nodiscard]] virtual bool in_memory() const noexcept { return false; }
};

/// Puts `jobs` in submit order, ties in their order (a stable sort). A list already in order, as a job file
/// or a generator's stream usually is, is left as it is without moving a job: a merge sort moves every
/// job spec through its buffer even then.
void sort_by_submit(std::vector<JobSpec>& jobs);

/// A list of jobs in memory, handed out in its order (which must be by submit time, as build_workload's).
class JobList final : public JobSource {
 public:
  explicit JobList(std::vector<JobSpec> jobs);
  [[nodiscard]] std::optional<JobSpec> next() override;
  [[nodiscard]] bool any_job_smoothing() const override { return any_smoothing_; }
  [[nodiscard]] bool in_memory() const noexcept override { return true; }

 private:
  std::vector<JobSpec> jobs_;
  std::size_t next_ = 0;
  bool any_smoothing_ = false;
};

/// Whether a job sets its own smoothing mode other than off.
[[nodiscard]] bool smooths_itself(const JobSpec& job) noexcept;

}  // namespace fleetwatt::jobs
