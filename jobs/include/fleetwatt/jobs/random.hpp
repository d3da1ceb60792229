// Seeded random numbers live in core (fleetwatt/core/random.hpp); jobs, whose generators and traces
// draw from them, names them as its own.
#pragma once

#include "fleetwatt/core/random.hpp"

namespace fleetwatt::jobs {

using core::Random;

}  // namespace fleetwatt::jobs
