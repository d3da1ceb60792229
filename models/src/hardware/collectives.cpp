// Intra-node NCCL collectives' constants: the rule that gives any NVLink GPU a link from the fitted ones, and
// the TOML file of the built-in fit (see the header). How the links are fitted is collective_fit.cpp.
#include "fleetwatt/models/hardware/collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "embedded_collectives.hpp"
#include "fleetwatt/core/median.hpp"
#include "fleetwatt/core/toml_table.hpp"

namespace fleetwatt::models {
namespace {

using core::ConfigError;

/// The release order of the architecture families, oldest first: "the most recent measured generation".
int generation(const std::string& arch) {
  static const std::vector<std::string> order{"maxwell", "pascal", "volta",  "turing", "ampere",   "cdna1",
                                              "cdna2",   "ada",    "hopper", "cdna3",  "blackwell"};
  const auto it = std::find(order.begin(), order.end(), arch);
  return it == order.end() ? -1 : static_cast<int>(it - order.begin());
}

CollectiveLink link(const std::map<std::string, LinkFit>& fits, const GpuHardware& gpu, const char* op) {
  if (fits.empty()) throw std::invalid_argument(fmt::format("{} link: the fit has no GPU", op));
  if (!(gpu.nvlink_bw_Bps > 0.0))
    throw std::invalid_argument(fmt::format("{} link: {} has no NVLink", op, gpu.id));
  if (const auto it = fits.find(gpu.id); it != fits.end())
    return {it->second.alpha_s, it->second.fraction * gpu.nvlink_bw_Bps, "fitted"};
  // The fitted GPUs of one family, their medians.
  const auto family = [&](const std::string& arch, std::string rule) -> std::optional<CollectiveLink> {
    std::vector<double> alpha, fraction;
    for (const auto& [id, f] : fits) {
      const auto hw = find_gpu_preset(id);
      if (hw && hw->arch == arch) alpha.push_back(f.alpha_s), fraction.push_back(f.fraction);
    }
    if (alpha.empty()) return std::nullopt;
    return CollectiveLink{core::median(alpha), core::median(fraction) * gpu.nvlink_bw_Bps, std::move(rule)};
  };
  if (!gpu.arch.empty())
    if (auto l = family(gpu.arch, "family " + gpu.arch)) return *l;
  std::string latest;
  for (const auto& [id, f] : fits) {
    const auto hw = find_gpu_preset(id);
    const std::string arch = hw ? hw->arch : "";
    if (latest.empty() || generation(arch) > generation(latest)) latest = arch;
  }
  if (auto l = family(latest, latest + "'s, the most recent measured generation")) return *l;
  // Fitted GPUs without a preset: the first one.
  const auto& [id, f] = *fits.begin();
  return {f.alpha_s, f.fraction * gpu.nvlink_bw_Bps, id + "'s"};
}

}  // namespace

CollectiveLink all_reduce_link(const CollectiveFit& fit, const GpuHardware& gpu) {
  return link(fit.all_reduce, gpu, "all_reduce");
}

CollectiveLink send_recv_link(const CollectiveFit& fit, const GpuHardware& gpu) {
  return link(fit.send_recv, gpu, "send_recv");
}

CollectiveFit parse_collectives(std::string_view toml_text, const std::string& file) {
  const toml::table root = core::parse_toml(toml_text, file);
  const core::TomlTable top(root, "", file);
  top.require_known({"provenance", "all_reduce", "send_recv", "loo_error_all_reduce", "loo_error_send_recv"});
  CollectiveFit fit;
  fit.provenance = top.string("provenance").value_or("");
  for (const auto& [key, target] :
       {std::pair{"all_reduce", &fit.all_reduce}, std::pair{"send_recv", &fit.send_recv}})
    if (const auto t = top.table(key))
      for (const auto& [gpu, g] : t->named_tables()) {
        g.require_known({"alpha_s", "fraction", "samples"});
        const auto alpha = g.number_at_least("alpha_s", 0.0, false);
        const auto fraction = g.number_at_least("fraction", 0.0, true);
        if (!alpha || !fraction)
          throw ConfigError(g.where(), g.dotted("alpha_s"), "a link needs alpha_s and fraction");
        LinkFit f;
        f.alpha_s = *alpha, f.fraction = *fraction;
        f.samples = static_cast<std::size_t>(g.integer("samples", 0, std::int64_t{1} << 40).value_or(0));
        (*target)[gpu] = f;
      }
  if (fit.all_reduce.empty() || fit.send_recv.empty())
    throw ConfigError(top.where(), "all_reduce", "a collective fit needs all_reduce and send_recv links");
  for (const auto& [key, target] : {std::pair{"loo_error_all_reduce", &fit.loo_error_all_reduce},
                                    std::pair{"loo_error_send_recv", &fit.loo_error_send_recv}})
    if (const auto t = top.table(key))
      for (const auto& [gpu, node] : t->raw())
        (*target)[std::string(gpu.str())] = *t->number_at_least(std::string(gpu.str()), 0.0, false);
  return fit;
}

std::string format_collectives(const CollectiveFit& fit) {
  std::string out =
      "# Intra-node NCCL collectives (models/hardware/collectives.hpp):\n"
      "# all_reduce t = alpha + 2 (n - 1) / n bytes / (fraction nvlink),\n"
      "# send_recv t = alpha + bytes / (fraction nvlink),\n"
      "# nvlink the preset's NVLink bandwidth per direction.\n"
      "# Generated: do not edit; run tools/scripts/fit-collectives.sh.\n";
  out += fmt::format("provenance = \"{}\"\n", fit.provenance);
  for (const auto& [name, links] :
       {std::pair{"all_reduce", &fit.all_reduce}, std::pair{"send_recv", &fit.send_recv}})
    for (const auto& [gpu, f] : *links) {
      const auto hw = find_gpu_preset(gpu);
      const double nvlink = hw ? hw->nvlink_bw_Bps : 0.0;
      out += fmt::format(
          "\n[{}.\"{}\"]\nalpha_s = {:.6g}\nfraction = {:.6g}  # bus {:.0f} GB/s of NVLink {:.0f} GB/s\n"
          "samples = {}\n",
          name, gpu, f.alpha_s, f.fraction, f.fraction * nvlink / 1e9, nvlink / 1e9, f.samples);
    }
  out +=
      "\n# Leave-one-GPU-out: median |predicted / measured time - 1| of each GPU's messages of 1 MiB and "
      "more,\n"
      "# predicted by the other GPUs' fit.\n";
  for (const auto& [name, errors] : {std::pair{"loo_error_all_reduce", &fit.loo_error_all_reduce},
                                     std::pair{"loo_error_send_recv", &fit.loo_error_send_recv}}) {
    out += fmt::format("{}[{}]\n", errors == &fit.loo_error_all_reduce ? "" : "\n", name);
    for (const auto& [g, e] : *errors) out += fmt::format("\"{}\" = {:.4g}\n", g, e);
  }
  return out;
}

const CollectiveFit& default_collectives() {
  static const CollectiveFit fit = parse_collectives(detail::kEmbeddedCollectives, "collectives.toml");
  return fit;
}

}  // namespace fleetwatt::models