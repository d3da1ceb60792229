// The default day's result file, run once per test program for every test that reads it.
#pragma once

#include <filesystem>

#include "test_support.hpp"

namespace fleetwatt::test {

inline const std::filesystem::path& day_result() {
  static TempDir dir;
  static const std::filesystem::path file = [] {
    const auto out = dir / "day.h5";
    const auto r =
        run_command(fleetwatt_command() + " run -q " +
                    (source_dir() / "examples/scenarios/day-fleet.toml").string() + " -o " + out.string());
    REQUIRE(r.exit_code == 0);
    return out;
  }();
  return file;
}

}  // namespace fleetwatt::test
