// Fuzz target: the Alibaba PAI 2020 reader, which joins the job table with the task table. The input holds
// both headerless CSVs, job table first, separated by a NUL byte.
#include <sstream>

#include "fleetwatt/jobs/trace.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  const auto [jobs, tasks] = fuzz::split_two(fuzz::as_text(data, size));
  std::istringstream jobs_in(jobs), tasks_in(tasks);
  jobs::TraceOptions options;
  options.format = jobs::TraceFormat::pai2020;
  fuzz::expect_input_errors([&] {
    (void)jobs::read_pai2020(jobs_in, "pai_job_table.csv", tasks_in, "pai_task_table.csv", options);
  });
  return 0;
}
