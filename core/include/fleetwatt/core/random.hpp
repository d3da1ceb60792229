// Portable seeded random numbers: std::mt19937_64 is specified bit-for-bit, but std's distributions are not,
// so the transformations to uniform, exponential and discrete draws are written here to keep runs identical
// across compilers and platforms; and SplitMix64, which derives independent seeds and counter-based streams
// (a job's failures, a record's inferred fields, an end-point pair's path) from one scenario seed.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace fleetwatt::core {

/// SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): a bijection of 64-bit words that spreads
/// nearby keys apart.
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A uniform draw in [0, 1) from 64 random bits (the top 53).
[[nodiscard]] constexpr double unit_interval(std::uint64_t bits) noexcept {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return unit_interval(engine_()); }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Exponential with the given rate (mean 1/rate).
  double exponential(double rate) { return -std::log1p(-uniform()) / rate; }
  /// Uniform integer in [lo, hi], without modulo bias.
  std::uint64_t integer(std::uint64_t lo, std::uint64_t hi);
  /// Index drawn with probability proportional to weights (all >= 0, sum > 0).
  std::size_t weighted(const std::vector<double>& weights);

  std::mt19937_64& engine() noexcept { return engine_; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace fleetwatt::core
