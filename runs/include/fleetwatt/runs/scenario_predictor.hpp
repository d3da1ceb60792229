// The predictor configuration of a scenario as a run uses it: its [predictor] table, plus what the rest of
// the scenario says of the links a job's step and checkpoint use, so that `fleetwatt predict --scenario`
// and `fleetwatt run` plan a job on the same hardware: the NVLink domain is a node of [fleet]
// (gpus_per_node, unless the GPU preset's domain is larger, as a GB200 NVL72 rack's), and with a
// [topology] the inter-node bandwidth per GPU is its NICs' (nics_per_node x nic_gbps / gpus_per_node) and
// the checkpoint storage bandwidth its storage servers' (storage_servers x storage_gbps). And the site
// files whose measured runs correct the jobs' predictions, per GPU type.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "fleetwatt/models/site_correction.hpp"
#include "fleetwatt/runs/scenario.hpp"

namespace fleetwatt::runs {

/// `s.predictor` with the fleet's and the fabric's links filled in for a predictor that declares them
/// (datasheet: gpus_per_node, internode_gbytes_per_s, storage_gbytes_per_s; component: the storage). A key
/// the [topology] settles and the [predictor] table also gives is refused (ConfigError at that key): the
/// two would plan and run the same job on different links.
[[nodiscard]] models::PredictorConfig scenario_predictor_config(const runs::Scenario& s);

/// The site file whose runs correct jobs on GPU type `gpu`: its node group's (the first of that type), else
/// [fleet] site; empty: none.
[[nodiscard]] std::filesystem::path scenario_site(const runs::Scenario& s, const std::string& gpu);

/// The scenario's site runs as one correction (models/site_correction.hpp), each run predicted uncorrected
/// by predictor `kind`: a fleet without groups takes every run of [fleet] site; with groups, each GPU type
/// takes its own site's runs of that type. nullptr where no site is named.
[[nodiscard]] std::shared_ptr<const models::SiteCorrection> scenario_site_correction(const runs::Scenario& s,
                                                                                     const std::string& kind);

}  // namespace fleetwatt::runs
