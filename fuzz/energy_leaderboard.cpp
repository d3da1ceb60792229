// Fuzz target: one configuration's JSON of the ML.ENERGY Leaderboard v2 (Llama 3.1 8B on an H100, as its
// folder names it), and its prediction at the two bracketing prompts: finite and positive.
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "fleetwatt/models/fit/energy_leaderboard.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] {
    models::LeaderboardRow row;
    row.task = "chat", row.model = "llama3_8b", row.gpu = "h100-sxm";
    const auto read = models::read_leaderboard_config(in, "config.json", row);
    if (!read) return;
    for (const double prompt : {models::kLeaderboardShortPrompt, models::kLeaderboardLongPrompt}) {
      const models::LeaderboardPrediction p = models::predict_leaderboard_row(*read, prompt);
      if (!(std::isfinite(p.energy_J) && p.energy_J > 0.0 && std::isfinite(p.tpot_s) && p.tpot_s > 0.0))
        std::abort();
    }
  });
  return 0;
}
