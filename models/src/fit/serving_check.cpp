// SplitwiseSim's measured prompt, token and request times and A100 power beside the serving iteration model,
// and the fit of its host time per layer (see the header).
#include "fleetwatt/models/fit/serving_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <tuple>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/median.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"

namespace fleetwatt::models {
namespace fs = std::filesystem;

namespace {

constexpr const char* kFile = "perf_model.csv";

/// fleetwatt's preset of the source's hardware name; empty when none (or not measured).
std::string preset_for(const std::string& hardware) {
  if (hardware == "a100-80gb") return "a100-sxm-80gb";
  if (hardware == "h100-80gb") return "h100-sxm";
  return "";
}

fs::path perf_file(const fs::path& path) {
  if (!fs::is_directory(path)) return path;
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(path))
    if (e.is_regular_file() && e.path().filename() == kFile) found.push_back(e.path());
  if (found.empty())
    throw core::ConfigError({path.string(), 0, 0}, "file",
                            fmt::format("no SplitwiseSim {} under this folder", kFile));
  std::sort(found.begin(), found.end());
  return found.front();
}

/// Relative error |predicted / measured - 1|.
double rel(double predicted, double measured) {
  return std::abs(predicted / measured - 1.0);
}

struct Sums {
  std::size_t n = 0, np = 0;
  double prompt = 0.0, token = 0.0, power = 0.0;
  void add(const ServingPrediction& p) {
    const ServingMeasurement& m = *p.row;
    ++n;
    prompt += rel(p.prompt_s, m.prompt_s), token += rel(p.token_s, m.token_s);
    if (m.power_fraction > 0.0 && m.power_excluded.empty())
      ++np, power += rel(p.power_fraction, m.power_fraction);
  }
  [[nodiscard]] ServingErrors errors() const {
    ServingErrors e;
    e.rows = n, e.power_rows = np;
    if (n) e.prompt_mre = prompt / n, e.token_mre = token / n;
    if (np) e.power_mre = power / np;
    return e;
  }
};

}  // namespace

std::vector<ServingMeasurement> read_splitwise_perf(const fs::path& path) {
  const fs::path file = perf_file(path);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw core::ConfigError({file.string(), 0, 0}, "file", "cannot open the measurement file");
  return read_splitwise_perf(in, file.string());
}

std::vector<ServingMeasurement> read_splitwise_perf(std::istream& in, const std::string& name) {
  core::CsvReader csv(in, name);
  csv.read_header({"model", "hardware", "prompt_size", "batch_size", "token_size", "average_power",
                   "prompt_time", "token_time", "e2e_time", "tensor_parallel"});
  using Key = std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  std::map<Key, ServingMeasurement> by_key;
  std::vector<Key> order;
  while (const auto row = csv.next()) {
    const std::string& model = csv.text(*row, "model");
    const std::string gpu = preset_for(csv.text(*row, "hardware"));
    const auto positive = [&](const char* col) {
      const double v = csv.number(*row, col);
      if (!(v > 0.0))
        throw core::ConfigError(csv.where(*row, *csv.column(col)), col,
                                fmt::format("must be positive, not {}", v));
      return v;
    };
    const auto count = [&](const char* col) { return csv.integer(*row, col, 1, 1 << 24); };
    const std::int64_t prompt = count("prompt_size"), batch = count("batch_size"), out = count("token_size"),
                       tp = csv.integer(*row, "tensor_parallel", 1, 64);
    const double prompt_s = positive("prompt_time") / 1e3, token_s = positive("token_time") / 1e3,
                 e2e_s = positive("e2e_time") / 1e3;
    const double power = csv.number(*row, "average_power");
    if (!(power >= 0.0))
      throw core::ConfigError(csv.where(*row, *csv.column("average_power")), "average_power",
                              fmt::format("must not be negative, not {}", power));
    if (gpu.empty() || (model != "llama2-70b" && model != "bloom-176b")) continue;
    const Key key{model, gpu, tp, prompt, batch, out};
    auto [it, fresh] = by_key.try_emplace(key);
    ServingMeasurement& m = it->second;
    if (fresh) {
      order.push_back(key);
      m.where = {name, row->line, 0};
      m.model = model, m.gpu = gpu, m.tp = static_cast<std::uint32_t>(tp);
      m.prompt_tokens = static_cast<double>(prompt), m.batch = static_cast<double>(batch);
      m.output_tokens = static_cast<double>(out);
    }
    m.prompt_s += prompt_s, m.token_s += token_s, m.e2e_s += e2e_s, m.power_fraction += power;
    ++m.repeats;
  }
  std::vector<ServingMeasurement> out;
  for (const Key& k : order) {
    ServingMeasurement m = by_key.at(k);
    const double n = static_cast<double>(m.repeats);
    m.prompt_s /= n, m.token_s /= n, m.e2e_s /= n, m.power_fraction /= n;
    out.push_back(std::move(m));
  }
  for (ServingMeasurement& m : out) {
    for (const ServingMeasurement& half : out)
      if (half.model == m.model && half.gpu == m.gpu && half.tp == m.tp &&
          half.prompt_tokens == m.prompt_tokens && half.output_tokens == m.output_tokens &&
          2.0 * half.batch == m.batch && m.prompt_s < half.prompt_s)
        m.excluded = fmt::format("prompt phase {:.3f} s at batch {:g}, below {:.3f} s at batch {:g}",
                                 m.prompt_s, m.batch, half.prompt_s, half.batch);
    if (m.power_fraction > 0.0) {
      const GpuHardware& gpu = find_gpu(m.gpu);
      if (m.power_fraction * gpu.tdp_W < 1.25 * gpu.idle_W)
        m.power_excluded = fmt::format("mean power {:.0f} W, below 1.25 x the board's idle {:.0f} W",
                                       m.power_fraction * gpu.tdp_W, gpu.idle_W);
    }
  }
  return out;
}

