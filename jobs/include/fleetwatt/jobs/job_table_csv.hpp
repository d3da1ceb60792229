// fleetwatt's own job table: a CSV with a header row, one job per row, a column for every JobSpec field.
// Only submit_s and n_gpus are required; an empty cell means "not given" (and, for model fields and epochs,
// "infer it"). Columns, in the order write_job_table_csv writes them:
//   id, trace_id, submit_s, n_gpus, gpu_fraction, epochs, job_class, model, params, flops_per_sample,
//   training_flops_per_sample, batch_size, dataset_samples, input_size, workers, precision, stack, peak_W,
//   peak_s, valley_W, valley_s, user, status, recorded_runtime_s, recorded_wait_s, user_estimate_s, limit_s,
//   deferrable, deadline_s, inferred
// precision is fp32|tf32|fp16|bf16|fp8; stack is eager|amp|compiled|optimized (empty: eager); status is
// unknown|completed|failed|cancelled|running|pending; deferrable is 0|1|true|false; inferred lists field
// names ("model,epochs", quoted).
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::jobs {

/// The column names, in write order.
[[nodiscard]] const std::vector<std::string>& job_table_columns();

/// Writes jobs as a job table (round-trips through the reader exactly: numbers use shortest round-trip form).
void write_job_table_csv(std::ostream& out, const std::vector<JobSpec>& jobs);

}  // namespace fleetwatt::jobs
