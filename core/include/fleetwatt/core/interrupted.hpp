// A stop request (Ctrl-C, a watchdog, Python's KeyboardInterrupt) reaching long work: the caller raises an
// atomic flag, the work polls it at a cadence of its own and leaves by throwing Interrupted, which every
// command maps to exit 130. One type for every layer that polls (drawing arrivals, the engine), so a caller
// catches one thing wherever the stop lands.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>

namespace fleetwatt::core {

/// Thrown out of work whose stop flag was raised.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

/// How often a loop of cheap steps (drawing an arrival: ~0.1 us) polls its flag: well under a millisecond
/// between polls, and no measurable cost.
inline constexpr std::uint64_t kStopPollEvery = 1u << 16;

/// Throws Interrupted when `stop` is raised; a null flag is never raised.
inline void throw_if_stopped(const std::atomic<bool>* stop) {
  if (stop && stop->load(std::memory_order_relaxed)) throw Interrupted();
}

}  // namespace fleetwatt::core
