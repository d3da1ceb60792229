// Readers of published LLM pre-training step times (NeMo and Megatron-Bridge performance summaries): their
// Markdown and HTML tables, the section headings that give a row its release, system or model, and the
// conversion to a step time (see the header).
#include "fleetwatt/models/fit/published_steps.hpp"

#include "fleetwatt/core/checked_integer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"
#include "markdown_table.hpp"

namespace fleetwatt::models {
namespace {

namespace fs = std::filesystem;
using core::ConfigError;
using core::SourceLocation;

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

/// The cells' texts of a Markdown table row "| a | b |".
std::vector<std::string> pipe_cells(const std::string& line) {
  std::vector<std::string> texts;
  for (auto& cell : markdown_cells(line)) texts.push_back(std::move(cell.text));
  return texts;
}

bool separator_row(const std::string& line) {
  const std::string t = trim(line);
  return t.size() > 1 && t[0] == '|' && t.find_first_not_of("|-: ") == std::string::npos;
}

/// The first number of a cell: "31508 (29789)" -> 31508, "1,671" -> 1671, "[888](https://...)" -> 888;
/// nullopt for "n/a", "-" and cells without a number.
std::optional<double> first_number(const std::string& cell) {
  std::string digits;
  bool started = false;
  std::size_t i = 0;
  for (; i < cell.size(); ++i) {
    const char c = cell[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || (started && c == '.')) {
      digits += c, started = true;
    } else if (started && c == ',') {
      continue;  // a thousands separator
    } else if (started) {
      break;
    }
  }
  if (digits.empty()) return std::nullopt;
  // An exponent belongs to the figure ("1e308" is not 1): read it whole, so that the range checks see it.
  if (i + 1 < cell.size() && (cell[i] == 'e' || cell[i] == 'E')) {
    std::size_t j = i + 1;
    std::string exponent(1, 'e');
    if (cell[j] == '+' || cell[j] == '-') exponent += cell[j++];
    const std::size_t first = j;
    while (j < cell.size() && std::isdigit(static_cast<unsigned char>(cell[j]))) exponent += cell[j++];
    if (j > first) digits += exponent;
  }
  return std::strtod(digits.c_str(), nullptr);  // out of range: HUGE_VAL, refused by the caller's range
}

/// A throughput cell: a number in (0, most], or nothing (the column is then not used); beyond is bad input.
double throughput_cell(const std::string& cell, double most, const SourceLocation& where,
                       const std::string& column) {
  const auto v = first_number(cell).value_or(0.0);
  if (!(v <= most))
    throw ConfigError(where, column, fmt::format("{} is beyond the {:.0e} any GPU reaches", v, most));
  return v;
}

/// A count column's value; `fallback` for "n/a" (VP and EP of a run that does not use them).
std::uint32_t count_cell(const std::string& cell, std::uint32_t fallback, const SourceLocation& where,
                         const std::string& column) {
  const auto v = first_number(cell);
  if (!v) {
    if (core::lower_case(trim(cell)) == "n/a" || trim(cell).empty()) return fallback;
    throw ConfigError(where, column, fmt::format("expected a whole number, found '{}'", cell));
  }
  const auto n = core::integer_in_range<std::uint32_t>(*v);
  if (!n || *v != std::floor(*v))
    throw ConfigError(where, column, fmt::format("expected a whole number, found '{}'", cell));
  return *n;
}

/// The column whose header matches `key` (lower case, spaces removed), or -1.
int column(const std::vector<std::string>& header, const std::string& key) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    std::string h;
    for (const char c : core::lower_case(header[i]))
      if (!std::isspace(static_cast<unsigned char>(c)) && c != '*') h += c;
    if (h == key) return static_cast<int>(i);
  }
  return -1;
}

/// Precision as printed: BF16 and FP8 (tensor-wise current scaling "FP8-CS" or delayed scaling "FP8") are
/// what fleetwatt models; block-scaled MXFP8 and NVFP4 are not.
void set_precision(PublishedStep& r, const std::string& printed) {
  r.precision_name = printed;
  const std::string p = core::lower_case(printed);
  if (p.rfind("bf16", 0) == 0) {
    r.precision = jobs::Precision::bf16, r.precision_supported = true;
  } else if (p.rfind("fp8", 0) == 0) {
    r.precision = jobs::Precision::fp8, r.precision_supported = true;
  } else {
    r.precision = jobs::Precision::fp8, r.precision_supported = false;
  }
}

