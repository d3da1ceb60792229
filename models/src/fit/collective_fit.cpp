// Intra-node NCCL collectives, fitted: vidur's reader and the per-GPU fit of each link with its
// leave-one-GPU-out check (see the header).
#include "fleetwatt/models/fit/collective_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include "fleetwatt/core/checked_integer.hpp"
#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/median.hpp"

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
    s.ranks = core::checked_integer<std::uint32_t>(ranks, reader.where(*row, *reader.column("num_workers")),
                                                   "num_workers");
    s.bytes = bytes, s.seconds = ms / 1000.0;
    out.push_back(s);
  }
}

/// Bytes each rank moves over its link per message byte: 2 (n - 1) / n for a ring all_reduce, 1 for
/// send_recv.
double traffic(const std::string& op, double ranks) {
  return op == "all_reduce" ? 2.0 * (ranks - 1.0) / ranks : 1.0;
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

/// The fits alone (no leave-one-GPU-out check).
CollectiveFit fit_without_check(const std::vector<CollectiveSample>& samples, const std::string& skip_gpu) {
  std::map<std::pair<std::string, std::string>, std::vector<const CollectiveSample*>> groups;
  for (const auto& s : samples)
    if (s.gpu != skip_gpu && s.bytes >= kMinFitBytes && s.seconds > 0.0) groups[{s.gpu, s.op}].push_back(&s);
  CollectiveFit fit;
  for (const auto& [key, rows] : groups) {
    const auto hw = find_gpu_preset(key.first);
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

CollectiveFit fit_collectives(const std::vector<CollectiveSample>& samples) {
  CollectiveFit fit = fit_without_check(samples, "");
  std::set<std::string> gpus;
  for (const auto& [g, f] : fit.all_reduce) gpus.insert(g);
  for (const auto& [g, f] : fit.send_recv) gpus.insert(g);
  for (const auto& gpu : gpus) {
    const CollectiveFit without = fit_without_check(samples, gpu);
    const GpuHardware hw = *find_gpu_preset(gpu);  // every fitted GPU is a preset (fit_without_check)
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

}  // namespace fleetwatt::models
