// Fuzz target: the scenario's explicit jobs CSV (workload.jobs_csv).
#include <sstream>

#include "fleetwatt/jobs/jobs_csv.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] { (void)jobs::read_jobs_csv(in, "jobs.csv"); });
  return 0;
}