/// Model FLOPs of one step as NeMo counted them for Llama models before August 2025
/// (nemo/collections/common/metrics/perf_metrics.py, FLOPsMeasurementCallback): gbs s L h^2 (12 + 12 g / a
/// + 18 f / h + 12 s / h + 6 V / (L h)), g the query groups, a the heads, f the feed-forward width, V the
/// vocabulary; attention counted whole, recomputation not.
double nemo_llama_flops(const jobs::ModelShape& m, double gbs, double s) {
  const double L = m.layers, h = m.hidden, a = m.heads, g = m.kv_heads > 0 ? m.kv_heads : m.heads;
  const double f = m.ffn_hidden, V = m.vocab;
  return gbs * s * L * h * h * (12.0 + 12.0 * g / a + 18.0 * f / h + 12.0 * s / h + 6.0 * V / (L * h));
}

/// Fills the step time and why a row cannot be expressed.
void finish(PublishedStep& r) {
  r.zoo = zoo_name_for_published_model(r.model);
  if (r.tokens_per_s_per_gpu > 0.0 && r.gpus > 0) {
    r.step_s = static_cast<double>(r.global_batch) * r.seq / (r.tokens_per_s_per_gpu * r.gpus);
  } else if (r.model_tflops_per_gpu > 0.0 && r.gpus > 0 && !r.zoo.empty()) {
    // Only model TFLOP/s given (NeMo's long-sequence tables): the step from NeMo's own FLOP count.
    if (const auto shape = zoo_model_shape(r.zoo))
      r.step_s = nemo_llama_flops(*shape, r.global_batch, r.seq) / (r.model_tflops_per_gpu * 1e12 * r.gpus);
  }
  r.gpu = preset_for_system(r.system);
  if (r.zoo.empty())
    r.unsupported = fmt::format("model {} is not in the zoo", r.model);
  else if (r.gpu.empty())
    r.unsupported = fmt::format("no GPU preset for {}", r.system);
  else if (!r.precision_supported)
    r.unsupported = fmt::format("precision {} is not modelled", r.precision_name);
  else if (!(r.step_s > 0.0))
    r.unsupported = "no throughput";
}

/// One Markdown table row of a NeMo or Megatron-Bridge pre-training table.
PublishedStep pipe_row(const std::vector<std::string>& header, const std::vector<std::string>& cells,
                       const SourceLocation& where, const std::string& source, const std::string& system,
                       const std::string& model, const std::string& precision) {
  PublishedStep r;
  r.where = where, r.source = source, r.system = system, r.model = model;
  const auto at = [&](const std::string& key) -> std::optional<std::string> {
    const int c = column(header, key);
    if (c < 0 || static_cast<std::size_t>(c) >= cells.size()) return std::nullopt;
    return cells[static_cast<std::size_t>(c)];
  };
  const auto need = [&](const std::string& key, const std::string& name) {
    const auto v = at(key);
    if (!v) throw ConfigError(where, name, "missing in this table row");
    return *v;
  };
  if (const auto m = at("model")) r.model = trim(*m);
  if (const auto s = at("system")) r.system = trim(*s);
  set_precision(r, at("precision").value_or(precision));
  r.gpus = count_cell(need("#-gpus", "#-GPUs"), 0, where, "#-GPUs");
  r.global_batch = count_cell(need("gbs", "GBS"), 0, where, "GBS");
  r.seq = count_cell(need("sequencelength", "Sequence Length"), 0, where, "Sequence Length");
  auto& par = r.parallel;
  par.micro_batch = count_cell(need("mbs", "MBS"), 1, where, "MBS");
  par.tp = std::max(1u, count_cell(need("tp", "TP"), 1, where, "TP"));
  par.pp = std::max(1u, count_cell(need("pp", "PP"), 1, where, "PP"));
  par.cp = std::max(1u, count_cell(need("cp", "CP"), 1, where, "CP"));
  par.vp = std::max(1u, count_cell(need("vp", "VP"), 1, where, "VP"));
  if (const auto ep = at("ep")) par.ep = std::max(1u, count_cell(*ep, 1, where, "EP"));
  if (const auto fsdp = at("fsdp"); fsdp && count_cell(*fsdp, 0, where, "FSDP") > 0) {
    // Megatron-Bridge: "FSDP > 0: use FSDP with sharding group size = #GPUs / (TP x PP)".
    par.zero = 3;
    par.fsdp_shard_size = 0;  // the whole data-parallel group
  } else {
    par.zero = 1;  // the distributed optimizer every NeMo and Megatron-Bridge recipe uses
  }
  // Bounds far above any GPU (an H100 trains at ~10^4 tokens/s and ~10^3 TFLOP/s): a figure beyond is a
  // damaged cell, not a fast GPU.
  r.tokens_per_s_per_gpu =
      throughput_cell(need("tokens/sec/gpu", "Tokens / sec / GPU"), 1e8, where, "Tokens / sec / GPU");
  if (const auto tf = at("modeltflop/sec/gpu"))
    r.model_tflops_per_gpu = throughput_cell(*tf, 1e6, where, "Model TFLOP / sec / GPU");
  finish(r);
  return r;
}

