// The members of a `fleetwatt sweep`: the Cartesian product of its axes (--grid KEY=VALUES and --band),
// each member a list of --set assignments, a seed and a band. Pure bookkeeping: no simulation here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/runs/scenario.hpp"

namespace fleetwatt::tools {

/// One axis: a key and the values it takes, each as written (a TOML value or a bare word).
struct SweepAxis {
  std::string key;  ///< a scenario key, or "seed" / "band" (the run's --seed and --band)
  std::vector<std::string> values;
};

/// `KEY=[v1, v2, ...]`, `KEY=A..B` (the integers A to B) or `KEY=v`; errors name --grid and the key.
[[nodiscard]] SweepAxis parse_grid_axis(std::string_view spec);

struct SweepMember {
  std::size_t index = 0;
  std::vector<std::string> overrides;  ///< KEY=VALUE for the axes other than seed and band
  std::optional<std::uint64_t> seed;   ///< the seed axis' value (else the scenario's seed)
  std::string band;                    ///< the band axis' value ("": the scenario's)
  /// "m000007": the member's name in the index and its result file's stem.
  [[nodiscard]] std::string name() const;
  /// Its assignments, seed and band in one line ("scheduler.powercap.cap_w=1.8e6; seed=3; band=low").
  [[nodiscard]] std::string label() const;
};

/// Every member of the product, the last axis varying fastest. Errors (a key given twice, a bad seed or
/// band value, too many members) name the flag.
[[nodiscard]] std::vector<SweepMember> expand_sweep(const std::vector<SweepAxis>& axes);

}  // namespace fleetwatt::tools
