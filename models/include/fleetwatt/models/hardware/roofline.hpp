// The default predictor's physics for one GPU's training (or inference) step, at full clocks and under a
// power limit:
//  - time: a roofline over operator classes. Each class (models::OpClass, plus the optimiser) takes
//    a soft max (a^4 + b^4)^(1/4) of FLOPs / (eta_c x peak of its path) and bytes /
//    (eta_m x memory bandwidth); the step adds a launch
//    overhead per kernel (eager PyTorch is bound by the host below a few microseconds of work per kernel).
//    The efficiencies are fitted per operator class, times a multiplier per architecture family (compute and
//    memory) that a ridge penalty keeps near 1 where a family has few measurements. The matmul classes also
//    carry each family's measured large-GEMM efficiency (NeuSight's kernels, models/fit/gemm_efficiency.hpp)
//    relative to the pooled one, which is data, not a free constant. A family the fit has not seen takes the
//    median of the fitted families' multipliers (family_factor).
//  - power: a resident floor (context loaded, clocks up) plus the headroom to a saturation power, in
//    proportion to g(achieved fraction of the step spent at a roofline bound): P = F + (S - F) u^gamma,
//    S = saturation fraction of the workload class x TDP (x a per-GPU factor where measured).
//  - a power limit below P slows the clocks as the one clock model says (models/hardware/clock_model.hpp).
// The constants are fitted jointly on ../shared/data (models/fit/predictor_fit.hpp); this header only
// evaluates.
#pragma once

#include <array>
#include <map>
#include <string>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {

/// Workload classes of the power model: saturation power differs between CNNs, Transformers and MLPs
/// (recommendation models such as NCF, whose steps are embedding lookups and small GEMMs); `other`
/// (recurrent networks, models known by their FLOPs alone) has no runs in the fitting data and takes the
/// median of the fitted classes' saturations.
enum class PowerClass : std::uint8_t { cnn, transformer, mlp, other };
inline constexpr std::size_t kPowerClasses = 4;
[[nodiscard]] const char* to_string(PowerClass c) noexcept;
[[nodiscard]] PowerClass power_class(ModelFamily f) noexcept;
/// The class whose calibrated band a prediction takes: its power class, except for a model known by its
/// FLOPs alone (`flops_only`: no zoo model, no shape), which takes `other`'s whatever its architecture. Its
/// errors are those of work stated without the model's layers (GAISSA's Keras runs, FLOPs at an image
/// size they do not give), not those of a counted model of its family.
[[nodiscard]] PowerClass band_class(ModelFamily f, bool flops_only) noexcept;

/// Kinds of board memory: the resident floor differs (HBM data-centre parts ~15 % of TDP, GDDR boards more).
[[nodiscard]] bool has_hbm(const GpuHardware& gpu) noexcept;

/// The fitted constants of the time model.
struct RooflineConstants {
  /// Achieved fraction of the FP32 peak per operator class (memory: unused, its FLOPs are negligible).
  std::array<double, kOpClasses> eta{0.5, 0.3, 0.3, 0.4};
  double eta_memory = 0.7;  ///< achieved fraction of the memory bandwidth, every class
  /// Tensor-core (TF32/FP16/BF16/FP8) path efficiency relative to the FP32 path's: a documented rule, as the
  /// shared data hold FP32 runs only.
  double half_tensor_factor = 0.5;
  /// Per architecture family ("volta", "cdna2"): multipliers of the compute and memory efficiencies.
  std::map<std::string, double> family_compute, family_memory;
  /// Per architecture family with traced GEMM kernels: its large-GEMM efficiency over the pooled one
  /// (GemmEfficiencyFit eta_max ratio), multiplying the matmul classes' efficiency; 1 for other families.
  std::map<std::string, double> family_gemm;
  double kernel_launch_s = 1e-5;            ///< per kernel launch (host dispatch in eager mode)
  double optimizer_bytes_per_param = 16.0;  ///< optimiser step traffic: read weight, grad, state; write back
  double optimizer_kernels_per_tensor = 3.0;
  /// Multiplier of memory-class bytes and of kernel launches per software stack (eager, amp, compiled,
  /// optimized): fusion removes element-wise round trips and launches.
  std::array<double, 4> stack_factor{1.0, 1.0, 0.6, 0.4};
  double data_s_per_pixel = 3.3e-8;  ///< host decode + augment seconds per pixel-channel per loader worker
  double data_s_per_sample = 1e-5;   ///< host seconds per sample per worker (collate, sampling, transfer)
  double epoch_end_s = 5.8;          ///< fixed end-of-epoch work (loader restart, hooks)
};

