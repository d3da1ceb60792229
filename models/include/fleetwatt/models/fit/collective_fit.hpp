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
#include "fleetwatt/models/hardware/collectives.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"

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

/// Least squares of the relative time errors per GPU and collective, on messages of 1 MiB and more (alpha
/// held at 0 or above; closed form, deterministic), with the leave-one-GPU-out errors.
[[nodiscard]] CollectiveFit fit_collectives(const std::vector<CollectiveSample>& samples);

}  // namespace fleetwatt::models
