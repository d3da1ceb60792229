// Built-in job classes and the epoch plan's derived views.
#include <fmt/format.h>

#include <algorithm>

#include "fleetwatt/jobs/job_classes.hpp"

namespace fleetwatt::jobs {

const std::vector<JobClassInfo>& builtin_job_classes() {
  // The per-epoch measurements of the 4-GPU A800 study in "Predicting GPU Training Energy Consumption in
  // Data Centers Using Task Metadata via Symbolic Regression" (Energies 2026): batch 256, 100,000 samples,
  // 64 workers. ViT-B/16 (Dosovitskiy et al., ICLR 2021): 86.6 M parameters, 17.6 GFLOPs per 224 x 224
  // image (timm). BERT-base (Devlin et al., NAACL 2019): 110 M parameters at 128-token sequences, the
  // fine-tuning length; forward FLOPs 2 x parameters x tokens (Kaplan et al. 2020).
  static const std::vector<JobClassInfo> classes = {
      {"vit", "vit-b16", 86.6e6, 17.6e9, 224, 256, 64, 100000.0, Precision::fp16,
       PhaseProfile{.peak_W = 291.06, .peak_s = 182.58, .valley_W = 62.23, .valley_s = 6.41},
       "4 x A800, Energies 2026 (ViT-B/16, batch 256, 100,000 images, 64 workers)"},
      {"bert", "bert-base", 110e6, 2.0 * 110e6 * 128, 128, 256, 64, 100000.0, Precision::fp16,
       PhaseProfile{.peak_W = 320.72, .peak_s = 169.25, .valley_W = 67.01, .valley_s = 5.98},
       "4 x A800, Energies 2026 (BERT-base, batch 256, 100,000 sequences, 64 workers)"},
  };
  return classes;
}

const JobClassInfo* find_job_class(const std::string& name) noexcept {
  for (const auto& c : builtin_job_classes())
    if (c.name == name) return &c;
  return nullptr;
}

ModelMetadata with_class_defaults(const JobSpec& job) {
  ModelMetadata m = job.meta;
  const JobClassInfo* c = find_job_class(job.job_class);
  if (!c) return m;
  if (m.model.empty()) m.model = c->model;
  if (m.params == 0.0) m.params = c->params;
  if (m.input_size == 0) m.input_size = c->input_size;
  if (m.batch_size == 0) m.batch_size = c->batch_size;
  if (m.workers == 0) m.workers = c->workers;
  if (m.dataset_samples == 0.0) m.dataset_samples = c->reference_samples;
  return m;
}

const char* to_string(SoftwareStack s) noexcept {
  switch (s) {
    case SoftwareStack::eager:
      return "eager";
    case SoftwareStack::amp:
      return "amp";
    case SoftwareStack::compiled:
      return "compiled";
    case SoftwareStack::optimized:
      return "optimized";
  }
  return "eager";
}

bool parse_software_stack(std::string_view name, SoftwareStack& out) noexcept {
  for (const auto s :
       {SoftwareStack::eager, SoftwareStack::amp, SoftwareStack::compiled, SoftwareStack::optimized})
    if (name == to_string(s)) {
      out = s;
      return true;
    }
  return false;
}

const char* to_string(Recompute r) noexcept {
  switch (r) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "none";
}

std::pair<std::string, std::string> Parallelism::pipeline_key_problem() const {
  if (pp >= 2) return {};
  if (vp > 1) return {"vp", fmt::format("vp {} interleaves pipeline stages: it needs pp of at least 2", vp)};
  for (const auto& [key, layers] : {std::pair{"first_stage_layers", first_stage_layers},
                                    std::pair{"last_stage_layers", last_stage_layers}})
    if (layers > 0)
      return {key, fmt::format("{} {} sets a pipeline stage: it needs pp of at least 2", key, layers)};
  return {};
}

namespace {

/// The layers the first / last stage settings leave, and the stages (pp >= 2) that share them evenly.
struct LayersLeft {
  std::int64_t rest = 0;
  std::uint32_t others = 0;
};
LayersLeft layers_left(const Parallelism& par, std::uint32_t blocks) noexcept {
  const std::uint32_t given = (par.first_stage_layers > 0) + (par.last_stage_layers > 0);
  return {static_cast<std::int64_t>(blocks) - par.first_stage_layers - par.last_stage_layers, par.pp - given};
}

}  // namespace

Parallelism::StageLayers Parallelism::stage_layers(std::uint32_t blocks) const noexcept {
  const double n = blocks;
  if (pp < 2) return {n, n, n};
  const LayersLeft left = layers_left(*this, blocks);
  const double middle = left.others > 0 ? static_cast<double>(left.rest) / left.others : 0.0;
  return {first_stage_layers > 0 ? static_cast<double>(first_stage_layers) : middle, middle,
          last_stage_layers > 0 ? static_cast<double>(last_stage_layers) : middle};
}

std::pair<std::string, std::string> Parallelism::pipeline_layers_problem(std::uint32_t blocks,
                                                                         std::string_view model) const {
  if (vp > 1 && blocks > 0 && static_cast<std::uint64_t>(pp) * vp > blocks)
    return {"vp", fmt::format("pp x vp = {} x {} chunks exceed {}'s {} layers (each chunk needs one)", pp, vp,
                              model, blocks)};
  for (const auto& [key, layers] : {std::pair{"first_stage_layers", first_stage_layers},
                                    std::pair{"last_stage_layers", last_stage_layers}})
    if (layers > 0 && blocks == 0)
      return {key, fmt::format("{} sets a stage's transformer layers; {} has none", key, model)};
  if (pp >= 2 && blocks > 0 && first_stage_layers == 0 && last_stage_layers == 0 && blocks % pp != 0)
    return {"pp", fmt::format("{}'s {} layers do not divide among {} pipeline stages ({:.4g} each): give "
                              "first_stage_layers and last_stage_layers (Megatron-Core's "
                              "decoder_first/last_pipeline_num_layers) so that the rest divides",
                              model, blocks, pp, static_cast<double>(blocks) / pp)};
  if (pp >= 2 && (first_stage_layers > 0 || last_stage_layers > 0)) {
    // Every stage keeps at least one layer, and the given ones leave the others a whole number of them.
    const auto [rest, others] = layers_left(*this, blocks);
    if (rest < others || (others == 0 && rest != 0) || (others > 0 && rest % others != 0)) {
      // Name only the keys given: an unset one is not a stage of 0 layers but one of those sharing the rest.
      const bool both = first_stage_layers > 0 && last_stage_layers > 0;
      const std::string given = both ? fmt::format("first_stage_layers {} and last_stage_layers {}",
                                                   first_stage_layers, last_stage_layers)
                                : first_stage_layers > 0
                                    ? fmt::format("first_stage_layers {}", first_stage_layers)
                                    : fmt::format("last_stage_layers {}", last_stage_layers);
      const std::string unset =
          both ? std::string()
               : fmt::format(" ({} is not set: the stages without a setting share the rest)",
                             first_stage_layers > 0 ? "last_stage_layers" : "first_stage_layers");
      return {last_stage_layers > 0 ? "last_stage_layers" : "first_stage_layers",
              rest < 0
                  ? fmt::format("{} exceed{} {}'s {} layers{}", given, both ? "" : "s", model, blocks, unset)
                  : fmt::format("{} leave{} {} of {}'s {} layers for the other {} stage(s){}: each needs "
                                "the same whole number, at least one",
                                given, both ? "" : "s", rest, model, blocks, others, unset)};
    }
  }
  return {};
}

bool parse_recompute(std::string_view name, Recompute& out) noexcept {
  for (const auto r : {Recompute::none, Recompute::selective, Recompute::full})
    if (name == to_string(r)) {
      out = r;
      return true;
    }
  return false;
}

const char* to_string(Waveform w) noexcept {
  switch (w) {
    case Waveform::automatic:
      return "auto";
    case Waveform::steps:
      return "steps";
    case Waveform::epochs:
      return "epochs";
  }
  return "auto";
}

bool parse_waveform(std::string_view name, Waveform& out) noexcept {
  for (const auto w : {Waveform::automatic, Waveform::steps, Waveform::epochs})
    if (name == to_string(w)) {
      out = w;
      return true;
    }
  return false;
}

const char* to_string(PartKind k) noexcept {
  switch (k) {
    case PartKind::compute:
      return "compute";
    case PartKind::comm:
      return "comm";
    case PartKind::io:
      return "io";
    case PartKind::checkpoint:
      return "checkpoint";
  }
  return "?";
}

double EpochPlan::epoch_s() const noexcept {
  double t = 0.0;
  for (const auto& p : parts) t += p.s;
  return t + bubble.s;
}

double EpochPlan::epoch_energy_J() const noexcept {
  double e = 0.0;
  for (const auto& p : parts) e += p.W * p.s;
  return e + bubble.W * bubble.s;
}

double EpochPlan::checkpoint_fixed_s() const noexcept {
  const double stall = checkpoint_async ? checkpoint_copy_s : checkpoint_write_s;
  return std::max(0.0, (*this)[PartKind::checkpoint].s - stall);
}

PhaseProfile EpochPlan::profile() const noexcept {
  const EpochPart& c = (*this)[PartKind::compute];
  const EpochPart& m = (*this)[PartKind::comm];
  const EpochPart& i = (*this)[PartKind::io];
  const EpochPart& k = (*this)[PartKind::checkpoint];
  const EpochPart& b = bubble;
  PhaseProfile p;
  p.peak_s = c.s + m.s + i.s + b.s;
  // Compute alone keeps its power exactly (no round trip through a weighted mean).
  p.peak_W = (m.s > 0.0 || i.s > 0.0 || b.s > 0.0) && p.peak_s > 0.0
                 ? (c.W * c.s + m.W * m.s + i.W * i.s + b.W * b.s) / p.peak_s
                 : c.W;
  p.valley_s = k.s;
  p.valley_W = k.W;
  return p;
}

EpochPlan EpochPlan::from_profile(const PhaseProfile& p, ModelMetadata model) {
  EpochPlan plan;
  plan[PartKind::compute] = {p.peak_s, p.peak_W};
  plan[PartKind::checkpoint] = {p.valley_s, p.valley_W};
  plan.model = std::move(model);
  return plan;
}

}  // namespace fleetwatt::jobs