/// The fitted constants of the power model.
struct UtilisationPowerConstants {
  double floor_hbm = 0.15;   ///< resident floor / TDP, HBM boards (rule where no GPU floor is measured)
  double floor_gddr = 0.28;  ///< the same, GDDR boards
  std::array<double, kPowerClasses> saturation{0.9, 0.95, 0.8, 0.9};  ///< saturation / TDP per class
  double exponent = 0.6;                                              ///< gamma of g(u) = u^gamma
  double memory_weight = 0.7;  ///< how much a bandwidth-bound second counts toward u (compute-bound: 1)
  std::map<std::string, double> gpu_floor_W;     ///< fitted floors of GPUs with power measurements
  std::map<std::string, double> gpu_saturation;  ///< fitted saturation factors of those GPUs (x class's)
  /// Saturation / TDP of tensor-core training work (StepInputs::tensor_cores): the median power of the busy
  /// A100s (above half their 400 W TDP) of AcmeTrace's pretraining cluster Kalos (Hu et al., NSDI 2024;
  /// ../shared/data/acmetrace/gpu_power_kalos_cdf.csv), 391.8 W, a test reads it back. Not fitted: the joint
  /// fit's runs are FP32.
  double tensor_core_saturation = 0.98;
};

/// What one step is, independent of constants.
struct StepInputs {
  double per_gpu_batch = 1.0;
  double pass_factor = 3.0;  ///< work of the step / forward work (3: forward + backward; 1: forward only)
  bool updates_weights = true;
  jobs::Precision precision = jobs::Precision::fp32;
  jobs::SoftwareStack stack = jobs::SoftwareStack::eager;
  bool host_loading = true;        ///< a host data loader feeds the steps (false: synthetic inputs)
  double pixels_per_sample = 0.0;  ///< host-decoded input pixels x channels per sample (0: not images)
  double workers_per_gpu = 4.0;
  double power_limit_W = 0.0;  ///< 0: the TDP
  /// Per-sample work (FLOPs and activation bytes) relative to the model's counts: 1, except for a
  /// measured workload whose source states its FLOPs at an input size it does not give (a fitted nuisance).
  double work_scale = 1.0;
  /// Achieved fraction of the matmul peak of the tensor and attention classes (indexed by OpClass) where the
  /// caller knows their GEMM shapes (models/fit/gemm_efficiency.hpp, class_gemm_efficiency); 0: the fitted
  /// per-class constant (x the family factor, x half_tensor_factor off the FP32 path).
  std::array<double, kOpClasses> gemm_efficiency{};
  /// A class's whole time at full clocks where the caller worked it out kernel by kernel (the 3D-parallel
  /// step's tensor-core GEMMs, fused attention and element-wise work; models/training/llm_step_time.hpp), all
  /// passes included; 0: the roofline's. The matmul classes count as compute-bound, the others as
  /// memory-bound.
  std::array<double, kOpClasses> known_class_s{};
  /// The step's GEMMs run on tensor cores in a 16-bit or FP8 path (the 3D-parallel step's kernel-by-kernel
  /// model): saturation power is UtilisationPowerConstants::tensor_core_saturation x TDP.
  bool tensor_cores = false;
};

