// How a running job's GPUs are kept from swinging ([smoothing] mode, a job's own `smoothing`): its own
// header so a job spec can name it without the [smoothing] key declarations (smoothing_config.hpp).
#pragma once

#include <optional>
#include <string_view>

namespace fleetwatt::jobs {

/// off: GPUs draw what the work needs; smooth: the GPU holds a floor and slews its power (firmware);
/// burn: software fills the job's low phases with dummy work up to the floor (no slew limits).
enum class SmoothingMode { off, smooth, burn };

/// "off", "smooth", "burn".
[[nodiscard]] const char* to_string(SmoothingMode m) noexcept;
/// The mode named `name`, or none.
[[nodiscard]] std::optional<SmoothingMode> parse_smoothing_mode(std::string_view name) noexcept;

}  // namespace fleetwatt::jobs
