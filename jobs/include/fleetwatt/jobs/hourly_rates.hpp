// A diurnal curve measured on a request trace: the request rate in each hour of the day, for the request
// generator's `hourly` curve (request_generator.hpp) where an operator has a day or more of their own trace.
#pragma once

#include <array>

#include "fleetwatt/jobs/request_trace.hpp"

namespace fleetwatt::jobs {

/// The trace's request rate in each hour of the day from midnight, relative (their mean is 1): the requests
/// arriving in that hour of any day over the seconds of that hour the trace covers (from its first request
/// to its last, so a partly covered hour weighs by its part). The hours are the day's on a dated clock (an
/// azure2023 trace's timestamps, UTC); on a clock from the trace's start (mooncake, plain) the first request
/// comes at `start_hour`. Throws std::invalid_argument for a trace that covers less than a day, or one
/// whose requests all arrive at once.
[[nodiscard]] std::array<double, 24> hourly_rates(const RequestTrace& trace, double start_hour);

}  // namespace fleetwatt::jobs
