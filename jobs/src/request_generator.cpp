// Generated LLM request arrivals: a diurnal rate, gamma inter-arrivals by time rescaling, lengths from a
// recorded trace (see the header).
#include "fleetwatt/jobs/request_generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "fleetwatt/jobs/random.hpp"

namespace fleetwatt::jobs {
namespace {

constexpr double kHour = 3600.0;

/// A standard normal by Box-Muller (the library's own: std::normal_distribution differs between builds).
double normal(Random& rng) {
  const double u = 1.0 - rng.uniform(), v = rng.uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

/// Gamma(shape, scale 1 / shape): mean 1, coefficient of variation 1 / sqrt(shape) (Marsaglia and Tsang
/// 2000; below shape 1, Gamma(shape + 1) x U^(1 / shape)).
double gamma_unit_mean(Random& rng, double shape) {
  const double k = shape < 1.0 ? shape + 1.0 : shape;
  const double d = k - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  double x = 0.0;
  for (;;) {
    const double z = normal(rng), v0 = 1.0 + c * z;
    if (v0 <= 0.0) continue;
    const double v = v0 * v0 * v0, u = 1.0 - rng.uniform();
    if (std::log(u) < 0.5 * z * z + d - d * v + d * std::log(v)) {
      x = d * v;
      break;
    }
  }
  if (shape < 1.0) x *= std::pow(1.0 - rng.uniform(), 1.0 / shape);
  return x / shape;
}

}  // namespace

std::vector<Request> generate_requests(const RequestGeneratorConfig& c, const std::vector<Request>& lengths) {
  const auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  if (!positive(c.mean_rate_per_s))
    throw std::invalid_argument(fmt::format("mean rate must be positive, not {}", c.mean_rate_per_s));
  if (!positive(c.burstiness_shape))
    throw std::invalid_argument(fmt::format("burstiness shape must be positive, not {}", c.burstiness_shape));
  if (!positive(c.horizon_s))
    throw std::invalid_argument(fmt::format("horizon must be positive, not {}", c.horizon_s));
  if (!(c.start_hour >= 0.0 && c.start_hour < 24.0))
    throw std::invalid_argument(fmt::format("start hour must be in [0, 24), not {}", c.start_hour));
  if (lengths.empty()) throw std::invalid_argument("no recorded request to draw lengths from");
  double sum = 0.0;
  for (const double h : c.hourly) {
    if (!(h >= 0.0) || !std::isfinite(h))
      throw std::invalid_argument(fmt::format("an hourly rate must not be negative, not {}", h));
    sum += h;
  }
  if (!(sum > 0.0)) throw std::invalid_argument("the hourly curve has no positive hour");
  if (c.mean_rate_per_s * c.horizon_s * 24.0 * (*std::max_element(c.hourly.begin(), c.hourly.end())) / sum >
      1e8)
    throw std::invalid_argument("more than 10^8 requests expected: lower the rate or the horizon");
  // The rate in the hour holding t, and the cumulative rate at the hour's edges (time rescaling).
  const auto rate_at_hour = [&](double hour_index) {
    const auto h = static_cast<std::size_t>(std::fmod(hour_index, 24.0));
    return c.mean_rate_per_s * c.hourly[h] * 24.0 / sum;
  };
  Random rng(c.seed);
  std::vector<Request> out;
  // Walk hour by hour: within an hour of rate r, unit-rate time advances r per second.
  double t = 0.0, hour = std::floor(c.start_hour);
  double edge = (hour + 1.0 - c.start_hour) * kHour;       // seconds from 0 to the end of the current hour
  double owed = gamma_unit_mean(rng, c.burstiness_shape);  // unit-rate time to the next arrival
  while (t < c.horizon_s) {
    const double r = rate_at_hour(hour);
    const double span = std::min(edge, c.horizon_s) - t;
    if (r > 0.0 && owed < r * span) {
      t += owed / r;
      const Request& pick = lengths[static_cast<std::size_t>(rng.integer(0, lengths.size() - 1))];
      Request q;
      q.arrival_s = t;
      q.input_tokens = pick.input_tokens, q.output_tokens = pick.output_tokens;
      q.record = pick.record;
      out.push_back(q);
      owed = gamma_unit_mean(rng, c.burstiness_shape);
      continue;
    }
    owed -= r * span;
    t = std::min(edge, c.horizon_s);
    hour += 1.0;
    edge += kHour;
  }
  return out;
}

}  // namespace fleetwatt::jobs
