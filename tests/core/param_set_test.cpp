// ParamSet checked against a declaration: unknown keys, deprecated spellings (one warning each), types,
// declared defaults and the dotted path of a missing parameter.
#include <catch2/catch.hpp>

#include "fleetwatt/core/param_set.hpp"

using namespace fleetwatt::core;

namespace {

const ParamSpecs kSpecs = {
    {"cap_w", ParamType::number, {}, "required", "W", "the facility power cap", {"cap_W"}},
    {"mode", ParamType::string, std::string("queue"), "", "", "queue or gpu_cap", {}},
    {"min_cap_fraction", ParamType::number, 0.5, "", "", "lowest cap", {}},
};

ParamSet table(std::shared_ptr<WarningSink> sink = nullptr) {
  ParamSet p("scheduler.powercap", {"s.toml", 7, 1});
  p.set_warnings(std::move(sink));
  return p;
}

}  // namespace

TEST_CASE("a checked set reads its declared defaults where a key is absent", "[param_set]") {
  auto p = table();
  p.set("cap_w", {std::int64_t{4000}, {"s.toml", 8, 1}});
  const auto c = p.checked(kSpecs);
  CHECK(c.get_double("cap_w") == 4000.0);
  CHECK(c.get_string("mode") == "queue");
  CHECK(c.get_double("min_cap_fraction") == 0.5);
}

TEST_CASE("a number of zero or more is checked where the set gives it", "[param_set]") {
  auto p = table();
  p.set("cap_w", {0.0, {"s.toml", 8, 1}});
  p.set("min_cap_fraction", {-0.25, {"s.toml", 9, 3}});
  const auto c = p.checked(kSpecs);
  CHECK(c.get_non_negative("cap_w") == 0.0);
  CHECK_THROWS_WITH(c.get_non_negative("min_cap_fraction"),
                    "s.toml:9:3: scheduler.powercap.min_cap_fraction: must be zero or more, got -0.25");
  // Absent: the declared default, as get_double gives it.
  CHECK(table().checked(kSpecs).get_non_negative("min_cap_fraction") == 0.5);
}

TEST_CASE("a required parameter that is absent is missing at the dotted path where it belongs",
          "[param_set]") {
  const auto c = table().checked(kSpecs);
  CHECK_THROWS_WITH(c.get_double("cap_w"),
                    "s.toml:7:1: scheduler.powercap.cap_w: missing (the facility power cap)");
}

TEST_CASE("a key the declaration does not know is an error listing the known keys", "[param_set]") {
  auto p = table();
  p.set("banana", {std::int64_t{1}, {"s.toml", 9, 3}});
  CHECK_THROWS_WITH(
      p.checked(kSpecs),
      "s.toml:9:3: scheduler.powercap.banana: unknown key (known here: cap_w, mode, min_cap_fraction)");
}

TEST_CASE("the first bad key reported is the first written, not the first in alphabetical order",
          "[param_set]") {
  auto p = table();
  p.set("zebra", {std::int64_t{1}, {"s.toml", 8, 1}});
  p.set("apple", {std::int64_t{1}, {"s.toml", 9, 1}});
  CHECK_THROWS_WITH(p.checked(kSpecs),
                    Catch::StartsWith("s.toml:8:1: scheduler.powercap.zebra: unknown key"));
}

TEST_CASE("a deprecated spelling works as its new name with one warning", "[param_set]") {
  auto sink = std::make_shared<WarningSink>();
  auto p = table(sink);
  p.set("cap_W", {11000.0, {"s.toml", 8, 1}});
  const auto c = p.checked(kSpecs);
  CHECK(c.get_double("cap_w") == 11000.0);
  CHECK_FALSE(c.has("cap_W"));
  (void)p.checked(kSpecs);  // checked again (compare builds a policy more than once): still one warning
  REQUIRE(sink->messages().size() == 1);
  CHECK(sink->messages()[0] == "s.toml:8:1: scheduler.powercap.cap_W is deprecated; write cap_w");
  CHECK(sink->take_new().size() == 1);
  CHECK(sink->take_new().empty());  // printed once
}

