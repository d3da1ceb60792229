// Measured LLM serving iterations beside the serving iteration model (models/serving/serving_iteration.hpp),
// and the fit of its one free constant, the serving stack's host time per layer. The data: SplitwiseSim's
// performance model (Patel et al., "Splitwise: Efficient generative LLM inference using phase splitting",
// ISCA 2024; ../shared/data/splitwise-sim/perf_model.csv, MIT): Llama-2-70B at tp 2, 4 and 8 and BLOOM-176B
// at tp 8 on DGX A100-80GB and H100-80GB, a batch of equal prompts of 128-8192 tokens and 128-8192 generated
// tokens each, with the prompt phase's time, the mean time per generated token, the request's end-to-end
// time and, on the A100, its mean and peak power as fractions of the 400 W board.
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/serving/serving_iteration.hpp"

namespace fleetwatt::models {

/// One measured configuration (the mean of the source's repeated rows of it).
struct ServingMeasurement {
  core::SourceLocation where;  ///< file and line of its first row
  std::string model;           ///< the source's name ("llama2-70b")
  std::string gpu;             ///< fleetwatt's preset ("a100-sxm-80gb")
  std::uint32_t tp = 1;
  double prompt_tokens = 0.0, batch = 0.0, output_tokens = 0.0;  ///< per request; requests in the batch
  double prompt_s = 0.0;                                         ///< the batch's prompt phase
  double token_s = 0.0;  ///< mean seconds per generated token (one decode iteration of the batch)
  /// A request's end to end as the source states it; not compared: from 256 requested tokens on it falls
  /// short of the prompt plus that many tokens' time (the requests ended before their budget).
  double e2e_s = 0.0;
  double power_fraction = 0.0;  ///< mean power / TDP over the request; 0: not measured
  std::size_t repeats = 0;      ///< rows averaged
  /// Why the row is not compared (empty: compared); e.g. a prompt time below the half batch's.
  std::string excluded;
  std::string power_excluded;  ///< why its power is not compared (empty: compared where measured)
};

/// Reads SplitwiseSim's perf_model.csv (a file, or the first under a folder) and averages the repeated rows
/// of each configuration. Rows of the "h100-80gb-pcap" hardware are skipped (SOURCE.txt: derived from the
/// H100 rows, not measured); rows of a model fleetwatt has no shape for are skipped. Excluded, with the
/// reason: a prompt phase shorter than the same configuration's at half the batch (its work doubled, its
/// time cannot fall: the batch did not run whole), and a mean power below 1.25 x the board's idle power
/// (the window held an idle GPU, not the run). Throws core::ConfigError (file:line, column) for a row that
/// does not parse.
[[nodiscard]] std::vector<ServingMeasurement> read_splitwise_perf(const std::filesystem::path& path);
/// The same from a stream; `name` names it in messages.
[[nodiscard]] std::vector<ServingMeasurement> read_splitwise_perf(std::istream& in, const std::string& name);

/// The replica a row ran on: the model's shape (Llama-2-70B from the zoo, BLOOM-176B's published shape),
/// the GPU preset, tp, FP16.
[[nodiscard]] ServingReplica splitwise_replica(const ServingMeasurement& row);

/// One row's prediction with `constants`.
struct ServingPrediction {
  const ServingMeasurement* row = nullptr;
  double prompt_s = 0.0, token_s = 0.0, e2e_s = 0.0;
  double power_fraction = 0.0;  ///< energy-weighted over the prompt and the generated tokens, / TDP
};
/// The prompt phase as one iteration of the batch's prompts; a generated token as one decode iteration of
/// the batch at the mean context over the generation (prompt + (output + 1) / 2: attention's reads grow
/// linearly with it); the request as the prompt plus output x the token; its power weighted by the phases'
/// times.
[[nodiscard]] ServingPrediction predict_serving_row(const ServingMeasurement& row,
                                                    const ServingConstants& constants);

/// The host time per layer that makes the model's median residual zero over `rows`' prompt and token times
/// (the median of (measured - predicted without it) / layers): robust to the odd configuration.
[[nodiscard]] double fit_layer_overhead(const std::vector<const ServingMeasurement*>& rows);

/// Errors of one group of rows.
struct ServingErrors {
  std::size_t rows = 0, power_rows = 0;
  double prompt_mre = 0.0, token_mre = 0.0, power_mre = 0.0;
};
/// The check: every compared row predicted with the overhead fitted on the other GPUs' rows (leave one GPU
/// out), errors per "gpu model tp" group, per GPU and overall, and the overhead fitted on every row.
struct ServingCheck {
  std::vector<ServingPrediction> predicted;
  std::map<std::string, ServingErrors> groups;  ///< by "gpu model tp<n>"
  std::map<std::string, ServingErrors> gpus;
  ServingErrors all;
  double layer_overhead_s = 0.0;                       ///< fitted on every compared row
  std::map<std::string, double> overhead_without_gpu;  ///< fitted without each GPU
  std::size_t excluded = 0;
};
[[nodiscard]] ServingCheck check_serving(const std::vector<ServingMeasurement>& rows);

}  // namespace fleetwatt::models
