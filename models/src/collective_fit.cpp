// Intra-node NCCL collectives: vidur's reader, the per-GPU fit with its leave-one-GPU-out check, the rule
// that gives any NVLink GPU a link, and the TOML file of the built-in fit (see the header).
#include "fleetwatt/models/collective_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>

#include "embedded_collectives.hpp"
#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/median.hpp"
#include "fleetwatt/core/toml_table.hpp"

namespace fleetwatt::models {
namespace {

namespace fs = std::filesystem;
using core::ConfigError;

/// vidur's node folders and their presets. The *_pairwise_nvlink folders are not read: their A100 and H100
/// send_recv.csv are byte-identical, so at least one of them is not the GPU it names.
constexpr std::pair<const char*, const char*> kFolders[] = {{"a100_dgx", "a100-sxm-80gb"},
                                                            {"h100_dgx", "h100-sxm"}};
constexpr const char* kOps[] = {"all_reduce", "send_recv"};

/// Messages the fit reads: 1 MiB and more.
constexpr double kMinFitBytes = 1024.0 * 1024.0;

void read_csv(const fs::path& file, const std::string& gpu, const std::string& op,
              std::vector<CollectiveSample>& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({file.string(), 0, 0}, "file", "cannot open the collective file");
  core::CsvReader reader(in, file.string());
  reader.read_header({});
  const std::string time_col = fmt::format("time_stats.{}.median", op);
  for (const std::string& col :
       {time_col, std::string("num_workers"), std::string("size"), std::string("devices_per_node")})
    if (!reader.column(col)) throw ConfigError({file.string(), 1, 0}, col, "missing column in vidur's file");
  while (const auto row = reader.next()) {
    const auto number = [&](const std::string& col, const char* what) {
      const std::size_t i = *reader.column(col);
      const auto where = reader.where(*row, i);
      if (i >= row->fields.size()) throw ConfigError(where, col, "the row ends before it");
      const auto v = core::parse_number(row->fields[i].text);
      if (!v || !(*v > 0.0))
        throw ConfigError(where, col, fmt::format("'{}' is not {}", row->fields[i].text, what));
      return *v;
    };
    const double ranks = number("num_workers", "a count of GPUs");
    const double per_node = number("devices_per_node", "a count of GPUs");
    const double bytes = number("size", "a message size in bytes");
    const double ms = number(time_col, "a time in milliseconds");
    if (ranks != std::floor(ranks) || ranks < 2.0)
      throw ConfigError(reader.where(*row, *reader.column("num_workers")), "num_workers",
                        "must be a whole number of 2 or more");
    if (per_node != ranks) continue;  // across nodes: the network's time, not NVLink's
    CollectiveSample s;
    s.where = {file.string(), row->line, 0};
    s.gpu = gpu, s.op = op;
    s.ranks = static_cast<std::uint32_t>(ranks);
    s.bytes = bytes, s.seconds = ms / 1000.0;
    out.push_back(s);
  }
}

/// Bytes each rank moves over its link per message byte: 2 (n - 1) / n for a ring all_reduce, 1 for
/// send_recv.
double traffic(const std::string& op, double ranks) {
  return op == "all_reduce" ? 2.0 * (ranks - 1.0) / ranks : 1.0;
}

/// The built-in preset of this id, or nothing.
std::optional<GpuHardware> preset(const std::string& id) {
  for (const auto& g : gpu_presets())
    if (g.id == id) return g;
  return std::nullopt;
}

/// t_pred / t - 1 = alpha y + x / f - 1 with y = 1 / t, x = traffic bytes / (nvlink t): least squares in
/// closed form (alpha in microseconds for the scale), alpha held at 0 where it would come out negative.
LinkFit fit_link(const std::vector<const CollectiveSample*>& rows, double nvlink_Bps) {
  double xx = 0, xy = 0, yy = 0, x1 = 0, y1 = 0;
  for (const auto* s : rows) {
    const double x = traffic(s->op, s->ranks) * s->bytes / (nvlink_Bps * s->seconds), y = 1e-6 / s->seconds;
    xx += x * x, xy += x * y, yy += y * y, x1 += x, y1 += y;
  }
  LinkFit f;
  f.samples = rows.size();
  double g = x1 / xx, alpha_us = 0.0;  // g = 1 / f
  const double det = xx * yy - xy * xy;
  if (det > 0.0) {
    const double g2 = (x1 * yy - y1 * xy) / det, a2 = (xx * y1 - xy * x1) / det;
    if (a2 >= 0.0 && g2 > 0.0) g = g2, alpha_us = a2;
  }
  f.alpha_s = alpha_us * 1e-6, f.fraction = 1.0 / g;
  return f;
}

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
      const auto hw = preset(id);
      if (hw && hw->arch == arch) alpha.push_back(f.alpha_s), fraction.push_back(f.fraction);
    }
    if (alpha.empty()) return std::nullopt;
    return CollectiveLink{core::median(alpha), core::median(fraction) * gpu.nvlink_bw_Bps, std::move(rule)};
  };
  if (!gpu.arch.empty())
    if (auto l = family(gpu.arch, "family " + gpu.arch)) return *l;
  std::string latest;
  for (const auto& [id, f] : fits) {
    const auto hw = preset(id);
    const std::string arch = hw ? hw->arch : "";
    if (latest.empty() || generation(arch) > generation(latest)) latest = arch;
  }
  if (auto l = family(latest, latest + "'s, the most recent measured generation")) return *l;
  // Fitted GPUs without a preset: the first one.
  const auto& [id, f] = *fits.begin();
  return {f.alpha_s, f.fraction * gpu.nvlink_bw_Bps, id + "'s"};
}

