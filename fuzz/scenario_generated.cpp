// Fuzz target: whole valid scenarios generated from the registries' declared parameters (see
// scenario_generator.hpp), each decision taken from the fuzzer's bytes, run through the whole pipeline
// in-process (generated_run.hpp). A refusal as bad input is fine; any other exception, a run past 5 s of CPU
// time, a non-finite or unbalanced result, a leftover file, a crash or a sanitizer report is a finding: the
// scenario's text is printed before the abort so that it can be run with `fleetwatt run`. A timeout ends
// the process from libFuzzer's alarm, before that: FLEETWATT_FUZZ_PRINT=1 prints every scenario as it
// starts (reproduce: FLEETWATT_FUZZ_PRINT=1 fuzz_scenario_generated FILE).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "fuzz_support.hpp"
#include "generated_run.hpp"
#include "scenario_generator.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  static const std::filesystem::path dir = [] {
    auto d =
        std::filesystem::temp_directory_path() / ("fleetwatt-fuzz-generated-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  fuzz::ByteChoices choices(data, size);
  const std::string text = fuzz::generate_scenario(choices);
  static const bool print = std::getenv("FLEETWATT_FUZZ_PRINT") != nullptr;
  if (print) std::fprintf(stderr, "generated scenario:\n%s\n", text.c_str());
  const fuzz::GeneratedRun r = fuzz::run_generated(text, dir, std::chrono::seconds(5));
  if (!r.problem.empty()) {
    std::fprintf(stderr, "generated scenario:\n%s\nproblem: %s\n", text.c_str(), r.problem.c_str());
    std::abort();
  }
  return 0;
}