/// NeMo 24.07 and Megatron-Bridge Markdown: tables under "## <release> NeMo Container", "### Pre-Training
/// Performance" (or NeMo's "### Pretraining"), "#### Model: X" or "#### System: X". Fine-tuning, SFT and
/// LoRA tables are left out (their steps are not pre-training steps).
void read_markdown(const fs::path& file, const std::string& default_source, const std::string& default_system,
                   const std::string& default_precision, std::vector<PublishedStep>& out) {
  std::ifstream in(file);
  if (!in) throw ConfigError({file.string(), 0, 0}, "file", "cannot be read");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string source = default_source, system = default_system, model;
  bool pretraining = false;
  static const std::regex release(R"(^##\s+([0-9.]+)\s+NeMo Container)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::smatch m;
    if (std::regex_search(line, m, release)) {
      source = fmt::format("Megatron-Bridge {}", m[1].str());
      pretraining = false;
      continue;
    }
    if (line.rfind("### ", 0) == 0) {
      const std::string h = core::lower_case(line);
      pretraining = h.find("pre-training") != std::string::npos || h.find("pretraining") != std::string::npos;
      model.clear();
      if (!default_system.empty()) system = default_system;
      continue;
    }
    if (line.rfind("#### Model:", 0) == 0) {
      model = trim(line.substr(11));
      continue;
    }
    if (line.rfind("#### System:", 0) == 0) {
      system = trim(line.substr(12));
      continue;
    }
    if (!pretraining || trim(line).rfind('|', 0) != 0 || i + 1 >= lines.size() ||
        !separator_row(lines[i + 1]))
      continue;
    const std::vector<std::string> header = pipe_cells(line);
    i += 2;
    for (; i < lines.size() && trim(lines[i]).rfind('|', 0) == 0; ++i) {
      const std::vector<std::string> cells = pipe_cells(lines[i]);
      if (std::all_of(cells.begin(), cells.end(), [](const std::string& c) { return c.empty(); })) continue;
      const SourceLocation where{file.string(), static_cast<std::uint32_t>(i + 1), 0};
      // A release without a precision column ran FP8: its note gives the FP8 quantization granularities.
      out.push_back(pipe_row(header, cells, where, source, system, model,
                             default_precision.empty() ? std::string("FP8") : default_precision));
    }
    --i;
  }
}

