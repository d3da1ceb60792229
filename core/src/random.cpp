// Portable discrete draws for Random.
#include "fleetwatt/core/random.hpp"

#include <stdexcept>

namespace fleetwatt::core {

std::uint64_t Random::integer(std::uint64_t lo, std::uint64_t hi) {
  if (hi < lo) throw std::invalid_argument("Random::integer: empty range");
  const std::uint64_t span = hi - lo;
  if (span == ~std::uint64_t{0}) return engine_();
  const std::uint64_t n = span + 1;
  // Rejection sampling: accept only draws below the largest multiple of n, so every value is equally likely.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  std::uint64_t x;
  do {
    x = engine_();
  } while (x >= limit);
  return lo + x % n;
}

std::size_t Random::weighted(const std::vector<double>& weights) {
  double total = 0.0;
  for (double w : weights) total += w;
  if (weights.empty() || !(total > 0.0)) throw std::invalid_argument("Random::weighted: no positive weight");
  double u = uniform() * total;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (u < weights[i]) return i;
    u -= weights[i];
  }
  // Rounding can leave u just above the last weight; the last positive entry takes it.
  for (std::size_t i = weights.size(); i-- > 0;)
    if (weights[i] > 0.0) return i;
  return weights.size() - 1;
}

}  // namespace fleetwatt::core
