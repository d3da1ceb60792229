// A training step's communication from its traffic (jobs::StepTraffic) and the rates of the links it
// crosses: the one set of formulas the predictor (links from the GPU preset and the node's NICs) and a
// network model (rates from its flows on the job's placement) both use, so that the two agree exactly on an
// uncongested fabric (docs/interconnect.md "3D-parallel jobs on a fabric").
#pragma once

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::models {

/// Seconds of a ring collective per step: times x passes x ((ranks - 1) / ranks x bytes / link_Bps + (ranks
/// - 1) x alpha_s); 0 for a ring of one rank, no bytes or no link.
[[nodiscard]] double ring_seconds(const jobs::StepTraffic::Ring& ring, double link_Bps,
                                  double alpha_s) noexcept;
/// Seconds of a ring on the fabric per step, its rails' links at `link_Bps` each: ring_seconds over rails x
/// link_Bps, and never below the ring's floor_s.
[[nodiscard]] double fabric_ring_seconds(const jobs::StepTraffic::Ring& ring, double link_Bps,
                                         double alpha_s) noexcept;
/// Seconds of a step's sends: count x (bytes / link_Bps + alpha_s); 0 without sends or link.
[[nodiscard]] double sends_seconds(const jobs::StepTraffic::Sends& sends, double link_Bps,
                                   double alpha_s) noexcept;
/// The exposed part of the data-parallel traffic (`total_s`, its rings' seconds per step): at most the
/// traffic's overlap share of it hides, and no more than its window of compute.
[[nodiscard]] double exposed_dp_seconds(const jobs::StepTraffic& traffic, double total_s) noexcept;
/// The exposed part of the context-parallel sends (`total_s` per step): what the attention compute they
/// pass under (cp_window_s) does not cover.
[[nodiscard]] double exposed_cp_seconds(const jobs::StepTraffic& traffic, double total_s) noexcept;

}  // namespace fleetwatt::models
