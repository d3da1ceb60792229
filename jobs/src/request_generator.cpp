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

RequestGenerator::RequestGenerator(const RequestGeneratorConfig& c, const std::vector<Request>& lengths)
    : c_(c), lengths_(lengths), rng_(c.seed) {
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
  for (const double h : c.hourly) {
    if (!(h >= 0.0) || !std::isfinite(h))
      throw std::invalid_argument(fmt::format("an hourly rate must not be negative, not {}", h));
    hourly_sum_ += h;
  }
  if (!(hourly_sum_ > 0.0)) throw std::invalid_argument("the hourly curve has no positive hour");
  // Walk hour by hour: within an hour of rate r, unit-rate time advances r per second.
  hour_ = std::floor(c.start_hour);
  edge_ = (hour_ + 1.0 - c.start_hour) * kHour;       // seconds from 0 to the end of the current hour
  owed_ = gamma_unit_mean(rng_, c.burstiness_shape);  // unit-rate time to the next arrival
}

double RequestGenerator::rate_at_hour(double hour_index) const {
  const auto h = static_cast<std::size_t>(std::fmod(hour_index, 24.0));
  return c_.mean_rate_per_s * c_.hourly[h] * 24.0 / hourly_sum_;
}

bool RequestGenerator::next(Request& out) {
  while (t_ < c_.horizon_s) {
    const double r = rate_at_hour(hour_);
    const double span = std::min(edge_, c_.horizon_s) - t_;
    if (r > 0.0 && owed_ < r * span) {
      t_ += owed_ / r;
      const Request& pick = lengths_[static_cast<std::size_t>(rng_.integer(0, lengths_.size() - 1))];
      out = Request{};
      out.arrival_s = t_;
      out.input_tokens = pick.input_tokens, out.output_tokens = pick.output_tokens;
      out.record = pick.record;
      owed_ = gamma_unit_mean(rng_, c_.burstiness_shape);
      return true;
    }
    owed_ -= r * span;
    t_ = std::min(edge_, c_.horizon_s);
    hour_ += 1.0;
    edge_ += kHour;
  }
  return false;
}

std::vector<Request> generate_requests(const RequestGeneratorConfig& c, const std::vector<Request>& lengths) {
  RequestGenerator generator(c, lengths);
  const double peak = *std::max_element(c.hourly.begin(), c.hourly.end());
  double sum = 0.0;
  for (const double h : c.hourly) sum += h;
  if (c.mean_rate_per_s * c.horizon_s * 24.0 * peak / sum > 1e8)
    throw std::invalid_argument("more than 10^8 requests expected: lower the rate or the horizon");
  return collect(generator);
}

}  // namespace fleetwatt::jobs
