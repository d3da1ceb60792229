// Few-shot calibration on an operator's own machines: K measured runs of a workload on a machine correct the
// zero-shot prediction of that workload's other runs there. Every prediction on a machine is first re-timed
// by its GPU and host factors, fitted on its calibration runs of every workload together
// (models/hardware/time_split.hpp); then the correction is a time factor and a power factor per (machine,
// workload): exp(w x the mean log(measured / predicted) of the calibration runs), the
// weight w shrinking it toward 1 (the datasheet prediction) by how well a group's calibration runs foretold
// its other runs on the other machines (least squares through the origin), one weight for runs that repeat
// the calibration runs' batch and power limit and one for runs that vary them; the band is the corrected
// predictions' own spread on the other machines (models/site_correction.hpp's rules, which a site's own
// runs follow). `fleetwatt validate --few-shot K` reports it.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fleetwatt/models/fit/measurements.hpp"
#include "fleetwatt/models/hardware/time_split.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"
#include "fleetwatt/models/validation_report.hpp"

namespace fleetwatt::models {

/// Shrinkage weights for a run that repeats the calibration runs' configuration (batch and power limit) and
/// for one that varies it, with the pairs each was fitted on.
struct ShrinkageWeights {
  double repeat = 0.0, varied = 0.0;
  std::size_t repeat_pairs = 0, varied_pairs = 0;
};

struct FewShotReport {
  std::size_t k = 0;
  double level = 0.0;       ///< band level
  ValidationReport report;  ///< the predicted (non-calibration) rows; row indices are the set's
  std::size_t calibration_rows = 0;
  std::size_t uncalibrated_rows = 0;  ///< rows of a group with no more than k runs (not predicted)
  /// By GPU: the shrinkage weights its groups' factors used, fitted on the other GPUs.
  std::map<std::string, ShrinkageWeights> time_weights, power_weights;
  /// For a site's own runs (k > 0): the weights fitted on every GPU's groups and the band half-widths of
  /// every GPU's corrected rows; what `validate --fit` writes as the fit file's [site] table.
  SiteShrinkage site;
  /// The prior on each machine's GPU and host factors (models/hardware/time_split.hpp; infinite: none
  /// fitted), and the factors fitted on each machine's calibration runs, by (data set, GPU).
  double machine_prior = 0.0;
  std::map<std::pair<std::string, std::string>, MachineFactors> machine_factors;
};

/// Few-shot evaluation of a zero-shot comparison (`zero`, over `set`: leave-one-GPU-out predictions): in
/// every (GPU, workload) group with more than `k` rows, the first k rows by a fixed rule (at the default
/// power limit first, the group's highest; then the batch nearest, in ratio, to the middle batch of those
/// runs; then the smaller batch, then file order) calibrate the group's factors, and its other rows are
/// predicted with them; groups of no more than k rows are left out. The shrinkage weight and the band of a
/// GPU's rows come from the other GPUs only: the weight from their groups' calibration and other runs, the
/// band from the `level` quantile of their corrected rows' |log(measured / predicted)|. A power prediction at
/// the row's power limit is kept (the limit binds) and no corrected power exceeds it. k = 0 gives the
/// zero-shot predictions with that band.
[[nodiscard]] FewShotReport few_shot(const MeasurementSet& set, const ValidationReport& zero, std::size_t k,
                                     double level, double machine_prior = kMachinePrior);

}  // namespace fleetwatt::models