/// One step's time and power on one GPU.
struct RooflineStep {
  std::array<double, kOpClasses> class_s{};  ///< roofline time per operator class (all passes)
  double optimizer_s = 0.0;
  double launch_s = 0.0;  ///< kernel launches x launch overhead
  double bound_s = 0.0;   ///< sum of class_s and optimizer_s
  double compute_bound_s = 0.0, memory_bound_s = 0.0;
  double full_clock_s = 0.0;  ///< bound_s + launch_s
  double achieved = 0.0;      ///< u in (0, 1]
  double floor_W = 0.0, saturation_W = 0.0;
  double full_clock_W = 0.0;  ///< power at full clocks
  double power_limit_W = 0.0;
  double stretch = 1.0;     ///< clock-model stretch under the limit
  double work_s = 0.0;      ///< full_clock_s x stretch
  double power_W = 0.0;     ///< capped power while working
  double data_s = 0.0;      ///< host loading time of the step's batch
  double io_stall_s = 0.0;  ///< loading not hidden behind the work
  double step_s = 0.0;      ///< work_s + io_stall_s (single GPU)
};

/// The soft roofline knee: (a^4 + b^4)^(1/4), within 19 % of max(a, b) where a = b and equal to it far
/// from the knee (measured kernels approach their bound gradually; the fit also needs a smooth model). Two
/// overlapping times, either of which would set the step alone, take this together.
[[nodiscard]] double soft_max(double a, double b) noexcept;

/// The step of `model` on `gpu` (ops empty: a generic split from forward FLOPs and activations).
[[nodiscard]] RooflineStep roofline_step(const ModelCount& model, const StepInputs& in,
                                         const GpuHardware& gpu, const RooflineConstants& time,
                                         const UtilisationPowerConstants& power);

/// The step inputs of a job (its own figures, the resolved model's where silent): batch per GPU, pass factor
/// from the training FLOPs (1 for a frozen backbone or inference), precision, stack, host-decoded pixels of
/// zoo image models, loader workers per GPU (`default_workers` when the job does not say).
[[nodiscard]] StepInputs step_inputs(const jobs::JobSpec& job, const ModelCount& model, double power_limit_W,
                                     std::uint32_t default_workers);
/// The matmul peak a GEMM of `precision` runs against: the datasheet's (FP32 matrix units where a GPU has
/// them), halved for FP32 on GA10x / AD10x boards whose printed FP32 peak counts a shared second datapath.
[[nodiscard]] double matmul_peak_flops(const GpuHardware& gpu, jobs::Precision precision) noexcept;
/// True for what the fitting data cover: FP32 with the eager or compiled stack (other precisions and stacks
/// rest on documented rules, and their band is the unseen-GPU one).
[[nodiscard]] bool in_fitted_domain(const jobs::ModelMetadata& meta) noexcept;

/// The resident floor of `gpu`: its preset's measured resident_W, else the fit's floor for it, else the rule.
[[nodiscard]] double resident_floor(const GpuHardware& gpu, const UtilisationPowerConstants& power) noexcept;
/// A GPU's draw at full clocks doing work that keeps it busy for the share `achieved` of the time
/// (compute-bound seconds plus memory_weight x bandwidth-bound seconds, over all seconds): floor +
/// (saturation - floor) x achieved^exponent. Training steps (roofline_step) and serving iterations draw by
/// it.
[[nodiscard]] double utilisation_power_W(double floor_W, double saturation_W, double achieved,
                                         const UtilisationPowerConstants& power) noexcept;

/// The model's operator-class work: the zoo's split, or generic_ops() for a model without one.
[[nodiscard]] std::array<OpWork, kOpClasses> operator_work(const ModelCount& model) noexcept;
/// The architecture family whose efficiency factors apply to `gpu` ("unknown" when its preset has none).
[[nodiscard]] std::string arch_family(const GpuHardware& gpu);

/// A family's fitted multiplier, or, for a family the fit has not seen, the median of the fitted ones (each
/// family once; the geometric mean of the middle two for an even count; 1 for an empty map). Not 1: the
/// fit's ridge centres the log-mean of the multipliers, where the global efficiencies absorb the level, so
/// one outlying family (Maxwell's host-bound records) moves 1 away from the typical family.
[[nodiscard]] double family_factor(const std::map<std::string, double>& factors, const std::string& family);

/// The operator-class split of a model known only by its FLOPs and activations (custom jobs, Keras models):
/// all matmul FLOPs in `tensor`, activations at two element-wise passes in `memory`.
[[nodiscard]] std::array<OpWork, kOpClasses> generic_ops(const ModelCount& model) noexcept;

}  // namespace fleetwatt::models
