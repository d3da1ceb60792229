// Fuzz target: the records CSV that `fleetwatt fit` learns from, and the numeric columns read from it.
#include "fleetwatt/models/fit/records.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  fuzz::expect_input_errors([&] {
    const auto table = models::fit::RecordTable::parse(std::string(fuzz::as_text(data, size)), "records.csv");
    for (const auto& column : table.columns()) (void)table.numeric(column);
  });
  return 0;
}
