// A step's exposed communication from its traffic and link rates (see the header).
#include "fleetwatt/models/training/step_comm.hpp"

#include <algorithm>

namespace fleetwatt::models {

double ring_seconds(const jobs::StepTraffic::Ring& ring, double link_Bps, double alpha_s) noexcept {
  if (!ring.any() || !(link_Bps > 0.0)) return 0.0;
  const double n = ring.ranks;
  return ring.times * ring.passes * ((n - 1.0) / n * ring.bytes / link_Bps + (n - 1.0) * alpha_s);
}

double fabric_ring_seconds(const jobs::StepTraffic::Ring& ring, double link_Bps, double alpha_s) noexcept {
  return std::max(ring.floor_s, ring_seconds(ring, std::max(1u, ring.rails) * link_Bps, alpha_s));
}

double sends_seconds(const jobs::StepTraffic::Sends& sends, double link_Bps, double alpha_s) noexcept {
  if (!sends.any() || !(link_Bps > 0.0)) return 0.0;
  return sends.count * (sends.bytes / link_Bps + alpha_s);
}

double exposed_dp_seconds(const jobs::StepTraffic& traffic, double total_s) noexcept {
  const double hidden = std::min(traffic.dp_overlap * total_s, traffic.dp_window_s);
  return std::max(0.0, total_s - hidden);
}

double exposed_cp_seconds(const jobs::StepTraffic& traffic, double total_s) noexcept {
  return std::max(0.0, total_s - traffic.cp_window_s);
}

}  // namespace fleetwatt::models
