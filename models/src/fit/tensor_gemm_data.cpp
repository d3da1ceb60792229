// Readers of the tensor-core GEMM measurements (models/hardware/tensor_gemm.hpp): vidur's per-layer operator
// CSVs, the XLA GEMM table (a text-format protobuf inside a C++ raw string) and the MAMF table of
// ml-engineering's accelerator chapter (Markdown). Each turns its source's rows into samples of one form,
// with the location of every row so that a malformed one is reported where it is.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/models/fit/tensor_gemm_fit.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "markdown_table.hpp"

namespace fleetwatt::models {
namespace {

namespace fs = std::filesystem;
using core::ConfigError;
using core::SourceLocation;
using jobs::Precision;

std::string read_text(const fs::path& file) {
  auto text = core::read_file_text(file);
  if (!text) throw ConfigError({file.string(), 0, 0}, "file", "cannot open the file");
  return std::move(*text);
}

// ---- vidur ----------------------------------------------------------------------------------------------

/// The GEMM operators of a vidur layer, in the order of its columns.
constexpr const char* kVidurOps[] = {"attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj"};

void read_vidur_csv(const fs::path& file, const std::string& gpu, std::vector<TensorGemmSample>& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({file.string(), 0, 0}, "file", "cannot open the operator file");
  core::CsvReader reader(in, file.string());
  reader.read_header({});
  std::vector<std::string> required{"n_head",
                                    "n_kv_head",
                                    "n_embd",
                                    "n_expanded_embd",
                                    "use_gated_mlp",
                                    "num_tokens",
                                    "num_tensor_parallel_workers"};
  for (const char* op : kVidurOps) required.push_back(fmt::format("time_stats.{}.median", op));
  for (const auto& col : required)
    if (!reader.column(col))
      throw ConfigError({file.string(), 1, 0}, col, "missing column in vidur's operator file");
  const double peak = matmul_peak_flops(find_gpu(gpu), Precision::fp16);
  while (const auto row = reader.next()) {
    const auto field = [&](const std::string& col) -> std::pair<const std::string&, SourceLocation> {
      const std::size_t i = *reader.column(col);
      if (i >= row->fields.size()) throw ConfigError(reader.where(*row, i), col, "the row ends before it");
      return {row->fields[i].text, reader.where(*row, i)};
    };
    const auto integer = [&](const std::string& col) {
      const auto [text, where] = field(col);
      const auto v = core::parse_integer(text);
      if (!v || *v <= 0) throw ConfigError(where, col, fmt::format("'{}' is not a positive integer", text));
      return *v;
    };
    const std::int64_t heads = integer("n_head"), kv_heads = integer("n_kv_head"), embd = integer("n_embd"),
                       inter = integer("n_expanded_embd"), tokens = integer("num_tokens"),
                       tp = integer("num_tensor_parallel_workers");
    const auto [gated_text, gated_where] = field("use_gated_mlp");
    if (gated_text != "True" && gated_text != "False")
      throw ConfigError(gated_where, "use_gated_mlp", fmt::format("'{}' is not True or False", gated_text));
    const bool gated = gated_text == "True";
    const std::int64_t head_dim = embd / heads;
    // vidur/profiling/mlp/mlp_impl.py: the QKV and gate-up projections are column-parallel (N split by tp),
    // the attention output and down projections row-parallel (K split by tp); M = the row's tokens.
    const std::pair<std::int64_t, std::int64_t> nk[] = {
        {(heads + 2 * kv_heads) * head_dim, embd},  // attn_pre_proj: Q, K and V heads
        {embd, heads * head_dim},                   // attn_post_proj
        {(gated ? 2 : 1) * inter, embd},            // mlp_up_proj: gate and up fused when gated
        {embd, inter},                              // mlp_down_proj
    };
    for (std::size_t i = 0; i < std::size(kVidurOps); ++i) {
      const std::int64_t split = i % 2 == 0 ? nk[i].first : nk[i].second;
      if (split % tp != 0)
        throw ConfigError(
            field("num_tensor_parallel_workers").second, "num_tensor_parallel_workers",
            fmt::format("{} of {} is not divisible by {}", i % 2 == 0 ? "N" : "K", kVidurOps[i], tp));
      const std::string col = fmt::format("time_stats.{}.median", kVidurOps[i]);
      const auto [text, where] = field(col);
      const auto ms = core::parse_number(text);
      if (!ms || !(*ms > 0.0))
        throw ConfigError(where, col, fmt::format("'{}' is not a time in milliseconds", text));
      TensorGemmSample s;
      s.where = {file.string(), row->line, 0};
      s.gpu = gpu, s.source = "vidur", s.precision = Precision::fp16;
      s.m = static_cast<double>(tokens);
      s.n = static_cast<double>(i % 2 == 0 ? nk[i].first / tp : nk[i].first);
      s.k = static_cast<double>(i % 2 == 0 ? nk[i].second : nk[i].second / tp);
      s.flops = 2.0 * s.batch * s.m * s.n * s.k;
      s.seconds = *ms / 1000.0;
      s.peak_flops = peak;
      out.push_back(s);
    }
  }
}

// ---- XLA's text-format protobuf ------------------------------------------------------------------------

/// One field of a text-format protobuf: a scalar (`name: value`) or a message (`name { ... }`).
struct ProtoField {
  std::string name;
  std::string value;  ///< a scalar's text (a string without its quotes)
  SourceLocation where;
  std::vector<ProtoField> fields;  ///< a message's fields
  /// The first field of this name, or nothing.
  [[nodiscard]] const ProtoField* find(std::string_view n) const {
    for (const auto& f : fields)
      if (f.name == n) return &f;
    return nullptr;
  }
};

/// A recursive-descent reader of the subset of the protobuf text format the table uses: identifiers,
/// `:`, braces, double-quoted strings and numbers, with the line and column of each token in the file.
class ProtoParser {
 public:
  ProtoParser(std::string_view text, std::string file, std::uint32_t line, std::uint32_t column)
      : text_(text), file_(std::move(file)), line_(line), column_(column) {}

