// Vidur's profiled layer operators beside the serving iteration model's layer (see the header).
#include "fleetwatt/models/fit/vidur_layers.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/predictor_fit.hpp"
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

/// A predicted row kept in the check and counted in its model's, its GPU's and every row's errors.
void record(VidurLayerCheck& c, const VidurLayerPrediction& p) {
  c.predicted.push_back(p);
  add(c.groups[p.row->gpu + " " + p.row->model], *p.row, p);
  add(c.gpus[p.row->gpu], *p.row, p);
  add(c.all, *p.row, p);
}

/// The check's sums as means, once every row is recorded.
void finish(VidurLayerCheck& c) {
  for (auto& [k, e] : c.groups) finish(e);
  for (auto& [k, e] : c.gpus) finish(e);
  finish(c.all);
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
    record(c, {&m, cost.gemm_s, cost.elementwise_s});
  }
  finish(c);
  return c;
}

VidurFewShot few_shot_vidur_layers(const VidurLayerCheck& zero, std::size_t k) {
  VidurFewShot out;
  out.k = k;
  const auto& rows = zero.predicted;
  const auto log_gemm = [&](std::size_t i) { return std::log(rows[i].row->gemm_s / rows[i].gemm_s); };
  const auto log_elementwise = [&](std::size_t i) {
    return std::log(rows[i].row->elementwise_s / rows[i].elementwise_s);
  };
  struct Group {
    std::string gpu;
    std::vector<std::size_t> rows;         ///< its calibration rows first
    double gemm = 0.0, elementwise = 0.0;  ///< the calibration rows' mean log ratios (NaN: none)
  };
  std::map<std::tuple<std::string, std::string, double>, std::vector<std::size_t>> by_group;
  for (std::size_t i = 0; i < rows.size(); ++i)
    by_group[{rows[i].row->gpu, rows[i].row->model, rows[i].row->tp}].push_back(i);
  std::vector<Group> groups;
  for (auto& [key, idx] : by_group) {
    if (idx.size() <= k) {
      out.uncalibrated_rows += idx.size();
      continue;
    }
    std::vector<double> tokens;
    for (const std::size_t i : idx) tokens.push_back(rows[i].row->tokens);
    std::sort(tokens.begin(), tokens.end());
    tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
    const double middle = tokens[(tokens.size() - 1) / 2];
    const auto distance = [&](std::size_t i) { return std::abs(std::log(rows[i].row->tokens / middle)); };
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      if (distance(a) != distance(b)) return distance(a) < distance(b);
      return rows[a].row->tokens < rows[b].row->tokens;
    });
    Group g{std::get<0>(key), idx, std::numeric_limits<double>::quiet_NaN(),
            std::numeric_limits<double>::quiet_NaN()};
    if (k > 0) {
      g.gemm = g.elementwise = 0.0;
      for (std::size_t j = 0; j < k; ++j)
        g.gemm += log_gemm(idx[j]), g.elementwise += log_elementwise(idx[j]);
      g.gemm /= static_cast<double>(k), g.elementwise /= static_cast<double>(k);
    }
    out.calibration_rows += k;
    groups.push_back(std::move(g));
  }
  // The weight of a kind for one GPU: few-shot calibration's shrinkage weight, fitted on every other GPU's
  // calibrated groups.
  const auto weight = [&](const std::string& gpu, bool elementwise) {
    std::vector<std::pair<double, double>> pairs;
    for (const Group& g : groups) {
      const double x = elementwise ? g.elementwise : g.gemm;
      if (g.gpu == gpu || std::isnan(x)) continue;
      for (std::size_t j = k; j < g.rows.size(); ++j)
        pairs.emplace_back(x, elementwise ? log_elementwise(g.rows[j]) : log_gemm(g.rows[j]));
    }
    return shrinkage_weight(pairs);
  };
  for (const Group& g : groups) {
    auto it = out.weights.find(g.gpu);
    if (it == out.weights.end())
      it = out.weights.emplace(g.gpu, std::pair{weight(g.gpu, false), weight(g.gpu, true)}).first;
    const auto [wg, we] = it->second;
    const double fg = std::isnan(g.gemm) ? 1.0 : std::exp(wg * g.gemm);
    const double fe = std::isnan(g.elementwise) ? 1.0 : std::exp(we * g.elementwise);
    for (std::size_t j = k; j < g.rows.size(); ++j) {
      VidurLayerPrediction p = rows[g.rows[j]];
      p.gemm_s *= fg, p.elementwise_s *= fe;
      record(out.check, p);
    }
  }
  finish(out.check);
  return out;
}

}  // namespace fleetwatt::models
