// Structure-aware generated scenarios in the normal suite: a few hundred scenarios built from the
// registries' declared parameters with values at their edges (fuzz/scenario_generator.hpp), each run through
// the whole pipeline (fuzz/generated_run.hpp). Each must be refused as located bad input or give finite,
// balanced results and leave no stray file. The same generator drives the libFuzzer target
// fuzz/scenario_generated.cpp from the fuzzer's bytes.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "generated_run.hpp"
#include "scenario_generator.hpp"
#include "test_support.hpp"

using fleetwatt::fuzz::generate_scenario;
using fleetwatt::fuzz::run_generated;
using fleetwatt::fuzz::SeededChoices;

TEST_CASE("a seeded generator's decisions are repeatable and its scenarios differ", "[runs][generated]") {
  SeededChoices a(7), b(7), c(8);
  const std::string first = generate_scenario(a);
  CHECK(generate_scenario(b) == first);
  CHECK(generate_scenario(c) != first);
  // The first options everywhere: a plain scenario of the first registered components.
  const std::uint8_t none[1] = {0};
  fleetwatt::fuzz::ByteChoices zeros(none, 0);
  const std::string plain = generate_scenario(zeros);
  CHECK(plain.find("seed = 0\n[fleet]\nnodes = 1\ngpus_per_node = 1\n") == 0);
  CHECK(plain.find("[workload.generator]\nrate_per_hour = 30.0\n") != std::string::npos);
}

TEST_CASE("generated scenarios are refused as located bad input or run to finite, balanced results",
          "[runs][generated]") {
  fleetwatt::test::TempDir dir;
  // FLEETWATT_GENERATED_SEEDS=FIRST:COUNT walks other seeds (a longer campaign without the fuzz build).
  int first = 0, kScenarios = 300;
  if (const char* seeds = std::getenv("FLEETWATT_GENERATED_SEEDS"))
    REQUIRE(std::sscanf(seeds, "%d:%d", &first, &kScenarios) == 2);
  int ran = 0, refused = 0;
  for (int seed = first; seed < first + kScenarios; ++seed) {
    SeededChoices choices(static_cast<std::uint64_t>(seed));
    const std::string text = generate_scenario(choices);
    const auto r = run_generated(text, dir.path(), std::chrono::seconds(10));
    INFO("seed " << seed << "\n" << text << "\nrefusal: " << r.refusal);
    // FLEETWATT_GENERATED_LOG=1: one line per scenario, to see what the edges reach.
    if (std::getenv("FLEETWATT_GENERATED_LOG") != nullptr)
      std::cerr << seed << (r.ran ? " ran " : " refused ") << r.refusal << r.problem << '\n';
    CHECK(r.problem == "");
    (r.ran ? ran : refused) += 1;
  }
  // Both outcomes are exercised: edge values refused, and enough scenarios run to test the results.
  CHECK(ran >= kScenarios / 5);
  CHECK(refused >= kScenarios / 5);
}

TEST_CASE("byte-driven decisions, as the fuzz target takes them, give scenarios that hold up too",
          "[runs][generated]") {
  // The fuzz target's path (ByteChoices) with seeded bytes of every length up to 300, the short ones
  // exhausting into the first options.
  fleetwatt::test::TempDir dir;
  std::mt19937 bytes(33);
  int ran = 0;
  for (std::size_t size = 0; size < 300; size += 3) {
    std::vector<std::uint8_t> data(size);
    for (auto& b : data) b = static_cast<std::uint8_t>(bytes());
    fleetwatt::fuzz::ByteChoices choices(data.data(), data.size());
    const std::string text = generate_scenario(choices);
    const auto r = run_generated(text, dir.path(), std::chrono::seconds(10));
    INFO(size << " bytes\n" << text << "\nrefusal: " << r.refusal);
    CHECK(r.problem == "");
    ran += r.ran ? 1 : 0;
  }
  CHECK(ran >= 20);
}

TEST_CASE("the generated runs' watchdog counts CPU time, not waiting", "[runs][generated]") {
  using namespace std::chrono;
  using fleetwatt::fuzz::generated_detail::process_cpu_time;
  using fleetwatt::fuzz::generated_detail::Watchdog;
  // Waiting 150 ms costs almost no CPU: a 40-ms limit is not reached (the wall-time backstop is 400 ms).
  {
    std::atomic<bool> stop{false};
    Watchdog watchdog(stop, milliseconds(40));
    std::this_thread::sleep_for(milliseconds(150));
    CHECK_FALSE(stop.load());
  }
  // Working is counted: spinning stops after about 40 ms of CPU time (given up after 5 s of wall time).
  std::atomic<bool> stop{false};
  const auto cpu_start = process_cpu_time();
  {
    Watchdog watchdog(stop, milliseconds(40));
    const auto give_up = steady_clock::now() + seconds(5);
    while (!stop.load() && steady_clock::now() < give_up) {
    }
  }
  CHECK(stop.load());
  CHECK(process_cpu_time() - cpu_start >= milliseconds(40));
}
