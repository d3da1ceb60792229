// Registry entries of the first-principles predictors: their declared [predictor] parameters (defaults
// from the parameter structs, so the declaration and the code agree) and the checks of their values.
#include <fmt/format.h>

#include <cmath>

#include "fleetwatt/core/checked_integer.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"
#include "fleetwatt/models/predictors/table_predictor.hpp"

namespace fleetwatt::models {
namespace {

using jobs::ParamSpec;
using jobs::ParamSpecs;
using jobs::ParamType;

double fraction(const jobs::ParamSet& p, const char* key) {
  const double v = p.get_double(key);
  if (v < 0.0 || v > 1.0) throw jobs::ConfigError(p.where_of(key), p.dotted(key), "must lie in [0, 1]");
  return v;
}

ParamSpec storage_param(double storage_Bps) {
  return {"storage_gbytes_per_s",
          ParamType::number,
          storage_Bps / 1e9,
          "",
          "GB/s",
          "checkpoint write bandwidth per GPU",
          {}};
}

ParamSpec epoch_end_param(double epoch_end_s) {
  return {"epoch_end_s",
          ParamType::number,
          epoch_end_s,
          "",
          "s",
          "fixed end-of-epoch work (loader restart, hooks)",
          {}};
}

ParamSpecs datasheet_params() {
  const DatasheetParams d;
  return {
      {"power_limit_w", ParamType::number, {}, "the GPU's TDP", "W", "board power limit", {}},
      {"storage_gbytes_per_s",
       ParamType::number,
       {},
       "1 GB/s per GPU that writes (with a [topology]: its storage servers')",
       "GB/s",
       "storage bandwidth a job's checkpoint writers share",
       {}},
      {"comm_overlap",
       ParamType::number,
       d.comm_overlap,
       "",
       "",
       "share of the all-reduce hidden behind the backward pass (the training-I/O default)",
       {}},
      {"default_workers",
       ParamType::number,
       static_cast<double>(d.default_workers),
       "",
       "",
       "data-loader workers per GPU when a job does not say",
       {}},
      {"gpus_per_node",
       ParamType::number,
       {},
       "[fleet] gpus_per_node, or the GPU preset's NVLink domain (else 8)",
       "",
       "GPUs per NVLink domain of an LLM job's step (the parallel groups inside it use NVLink)",
       {}},
      {"internode_gbytes_per_s",
       ParamType::number,
       {},
       "[topology]'s NICs per GPU, else the GPU's PCIe figure",
       "GB/s",
       "inter-node bandwidth per GPU of an LLM job's traffic that leaves the NVLink domain",
       {}},
      {"host_gbytes_per_s",
       ParamType::number,
       {},
       "the GPU's PCIe figure",
       "GB/s",
       "device-to-host copy rate per GPU of an asynchronous checkpoint (the GPUs' stall)",
       {}},
      {"epoch_end_s",
       ParamType::number,
       {},
       fmt::format("the fit's ({:.3g} s)", d.fit.time.epoch_end_s),
       "s",
       "fixed end-of-epoch work (loader restart, hooks)",
       {}},
  };
}

ParamSpecs component_params() {
  const ComponentPredictorParams d;
  return {
      {"mfu", ParamType::number, d.mfu, "", "", "achieved fraction of peak FLOP/s", {}},
      {"utilisation", ParamType::number, d.utilisation, "", "", "SM utilisation in the compute phase", {}},
      {"memory_activity",
       ParamType::number,
       d.memory_activity,
       "",
       "",
       "share of the memory/I-O power budget in use",
       {}},
      {"fusion_factor", ParamType::number, d.fusion_factor, "", "", "kernel-fusion power factor", {}},
      {"pipeline_factor", ParamType::number, d.pipeline_factor, "", "", "pipeline-efficiency factor", {}},
      storage_param(d.storage_Bps),
      epoch_end_param(d.epoch_end_s),
  };
}

}  // namespace

std::vector<PredictorEntry> first_principles_predictor_entries() {
  std::vector<PredictorEntry> out;
  out.push_back(
      {"datasheet",
       "default: epoch parts (compute, comm, io, checkpoint) from a roofline over operator classes with "
       "kernel launches, the all-reduce and data loading; power from the achieved fraction of the roofline "
       "between resident floor and saturation, capped by the clock model; constants and band fitted on the "
       "shared measurements; job classes fall back to the table",
       datasheet_params(), [](const models::PredictorConfig& c) -> std::unique_ptr<PowerPredictor> {
         const auto& p = c.params;
         DatasheetParams d;
         d.power_limit_W = p.has("power_limit_w") ? p.get_positive("power_limit_w", 0.0) : 0.0;
         if (p.has("storage_gbytes_per_s")) d.storage_Bps = p.get_positive("storage_gbytes_per_s") * 1e9;
         d.comm_overlap = fraction(p, "comm_overlap");
         d.default_workers = core::checked_integer<std::uint32_t>(p.get_positive("default_workers"),
                                                                  p.where_of("default_workers"),
                                                                  p.dotted("default_workers"), 1, 1'000'000);
         if (p.has("gpus_per_node")) {
           const double per_node = p.get_positive("gpus_per_node");
           if (per_node != std::floor(per_node) || per_node > 1e6)
             throw jobs::ConfigError(p.where_of("gpus_per_node"), p.dotted("gpus_per_node"),
                                     fmt::format("must be a whole number of GPUs, got {}", per_node));
           d.gpus_per_node = static_cast<std::uint32_t>(per_node);
         }
         if (p.has("internode_gbytes_per_s"))
           d.internode_Bps = p.get_positive("internode_gbytes_per_s") * 1e9;
         if (p.has("host_gbytes_per_s")) d.host_Bps = p.get_positive("host_gbytes_per_s") * 1e9;
         if (p.has("epoch_end_s")) d.epoch_end_s = p.get_double("epoch_end_s");
         if (d.epoch_end_s && *d.epoch_end_s < 0.0)
           throw jobs::ConfigError(p.where_of("epoch_end_s"), p.dotted("epoch_end_s"),
                                   "must not be negative");
         return std::make_unique<DatasheetPredictor>(d, std::make_unique<TablePredictor>(c.classes));
       }});
  out.push_back(
      {"component",
       "explainer's component model: FLOPs at an assumed MFU, P = P_idle + P_dyn + P_mem_io at an assumed "
       "utilisation; job classes fall back to the table",
       component_params(), [](const models::PredictorConfig& c) -> std::unique_ptr<PowerPredictor> {
         const auto& p = c.params;
         ComponentPredictorParams d;
         d.mfu = fraction(p, "mfu");
         if (d.mfu == 0.0) throw jobs::ConfigError(p.where_of("mfu"), p.dotted("mfu"), "must be positive");
         d.utilisation = fraction(p, "utilisation");
         d.memory_activity = fraction(p, "memory_activity");
         d.fusion_factor = p.get_positive("fusion_factor");
         d.pipeline_factor = fraction(p, "pipeline_factor");
         // It divides the compute time, as the MFU does: 0 made every time infinite (found by the generated
         // scenarios: a preset's run-time match then failed unlocated).
         if (d.pipeline_factor == 0.0)
           throw jobs::ConfigError(p.where_of("pipeline_factor"), p.dotted("pipeline_factor"),
                                   "must be positive");
         d.storage_Bps = p.get_positive("storage_gbytes_per_s") * 1e9;
         d.epoch_end_s = p.get_double("epoch_end_s");
         return std::make_unique<ComponentPredictor>(d, std::make_unique<TablePredictor>(c.classes));
       }});
  return out;
}

}  // namespace fleetwatt::models
