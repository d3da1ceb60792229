// Generated LLM request arrivals for horizons no recorded trace covers (a day, a year): a rate that follows
// the hour of the day (24 relative values: a diurnal curve), inter-arrival times of a gamma renewal process
// (shape 1: Poisson; below 1: bursts, the coefficient of variation being 1 / sqrt(shape)) run on the
// rate's own clock (time rescaling: the process at unit rate, mapped through the cumulative rate), and each
// request's prompt and generation drawn together from a recorded trace's requests (their empirical joint
// distribution). Seeded: the same configuration and seed give the same requests.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/jobs/request_source.hpp"
#include "fleetwatt/jobs/request_trace.hpp"

namespace fleetwatt::jobs {

struct RequestGeneratorConfig {
  double mean_rate_per_s = 1.0;  ///< over a whole day of the curve
  /// Relative rate in each hour of the day from midnight (scaled so that the day's mean is 1); all 1: flat.
  std::array<double, 24> hourly{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  double start_hour = 0.0;        ///< the hour of the day at time 0
  double burstiness_shape = 1.0;  ///< gamma shape of the inter-arrival times (1: Poisson)
  double horizon_s = 86400.0;
  std::uint64_t seed = 1;
};

/// Generated requests one at a time (generate_requests' requests, in order). `lengths` must outlive it.
class RequestGenerator final : public RequestSource {
 public:
  /// Throws as generate_requests does.
  RequestGenerator(const RequestGeneratorConfig& config, const std::vector<Request>& lengths);
  bool next(Request& out) override;

 private:
  [[nodiscard]] double rate_at_hour(double hour_index) const;
  RequestGeneratorConfig c_;
  const std::vector<Request>& lengths_;
  double hourly_sum_ = 0.0;
  Random rng_;
  double t_ = 0.0, hour_ = 0.0, edge_ = 0.0, owed_ = 0.0;
};

/// Requests over [0, horizon_s), lengths drawn from `lengths`' requests. Throws std::invalid_argument for a
/// rate, shape or horizon that is not positive and finite, an hourly curve with a negative value or no
/// positive one, a start hour outside [0, 24), an empty `lengths`, or more than 10^8 expected requests.
[[nodiscard]] std::vector<Request> generate_requests(const RequestGeneratorConfig& config,
                                                     const std::vector<Request>& lengths);

}  // namespace fleetwatt::jobs
