// Data-parallel step and I/O arithmetic.
#include "fleetwatt/models/training/training_io.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace fleetwatt::models {

double gradient_element_bytes(jobs::Precision p) noexcept {
  switch (p) {
    case jobs::Precision::fp32:
    case jobs::Precision::tf32:
      return 4.0;
    case jobs::Precision::fp16:
    case jobs::Precision::bf16:
    case jobs::Precision::fp8:
      return 2.0;
  }
  return 4.0;
}

double gradient_bytes(double params, jobs::Precision precision, const TrainingIoConfig& config) noexcept {
  const double per = config.gradient_bytes > 0.0 ? config.gradient_bytes : gradient_element_bytes(precision);
  return params * per;
}

double gradient_bytes(const jobs::ModelMetadata& meta, const TrainingIoConfig& config) noexcept {
  return gradient_bytes(meta.params, meta.precision, config);
}

std::uint64_t steps_per_epoch(double samples, std::uint32_t global_batch) noexcept {
  if (global_batch == 0 || !(samples > 0.0)) return 1;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(samples / global_batch)));
}

double exposed_communication(double compute_s, double comm_s, double overlap,
                             double backward_fraction) noexcept {
  const double hidden = std::min(overlap * comm_s, backward_fraction * compute_s);
  return std::max(0.0, comm_s - hidden);
}

namespace {
/// Language models read token ids, not images, whatever their input size.
bool is_text_model(const std::string& model) {
  for (const char* family : {"bert", "gpt", "llama", "t5", "lstm", "gru", "opt-", "roberta", "mistral"})
    if (model.find(family) != std::string::npos) return true;
  return false;
}
}  // namespace

double bytes_per_sample(const jobs::ModelMetadata& meta, const TrainingIoConfig& config) noexcept {
  if (config.bytes_per_sample > 0.0) return config.bytes_per_sample;
  const double s = meta.input_size;
  if (s <= 0.0) return 0.0;
  // Image sides are at most a few thousand pixels; larger sizes, and any size of a language model, are
  // sequence lengths in tokens.
  if (s <= 1024.0 && !is_text_model(meta.model)) return 3.0 * s * s * config.jpeg_ratio;
  return 4.0 * s;
}

LoadingCost epoch_loading(double samples, double sample_bytes, double share_Bps, double workers,
                          double decode_rate_per_worker, double compute_s, std::uint32_t prefetch_depth,
                          std::uint64_t steps) noexcept {
  LoadingCost c;
  if (!(samples > 0.0)) return c;
  const double storage_rate = sample_bytes > 0.0 ? share_Bps / sample_bytes : INFINITY;
  c.rate_samples_per_s = std::min(storage_rate, workers * decode_rate_per_worker);
  if (!(c.rate_samples_per_s > 0.0)) return c;
  c.load_s = samples / c.rate_samples_per_s;
  if (prefetch_depth == 0) {
    c.exposed_s = c.load_s;
  } else {
    const double first_batch = c.load_s / static_cast<double>(std::max<std::uint64_t>(steps, 1));
    c.exposed_s = std::max(0.0, c.load_s - compute_s) + first_batch;
  }
  return c;
}

double checkpoint_bytes(const jobs::ModelMetadata& meta, const TrainingIoConfig& config) noexcept {
  return meta.params * config.checkpoint_bytes_per_param;
}

}  // namespace fleetwatt::models
