// Fuzz target: site files ([[run]] tables of an operator's measured runs, calibrate --site). A file that
// parses must write back (format_site_run) to the same runs: what calibrate appends is what the next read
// gets.
#include <cstdlib>

#include "fleetwatt/models/site_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  fuzz::expect_input_errors([&] {
    const models::SiteFile site = models::parse_site_file(fuzz::as_text(data, size), "site.toml");
    std::string again = "name = \"x\"\n";
    for (const models::SiteRun& r : site.runs) {
      (void)models::site_measurement(r);
      again += models::format_site_run(r);
    }
    models::SiteFile back;
    try {
      back = models::parse_site_file(again, "again.toml");
    } catch (const core::InputError&) {
      std::abort();  // what was written does not read back
    }
    if (back.runs.size() != site.runs.size()) std::abort();
    for (std::size_t i = 0; i < site.runs.size(); ++i) {
      const auto &a = site.runs[i].run, &b = back.runs[i].run;
      if (a.model != b.model || a.gpu_type != b.gpu_type || a.epoch_s != b.epoch_s ||
          a.power_W != b.power_W || a.batch_size != b.batch_size || a.params != b.params ||
          site.runs[i].host != back.runs[i].host)
        std::abort();
    }
  });
  return 0;
}
