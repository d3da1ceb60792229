// Roofline step time over operator classes and power from the achieved fraction of the roofline (see the
// header for the model; models/src/predictor_fit.cpp fits its constants).
#include "fleetwatt/models/hardware/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "fleetwatt/models/hardware/clock_model.hpp"

namespace fleetwatt::models {
namespace {

using jobs::Precision;

double lookup(const std::map<std::string, double>& m, const std::string& key, double fallback) {
  const auto it = m.find(key);
  return it == m.end() ? fallback : it->second;
}

/// Bytes per activation element relative to FP32 storage.
double storage_scale(Precision p) {
  switch (p) {
    case Precision::fp16:
    case Precision::bf16:
      return 0.5;
    case Precision::fp8:
      return 0.25;
    default:
      return 1.0;
  }
}

}  // namespace

double soft_max(double a, double b) noexcept {
  const double m = std::max(a, b);
  if (m <= 0.0) return 0.0;
  const double x = a / m, y = b / m;
  return m * std::pow(x * x * x * x + y * y * y * y, 0.25);
}

std::array<OpWork, kOpClasses> operator_work(const ModelCount& m) noexcept {
  for (const auto& o : m.ops)
    if (o.kernels > 0.0) return m.ops;
  return generic_ops(m);
}

std::string arch_family(const GpuHardware& gpu) {
  return gpu.arch.empty() ? std::string("unknown") : gpu.arch;
}

double family_factor(const std::map<std::string, double>& factors, const std::string& family) {
  const auto it = factors.find(family);
  if (it != factors.end()) return it->second;
  if (factors.empty()) return 1.0;
  std::vector<double> v;
  v.reserve(factors.size());
  for (const auto& [f, x] : factors) v.push_back(x);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : std::sqrt(v[n / 2 - 1] * v[n / 2]);
}

const char* to_string(PowerClass c) noexcept {
  switch (c) {
    case PowerClass::cnn:
      return "cnn";
    case PowerClass::transformer:
      return "transformer";
    case PowerClass::mlp:
      return "mlp";
    default:
      return "other";
  }
}

PowerClass power_class(ModelFamily f) noexcept {
  if (f == ModelFamily::cnn) return PowerClass::cnn;
  if (f == ModelFamily::transformer) return PowerClass::transformer;
  if (f == ModelFamily::mlp) return PowerClass::mlp;
  return PowerClass::other;
}

PowerClass band_class(ModelFamily f, bool flops_only) noexcept {
  return flops_only ? PowerClass::other : power_class(f);
}

bool has_hbm(const GpuHardware& gpu) noexcept {
  return gpu.memory_type == "hbm";
}

std::array<OpWork, kOpClasses> generic_ops(const ModelCount& m) noexcept {
  std::array<OpWork, kOpClasses> ops{};
  const double layers = std::max(1u, m.weight_layers);
  auto& tensor = ops[static_cast<std::size_t>(OpClass::tensor)];
  tensor.flops = m.forward_flops;
  // Each weight layer reads its input and writes its output: about two activations per output element.
  tensor.bytes = 4.0 * 2.0 * m.activation_elements;
  tensor.weight_bytes = 4.0 * m.params;
  tensor.kernels = layers;
  // A normalisation and an activation after each weight layer: each reads and writes every element.
  auto& memory = ops[static_cast<std::size_t>(OpClass::memory)];
  memory.flops = 2.0 * m.activation_elements;
  memory.bytes = 4.0 * 4.0 * m.activation_elements;
  memory.kernels = 2.0 * layers;
  return ops;
}

StepInputs step_inputs(const jobs::JobSpec& job, const ModelCount& model, double power_limit_W,
                       std::uint32_t default_workers) {
  const auto& meta = job.meta;
  StepInputs in;
  const double n = std::max(1u, job.n_gpus);
  in.per_gpu_batch = static_cast<double>(meta.batch_size) / n;
  in.pass_factor = meta.training_flops_per_sample > 0.0 && model.forward_flops > 0.0
                       ? meta.training_flops_per_sample / model.forward_flops
                       : 3.0;
  in.precision = meta.precision;
  in.stack = meta.stack;
  for (const auto& e : zoo_entries())
    if (e.name == meta.model && e.input_kind == "image")
      in.pixels_per_sample = 3.0 * model.input_size * model.input_size;
  in.workers_per_gpu = meta.workers ? meta.workers / n : static_cast<double>(default_workers);
  in.power_limit_W = power_limit_W;
  return in;
}

double matmul_peak_flops(const GpuHardware& gpu, Precision precision) noexcept {
  // GA10x / AD10x boards (Ampere and Ada with GDDR) print an FP32 peak that counts a second FP32 datapath
  // shared with integer work; GEMMs and convolutions reach about half of it (one datapath's rate), so
  // their matmul path is taken at half the datasheet figure.
  const bool dual_issue_fp32 = (gpu.arch == "ampere" || gpu.arch == "ada") && !has_hbm(gpu);
  const double scale = precision == Precision::fp32 && dual_issue_fp32 ? 0.5 : 1.0;
  return gpu.gemm_peak_flops(precision) * scale;
}

bool in_fitted_domain(const jobs::ModelMetadata& meta) noexcept {
  return (meta.precision == Precision::fp32 || meta.precision == Precision::tf32) &&
         (meta.stack == jobs::SoftwareStack::eager || meta.stack == jobs::SoftwareStack::compiled);
}

double resident_floor(const GpuHardware& gpu, const UtilisationPowerConstants& power) noexcept {
  if (gpu.resident_W > 0.0) return gpu.resident_W;
  const auto it = power.gpu_floor_W.find(gpu.id);
  if (it != power.gpu_floor_W.end()) return it->second;
  return (has_hbm(gpu) ? power.floor_hbm : power.floor_gddr) * gpu.tdp_W;
}

double utilisation_power_W(double floor_W, double saturation_W, double achieved,
                           const UtilisationPowerConstants& power) noexcept {
  return floor_W + (saturation_W - floor_W) * std::pow(achieved, power.exponent);
}

RooflineStep roofline_step(const ModelCount& model, const StepInputs& in, const GpuHardware& gpu,
                           const RooflineConstants& tc, const UtilisationPowerConstants& pc) {
  RooflineStep s;
  const auto ops = operator_work(model);
  const bool fp32_path = in.precision == Precision::fp32;
  const double act_scale = storage_scale(in.precision);
  const std::string family = arch_family(gpu);
  const double fam_c = family_factor(tc.family_compute, family);
  const double fam_m = family_factor(tc.family_memory, family);
  const double fam_gemm = lookup(tc.family_gemm, family, 1.0);
  const double stack = tc.stack_factor[static_cast<std::size_t>(in.stack)];
  const double bw = std::min(1.0, tc.eta_memory * fam_m) * gpu.memory_bw_Bps;
  // Element-wise work runs on the vector units: twice the FP32 rate in half precision.
  const double vector_peak = gpu.fp32_flops * (act_scale < 1.0 ? 2.0 : 1.0);
  const double b = in.per_gpu_batch, k = in.pass_factor, work = b * in.work_scale;
  double kernels = 0.0;
  for (std::size_t c = 0; c < kOpClasses; ++c) {
    const auto cls = static_cast<OpClass>(c);
    const bool matmul = cls == OpClass::tensor || cls == OpClass::attention;
    const double peak = matmul ? matmul_peak_flops(gpu, in.precision) : vector_peak;
    // A caller that knows the class's GEMM shapes gives their size-dependent efficiency
    // (models/fit/gemm_efficiency.hpp); otherwise the fitted per-class constant.
    const double eta = matmul && in.gemm_efficiency[c] > 0.0
                           ? std::min(1.0, in.gemm_efficiency[c])
                           : std::min(1.0, tc.eta[c] * fam_c * (matmul ? fam_gemm : 1.0) *
                                               (matmul && !fp32_path ? tc.half_tensor_factor : 1.0));
    if (in.known_class_s[c] > 0.0) {
      s.class_s[c] = in.known_class_s[c];
      (matmul ? s.compute_bound_s : s.memory_bound_s) += s.class_s[c];
      kernels += k * ops[c].kernels * stack;
      continue;
    }
    const double flops = k * work * ops[c].flops;
    double bytes = k * (work * ops[c].bytes + ops[c].weight_bytes) * act_scale;
    double launches = k * ops[c].kernels;
    if (cls == OpClass::memory) bytes *= stack;
    launches *= stack;
    kernels += launches;
    const double tf = flops / (eta * peak), tm = bytes / bw;
    s.class_s[c] = soft_max(tf, tm);
    if (s.class_s[c] > 0.0) {
      // Split between compute- and bandwidth-bound time as the two terms weigh in the knee.
      const double f4 = std::pow(tf, 4.0), m4 = std::pow(tm, 4.0);
      s.compute_bound_s += s.class_s[c] * f4 / (f4 + m4);
      s.memory_bound_s += s.class_s[c] * m4 / (f4 + m4);
    }
  }
  if (in.updates_weights) {
    // The optimiser updates the parameters that have gradients: all of them in full training (pass factor
    // 3), none below a frozen cut (pass factor 1, where the trained head is negligible).
    const double trained = std::clamp((k - 1.0) / 2.0, 0.0, 1.0);
    s.optimizer_s = trained * model.params * tc.optimizer_bytes_per_param / bw;
    s.memory_bound_s += s.optimizer_s;
    kernels += trained * model.param_tensors * tc.optimizer_kernels_per_tensor * stack;
  }
  s.bound_s = s.optimizer_s;
  for (const double t : s.class_s) s.bound_s += t;
  s.launch_s = kernels * tc.kernel_launch_s;
  // Eager mode launches asynchronously: the host's launch queue and the GPU's work overlap, so the step
  // takes the longer of the two (with the soft knee), not their sum.
  s.full_clock_s = soft_max(s.bound_s, s.launch_s);
  s.achieved =
      s.full_clock_s > 0.0
          ? std::clamp((s.compute_bound_s + pc.memory_weight * s.memory_bound_s) / s.full_clock_s, 0.0, 1.0)
          : 0.0;

  s.floor_W = resident_floor(gpu, pc);
  // A GPU without a fitted saturation factor takes the fitted GPUs' median, as an unseen family takes the
  // median family factor: one GPU far below the rest (the GTX 750 Ti) would otherwise pull every class's
  // saturation, which a factor of 1 multiplies, below the other GPUs'.
  const double saturation = in.tensor_cores
                                ? pc.tensor_core_saturation
                                : pc.saturation[static_cast<std::size_t>(power_class(model.family))] *
                                      family_factor(pc.gpu_saturation, gpu.id);
  s.saturation_W = std::max(s.floor_W, saturation * gpu.tdp_W);
  s.full_clock_W = utilisation_power_W(s.floor_W, s.saturation_W, s.achieved, pc);
  s.power_limit_W = in.power_limit_W > 0.0 ? std::min(in.power_limit_W, gpu.tdp_W) : gpu.tdp_W;
  const ClockModel& clock = clock_model();
  s.stretch = clock.stretch(s.full_clock_W, s.power_limit_W, gpu.tdp_W);
  s.power_W = ClockModel::capped_power(s.full_clock_W, s.power_limit_W);
  s.work_s = s.full_clock_s * s.stretch;
  if (in.host_loading)
    s.data_s = b * (in.pixels_per_sample * tc.data_s_per_pixel + tc.data_s_per_sample) /
               std::max(1e-9, in.workers_per_gpu);
  // Loading runs ahead of the GPU (prefetch): only what it takes beyond the step's work stalls it (with the
  // same soft knee as the roofline).
  s.io_stall_s = soft_max(s.work_s, s.data_s) - s.work_s;
  s.step_s = s.work_s + s.io_stall_s;
  return s;
}

}  // namespace fleetwatt::models
