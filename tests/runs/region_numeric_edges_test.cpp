// A region file's own numeric keys (seed, [region] interval_s, a [[region.grid_event]]'s at and duration_s,
// a site's seed) at ±1e300, NaN, ±inf, 2^63, 2^64, 2^32 and a subnormal (numeric_edges.hpp): a located error
// (file, line, key) or a region whose interval and event lie on the simulated clock. The inline site's own
// scenario keys are the scenario loader's, tested with it.
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/runs/region.hpp"
#include "numeric_edges.hpp"

using namespace fleetwatt;
using test::Fields;

TEST_CASE("every numeric key of a region file at the numeric edges is located or on the clock",
          "[region][bad-input][edges]") {
  // Seeds are integers from 0 to 2^63 - 1 (TOML's floats refused as another kind); interval_s is more than
  // 1e-9 s and an event's duration_s at least 1e-9 s (the clock's nanosecond: a subnormal duration was an
  // event of no time), both within the clock's 1e9 s input range; `at` is an instant, never a number.
  const Fields fields = {{"seed", "5"},
                         {"interval_s", "300"},
                         {"at", "\"2026-01-01T00:10:00Z\""},
                         {"duration_s", "0.5"},
                         {"site_seed", "3"}};
  const std::vector<std::pair<unsigned, std::string>> at = {{2, "seed"},
                                                            {4, "region.interval_s"},
                                                            {6, "region.grid_event[0].at"},
                                                            {7, "region.grid_event[0].duration_s"},
                                                            {10, "site[0].seed"}};
  const std::string text =
      "name = \"r\"\n"
      "seed = {seed}\n"
      "[region]\n"
      "interval_s = {interval_s}\n"
      "[[region.grid_event]]\n"
      "at = {at}\n"
      "duration_s = {duration_s}\n"
      "[[site]]\n"
      "name = \"a\"\n"
      "seed = {site_seed}\n"
      "[site.output]\n"
      "start = \"2026-01-01T00:00:00Z\"\n"
      "[site.workload]\n"
      "horizon_s = 3600\n"
      "[[site.workload.jobs]]\n"
      "n_gpus = 1\n"
      "class = \"vit\"\n";
  const auto parse = [](const std::string& t) {
    return runs::parse_region(t, "region.toml", {}, std::nullopt);
  };
  {
    const auto r = parse(test::fill(text, fields, "", ""));
    REQUIRE(r.sites.size() == 1);
    CHECK(r.seed == 5);
    CHECK(r.interval_s == 300.0);
    CHECK(r.sites.front().scenario.seed == 3);
    REQUIRE(r.sites.front().scenario.grid.events.size() == 1);
    CHECK(r.sites.front().scenario.grid.events.front().at_s == 600.0);
  }
  for (std::size_t k = 0; k < fields.size(); ++k) {
    const auto& name = fields[k].first;
    for (const auto& value : test::numeric_edges()) {
      INFO(name << " = " << value);
      runs::Region r;
      const auto error = test::input_error_of([&] { r = parse(test::fill(text, fields, name, value)); });
      if (error) {
        if (test::beyond_64_bits(value))
          CHECK(error->rfind("region.toml:" + std::to_string(at[k].first) + ":", 0) == 0);
        else
          test::check_located(*error, "region.toml", at[k].first, at[k].second);
        continue;
      }
      REQUIRE(r.sites.size() == 1);
      CHECK(std::isfinite(r.interval_s));
      CHECK(r.interval_s > 1e-9);
      CHECK(r.interval_s <= core::kMaxInputSeconds);
      for (const auto& e : r.sites.front().scenario.grid.events) {
        CHECK(std::isfinite(e.at_s));
        CHECK(e.duration_s >= 1e-9);
        CHECK(e.duration_s <= core::kMaxInputSeconds);
      }
    }
  }
}