  /// The fields up to the end of the text.
  std::vector<ProtoField> parse() {
    auto fields = parse_fields();
    skip_blanks();
    if (pos_ < text_.size()) fail("unexpected '}'");
    return fields;
  }

 private:
  std::vector<ProtoField> parse_fields() {
    std::vector<ProtoField> out;
    for (;;) {
      skip_blanks();
      if (pos_ >= text_.size() || text_[pos_] == '}') return out;
      ProtoField f;
      f.where = here();
      f.name = identifier();
      skip_blanks();
      bool colon = false;
      if (peek() == ':') advance(), colon = true, skip_blanks();
      if (peek() == '{') {
        advance();
        f.fields = parse_fields();
        skip_blanks();
        if (peek() != '}') fail(fmt::format("'{}' is not closed", f.name));
        advance();
      } else if (!colon) {
        fail(fmt::format("expected ':' or '{{' after '{}'", f.name));
      } else if (peek() == '"') {
        advance();
        while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') f.value.push_back(advance());
        if (peek() != '"') fail("a string is not closed on its line");
        advance();
      } else {
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                       text_[pos_] == '.' || text_[pos_] == '-' || text_[pos_] == '+'))
          f.value.push_back(advance());
        if (f.value.empty()) fail(fmt::format("'{}' has no value", f.name));
      }
      out.push_back(std::move(f));
    }
  }

  std::string identifier() {
    std::string id;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      id.push_back(advance());
    if (id.empty()) fail(fmt::format("expected a field name, found '{}'", peek()));
    return id;
  }

  void skip_blanks() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) advance();
  }
  [[nodiscard]] char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  char advance() {
    const char c = text_[pos_++];
    if (c == '\n')
      ++line_, column_ = 1;
    else
      ++column_;
    return c;
  }
  [[nodiscard]] SourceLocation here() const { return {file_, line_, column_}; }
  [[noreturn]] void fail(const std::string& message) const { throw ConfigError(here(), "protobuf", message); }

  std::string_view text_;
  std::string file_;
  std::size_t pos_ = 0;
  std::uint32_t line_, column_;
};

/// XLA's device keys and their presets (gfx950 = MI355X has none).
std::string openxla_preset(const std::string& device) {
  if (device == "sm_90") return "h100-sxm";
  if (device == "sm_100_B200") return "b200";
  if (device == "gfx942") return "mi300x";
  return "";
}

/// The precision of a data-type key, or nothing for the kinds not read: the mixed e4m3 x e5m2 FP8 variants,
/// BF16 with an FP32 output, and f32 on AMD (whether XLA's f32 GEMMs there run on TF32 matrix units is not
/// known: gfx950's exceed its FP32 matrix peak, so they are not plain FP32 either).
std::optional<Precision> openxla_precision(const std::string& dtype, bool nvidia) {
  if (dtype == "bf16xbf16->bf16") return Precision::bf16;
  // e4m3 x e4m3 with a BF16 output; gfx942 (MI300X) runs the "fnuz" variant of e4m3, its native FP8 format.
  if (dtype == "f8e4m3fnxf8e4m3fn->bf16" || dtype == "f8e4m3fnuzxf8e4m3fnuz->bf16") return Precision::fp8;
  if (dtype == "f32xf32->f32" && nvidia) return Precision::tf32;  // TF32 tensor cores (XLA's default)
  return std::nullopt;
}

