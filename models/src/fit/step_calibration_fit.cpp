// The step model's calibration fitted on published step times, with each source left out (see
// models/fit/published_steps.hpp, fit_step_calibration).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "fleetwatt/models/fit/published_steps.hpp"

namespace fleetwatt::models {
namespace {

/// Mean |ln(predicted / published)| of the rows (those predicted), and their mean |error|.
struct Loss {
  double log = 0.0, error = 0.0;
  std::size_t rows = 0;
};
Loss loss(const std::vector<PublishedStep>& rows, const StepCalibration& c) {
  Loss l;
  for (const auto& r : compare_published_steps(rows, c)) {
    if (!r.refused.empty() || !(r.predicted_s > 0.0)) continue;
    l.log += std::abs(std::log(r.predicted_s / r.row->step_s));
    l.error += std::abs(r.error);
    ++l.rows;
  }
  if (l.rows) l.log /= l.rows, l.error /= l.rows;
  return l;
}

/// Coordinate descent over the four factors from (1, 1, 1, 0.5), halving the steps when no move helps.
StepCalibration descend(const std::vector<PublishedStep>& rows) {
  StepCalibration c;
  c.gemm_factor = 1.0, c.attention_factor = 1.0, c.flash2_factor = 1.0, c.tp_overlap = 0.5;
  constexpr int kFactors = 4;
  std::array<double, kFactors> step{0.1, 0.1, 0.1, 0.25};
  const std::array<double, kFactors> lo{0.8, 0.5, 0.5, 0.0}, hi{2.0, 3.0, 3.0, 1.0},
      smallest{0.0025, 0.0025, 0.0025, 0.01};
  const auto field = [&](StepCalibration& x, int k) -> double& {
    return k == 0 ? x.gemm_factor : k == 1 ? x.attention_factor : k == 2 ? x.flash2_factor : x.tp_overlap;
  };
  double best = loss(rows, c).log;
  for (int round = 0; round < 200; ++round) {
    bool moved = false;
    for (int k = 0; k < kFactors; ++k)
      for (const double sign : {1.0, -1.0}) {
        StepCalibration t = c;
        field(t, k) = std::clamp(field(c, k) + sign * step[k], lo[k], hi[k]);
        if (field(t, k) == field(c, k)) continue;
        const double l = loss(rows, t).log;
        if (l < best - 1e-12) best = l, c = t, moved = true;
      }
    if (moved) continue;
    bool finer = false;
    for (int k = 0; k < kFactors; ++k)
      if (step[k] > smallest[k]) step[k] /= 2.0, finer = true;
    if (!finer) break;
  }
  return c;
}

}  // namespace

std::string calibration_group(const PublishedStep& row) {
  if (row.source == "NeMo 24.07") return row.source;
  if (row.source == "NeMo long-sequence") return row.source;
  return row.gpu == "h100-sxm" ? "Megatron-Bridge H100" : "Megatron-Bridge Blackwell";
}

StepCalibration fit_step_calibration(const std::vector<PublishedStep>& rows) {
  std::vector<PublishedStep> usable;
  for (const auto& r : rows)
    if (r.unsupported.empty()) usable.push_back(r);
  if (usable.empty()) throw std::invalid_argument("no published step fleetwatt can express to fit on");
  StepCalibration c = descend(usable);
  const Loss in = loss(usable, c);
  c.rows = in.rows;
  c.mean_abs_error = in.error;
  std::vector<std::string> groups;
  for (const auto& r : usable)
    if (std::find(groups.begin(), groups.end(), calibration_group(r)) == groups.end())
      groups.push_back(calibration_group(r));
  for (const auto& g : groups) {
    std::vector<PublishedStep> fit_on, left_out;
    for (const auto& r : usable) (calibration_group(r) == g ? left_out : fit_on).push_back(r);
    if (fit_on.empty()) continue;
    c.loo_error[g] = loss(left_out, descend(fit_on)).error;
  }
  c.provenance =
      fmt::format("{} published pre-training steps (NeMo, Megatron-Bridge) in ../shared/data", in.rows);
  return c;
}

}  // namespace fleetwatt::models
