// A GPU's own telemetry beside fleetwatt's predictions: the windows that
// tools/scripts/record-gpu-telemetry.py times on a real GPU (idle, decode batches, prompts, training steps;
// windows.csv beside the nvidia-smi log, each window's mean power from NVML's energy counter) against the
// serving iteration model, the training predictor and the GPU preset's idle draw. No constant is fitted on
// them: they check the models.
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "fleetwatt/sim/serving/service_run.hpp"

namespace fleetwatt::runs {

/// One timed window of the recording (windows.csv's row).
struct TelemetryWindow {
  std::string name, kind, model, gpu;  ///< kind: idle, resident, decode, prefill, train, eval, save or replay
  double start_s = 0.0, end_s = 0.0;   ///< seconds since the log's first sample
  double batch = 0.0;           ///< decode sequences, training samples per step, or a replay's largest batch
  double context_tokens = 0.0;  ///< each decode sequence's cached tokens
  double prompt_tokens = 0.0;   ///< a prefill's prompt
  double seq = 0.0;             ///< a training sample's tokens
  double iterations = 0.0;
  double time_per_iteration_s = 0.0;  ///< decode or prefill iteration, or training step (median)
  double energy_J = 0.0, mean_power_W = 0.0;
  std::uint32_t line = 0;  ///< windows.csv's line, for messages
};

/// Reads DIR/windows.csv (or the file itself); a bad row is a TraceFormatError naming the file, line,
/// column and field.
[[nodiscard]] std::vector<TelemetryWindow> read_telemetry_windows(const std::filesystem::path& path);
/// Same, from a stream; `source` names it in messages.
[[nodiscard]] std::vector<TelemetryWindow> read_telemetry_windows(std::istream& in,
                                                                  const std::string& source);

/// One window measured and predicted.
struct TelemetryComparison {
  const TelemetryWindow* window = nullptr;
  double predicted_s = 0.0;  ///< iteration or step (0 for idle and a replay)
  double predicted_W = 0.0;  ///< a replay's: the served trace's predicted energy over the window's length
};

/// Errors of one kind of window (decode, prefill, train, idle).
struct TelemetryErrors {
  std::size_t rows = 0;
  /// mean |predicted / measured - 1|; the time's NaN where no row of the kind is timed (idle, replay)
  double time_mre = 0.0, power_mre = 0.0;
  double time_bias = 0.0, power_bias = 0.0;  ///< mean (predicted / measured - 1)
};

struct TelemetryCheck {
  std::vector<TelemetryComparison> rows;
  std::map<std::string, TelemetryErrors> kinds;
  /// Each replay window's trace (trace.csv beside windows.csv: the requests the recording served, in real
  /// time from its start) as `fleetwatt serve`'s exact mode serves it on one GPU at the replay's largest
  /// batch, in the windows' order.
  std::vector<sim::ServiceRun> replays;
};

/// Predicts every idle, decode, prefill and train window (eval and save windows are reported, not
/// predicted): decode and prefill by the serving iteration model on one GPU (bf16, the stack replaying
/// graphs for decode); a training step by `fleetwatt predict`'s path (bf16, datasheet, the eager stack);
/// an idle window with no context by the preset's idle draw, a resident one by the power model's floor; a
/// replay by serving `folder`/trace.csv as `fleetwatt serve` does (its energy compared).
[[nodiscard]] TelemetryCheck check_telemetry(const std::vector<TelemetryWindow>& windows,
                                             const std::filesystem::path& folder = {});

}  // namespace fleetwatt::runs
