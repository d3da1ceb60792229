// Vidur's profiled layer operators beside the serving iteration model's layer (see the header).
#include "fleetwatt/models/fit/vidur_layers.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/tensor_gemm_fit.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/tensor_gemm.hpp"
#include "fleetwatt/models/serving/serving_iteration.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {
namespace {

namespace fs = std::filesystem;

fs::path compute_folder(const fs::path& folder) {
  return fs::is_directory(folder / "compute") ? folder / "compute" : folder;
}

void read_into(std::istream& in, const std::string& source, const std::string& gpu, const std::string& model,
               std::vector<VidurLayer>& out) {
  core::CsvReader r(in, source);
  const auto median = [](const char* op) { return std::string("time_stats.") + op + ".median"; };
  const std::vector<std::string> gemm_ops = {"attn_pre_proj", "attn_post_proj", "mlp_up_proj",
                                             "mlp_down_proj"};
  std::vector<std::string> columns = {"n_head",
                                      "n_kv_head",
                                      "n_embd",
                                      "n_expanded_embd",
                                      "use_gated_mlp",
                                      "num_tokens",
                                      "num_tensor_parallel_workers"};
  for (const char* op : {"input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
                         "post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj", "add"})
    columns.push_back(median(op));
  r.read_header(columns);
  const auto positive_ms = [&](const core::CsvRow& row, const std::string& col) {
    const double v = r.number(row, col);
    if (!(v > 0.0))
      throw core::TraceFormatError(r.where(row, *r.column(col)), col, "must be a positive time");
    return v * 1e-3;
  };
  // Widths up to a million, tokens up to 2^24, tp up to one NVLink domain (72): past any profiled layer.
  const auto count = [&](const core::CsvRow& row, const char* col, std::int64_t hi = 1'000'000) {
    return static_cast<std::uint32_t>(r.integer(row, col, 1, hi));
  };
  while (const auto row = r.next()) {
    VidurLayer v;
    v.gpu = gpu, v.model = model, v.file = source, v.line = row->line;
    v.shape.layers = 1, v.shape.vocab = 0;
    v.shape.heads = count(*row, "n_head"), v.shape.kv_heads = count(*row, "n_kv_head");
    v.shape.hidden = count(*row, "n_embd"), v.shape.ffn_hidden = count(*row, "n_expanded_embd");
    const std::string gated = r.text(*row, "use_gated_mlp");
    if (gated != "True" && gated != "False")
      throw core::TraceFormatError(r.where(*row, *r.column("use_gated_mlp")), "use_gated_mlp",
                                   "'" + gated + "' is neither True nor False");
    v.shape.gated = gated == "True";
    if (const auto [key, why] = v.shape.problem(); !key.empty())
      throw core::TraceFormatError(r.where(*row, *r.column("n_head")), "n_head", "the shape " + why);
    v.tokens = count(*row, "num_tokens", 16'777'216), v.tp = count(*row, "num_tensor_parallel_workers", 72);
    for (const auto& op : gemm_ops) v.gemm_s += positive_ms(*row, median(op.c_str()));
    // One residual add is profiled; a layer runs two.
    for (const char* op : {"input_layernorm", "attn_rope", "post_attention_layernorm", "mlp_act"})
      v.elementwise_s += positive_ms(*row, median(op));
    v.elementwise_s += 2.0 * positive_ms(*row, median("add"));
    out.push_back(std::move(v));
  }
}

void add(VidurLayerErrors& e, const VidurLayer& m, const VidurLayerPrediction& p) {
  const double layer = (p.gemm_s + p.elementwise_s) / (m.gemm_s + m.elementwise_s) - 1.0;
  ++e.rows;
  e.gemm_mre += std::abs(p.gemm_s / m.gemm_s - 1.0);
  e.elementwise_mre += std::abs(p.elementwise_s / m.elementwise_s - 1.0);
  e.layer_mre += std::abs(layer);
  e.layer_bias += layer;
}

void finish(VidurLayerErrors& e) {
  if (e.rows == 0) return;
  const double n = double(e.rows);
  e.gemm_mre /= n, e.elementwise_mre /= n, e.layer_mre /= n, e.layer_bias /= n;
}

}  // namespace

std::vector<VidurLayer> read_vidur_profile(std::istream& in, const std::string& source,
                                           const std::string& gpu, const std::string& model) {
  std::vector<VidurLayer> out;
  read_into(in, source, gpu, model, out);
  return out;
}

bool is_vidur_profile(const fs::path& folder) {
  const fs::path c = compute_folder(folder);
  if (!fs::is_directory(c)) return false;
  for (const auto& gpu : fs::directory_iterator(c))
    if (gpu.is_directory() && !vidur_preset(gpu.path().filename().string()).empty()) return true;
  return false;
}

std::vector<VidurLayer> read_vidur_layers(const fs::path& folder) {
  const fs::path c = compute_folder(folder);
  std::vector<fs::path> files;
  if (fs::is_directory(c))
    for (const auto& e : fs::recursive_directory_iterator(c))
      if (e.is_regular_file() && e.path().filename() == "mlp.csv") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw core::ConfigError({folder.string(), 0, 0}, "compute",
                            "no Vidur profiles (compute/<gpu>/<org>/<model>/mlp.csv) under it");
  std::vector<VidurLayer> out;
  for (const fs::path& f : files) {
    const fs::path rel = fs::relative(f, c);  // <gpu>/<org>/<model>/mlp.csv
    const std::string gpu = vidur_preset(rel.begin()->string());
    if (gpu.empty()) continue;  // a GPU the presets do not name
    std::ifstream in(f);
    if (!in) throw core::ConfigError({f.string(), 0, 0}, "mlp.csv", "cannot be read");
    read_into(in, f.string(), gpu, f.parent_path().filename().string(), out);
  }
  return out;
}

VidurLayerCheck check_vidur_layers(const std::vector<VidurLayer>& rows, bool leave_gpu_out) {
  VidurLayerCheck c;
  ServingConstants kernels_alone;
  kernels_alone.layer_overhead_s = 0.0;  // CUDA events around each operator: no host time
  std::map<std::string, TensorGemmFit> fits;
  for (const VidurLayer& m : rows) {
    auto it = fits.find(m.gpu);
    if (it == fits.end()) {
      TensorGemmFit f = default_tensor_gemm();
      if (leave_gpu_out) f.eta_max.erase(m.gpu);
      it = fits.emplace(m.gpu, std::move(f)).first;
    }
    ServingReplica r;
    r.model = decoder_from_shape(m.shape, 2048, m.model);
    r.gpu = find_gpu(m.gpu);
    r.tp = static_cast<std::uint32_t>(m.tp);
    r.precision = jobs::Precision::fp16;
    IterationBatch b;
    b.prefill_tokens =
        m.tokens;  // no prompt ends, no keys attended: the layer's linear and element-wise work
    const IterationCost cost = serving_iteration(r, b, kernels_alone, default_predictor_fit(), it->second);
    c.predicted.push_back({&m, cost.gemm_s, cost.elementwise_s});
    add(c.groups[m.gpu + " " + m.model], m, c.predicted.back());
    add(c.gpus[m.gpu], m, c.predicted.back());
    add(c.all, m, c.predicted.back());
  }
  for (auto& [k, e] : c.groups) finish(e);
  for (auto& [k, e] : c.gpus) finish(e);
  finish(c.all);
  return c;
}

}  // namespace fleetwatt::models
