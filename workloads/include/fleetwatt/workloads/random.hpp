// Portable random numbers: std::mt19937_64 is specified bit-for-bit, but std's distributions are not, so
// the transformations to uniform, exponential and discrete draws are written here to keep runs identical
// across compilers and platforms.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace fleetwatt::workloads {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
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

}  // namespace fleetwatt::workloads
