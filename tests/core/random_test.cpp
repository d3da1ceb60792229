// Seeded random numbers: SplitMix64 against its published sequence, the 53-bit unit interval's edges, and
// Random's draws staying in range and reproducible from the seed.
#include <catch2/catch.hpp>

#include <cmath>

#include "fleetwatt/core/random.hpp"

using namespace fleetwatt::core;

TEST_CASE("splitmix64 gives the reference generator's sequence", "[random]") {
  // SplitMix64 (Steele, Lea and Flood, OOPSLA 2014; Vigna's splitmix64.c) from state 0: each output is the
  // finaliser of the state advanced by the golden gamma, so output k is splitmix64(k x gamma).
  constexpr std::uint64_t gamma = 0x9e3779b97f4a7c15ULL;
  CHECK(splitmix64(0) == 0xe220a8397b1dcdafULL);
  CHECK(splitmix64(gamma) == 0x6e789e6aa1b965f4ULL);
  CHECK(splitmix64(2 * gamma) == 0x06c45d188009454fULL);
}

TEST_CASE("64 random bits map onto the unit interval with 53 of them", "[random]") {
  CHECK(unit_interval(0) == 0.0);
  CHECK(unit_interval(std::uint64_t{1} << 11) == std::ldexp(1.0, -53));
  CHECK(unit_interval(~std::uint64_t{0}) == 1.0 - std::ldexp(1.0, -53));
  CHECK(unit_interval((std::uint64_t{1} << 11) - 1) == 0.0);  // the low 11 bits are dropped
}

TEST_CASE("Random's draws stay in range and repeat with the seed", "[random]") {
  Random a(42), b(42);
  for (int i = 0; i < 1000; ++i) {
    const double u = a.uniform();
    CHECK(u == b.uniform());
    CHECK(u >= 0.0);
    CHECK(u < 1.0);
    const auto k = a.integer(3, 7);
    CHECK(k == b.integer(3, 7));
    CHECK(k >= 3);
    CHECK(k <= 7);
  }
  CHECK_THROWS_AS(a.integer(5, 4), std::invalid_argument);
  CHECK(a.weighted({0.0, 1.0, 0.0}) == 1);
}
