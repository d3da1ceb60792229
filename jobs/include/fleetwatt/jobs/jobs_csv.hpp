// Explicit job lists as CSV: job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W, and optionally
// stack (eager|amp|compiled|optimized; empty or absent: eager). Columns may come in any order.
#pragma once

#include <filesystem>
#include <istream>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::jobs {

/// Reads a jobs CSV; a bad record throws TraceFormatError with the line, column and field.
[[nodiscard]] std::vector<JobSpec> read_jobs_csv(const std::filesystem::path& file);
[[nodiscard]] std::vector<JobSpec> read_jobs_csv(std::istream& in, const std::string& name);

}  // namespace fleetwatt::jobs
