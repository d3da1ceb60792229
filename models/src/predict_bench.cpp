// The predictor's speed workload: a seeded mix of zoo jobs over 10 GPU presets, and a timed pass over it.
#include "fleetwatt/models/predict_bench.hpp"

#include <array>
#include <chrono>
#include <string_view>

#include "fleetwatt/jobs/random.hpp"

namespace fleetwatt::models {
namespace {

/// A zoo model and the input sizes drawn for it (image sides or sequence lengths; all valid for it).
struct BenchModel {
  std::string_view name;
  std::array<std::uint32_t, 4> sizes;
  bool sequence = false;
};

/// Tokens per GPU a sequence model's batch is halved down to (BERT-base at 8,192 tokens needs about 9 GiB:
/// every job fits the 24 GiB boards).
constexpr std::uint32_t kTokensPerGpu = 8192;

// Image models at CIFAR to ImageNet sides (ViT's are multiples of its 16-pixel patch); sequence models at
// fine-tuning to pre-training lengths. Large models (GPT-2 medium and up) are left out: at the drawn batches
// they would not fit the 24 GiB boards.
constexpr std::array<BenchModel, 10> kModels{{
    {"resnet18", {32, 64, 128, 224}},
    {"resnet50", {64, 128, 160, 224}},
    {"resnet101", {64, 128, 160, 224}},
    {"vgg16", {32, 64, 128, 224}},
    {"mobilenet_v2", {64, 128, 160, 224}},
    {"shufflenet_v2", {32, 64, 128, 224}},
    {"vit-s16", {64, 128, 160, 224}},
    {"vit-b16", {64, 128, 160, 224}},
    {"bert-base", {64, 128, 256, 512}, true},
    {"gpt2-small", {64, 128, 256, 512}, true},
}};

// Ten presets of three generations and both vendors' memory sizes from 24 to 80 GiB.
constexpr std::array<std::string_view, 10> kGpus{
    "h100-sxm", "h100-pcie", "a100-sxm-80gb", "a100-pcie-40gb", "a800",
    "v100",     "a40",       "l40s",          "v100-pcie-32gb", "a10"};

}  // namespace

PredictBenchWorkload predict_bench_workload(std::size_t n_jobs, std::uint64_t seed) {
  PredictBenchWorkload w;
  for (const auto id : kGpus) w.gpus.push_back(find_gpu(id));
  jobs::Random rng(seed);
  w.jobs.reserve(n_jobs);
  w.gpu_of.reserve(n_jobs);
  for (std::size_t i = 0; i < n_jobs; ++i) {
    const BenchModel& m = kModels[rng.integer(0, kModels.size() - 1)];
    JobSpec j;
    j.id = static_cast<std::int64_t>(i + 1);
    j.n_gpus = 1u << rng.integer(0, 3);                                  // 1, 2, 4, 8
    auto per_gpu = static_cast<std::uint32_t>(8u << rng.integer(0, 3));  // 8 .. 64
    j.meta.model = std::string(m.name);
    j.meta.input_size = m.sizes[rng.integer(0, m.sizes.size() - 1)];
    while (m.sequence && per_gpu > 8 && per_gpu * j.meta.input_size > kTokensPerGpu) per_gpu /= 2;
    j.meta.batch_size = per_gpu * j.n_gpus;
    j.meta.dataset_samples = rng.uniform(1e4, 1.3e6);
    j.class_origin = {"predict-bench", 0, 0};
    w.jobs.push_back(std::move(j));
    w.gpu_of.push_back(i % w.gpus.size());
  }
  return w;
}

PredictBenchResult run_predict_bench(const PowerPredictor& predictor, const PredictBenchWorkload& w) {
  PredictBenchResult r;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < w.jobs.size(); ++i)
    r.energy_J += predictor.plan(w.jobs[i], w.gpus[w.gpu_of[i]]).epoch_energy_J();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.jobs = w.jobs.size();
  return r;
}

}  // namespace fleetwatt::models