double proto_number(const ProtoField& parent, const char* name) {
  const ProtoField* f = parent.find(name);
  if (!f) throw ConfigError(parent.where, name, fmt::format("'{}' has no '{}'", parent.name, name));
  const auto v = core::parse_number(f->value);
  if (!v || !(*v > 0.0))
    throw ConfigError(f->where, name, fmt::format("'{}' is not a positive number", f->value));
  return *v;
}

// ---- MAMF table ----------------------------------------------------------------------------------------

/// The presets an accelerator of the MAMF table stands for (empty: none).
std::vector<std::string> mamf_presets(const std::string& accelerator) {
  if (accelerator == "NVIDIA A100 SXM") return {"a100-sxm-80gb", "a100-sxm4-40gb"};
  if (accelerator == "NVIDIA A100 PCIe") return {"a100-pcie-40gb", "a100-pcie-80gb"};
  if (accelerator == "NVIDIA H100 SXM") return {"h100-sxm"};
  if (accelerator == "NVIDIA H200 SXM") return {"h200-sxm"};
  if (accelerator == "NVIDIA B200 SXM") return {"b200"};
  if (accelerator == "NVIDIA GB200 SXM") return {"gb200"};
  if (accelerator == "AMD MI300X") return {"mi300x"};
  return {};
}

}  // namespace

// The A100 is the 80 GB SXM part: its best rate, 271 TFLOP/s, is the SXM board's MAMF and above the PCIe
// one's; the H100 is the SXM part: it reaches 894 TFLOP/s, above the PCIe board's 756 peak.
std::string vidur_preset(const std::string& folder) {
  if (folder == "a40") return "a40";
  if (folder == "a100") return "a100-sxm-80gb";
  if (folder == "h100") return "h100-sxm";
  return "";
}

double TensorGemmSample::min_dim() const noexcept {
  return std::min({m, n, k});
}

double TensorGemmSample::efficiency() const noexcept {
  return flops / (seconds * peak_flops);
}

std::vector<TensorGemmSample> read_vidur_gemms(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ConfigError({dir.string(), 0, 0}, "folder", "no such folder");
  std::vector<std::pair<fs::path, std::string>> files;
  for (const auto& gpu_dir : fs::directory_iterator(dir)) {
    const std::string gpu = vidur_preset(gpu_dir.path().filename().string());
    if (gpu.empty() || !gpu_dir.is_directory()) continue;
    for (const auto& e : fs::recursive_directory_iterator(gpu_dir.path()))
      if (e.is_regular_file() && e.path().filename() == "mlp.csv") files.emplace_back(e.path(), gpu);
  }
  std::sort(files.begin(), files.end());  // directory order is the file system's: sort for a stable order
  std::vector<TensorGemmSample> out;
  for (const auto& [file, gpu] : files) read_vidur_csv(file, gpu, out);
  return out;
}

std::vector<TensorGemmSample> read_openxla_gemms(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  // The table is the text between R"pb( and )pb"; its tokens are located from where it starts.
  const std::size_t open = text.find("R\"pb(");
  const std::size_t close = open == std::string::npos ? open : text.find(")pb\"", open);
  if (close == std::string::npos)
    throw ConfigError({file.string(), 0, 0}, "protobuf", "no R\"pb( ... )pb\" table in the file");
  const std::size_t body = open + 5;
  const auto line = static_cast<std::uint32_t>(1 + std::count(text.begin(), text.begin() + body, '\n'));
  const auto column = static_cast<std::uint32_t>(body - (text.rfind('\n', body - 1) + 1) + 1);
  const auto root =
      ProtoParser(std::string_view(text).substr(body, close - body), file.string(), line, column).parse();
  std::vector<TensorGemmSample> out;
  for (const auto& device : root) {
    if (device.name != "entries") continue;
    const ProtoField* key = device.find("key");
    const ProtoField* value = device.find("value");
    if (!key || !value) throw ConfigError(device.where, "entries", "a device entry needs a key and a value");
    const std::string gpu = openxla_preset(key->value);
    if (gpu.empty()) continue;
    const GpuHardware hw = find_gpu(gpu);
    const bool nvidia = key->value.rfind("sm_", 0) == 0;
    for (const auto& shape : value->fields) {
      if (shape.name != "entries") continue;
      TensorGemmSample s;
      s.where = {file.string(), shape.where.line, 0};
      s.gpu = gpu, s.source = "openxla";
      s.batch = proto_number(shape, "b"), s.m = proto_number(shape, "m");
      s.n = proto_number(shape, "n"), s.k = proto_number(shape, "k");
      s.flops = 2.0 * s.batch * s.m * s.n * s.k;
      for (const auto& f : shape.fields) {
        if (f.name != "flops") continue;
        const ProtoField* dtype = f.find("key");
        if (!dtype) throw ConfigError(f.where, "flops", "a throughput needs a data-type key");
        const auto precision = openxla_precision(dtype->value, nvidia);
        if (!precision) continue;
        TensorGemmSample p = s;
        p.where.line = dtype->where.line;
        p.precision = *precision;
        p.seconds = s.flops / proto_number(f, "value");
        p.peak_flops = matmul_peak_flops(hw, *precision);
        out.push_back(p);
      }
    }
  }
  return out;
}

