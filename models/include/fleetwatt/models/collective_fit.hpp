// Intra-node NCCL collective times, fitted on vidur's measurements on 8-GPU DGX A100 and H100 nodes
// (../shared/data/vidur-mlsys24/network/{a100_dgx,h100_dgx}): per GPU,
//   all_reduce(n ranks, bytes) = alpha_ar + 2 (n - 1) / n x bytes / (f_ar x nvlink)
//   send_recv(bytes)           = alpha_p2p + bytes / (f_p2p x nvlink)
// nvlink = GpuHardware::nvlink_bw_Bps (per direction). f is the bus bandwidth as a fraction of the NVLink
// figure, so that a GPU without measurements takes a measured generation's fraction of its own NVLink. The
// fraction carries over between generations better than the raw bandwidth does: well for send_recv (6-11 %
// median error with the other GPU's fit), poorly for all_reduce (31-45 %: the A100 reaches 0.55 of its NVLink
// rate, the H100 0.76, probably helped by NVSwitch 3 and a newer NCCL). alpha and f are fitted on messages
// of 1 MiB and more: smaller ones are latency noise (bimodal between about 7 and 40 us), and the step
// model's collectives move megabytes. The built-in fit is models/data/collectives.toml (compiled in;
// tools/scripts/fit-collectives.sh regenerates it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/gpu_hardware.hpp"

namespace fleetwatt::models {

/// One measured collective: the median time of one message size, rank count and GPU.
struct CollectiveSample {
  core::SourceLocation where;  ///< file and line of the row
  std::string gpu;             ///< preset id
  std::string op;              ///< "all_reduce" or "send_recv"
  std::uint32_t ranks = 0;     ///< GPUs taking part (2 for send_recv)
  double bytes = 0;            ///< message size
  double seconds = 0;          ///< median time
};

/// vidur's NCCL measurements under `network_dir` (vidur-mlsys24/network): a100_dgx/ and h100_dgx/ (the
/// presets a100-sxm-80gb and h100-sxm), all_reduce.csv and send_recv.csv in each, the rows whose ranks all
/// sit on one node (devices_per_node = num_workers: the NVLink domain; the others cross the network). Throws
/// core::ConfigError (file:line, column) for a row that does not parse.
[[nodiscard]] std::vector<CollectiveSample> read_vidur_collectives(const std::filesystem::path& network_dir);

/// One collective's fit on one GPU.
struct LinkFit {
  double alpha_s = 0;   ///< fixed time per collective, s
  double fraction = 1;  ///< bus bandwidth / the GPU's NVLink bandwidth per direction
  std::size_t samples = 0;
};

/// The fits per GPU preset, with their leave-one-GPU-out check.
struct CollectiveFit {
  std::map<std::string, LinkFit> all_reduce, send_recv;  ///< per GPU preset
  /// Per GPU: the median relative time error |predicted / measured - 1| of its messages (1 MiB and more)
  /// predicted by the fit without it (all_reduce_link / send_recv_link on the other GPUs' fits).
  std::map<std::string, double> loo_error_all_reduce, loo_error_send_recv;
  std::string provenance;
};

/// What one collective costs on a GPU's NVLink domain.
struct CollectiveLink {
  double alpha_s = 0;  ///< fixed time per collective, s
  double bus_Bps = 0;  ///< bus bandwidth: all_reduce moves 2 (n - 1) / n x bytes at it, send_recv bytes
  std::string rule;    ///< "fitted", "family <arch>" or "<arch>'s, the most recent measured generation"
};

/// all_reduce on the NVLink domain of `gpu`: its own fit, else its family's (GpuHardware::arch; the median
/// over the family's fitted GPUs), else that of the most recent measured generation, with the fraction
/// applied to this GPU's NVLink bandwidth. Throws std::invalid_argument for a GPU without NVLink
/// (nvlink_bw_Bps = 0: the fraction of a switched NVLink domain says nothing of PCIe) or an empty fit.
[[nodiscard]] CollectiveLink all_reduce_link(const CollectiveFit& fit, const GpuHardware& gpu);
/// The same for send_recv (point to point, as between pipeline stages).
[[nodiscard]] CollectiveLink send_recv_link(const CollectiveFit& fit, const GpuHardware& gpu);

/// Least squares of the relative time errors per GPU and collective, on messages of 1 MiB and more (alpha
/// held at 0 or above; closed form, deterministic), with the leave-one-GPU-out errors.
[[nodiscard]] CollectiveFit fit_collectives(const std::vector<CollectiveSample>& samples);

/// The built-in fit (models/data/collectives.toml).
[[nodiscard]] const CollectiveFit& default_collectives();
/// Parses a fit file; throws core::ConfigError naming file, line and key.
[[nodiscard]] CollectiveFit parse_collectives(std::string_view toml_text, const std::string& file);
/// The TOML text parse_collectives reads back (6 significant digits).
[[nodiscard]] std::string format_collectives(const CollectiveFit& fit);

}  // namespace fleetwatt::models