/// The text inside each <td>...</td> of a line, in order.
std::vector<std::string> html_cells(const std::string& text) {
  std::vector<std::string> cells;
  static const std::regex td(R"(<td[^>]*>(.*?)</td>)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), td); it != std::sregex_iterator(); ++it)
    cells.push_back(trim((*it)[1].str()));
  return cells;
}

/// NeMo's long-sequence tables (HTML): per sequence length (K tokens), GPUs, batch, TFLOP/s without CP, and
/// the CP run's TP, PP, DP, CP and TFLOP/s. Only the CP runs have their configuration: one row each, at one
/// sequence per micro-batch, in the precision and on the system its section names ("## LLAMA3-8B (FP8) -
/// B200"). The step time comes from the model TFLOP/s and NeMo's FLOP count of those releases (attention
/// counted whole, not halved for the causal mask; NeMo's perf_metrics.py before August 2025).
void read_long_sequence(const fs::path& file, std::vector<PublishedStep>& out) {
  std::ifstream in(file);
  if (!in) throw ConfigError({file.string(), 0, 0}, "file", "cannot be read");
  std::string model, system, precision, line, row;
  std::uint32_t row_line = 0, line_no = 0;
  static const std::regex section(R"(^##\s+(\S+)\s+\((\w+)\)\s+-\s+(\S+))");
  bool in_row = false;
  while (std::getline(in, line)) {
    ++line_no;
    std::smatch m;
    if (std::regex_search(line, m, section)) {
      model = m[1].str(), precision = m[2].str(), system = "DGX-" + m[3].str();
      continue;
    }
    const std::string t = trim(line);
    if (t == "<tr>") {
      in_row = true, row.clear(), row_line = line_no;
      continue;
    }
    if (!in_row) continue;
    if (t != "</tr>") {
      row += t;
      continue;
    }
    in_row = false;
    const std::vector<std::string> cells = html_cells(row);
    if (cells.size() < 9) continue;  // a header row
    const SourceLocation where{file.string(), row_line, 0};
    PublishedStep r;
    r.where = where, r.source = "NeMo long-sequence", r.model = model, r.system = system;
    set_precision(r, precision);
    r.seq = 1024 * count_cell(cells[0], 0, where, "SeqLen (K)");
    r.gpus = count_cell(cells[1], 0, where, "# of GPUs");
    r.global_batch = count_cell(cells[2], 0, where, "Batch Size");
    auto& par = r.parallel;
    par.tp = std::max(1u, count_cell(cells[4], 1, where, "TP"));
    par.pp = std::max(1u, count_cell(cells[5], 1, where, "PP"));
    par.cp = std::max(1u, count_cell(cells[7], 1, where, "CP"));
    par.micro_batch = 1;
    par.zero = 1;
    const std::uint32_t dp = count_cell(cells[6], 1, where, "DP");
    r.model_tflops_per_gpu = throughput_cell(cells[8], 1e6, where, "Model TFLOP / sec / GPU");
    finish(r);
    // The B200 table's rows give fewer ranks than GPUs (TP 1, PP 1, DP 2, CP 1 on 8 GPUs): the source
    // contradicts itself, so the row says so instead of being guessed at.
    if (static_cast<std::uint64_t>(par.tp) * par.pp * par.cp * dp != r.gpus)
      r.unsupported = fmt::format("the source's TP x PP x DP x CP = {} x {} x {} x {} is not its {} GPUs",
                                  par.tp, par.pp, dp, par.cp, r.gpus);
    out.push_back(std::move(r));
  }
}

}  // namespace

std::string zoo_name_for_published_model(const std::string& name) {
  // Normalised: lower case, '-' and '.' as '_' ("LLAMA3.1_405B" -> "llama3_1_405b").
  std::string n;
  for (const char c : core::lower_case(trim(name))) n += (c == '-' || c == '.' || c == ' ') ? '_' : c;
  static const std::map<std::string, std::string> names = {{"gpt3_5b", "gpt3_5b"},
                                                           {"gpt3_20b", "gpt3_20b"},
                                                           {"gpt3_175b", "gpt3_175b"},
                                                           {"llama2_7b", "llama2_7b"},
                                                           {"llama2_13b", "llama2_13b"},
                                                           {"llama2_70b", "llama2_70b"},
                                                           {"llama3_8b", "llama3_8b"},
                                                           {"llama3_70b", "llama3_70b"},
                                                           {"llama3_1_405b", "llama31_405b"},
                                                           {"nemotron_8b", "nemotron3_8b"},
                                                           {"nemotron_22b", "nemotron3_22b"},
                                                           {"nemotron_340b", "nemotron4_340b"},
                                                           {"nemotron_15b", "nemotron4_15b"},
                                                           {"mixtral_8x7b", "mixtral_8x7b"},
                                                           {"mixtral_8x22b", "mixtral_8x22b"}};
  const auto it = names.find(n);
  return it == names.end() || !is_zoo_model(it->second) ? std::string() : it->second;
}

std::string preset_for_system(const std::string& system) {
  static const std::map<std::string, std::string> systems = {
      {"dgx-h100", "h100-sxm"}, {"dgx-h200", "h200-sxm"}, {"dgx-b200", "b200"}, {"dgx-gb200", "gb200"}};
  const auto it = systems.find(core::lower_case(trim(system)));
  return it == systems.end() ? std::string() : it->second;
}

