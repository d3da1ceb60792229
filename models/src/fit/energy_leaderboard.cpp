// The ML.ENERGY Leaderboard v2's energy per request beside the serving iteration model (see the header).
#include "fleetwatt/models/fit/energy_leaderboard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {
namespace {

namespace fs = std::filesystem;

/// The zoo's shape for a leaderboard model: Llama 3.1 has Llama 3's layers (its longer context changes
/// the rotary embedding's frequencies, not the work of a token).
std::string zoo_model(const std::string& name) {
  if (name == "Meta-Llama-3.1-8B-Instruct") return "llama3_8b";
  if (name == "Meta-Llama-3.1-70B-Instruct") return "llama3_70b";
  return {};
}

std::string preset_of(const std::string& gpu_folder) {
  if (gpu_folder == "H100 80GB HBM3") return "h100-sxm";
  if (gpu_folder == "A100-SXM4-40GB") return "a100-sxm4-40gb";
  return {};
}

/// A positive number up to `most` (past which no measured configuration is and the model's figures stop
/// being finite).
double number(const nlohmann::json& j, const char* key, const std::string& file, double most) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number() || !(j.at(key).get<double>() > 0.0) ||
      !(j.at(key).get<double>() <= most))
    throw core::ConfigError({file, 0, 0}, key, fmt::format("missing, or not a number in (0, {}]", most));
  return j.at(key).get<double>();
}

ServingReplica replica_of(const LeaderboardRow& row) {
  ServingReplica r;
  r.model = count_model(row.model, 0);
  r.gpu = find_gpu(row.gpu);
  r.tp = row.tp;
  return r;
}

void add(LeaderboardErrors& e, const LeaderboardRow& row, const LeaderboardPrediction& s,
         const LeaderboardPrediction& l) {
  ++e.rows;
  e.tpot_mre_short += std::abs(s.tpot_s / row.tpot_s - 1.0);
  e.tpot_mre_long += std::abs(l.tpot_s / row.tpot_s - 1.0);
  e.energy_mre_short += std::abs(s.energy_J / row.energy_J - 1.0);
  e.energy_mre_long += std::abs(l.energy_J / row.energy_J - 1.0);
  e.energy_bias_short += s.energy_J / row.energy_J - 1.0;
  e.energy_bias_long += l.energy_J / row.energy_J - 1.0;
}

void finish(LeaderboardErrors& e) {
  if (e.rows == 0) return;
  const double n = double(e.rows);
  for (double* v : {&e.tpot_mre_short, &e.tpot_mre_long, &e.energy_mre_short, &e.energy_mre_long,
                    &e.energy_bias_short, &e.energy_bias_long})
    *v /= n;
}

}  // namespace

std::vector<LeaderboardRow> read_energy_leaderboard(const fs::path& dir,
                                                    std::map<std::string, std::size_t>* skipped) {
  fs::path root = dir;
  for (const fs::path& under : {fs::path("data/llm_text_generation"), fs::path("llm_text_generation")})
    if (fs::is_directory(dir / under)) root = dir / under;
  if (!fs::is_directory(root / "chat") && !fs::is_directory(root / "code"))
    throw core::ConfigError(
        {dir.string(), 0, 0}, "MEASUREMENTS",
        "no llm_text_generation/chat or code folder (the ML.ENERGY Leaderboard v2 layout)");
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());  // directory order varies between file systems
  std::vector<LeaderboardRow> out;
  const auto skip = [&](const std::string& why) {
    if (skipped) ++(*skipped)[why];
  };
  for (const fs::path& file : files) {
    const fs::path rel = fs::relative(file, root);
    auto part = rel.begin();
    if (std::distance(rel.begin(), rel.end()) != 5) continue;  // task/GPU/org/model/config.json
    LeaderboardRow row;
    row.where = {file.string(), 0, 0};
    row.task = (part++)->string();
    const std::string gpu_folder = (part++)->string();
    ++part;  // the model's organisation
    const std::string model = (part++)->string();
    row.model = zoo_model(model), row.gpu = preset_of(gpu_folder);
    if (row.model.empty()) {
      skip("model without a shape in fleetwatt's zoo");
      continue;
    }
    if (row.gpu.empty()) {
      skip("GPU without a preset");
      continue;
    }
    std::ifstream in(file);
    if (auto read = read_leaderboard_config(in, file.string(), row)) {
      out.push_back(std::move(*read));
    } else {
      skip("pipeline parallel (the iteration model times one tensor-parallel replica)");
    }
  }
  return out;
}

std::optional<LeaderboardRow> read_leaderboard_config(std::istream& in, const std::string& source,
                                                      LeaderboardRow row) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw core::ConfigError({source, 0, 0}, "", fmt::format("not JSON: {}", e.what()));
  }
  if (number(j, "PP", source, 1024.0) != 1.0) return std::nullopt;
  const double tp = number(j, "TP", source, 72.0);
  if (tp != std::floor(tp)) throw core::ConfigError({source, 0, 0}, "TP", "not a whole number of GPUs");
  row.where = {source, 0, 0};
  row.tp = static_cast<std::uint32_t>(tp);
  row.batch = number(j, "Avg BS (reqs)", source, 1e6);
  row.output_tokens = number(j, "Avg Output Tokens", source, 16777216.0);
  row.energy_J = number(j, "Energy/req (J)", source, 1e12);
  row.tpot_s = number(j, "Avg TPOT (s)", source, 3600.0);
  // A GPU without NVLink serves one GPU a replica.
  ServingReplica probe = replica_of(row);
  if (const auto [key, why] = replica_problem(probe); !key.empty())
    throw core::ConfigError({source, 0, 0}, "TP", why);
  return row;
}

LeaderboardPrediction predict_leaderboard_row(const LeaderboardRow& row, double prompt_tokens,
                                              const ServingConstants& constants) {
  const ServingReplica replica = replica_of(row);
  IterationBatch decode;
  decode.decode_sequences = row.batch;
  decode.decode_context_tokens = row.batch * (prompt_tokens + row.output_tokens / 2.0);
  const IterationCost d = serving_iteration(replica, decode, constants);
  LeaderboardPrediction p;
  p.tpot_s = d.time_s;
  // A token's iteration is shared by the batch; each request runs `output` of them.
  p.energy_J = d.power_W * replica.tp * d.time_s * row.output_tokens / row.batch;
  if (prompt_tokens > 0.0) {
    IterationBatch prompt;
    prompt.prefill_tokens = prompt_tokens;
    prompt.prefill_sequences = 1.0;
    prompt.prefill_attended_keys = prompt_tokens * (prompt_tokens + 1.0) / 2.0;
    const IterationCost pc = serving_iteration(replica, prompt, constants);
    p.energy_J += pc.power_W * replica.tp * pc.time_s;
  }
  return p;
}

LeaderboardCheck check_energy_leaderboard(const std::vector<LeaderboardRow>& rows) {
  LeaderboardCheck c;
  for (const LeaderboardRow& row : rows) {
    const auto s = predict_leaderboard_row(row, kLeaderboardShortPrompt);
    const auto l = predict_leaderboard_row(row, kLeaderboardLongPrompt);
    add(c.groups[fmt::format("{} {} tp{}", row.gpu, row.model, row.tp)], row, s, l);
    add(c.gpus[row.gpu], row, s, l);
    add(c.all, row, s, l);
  }
  for (auto& [k, e] : c.groups) finish(e);
  for (auto& [k, e] : c.gpus) finish(e);
  finish(c.all);
  return c;
}

}  // namespace fleetwatt::models