std::vector<MamfFigure> read_mamf(const std::filesystem::path& file) {
  std::istringstream in(read_text(file));
  std::vector<MamfFigure> explicit_rows, from_notes;
  std::string line;
  std::uint32_t line_no = 0;
  bool in_section = false, found = false;
  Precision precision = Precision::bf16;
  bool in_table = false;            // after a **BF16** or **FP8** marker of the section
  std::vector<std::string> header;  // of the current sub-table; empty before its header line
  const auto col = [&](const std::string& name) -> std::optional<std::size_t> {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? std::nullopt : std::optional<std::size_t>(it - header.begin());
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind('#', 0) == 0) {  // a heading: the section is the one of the comparison table
      in_section = line.find("Maximum Achievable Matmul FLOPS comparison table") != std::string::npos;
      found = found || in_section;
      in_table = false, header.clear();
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("**BF16", 0) == 0) precision = Precision::bf16, in_table = true, header.clear();
    if (line.rfind("**FP8", 0) == 0) precision = Precision::fp8, in_table = true, header.clear();
    if (!in_table || line.rfind('|', 0) != 0) continue;
    const auto cells = markdown_cells(line);
    if (header.empty()) {
      for (const auto& c : cells) header.push_back(c.text);
      for (const char* name : {"Accelerator", "MAMF", "Theory"})
        if (!col(name))
          throw ConfigError({file.string(), line_no, 1}, name, "missing column in the MAMF table");
      continue;
    }
    if (!cells.empty() && cells.front().text.rfind(":-", 0) == 0) continue;  // the alignment row
    const auto cell = [&](const char* name) -> const MarkdownCell* {
      const std::size_t i = *col(name);
      return i < cells.size() ? &cells[i] : nullptr;
    };
    const MarkdownCell* accel = cell("Accelerator");
    const MarkdownCell* mamf = cell("MAMF");
    if (!accel || accel->text.empty() || !mamf || mamf->text.empty()) continue;  // blank or not measured
    const std::vector<std::string> gpus = mamf_presets(accel->text);
    if (gpus.empty()) continue;  // no preset
    const auto number = [&](const MarkdownCell* c, const char* name) {
      const auto v = c ? core::parse_number(c->text) : std::nullopt;
      if (!v || !(*v > 0.0))
        throw ConfigError({file.string(), line_no, c ? c->column : 0}, name,
                          fmt::format("'{}' is not a rate in TFLOP/s", c ? c->text : ""));
      return *v * 1e12;
    };
    MamfFigure f;
    f.precision = precision, f.accelerator = accel->text;
    f.flops = number(mamf, "MAMF"), f.peak_flops = number(cell("Theory"), "Theory");
    for (const auto& g : gpus) {
      f.gpu = g;
      explicit_rows.push_back(f);
    }
    // The BF16 table has no H200 row: its H100 SXM row notes "H200 is the same" (the same tensor cores at
    // the same clocks; only the memory differs), so that figure stands for the H200 as well.
    const MarkdownCell* notes = col("Notes") ? cell("Notes") : nullptr;
    if (notes && notes->text.find("H200 is the same") != std::string::npos) {
      f.gpu = "h200-sxm";
      from_notes.push_back(f);
    }
  }
  if (!found)
    throw ConfigError({file.string(), 0, 0}, "table",
                      "no section \"Maximum Achievable Matmul FLOPS comparison table\"");
  // A row of its own wins over a note.
  for (const auto& f : from_notes) {
    const bool has_row = std::any_of(explicit_rows.begin(), explicit_rows.end(), [&](const MamfFigure& e) {
      return e.gpu == f.gpu && e.precision == f.precision;
    });
    if (!has_row) explicit_rows.push_back(f);
  }
  return explicit_rows;
}

}  // namespace fleetwatt::models