std::vector<PublishedStep> read_published_steps(const fs::path& path) {
  std::vector<fs::path> files;
  if (fs::is_directory(path)) {
    for (const auto& e : fs::recursive_directory_iterator(path))
      if (e.is_regular_file() && e.path().extension() == ".md") files.push_back(e.path());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  std::vector<PublishedStep> out;
  for (const auto& f : files) {
    const std::string name = f.filename().string();
    const std::string folder = f.parent_path().filename().string();
    if (name == "performance_summary_24.07.md")
      read_markdown(f, "NeMo 24.07", "DGX-H100", "FP8", out);
    else if (name == "performance_long_sequence.md")
      read_long_sequence(f, out);
    else if (folder == "megatron-bridge-performance" && name.rfind("performance-summary", 0) == 0)
      read_markdown(f, "Megatron-Bridge", "", "", out);
  }
  return out;
}

jobs::JobSpec published_step_job(const PublishedStep& row) {
  jobs::JobSpec j;
  j.n_gpus = row.gpus;
  j.class_origin = row.where;
  auto& m = j.meta;
  m.model = row.zoo;
  // NeMo's long-sequence runs train the model beyond its trained context (RoPE scaling): its shape then.
  const auto zoo = std::find_if(zoo_entries().begin(), zoo_entries().end(),
                                [&](const ZooEntry& e) { return e.name == row.zoo; });
  if (zoo != zoo_entries().end() && row.seq > zoo->default_input)
    if (const auto shape = zoo_model_shape(row.zoo)) m.shape = *shape;
  m.batch_size = row.global_batch;
  m.dataset_samples = row.global_batch;  // one step per epoch
  m.input_size = row.seq;
  m.precision = row.precision;
  m.stack = jobs::SoftwareStack::optimized;
  m.parallel = row.parallel;
  // Layers that do not divide among the stages (Llama 3.1 405B's 126 on 8 or 16): Megatron-Bridge counts the
  // embedding and the loss as a layer each of the first and last stage (account_for_embedding_in_pipeline_
  // split, account_for_loss_in_pipeline_split), so those stages hold one layer fewer.
  const auto& p = m.parallel;
  if (const auto shape = zoo_model_shape(row.zoo);
      shape && p.pp > 1 && shape->layers % p.pp != 0 && (shape->layers + 2) % p.pp == 0) {
    const std::uint32_t per_stage = (shape->layers + 2) / p.pp;
    m.parallel.first_stage_layers = m.parallel.last_stage_layers = per_stage - 1;
  }
  // NeMo up to 24.07 ran FlashAttention-2: its launcher set NVTE_FUSED_ATTN=0 ("Disable cudnn FA until we've
  // tested it more", conf/config.yaml); Megatron-Bridge runs Transformer Engine's cuDNN fused attention.
  m.attention = row.source.rfind("NeMo", 0) == 0 ? jobs::Attention::flash2 : jobs::Attention::fused;
  return j;
}

double published_system_internode_Bps() {
  return 400e9 / 8.0;
}

std::vector<StepComparison> compare_published_steps(const std::vector<PublishedStep>& rows,
                                                    const StepCalibration& calibration) {
  DatasheetParams params;
  params.internode_Bps = published_system_internode_Bps();
  params.check_memory = false;
  params.calibration = calibration;
  const DatasheetPredictor predictor(params);
  std::vector<StepComparison> out;
  for (const auto& row : rows) {
    if (!row.unsupported.empty()) continue;
    StepComparison c;
    c.row = &row;
    try {
      const GpuHardware& gpu = gpu_preset(row.gpu);
      const StepBreakdown b = predictor.explain(published_step_job(row), gpu);
      c.predicted_s = b.step_s;
      c.memory_bytes = b.memory_need_bytes;
      if (b.parallel) c.compute_s = b.parallel->compute_s;
      c.bubble_s = b.bubble_s, c.tp_s = b.tp_comm_s, c.cp_s = b.cp_comm_s, c.pp_s = b.pp_comm_s;
      c.dp_s = b.dp_comm_s;
      c.fits = b.memory_need_bytes <= gpu.memory_bytes;
      c.error = b.step_s / row.step_s - 1.0;
      c.mfu = b.mfu;
    } catch (const core::InputError& e) {
      c.refused = e.message();
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fleetwatt::models