ServingReplica splitwise_replica(const ServingMeasurement& row) {
  ServingReplica r;
  if (row.model == "llama2-70b") {
    r.model = count_model("llama2_70b", 4096);
  } else {
    // BLOOM-176B (BigScience 2022): 70 layers of width 14336, 112 heads, a GELU feed-forward of 4 x 14336,
    // a 250,880-token vocabulary.
    jobs::ModelShape s;
    s.layers = 70, s.hidden = 14336, s.heads = 112, s.kv_heads = 112, s.ffn_hidden = 57344, s.vocab = 250880;
    s.gated = false;
    r.model = decoder_from_shape(s, 2048, "bloom-176b");
  }
  r.gpu = find_gpu(row.gpu);
  r.tp = row.tp;
  r.precision = jobs::Precision::fp16;
  return r;
}

ServingPrediction predict_serving_row(const ServingMeasurement& row, const ServingConstants& constants) {
  const ServingReplica replica = splitwise_replica(row);
  IterationBatch prompt;
  prompt.prefill_tokens = row.batch * row.prompt_tokens;
  prompt.prefill_sequences = row.batch;
  prompt.prefill_attended_keys = row.batch * row.prompt_tokens * (row.prompt_tokens + 1.0) / 2.0;
  IterationBatch token;
  token.decode_sequences = row.batch;
  token.decode_context_tokens = row.batch * (row.prompt_tokens + (row.output_tokens + 1.0) / 2.0);
  const IterationCost p = serving_iteration(replica, prompt, constants);
  const IterationCost t = serving_iteration(replica, token, constants);
  ServingPrediction out;
  out.row = &row;
  out.prompt_s = p.time_s, out.token_s = t.time_s;
  out.e2e_s = p.time_s + row.output_tokens * t.time_s;
  out.power_fraction =
      (p.time_s * p.power_W + row.output_tokens * t.time_s * t.power_W) / out.e2e_s / replica.gpu.tdp_W;
  return out;
}

double fit_layer_overhead(const std::vector<const ServingMeasurement*>& rows) {
  ServingConstants none;
  none.layer_overhead_s = 0.0;
  none.decode_graphs = false;
  std::vector<double> per_layer;
  for (const ServingMeasurement* m : rows) {
    const ServingPrediction p = predict_serving_row(*m, none);
    const double layers = splitwise_replica(*m).model.blocks;
    per_layer.push_back((m->prompt_s - p.prompt_s) / layers);
    per_layer.push_back((m->token_s - p.token_s) / layers);
  }
  return per_layer.empty() ? 0.0 : std::max(0.0, core::median(per_layer));
}

ServingCheck check_serving(const std::vector<ServingMeasurement>& rows) {
  ServingCheck out;
  std::vector<const ServingMeasurement*> compared;
  std::set<std::string> gpus;
  for (const ServingMeasurement& m : rows) {
    if (!m.excluded.empty()) {
      ++out.excluded;
      continue;
    }
    compared.push_back(&m);
    gpus.insert(m.gpu);
  }
  out.layer_overhead_s = fit_layer_overhead(compared);
  std::map<std::string, Sums> groups, by_gpu;
  Sums all;
  for (const std::string& gpu : gpus) {
    std::vector<const ServingMeasurement*> others;
    for (const ServingMeasurement* m : compared)
      if (m->gpu != gpu) others.push_back(m);
    ServingConstants c;
    c.decode_graphs = false;  // the measured stack's token times carry the host time
    // One GPU alone: its own fit (there is no other to take it from).
    c.layer_overhead_s = others.empty() ? out.layer_overhead_s : fit_layer_overhead(others);
    out.overhead_without_gpu[gpu] = c.layer_overhead_s;
    for (const ServingMeasurement* m : compared) {
      if (m->gpu != gpu) continue;
      out.predicted.push_back(predict_serving_row(*m, c));
      const ServingPrediction& p = out.predicted.back();
      groups[fmt::format("{} {} tp{}", m->gpu, m->model, m->tp)].add(p);
      by_gpu[gpu].add(p);
      all.add(p);
    }
  }
  for (const auto& [k, s] : groups) out.groups[k] = s.errors();
  for (const auto& [k, s] : by_gpu) out.gpus[k] = s.errors();
  out.all = all.errors();
  return out;
}

}  // namespace fleetwatt::models
