// The region's common time base: sites' interval means integrated exactly onto the region's intervals over
// the time every site covers, summed; the coincident peak against the sum of the sites' own peaks.
#include <catch2/catch.hpp>

#include "fleetwatt/results/hdf5/region_index.hpp"

using namespace fleetwatt::results;

namespace {
constexpr std::int64_t kS = 1'000'000'000;  // ns per s

SiteSeries site(std::int64_t start_s, std::int64_t interval_s, std::int64_t horizon_s,
                std::vector<double> w) {
  SiteSeries s;
  s.start_unix_ns = start_s * kS;
  s.interval_ns = interval_s * kS;
  s.horizon_ns = horizon_s * kS;
  s.facility_W = w;
  for (double& x : w) x /= 2;  // IT = half the facility power, to tell the two sums apart
  s.it_W = w;
  return s;
}
}  // namespace

TEST_CASE("sites on one clock sum interval by interval, and the coincident peak is the sum's highest",
          "[region]") {
  // A peaks in interval 1 (5 W), B in interval 3 (6 W): the sum [2, 6, 2, 7] peaks at 7 W in interval 3,
  // below the 5 + 6 = 11 W of the sites' own peaks: coincidence factor 7 / 11. Energy (2+6+2+7) x 60 s =
  // 1,020 J, mean 1,020 / 240 = 4.25 W.
  const auto base =
      common_base({site(1000, 60, 240, {1, 5, 1, 1}), site(1000, 60, 240, {1, 1, 1, 6})}, 60 * kS);
  CHECK(base.start_unix_ns == 1000 * kS);
  CHECK(base.facility_W == std::vector<double>{2, 6, 2, 7});
  CHECK(base.it_W == std::vector<double>{1, 3, 1, 3.5});
  const auto f = region_figures(base);
  CHECK(f.coincident_peak_W == 7.0);
  CHECK(f.coincident_peak_index == 3);
  CHECK(f.site_peak_W == std::vector<double>{5, 6});
  CHECK(f.site_at_peak_W == std::vector<double>{1, 6});
  CHECK(f.sum_of_site_peaks_W == 11.0);
  CHECK(f.coincidence_factor == Approx(7.0 / 11.0));
  CHECK(f.energy_J == 1020.0);
  CHECK(f.mean_W == 4.25);
}

TEST_CASE("the common base is the time every site covers, resampled exactly", "[region]") {
  // A from t = 0: 60-s means [1, 2, 3, 4] over 240 s. B from t = 60 s: 120-s means [10, 20] over 240 s
  // (to 300 s). Common time: [60, 240); at 120-s intervals one whole interval, [60, 180):
  // A = (2 x 60 + 3 x 60) / 120 = 2.5, B = 10 (its first interval): 12.5.
  const auto base = common_base({site(0, 60, 240, {1, 2, 3, 4}), site(60, 120, 240, {10, 20})}, 120 * kS);
  CHECK(base.start_unix_ns == 60 * kS);
  REQUIRE(base.facility_W.size() == 1);
  CHECK(base.site_facility_W[0][0] == 2.5);
  CHECK(base.site_facility_W[1][0] == 10.0);
  CHECK(base.facility_W[0] == 12.5);
  // Finer than a site's interval: its means repeat; a last, shorter stored interval (150 s at 60-s
  // intervals: [120, 150) holds 4 W) counts over its own length only. 30-s base over [0, 150):
  // [1, 1, 2, 2, 4].
  const auto fine = common_base({site(0, 60, 150, {1, 2, 4})}, 30 * kS);
  CHECK(fine.facility_W == std::vector<double>{1, 1, 2, 2, 4});
  // Sites with no common whole interval are refused.
  CHECK_THROWS_AS(common_base({site(0, 60, 120, {1, 1}), site(120, 60, 120, {1, 1})}, 60 * kS),
                  std::invalid_argument);
}
