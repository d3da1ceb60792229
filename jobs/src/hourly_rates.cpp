// A trace's request rate by hour of the day (see the header).
#include "fleetwatt/jobs/hourly_rates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fleetwatt::jobs {

std::array<double, 24> hourly_rates(const RequestTrace& trace, double start_hour) {
  constexpr double kHour = 3600.0, kDay = 86400.0;
  const double span = trace.span_s();
  if (!(span >= kDay))
    throw std::invalid_argument(fmt::format(
        "the trace covers {:.3g} h from its first request to its last; a day's curve needs at least 24 h",
        span / kHour));
  // Seconds into the day of the first request.
  const double origin = trace.dated ? std::fmod(trace.clock_start_s, kDay) : start_hour * kHour;
  std::array<double, 24> requests{}, covered{};
  for (const Request& r : trace.requests) {
    const double into_day = std::fmod(origin + (r.arrival_s - trace.requests.front().arrival_s), kDay);
    requests[std::min<std::size_t>(23, static_cast<std::size_t>(into_day / kHour))] += 1.0;
  }
  // The seconds of each hour of the day within [origin, origin + span], an hour's piece at a time.
  for (double t = origin, end = origin + span; t < end;) {
    const double next = std::min(end, (std::floor(t / kHour) + 1.0) * kHour);
    covered[static_cast<std::size_t>(std::fmod(std::floor(t / kHour), 24.0))] += next - t;
    t = next;
  }
  std::array<double, 24> rate{};
  double mean = 0.0;
  for (std::size_t h = 0; h < 24; ++h) mean += (rate[h] = requests[h] / covered[h]) / 24.0;
  for (double& x : rate) x /= mean;
  return rate;
}

}  // namespace fleetwatt::jobs
