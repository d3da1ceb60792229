// A scenario's predictor configuration with its fleet's and fabric's links (see the header).
#include "fleetwatt/runs/scenario_predictor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/site_predictor.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"

namespace fleetwatt::runs {

models::PredictorConfig scenario_predictor_config(const runs::Scenario& s) {
  models::PredictorConfig c = s.predictor;
  const bool datasheet = c.kind == "datasheet", component = c.kind == "component";
  if (!datasheet && !component) return c;
  const jobs::SourceLocation at =
      s.fleet.groups.empty() ? s.fleet.gpu_origin : s.fleet.groups.front().gpu_origin;
  const std::uint32_t per_node =
      s.fleet.groups.empty() ? s.fleet.gpus_per_node : s.fleet.groups.front().gpus_per_node;
  if (datasheet && !c.params.has("gpus_per_node")) {
    // The preset's NVLink domain where it spans several nodes (a GB200 NVL72 rack of 4-GPU trays).
    std::uint32_t domain = per_node;
    try {
      const std::string& id = s.fleet.groups.empty() ? s.fleet.gpu : s.fleet.groups.front().gpu;
      const models::GpuHardware gpu = models::find_gpu(id, {});
      if (gpu.nvlink_domain_gpus > domain) domain = gpu.nvlink_domain_gpus;
    } catch (const std::out_of_range&) {
      // A GPU from the scenario's own preset file: the node is its domain.
    }
    c.params.set("gpus_per_node", {static_cast<double>(domain), at});
  }
  if (!s.topology) return c;
  const topologies::TopologyConfig t = topologies::parse_topology_config(*s.topology, s.file.parent_path());
  const auto settle = [&](const char* key, double value, const char* why) {
    if (c.params.has(key))
      throw jobs::ConfigError(c.params.where_of(key), c.params.dotted(key),
                              fmt::format("the [topology] sets it ({}); give it there, not here", why));
    c.params.set(key, {value, s.topology->where()});
  };
  if (datasheet && per_node > 0) {
    // Each GPU's share of its server's NICs, at most its own PCIe link to them (the scenario's pcie_gbps,
    // else the GPU preset's, as the run builds the fabric).
    double pcie = t.node.pcie.bandwidth_Bps;
    if (!t.pcie_set) {
      const std::string& id = s.fleet.groups.empty() ? s.fleet.gpu : s.fleet.groups.front().gpu;
      try {
        const models::GpuHardware gpu = models::find_gpu(id, {});
        if (gpu.pcie_bw_Bps > 0.0) pcie = gpu.pcie_bw_Bps;
      } catch (const std::out_of_range&) {
      }
    }
    settle("internode_gbytes_per_s", std::min(t.nic_link.bandwidth_Bps * t.node.nics / per_node, pcie) / 1e9,
           "nics_per_node x nic_gbps / gpus_per_node, at most the GPU's PCIe");
  }
  if (t.storage.servers > 0)
    settle("storage_gbytes_per_s", t.storage.servers * t.storage.link.bandwidth_Bps / 1e9,
           "storage_servers x storage_gbps");
  return c;
}

std::filesystem::path scenario_site(const runs::Scenario& s, const std::string& gpu) {
  for (const auto& g : s.fleet.groups)
    if (g.gpu == gpu && !g.site.empty()) return g.site;
  return s.fleet.site;
}

std::shared_ptr<const models::SiteCorrection> scenario_site_correction(const runs::Scenario& s,
                                                                       const std::string& kind) {
  models::SiteFile merged;
  bool any = false;
  if (s.fleet.groups.empty()) {
    if (s.fleet.site.empty()) return nullptr;
    merged = models::read_site_file(s.fleet.site);
    any = true;
  } else {
    std::set<std::string> types;
    for (const auto& g : s.fleet.groups) {
      if (!types.insert(g.gpu).second) continue;  // the loader checked that a type has one site
      const std::filesystem::path site = scenario_site(s, g.gpu);
      if (site.empty()) continue;
      any = true;
      for (auto& run : models::read_site_file(site).runs)
        if (models::record_gpu(run.run.gpu_type) == g.gpu) merged.runs.push_back(std::move(run));
    }
  }
  if (!any) return nullptr;
  const auto& file = s.fleet.gpu_file;
  return models::site_correction(
      merged, models::registry_predictor(kind, file.empty() ? std::vector<models::GpuHardware>{}
                                                            : models::load_gpu_preset_file(file)));
}

}  // namespace fleetwatt::runs
