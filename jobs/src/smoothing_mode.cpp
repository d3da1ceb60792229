// The smoothing modes' names (see smoothing_mode.hpp).
#include "fleetwatt/jobs/smoothing_mode.hpp"

namespace fleetwatt::jobs {

const char* to_string(SmoothingMode m) noexcept {
  switch (m) {
    case SmoothingMode::off:
      return "off";
    case SmoothingMode::smooth:
      return "smooth";
    case SmoothingMode::burn:
      return "burn";
  }
  return "?";
}

std::optional<SmoothingMode> parse_smoothing_mode(std::string_view name) noexcept {
  for (const auto m : {SmoothingMode::off, SmoothingMode::smooth, SmoothingMode::burn})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

}  // namespace fleetwatt::jobs
