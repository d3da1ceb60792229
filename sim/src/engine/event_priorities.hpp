// Event priorities at one instant: completions and arrivals settle before the scheduler looks at the queue.
// Arrivals come before a policy's wake-ups: each arrival is scheduled when the one before it arrives, so its
// place among the instant's events must not depend on when it was scheduled.
#pragma once

namespace fleetwatt::sim {

inline constexpr int kPhasePriority = 0;
inline constexpr int kArrivalPriority = 1;
inline constexpr int kWakePriority = 2;
inline constexpr int kSchedulePriority = 10;

}  // namespace fleetwatt::sim
