// Explicit job lists in CSV: each row is one job with its own per-GPU phase profile.
#include "fleetwatt/jobs/jobs_csv.hpp"

#include <fmt/format.h>

#include <fstream>
#include <limits>

#include "fleetwatt/core/csv_reader.hpp"

namespace fleetwatt::jobs {

std::vector<JobSpec> read_jobs_csv(std::istream& in, const std::string& name) {
  core::CsvReader csv(in, name);
  csv.read_header({"job_id", "submit_s", "n_gpus", "epochs", "peak_s", "peak_W", "valley_s", "valley_W"});
  const std::optional<std::size_t> stack_col = csv.column("stack");
  std::vector<JobSpec> jobs;
  constexpr auto kMaxU32 = std::numeric_limits<std::uint32_t>::max();
  while (auto row = csv.next()) {
    JobSpec j;
    j.id = csv.integer(*row, "job_id", 0, std::numeric_limits<std::int64_t>::max() / 2);
    j.submit_s = csv.number(*row, "submit_s");
    if (j.submit_s < 0)
      throw TraceFormatError(csv.where(*row, *csv.column("submit_s")), "submit_s", "must not be negative");
    j.n_gpus = static_cast<std::uint32_t>(csv.integer(*row, "n_gpus", 1, kMaxU32));
    j.epochs = static_cast<std::uint32_t>(csv.integer(*row, "epochs", 1, kMaxU32));
    PhaseProfile p;
    p.peak_s = csv.number(*row, "peak_s");
    p.peak_W = csv.number(*row, "peak_W");
    p.valley_s = csv.number(*row, "valley_s");
    p.valley_W = csv.number(*row, "valley_W");
    for (auto [col, v] : {std::pair{"peak_s", p.peak_s},
                          {"peak_W", p.peak_W},
                          {"valley_s", p.valley_s},
                          {"valley_W", p.valley_W}})
      if (v < 0) throw TraceFormatError(csv.where(*row, *csv.column(col)), col, "must not be negative");
    if (p.epoch_s() <= 0)
      throw TraceFormatError(csv.where(*row, *csv.column("peak_s")), "peak_s",
                             "an epoch needs a positive duration (peak_s + valley_s > 0)");
    j.phases = p;
    j.power_key_suffix = "_W";
    // The optional stack column: metadata only here (the phases are given), kept so the job reads as
    // written wherever it is shown or written back; an empty cell is the default, eager.
    if (stack_col && !csv.text(*row, "stack").empty() &&
        !parse_software_stack(csv.text(*row, "stack"), j.meta.stack))
      throw TraceFormatError(csv.where(*row, *stack_col), "stack",
                             fmt::format("unknown stack '{}' (known: eager, amp, compiled, optimized)",
                                         csv.text(*row, "stack")));
    j.class_origin = {name, row->line, 1};
    jobs.push_back(std::move(j));
  }
  return jobs;
}

std::vector<JobSpec> read_jobs_csv(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw TraceFormatError({file.string(), 0, 0}, "", "cannot open file");
  return read_jobs_csv(in, file.string());
}

}  // namespace fleetwatt::jobs
