// The power-log reader's Prometheus side (prometheus_log.cpp): DCGM metrics in the text exposition format.
#pragma once

#include <string>
#include <string_view>

#include "fleetwatt/models/fit/telemetry.hpp"

namespace fleetwatt::models::fit {

/// Whether a log's first line (not blank, not a '#' comment) is a Prometheus sample rather than a CSV header.
[[nodiscard]] bool looks_like_prometheus(std::string_view first_line);

/// The DCGM_FI_DEV_POWER_USAGE samples of `text` as one series per `gpu` label, with the GPUs'
/// DCGM_FI_PROF_SM_ACTIVE samples beside them; the sampling report is left to the caller. Throws
/// TraceFormatError at the file, line and column of a bad sample.
[[nodiscard]] PowerTrace read_prometheus_power(std::string_view text, const std::string& source);

}  // namespace fleetwatt::models::fit
