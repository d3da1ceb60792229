// Reader of the GEMM kernels in NeuSight's per-operator label CSVs (one torch.fx node per row, its measured
// forward and backward latencies in ms): M, N and K from the traced input and output shapes. The GPU is the
// folder's name, mapped to a preset as models/measurements.cpp maps NeuSight's whole-model labels.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/models/fit/gemm_efficiency.hpp"
#include "fleetwatt/models/fit/measurements.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"

namespace fleetwatt::models {
namespace {

namespace fs = std::filesystem;
using core::ConfigError;
using Shape = std::vector<double>;

/// Names of the linear (nn.Linear) modules of the traced models: BERT's query/key/value/dense, OPT's
/// q/k/v/out_proj and fc1/fc2, GPT-2's lm_head (GPT-2's own Conv1D layers trace as addmm).
const std::set<std::string>& linear_modules() {
  static const std::set<std::string> names{"query",  "key",      "value", "dense", "q_proj", "k_proj",
                                           "v_proj", "out_proj", "fc1",   "fc2",   "lm_head"};
  return names;
}

/// The integer lists of a traced shape cell: "[[16, 512], [512, 64]]" -> two shapes, "(16, 512)" -> one.
std::vector<Shape> parse_shapes(const std::string& text, const core::SourceLocation& where,
                                const std::string& col) {
  std::vector<Shape> out;
  Shape current;
  int depth = 0;
  std::string number;
  const auto flush = [&] {
    if (!number.empty()) current.push_back(std::stod(number)), number.clear();
  };
  const bool flat = !text.empty() && text.front() == '(';
  for (const char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      number.push_back(c);
    } else if (c == '[' || c == '(') {
      ++depth;
      if (depth == (flat ? 1 : 2)) current.clear();
    } else if (c == ']' || c == ')') {
      flush();
      if (depth == (flat ? 1 : 2)) out.push_back(current);
      if (--depth < 0) break;
    } else if (c == ',' || c == ' ') {
      flush();
    } else {
      throw ConfigError(where, col, fmt::format("'{}' is not a list of tensor shapes", text));
    }
  }
  if (depth != 0) throw ConfigError(where, col, fmt::format("unbalanced brackets in '{}'", text));
  return out;
}

double product(const Shape& s, std::size_t drop_last) {
  double p = 1.0;
  for (std::size_t i = 0; i + drop_last < s.size(); ++i) p *= s[i];
  return p;
}

void read_csv(const fs::path& file, std::vector<GemmSample>& out) {
  const std::string gpu = preset_for_gpu_name(file.parent_path().filename().string());
  if (gpu.empty()) return;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({file.string(), 0, 0}, "file", "cannot open the operator file");
  core::CsvReader reader(in, file.string());
  if (in.peek() == std::ifstream::traits_type::eof()) return;
  reader.read_header({});
  // The per-operator layout: a latency column beside fw_latency and bw_latency (the one file of another
  // layout, a MoE model's, holds whole-model latencies per row).
  for (const char* col :
       {"op", "target", "input_shapes", "output_shape", "latency", "fw_latency", "bw_latency"})
    if (!reader.column(col)) return;
  const GpuHardware hw = find_gpu(gpu);
  const double peak = matmul_peak_flops(hw, jobs::Precision::fp32);
  while (const auto row = reader.next()) {
    const std::string& op = reader.text(*row, "op");
    const std::string& target = reader.text(*row, "target");
    const auto where = [&](const char* col) { return reader.where(*row, *reader.column(col)); };
    GemmSample s;
    s.where = {file.string(), row->line, 0};
    s.gpu = gpu, s.arch = hw.arch, s.peak_flops = peak;
    const bool addmm = op == "call_function" && target.find("method addmm ") != std::string::npos;
    const bool matmul = op == "call_function" && (target.find("method matmul ") != std::string::npos ||
                                                  target.find("method bmm ") != std::string::npos);
    const std::string module = target.substr(target.rfind('.') + 1);
    const bool linear = op == "call_module" && linear_modules().count(module) > 0;
    if (!addmm && !matmul && !linear) continue;
    const auto in_shapes =
        parse_shapes(reader.text(*row, "input_shapes"), where("input_shapes"), "input_shapes");
    if (addmm) {  // bias, [M, K], [K, N]
      if (in_shapes.size() != 3 || in_shapes[1].size() != 2 || in_shapes[2].size() != 2)
        throw ConfigError(where("input_shapes"), "input_shapes", "addmm needs a bias, an M x K and a K x N");
      s.m = in_shapes[1][0], s.k = in_shapes[1][1], s.n = in_shapes[2][1];
    } else if (matmul) {  // [..., M, K] @ [..., K, N], the leading dimensions batched (broadcast)
      if (in_shapes.size() != 2)
        throw ConfigError(where("input_shapes"), "input_shapes", "a matmul needs two operands");
      if (in_shapes[0].size() < 2 || in_shapes[1].size() < 2) continue;  // a matrix-vector product
      const Shape &a = in_shapes[0], &b = in_shapes[1];
      s.m = a[a.size() - 2], s.k = a.back(), s.n = b.back();
      s.batch = std::max(product(a, 2), product(b, 2));
    } else {  // nn.Linear: [..., K] -> [..., N]
      const auto out_shapes =
          parse_shapes(reader.text(*row, "output_shape"), where("output_shape"), "output_shape");
      if (in_shapes.empty() || in_shapes[0].empty() || out_shapes.size() != 1 || out_shapes[0].empty())
        throw ConfigError(where("input_shapes"), "input_shapes", "a linear layer needs its input and output");
      s.m = product(in_shapes[0], 1), s.k = in_shapes[0].back(), s.n = out_shapes[0].back();
    }
    if (!(s.m > 0.0 && s.n > 0.0 && s.k > 0.0)) continue;
    const double forward_flops = 2.0 * s.batch * s.m * s.n * s.k;
    for (const char* col : {"fw_latency", "bw_latency"}) {
      const std::string& t = reader.text(*row, col);
      const auto ms = core::parse_number(t);
      if (!ms || *ms < 0.0)
        throw ConfigError(where(col), col, fmt::format("'{}' is not a latency in milliseconds", t));
      if (*ms <= 0.0) continue;  // not measured (an inference run has no backward)
      GemmSample pass = s;
      pass.backward = std::string(col) == "bw_latency";
      // The backward pass computes the input gradient and the weight gradient: two GEMMs of the same size.
      pass.flops = forward_flops * (pass.backward ? 2.0 : 1.0);
      pass.seconds = *ms / 1000.0;
      out.push_back(pass);
    }
  }
}

void read_path(const fs::path& path, std::vector<GemmSample>& out) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(path)) entries.push_back(e.path());
    std::sort(entries.begin(), entries.end());
    for (const auto& p : entries) read_path(p, out);
  } else if (path.extension() == ".csv") {
    read_csv(path, out);
  }
}

}  // namespace

double GemmSample::min_dim() const noexcept {
  return std::min({m, n, k});
}

std::vector<GemmSample> read_neusight_gemms(const std::filesystem::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw ConfigError({path.string(), 0, 0}, "file", "no such file or folder");
  std::vector<GemmSample> out;
  read_path(path, out);
  return out;
}

}  // namespace fleetwatt::models
