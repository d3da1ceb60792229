// Intra-node NCCL collective times on a GPU's NVLink domain, from constants fitted on vidur's measurements
// (how: models/fit/collective_fit.hpp):
//   all_reduce(n ranks, bytes) = alpha_ar + 2 (n - 1) / n x bytes / (f_ar x nvlink)
//   send_recv(bytes)           = alpha_p2p + bytes / (f_p2p x nvlink)
// nvlink = GpuHardware::nvlink_bw_Bps (per direction); f is the bus bandwidth as a fraction of it. The
// built-in constants are models/data/collectives.toml (compiled in).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"

namespace fleetwatt::models {

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

/// The built-in fit (models/data/collectives.toml).
[[nodiscard]] const CollectiveFit& default_collectives();
/// Parses a fit file; throws core::ConfigError naming file, line and key.
[[nodiscard]] CollectiveFit parse_collectives(std::string_view toml_text, const std::string& file);
/// The TOML text parse_collectives reads back (6 significant digits).
[[nodiscard]] std::string format_collectives(const CollectiveFit& fit);

}  // namespace fleetwatt::models