TEST_CASE("a parameter given under both spellings is an error", "[param_set]") {
  auto p = table();
  p.set("cap_W", {11000.0, {"s.toml", 8, 1}});
  p.set("cap_w", {12000.0, {"s.toml", 9, 1}});
  CHECK_THROWS_WITH(p.checked(kSpecs), Catch::Contains("scheduler.powercap.cap_W: given twice"));
}

TEST_CASE("a value of the wrong type is refused when checked, at its key", "[param_set]") {
  auto p = table();
  p.set("mode", {std::int64_t{3}, {"s.toml", 8, 5}});
  CHECK_THROWS_WITH(p.checked(kSpecs),
                    "s.toml:8:5: scheduler.powercap.mode: expected a string, found an integer");
}

TEST_CASE("a declaration shows its default, or what stands in for one", "[param_set]") {
  CHECK(kSpecs[0].default_shown() == "required");
  CHECK(kSpecs[0].required());
  CHECK(kSpecs[1].default_shown() == "\"queue\"");
  CHECK(kSpecs[2].default_shown() == "0.5");
}

TEST_CASE("a parameter in seconds beyond the simulated clock is refused at its key", "[param_set]") {
  // wake_latency_s = 1e300 reached the clock's conversion and escaped as std::out_of_range, unlocated.
  auto p = table();
  p.set("wake_latency_s", {1e300, {"s.toml", 8, 1}});
  p.set("hold_s", {std::int64_t{9'000'000'000'000'000'000}, {"s.toml", 9, 1}});
  p.set("delay_s", {-1e9, {"s.toml", 10, 1}});
  p.set("ratio", {1e300, {"s.toml", 11, 1}});
  CHECK_THROWS_WITH(
      p.get_double("wake_latency_s", 0.0),
      "s.toml:8:1: scheduler.powercap.wake_latency_s: 1e+300 s is beyond the 1e+09 s (31.7 years) "
      "a simulated time may span");
  CHECK_THROWS_WITH(p.get_double("hold_s", 0.0),
                    Catch::StartsWith("s.toml:9:1: scheduler.powercap.hold_s: 9e+18 s"));
  CHECK(p.get_double("delay_s", 0.0) == -1e9);  // the limit itself is a time the clock holds
  CHECK(p.get_double("ratio", 0.0) == 1e300);   // not a time: its own reader bounds it
}

TEST_CASE("a power or energy beyond a fleet's scale is refused at its key", "[param_set]") {
  // A sleeping node at sleep_w = 1e300 made a day's grid energy infinite (found by the generated scenarios).
  // The bounds: 1 GW for a power (1e6 kW), a year of 1 GW for an energy (3.2e16 J, 8.8e9 kWh).
  const ParamSpecs specs = {{"sleep_w", ParamType::number, 20.0, "", "W", "", {}},
                            {"wake_energy_j", ParamType::number, 3e4, "", "J", "", {}},
                            {"cap_kw", ParamType::number, 0.0, "", "kW", "", {}},
                            {"factor", ParamType::number, 1.0, "", "", "", {}}};
  const auto with = [&](const std::string& key, double v) {
    auto p = table();
    p.set(key, {v, {"s.toml", 8, 1}});
    return p.checked(specs);
  };
  CHECK(with("sleep_w", 1e9).get_double("sleep_w") == 1e9);
  CHECK(with("sleep_w", -1e9).get_double("sleep_w") == -1e9);  // the sign is the getter's to check
  CHECK_THROWS_WITH(with("sleep_w", 1e300).get_double("sleep_w"),
                    "s.toml:8:1: scheduler.powercap.sleep_w: 1e+300 W is beyond the 1e+09 W a fleet's power or "
                    "energy may reach");
  CHECK_THROWS_WITH(with("sleep_w", -2e9).get_non_negative("sleep_w"), Catch::Contains("beyond the 1e+09 W"));
  CHECK(with("wake_energy_j", 3e16).get_double("wake_energy_j") == 3e16);
  CHECK_THROWS_WITH(with("wake_energy_j", 1e17).get_double("wake_energy_j"), Catch::Contains("beyond the 3.2e+16 J"));
  CHECK_THROWS_WITH(with("cap_kw", 2e6).get_double("cap_kw"), Catch::Contains("beyond the 1e+06 kW"));
  // A dimensionless number has no scale of its own: only finiteness is checked.
  CHECK(with("factor", 1e300).get_double("factor") == 1e300);
}
