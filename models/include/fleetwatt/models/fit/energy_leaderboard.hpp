// Measured energy per LLM request beside the serving iteration model: the ML.ENERGY Leaderboard v2 (Chung
// et al., github.com/ml-energy/leaderboard-v2, Apache-2.0; ../shared/data/ml-energy-leaderboard-v2), vLLM
// serving chat and code prompts on A100-SXM4-40GB and H100 80GB at a maximum batch each, with the energy
// per request, the mean time per output token, the mean output tokens and the mean batch it ran at. Its
// files state no prompt length, so each row is predicted at two prompt lengths that bracket the likely one
// (0 and 1,000 tokens): the check reports both rather than tuning the prompt to the data.
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/serving/serving_iteration.hpp"

namespace fleetwatt::models {

struct LeaderboardRow {
  core::SourceLocation where;  ///< the JSON file
  std::string task;            ///< "chat" or "code"
  std::string model;           ///< fleetwatt's zoo name ("llama3_8b")
  std::string gpu;             ///< fleetwatt's preset ("h100-sxm")
  std::uint32_t tp = 1;
  double batch = 0.0;          ///< mean running requests ("Avg BS")
  double output_tokens = 0.0;  ///< mean per request
  double energy_J = 0.0;       ///< per request, all the replica's GPUs
  double tpot_s = 0.0;         ///< mean time per output token
};

/// Reads every llm_text_generation/{chat,code}/<GPU>/<org>/<model>/*.json under `dir` whose model fleetwatt
/// has a shape for (Llama 3.1 8B and 70B Instruct: the zoo's Llama 3 shapes) at pipeline parallelism 1;
/// `skipped` (if given) counts the others by reason. Throws core::ConfigError (file, field) for a file that
/// does not parse.
[[nodiscard]] std::vector<LeaderboardRow> read_energy_leaderboard(
    const std::filesystem::path& dir, std::map<std::string, std::size_t>* skipped);

/// One configuration's JSON from a stream (`source` names it): `row` holds its task, model and GPU; the
/// measured figures are filled from the file. Nothing when it ran pipeline parallel. Throws
/// core::ConfigError (source, field) for a file that does not parse or a figure out of range.
[[nodiscard]] std::optional<LeaderboardRow> read_leaderboard_config(std::istream& in,
                                                                    const std::string& source,
                                                                    LeaderboardRow row);

/// A row predicted at a prompt length: a decode iteration of the mean batch at the mean context (prompt +
/// half the output), its time the time per token and its energy shared by the batch over the output, plus
/// one prompt iteration's energy per request.
struct LeaderboardPrediction {
  double tpot_s = 0.0, energy_J = 0.0;
};
[[nodiscard]] LeaderboardPrediction predict_leaderboard_row(const LeaderboardRow& row, double prompt_tokens,
                                                            const ServingConstants& constants = {});

/// Mean relative errors of a group of rows at each bracketing prompt length.
struct LeaderboardErrors {
  std::size_t rows = 0;
  double tpot_mre_short = 0.0, tpot_mre_long = 0.0;        ///< prompts of 0 / 1,000 tokens
  double energy_mre_short = 0.0, energy_mre_long = 0.0;    ///< the same, energy per request
  double energy_bias_short = 0.0, energy_bias_long = 0.0;  ///< mean (predicted / measured - 1)
};
inline constexpr double kLeaderboardShortPrompt = 0.0, kLeaderboardLongPrompt = 1000.0;
/// Errors per "gpu model tp", per GPU and over all rows (nothing is fitted on these data: every row is a
/// prediction its GPU never informed).
struct LeaderboardCheck {
  std::map<std::string, LeaderboardErrors> groups, gpus;
  LeaderboardErrors all;
};
[[nodiscard]] LeaderboardCheck check_energy_leaderboard(const std::vector<LeaderboardRow>& rows);

}  // namespace fleetwatt::models