/// The fits alone (no leave-one-GPU-out check).
CollectiveFit fit_without_check(const std::vector<CollectiveSample>& samples, const std::string& skip_gpu) {
  std::map<std::pair<std::string, std::string>, std::vector<const CollectiveSample*>> groups;
  for (const auto& s : samples)
    if (s.gpu != skip_gpu && s.bytes >= kMinFitBytes && s.seconds > 0.0) groups[{s.gpu, s.op}].push_back(&s);
  CollectiveFit fit;
  for (const auto& [key, rows] : groups) {
    const auto hw = preset(key.first);
    if (!hw || !(hw->nvlink_bw_Bps > 0.0)) continue;
    (key.second == "all_reduce" ? fit.all_reduce : fit.send_recv)[key.first] =
        fit_link(rows, hw->nvlink_bw_Bps);
  }
  return fit;
}

}  // namespace

std::vector<CollectiveSample> read_vidur_collectives(const std::filesystem::path& network_dir) {
  std::error_code ec;
  if (!fs::is_directory(network_dir, ec))
    throw ConfigError({network_dir.string(), 0, 0}, "folder", "no such folder");
  std::vector<CollectiveSample> out;
  for (const auto& [folder, gpu] : kFolders)
    for (const char* op : kOps) {
      const fs::path file = network_dir / folder / (std::string(op) + ".csv");
      if (fs::exists(file, ec)) read_csv(file, gpu, op, out);
    }
  return out;
}

CollectiveLink all_reduce_link(const CollectiveFit& fit, const GpuHardware& gpu) {
  return link(fit.all_reduce, gpu, "all_reduce");
}

CollectiveLink send_recv_link(const CollectiveFit& fit, const GpuHardware& gpu) {
  return link(fit.send_recv, gpu, "send_recv");
}

CollectiveFit fit_collectives(const std::vector<CollectiveSample>& samples) {
  CollectiveFit fit = fit_without_check(samples, "");
  std::set<std::string> gpus;
  for (const auto& [g, f] : fit.all_reduce) gpus.insert(g);
  for (const auto& [g, f] : fit.send_recv) gpus.insert(g);
  for (const auto& gpu : gpus) {
    const CollectiveFit without = fit_without_check(samples, gpu);
    const GpuHardware hw = *preset(gpu);  // every fitted GPU is a preset (fit_without_check)
    for (const char* op : kOps) {
      const bool ar = std::string(op) == "all_reduce";
      if (!(ar ? fit.all_reduce : fit.send_recv).count(gpu) ||
          (ar ? without.all_reduce : without.send_recv).empty())
        continue;
      const CollectiveLink l = ar ? all_reduce_link(without, hw) : send_recv_link(without, hw);
      std::vector<double> err;
      for (const auto& s : samples)
        if (s.gpu == gpu && s.op == op && s.bytes >= kMinFitBytes) {
          const double pred = l.alpha_s + traffic(s.op, s.ranks) * s.bytes / l.bus_Bps;
          err.push_back(std::abs(pred / s.seconds - 1.0));
        }
      (ar ? fit.loo_error_all_reduce : fit.loo_error_send_recv)[gpu] = core::median(err);
    }
  }
  std::size_t fitted = 0;
  for (const auto& s : samples) fitted += s.bytes >= kMinFitBytes ? 1 : 0;
  fit.provenance = fmt::format(
      "{} intra-node NCCL timings of {} GPUs in vidur's network profiles ({} of 1 MiB and more fitted)",
      samples.size(), gpus.size(), fitted);
  return fit;
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
      "# Intra-node NCCL collectives (models/collective_fit.hpp): all_reduce t = alpha + 2 (n - 1) / n bytes "
      "/\n"
      "# (fraction nvlink), send_recv t = alpha + bytes / (fraction nvlink), nvlink the preset's NVLink "
      "bandwidth\n"
      "# per direction. Generated: do not edit; run tools/scripts/fit-collectives.sh.\n";
  out += fmt::format("provenance = \"{}\"\n", fit.provenance);
  for (const auto& [name, links] :
       {std::pair{"all_reduce", &fit.all_reduce}, std::pair{"send_recv", &fit.send_recv}})
    for (const auto& [gpu, f] : *links) {
      const auto hw = preset(gpu);
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
