// Registry entries of the first-principles predictors: read and validate their [predictor] parameters.
#include "fleetwatt/models/datasheet_predictor.hpp"
#include "fleetwatt/models/table_predictor.hpp"

namespace fleetwatt::models {
namespace {

double fraction(const workloads::ParamSet& p, const char* key, double fallback) {
  const double v = p.get_double(key, fallback);
  if (v < 0.0 || v > 1.0) throw workloads::ConfigError(p.where_of(key), key, "must lie in [0, 1]");
  return v;
}

}  // namespace

std::vector<PredictorEntry> first_principles_predictor_entries() {
  std::vector<PredictorEntry> out;
  out.push_back(
      {"datasheet",
       "default: step time from FLOPs (power-law efficiency), activations, per-step overhead and data "
       "loading; "
       "power from the component model; job classes fall back to the table",
       [](const workloads::PredictorConfig& c) -> std::unique_ptr<PowerPredictor> {
         const auto& p = c.params;
         p.require_known(
             {"power_limit_w", "storage_gbytes_per_s", "comm_overlap", "default_workers", "epoch_end_s"});
         DatasheetParams d;
         d.power_limit_W = p.has("power_limit_w") ? p.get_positive("power_limit_w", 0.0) : 0.0;
         d.storage_Bps = p.get_positive("storage_gbytes_per_s", d.storage_Bps / 1e9) * 1e9;
         d.comm_overlap = fraction(p, "comm_overlap", d.comm_overlap);
         d.default_workers = static_cast<std::uint32_t>(p.get_positive("default_workers", d.default_workers));
         d.epoch_end_s = p.get_double("epoch_end_s", d.epoch_end_s);
         if (d.epoch_end_s < 0.0)
           throw workloads::ConfigError(p.where_of("epoch_end_s"), "epoch_end_s", "must not be negative");
         return std::make_unique<DatasheetPredictor>(d, std::make_unique<TablePredictor>(c.classes));
       }});
  out.push_back(
      {"component",
       "explainer's component model: FLOPs at an assumed MFU, P = P_idle + P_dyn + P_mem_io at an assumed "
       "utilisation; job classes fall back to the table",
       [](const workloads::PredictorConfig& c) -> std::unique_ptr<PowerPredictor> {
         const auto& p = c.params;
         p.require_known({"mfu", "utilisation", "memory_activity", "fusion_factor", "pipeline_factor",
                          "storage_gbytes_per_s", "epoch_end_s"});
         ComponentPredictorParams d;
         d.mfu = fraction(p, "mfu", d.mfu);
         if (d.mfu == 0.0) throw workloads::ConfigError(p.where_of("mfu"), "mfu", "must be positive");
         d.utilisation = fraction(p, "utilisation", d.utilisation);
         d.memory_activity = fraction(p, "memory_activity", d.memory_activity);
         d.fusion_factor = p.get_positive("fusion_factor", d.fusion_factor);
         d.pipeline_factor = fraction(p, "pipeline_factor", d.pipeline_factor);
         d.storage_Bps = p.get_positive("storage_gbytes_per_s", d.storage_Bps / 1e9) * 1e9;
         d.epoch_end_s = p.get_double("epoch_end_s", d.epoch_end_s);
         return std::make_unique<ComponentPredictor>(d, std::make_unique<TablePredictor>(c.classes));
       }});
  return out;
}

}  // namespace fleetwatt::models
