// Readers of measured runs: the Zeus summary CSV, the GAISSA records CSV, the NeuSight label folders and
// fleetwatt's own records CSV, each turned into Measurement rows (a JobSpec plus what was measured). The
// layout of a file is told from its header (or, for NeuSight, from its name and folder); a folder is read
// recursively and files of no known layout in it are ignored.
#include "fleetwatt/models/fit/measurements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>

#include "fleetwatt/core/checked_integer.hpp"
#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/records.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {
namespace {

/// The math an "FP32" run of these sources used: PyTorch before 1.12 (Zeus, 2022: allow_tf32 defaulted on for
/// matmuls and cuDNN convolutions) and TensorFlow from 2.4 (GAISSA's Keras runs) execute FP32 matmuls and
/// convolutions on TF32 tensor cores where the GPU has them (Ampere and later); NeuSight turned TF32 off.
jobs::Precision default_fp32_math(const std::string& gpu) {
  return find_gpu(gpu).tf32_flops > 0.0 ? jobs::Precision::tf32 : jobs::Precision::fp32;
}

namespace fs = std::filesystem;
using core::ConfigError;
using core::CsvReader;
using core::CsvRow;
using core::SourceLocation;
using jobs::JobSpec;

const char* const kZeusHeader =
    "dataset,network,batch_size,optimizer,power_limit,time_per_epoch,average_power";
const char* const kGaissaHeaderStart = "training environment,architecture,run,";

std::string normalise(std::string_view s) {
  std::string out;
  for (const char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

/// The first line of a file without its line end (empty when it cannot be read).
std::string first_line(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
  return line;
}

/// A CSV of a known layout, read row by row with every cell located for messages (ConfigError).
class Table {
 public:
  explicit Table(const fs::path& file) : in_(file, std::ios::binary), reader_(in_, file.string()) {
    if (!in_) throw ConfigError({file.string(), 0, 0}, "file", "cannot open the measurement file");
    const auto header = reader_.next();
    if (!header) throw ConfigError({file.string(), 1, 0}, "header", "empty file");
    for (std::size_t i = 0; i < header->fields.size(); ++i) columns_[header->fields[i].text] = i;
  }
  std::optional<CsvRow> next() { return reader_.next(); }
  [[nodiscard]] const std::string& name() const { return reader_.name(); }
  [[nodiscard]] bool has(const std::string& col) const { return columns_.count(col) != 0; }

  [[nodiscard]] std::size_t index(const std::string& col) const {
    const auto it = columns_.find(col);
    if (it == columns_.end()) throw ConfigError({name(), 1, 0}, col, "column missing from the header");
    return it->second;
  }
  [[nodiscard]] SourceLocation where(const CsvRow& row, const std::string& col) const {
    return reader_.where(row, index(col));
  }
  [[nodiscard]] const std::string& text(const CsvRow& row, const std::string& col) const {
    const std::size_t i = index(col);
    if (i >= row.fields.size())
      throw ConfigError(
          {name(), row.line, 0}, col,
          fmt::format("the row has {} fields, the header {}", row.fields.size(), columns_.size()));
    return row.fields[i].text;
  }
  /// A finite number; an empty cell is nothing when `optional`, an error otherwise.
  [[nodiscard]] std::optional<double> number(const CsvRow& row, const std::string& col,
                                             bool optional = false) const {
    const std::string& t = text(row, col);
    if (optional && t.empty()) return std::nullopt;
    const auto v = core::parse_number(t);
    if (!v) throw ConfigError(where(row, col), col, fmt::format("'{}' is not a number", t));
    return v;
  }
  [[nodiscard]] double positive(const CsvRow& row, const std::string& col) const {
    const double v = *number(row, col);
    if (!(v > 0.0)) throw ConfigError(where(row, col), col, fmt::format("must be positive, not {}", v));
    return v;
  }
  [[nodiscard]] std::uint32_t count(const CsvRow& row, const std::string& col) const {
    const double v = positive(row, col);
    if (v != std::floor(v) || v > 4e9)
      throw ConfigError(where(row, col), col, fmt::format("must be a whole number, not {}", v));
    return static_cast<std::uint32_t>(v);
  }

 private:
  std::ifstream in_;
  CsvReader reader_;
  std::map<std::string, std::size_t> columns_;
};

// ---- Zeus ------------------------------------------------------------------------------------------------

/// The Zeus workloads as jobs (the mapping of tests/models/validation_test.cpp's zeus_job): sizes from the
/// datasets' standard splits. Returns why not when the source does not say enough.
std::string zeus_job(const std::string& dataset, const std::string& network, std::uint32_t batch,
                     JobSpec& job) {
  job = JobSpec{};
  job.meta.batch_size = batch;
  if (network == "resnet50") {  // ImageNet-1k train split, 224 px crops
    job.meta.model = "resnet50", job.meta.input_size = 224, job.meta.dataset_samples = 1281167;
  } else if (network == "shufflenetv2") {  // CIFAR-100: 50,000 training images of 32 px, 100 classes
    const ModelCount m = shufflenet_v2(32, 100);
    job.meta.model = "shufflenet_v2", job.meta.input_size = 32, job.meta.dataset_samples = 50000;
    job.meta.params = m.params, job.meta.flops_per_sample = m.forward_flops;
  } else if (network == "bert_base_uncased" && dataset == "squad") {
    // SQuAD v1.1 at max_seq_length 384 and doc_stride 128: 88,524 training features.
    job.meta.model = "bert-base", job.meta.input_size = 384, job.meta.dataset_samples = 88524;
  } else if (network == "ncf") {  // 994,169 MovieLens-1M training ratings, each with 4 sampled negatives
    job.meta.model = "neumf", job.meta.dataset_samples = 994169.0 * 5;
  } else if (network == "deepspeech2" || network == "bert_base_uncased") {
    return fmt::format("{} on {}: the source states neither the dataset subset nor the input lengths",
                       network, dataset);
  } else {
    return fmt::format("unknown Zeus workload {} on {}", network, dataset);
  }
  return {};
}

void read_zeus(const fs::path& file, MeasurementSet& out) {
  // summary_power_<gpu>.csv
  const std::string stem = file.stem().string();
  const std::string prefix = "summary_power_";
  if (stem.rfind(prefix, 0) != 0)
    throw ConfigError(
        {file.string(), 0, 0}, "file",
        "a Zeus summary file must be named summary_power_<gpu>.csv (the GPU is not in the file)");
  const std::string gpu_name = stem.substr(prefix.size());
  const std::string gpu = preset_for_gpu_name(gpu_name);
  Table t(file);
  while (const auto row = t.next()) {
    const SourceLocation where{file.string(), row->line, 0};
    if (gpu.empty()) {
      out.skipped.push_back({where, fmt::format("no GPU preset for Zeus GPU '{}'", gpu_name)});
      continue;
    }
    const std::string& dataset = t.text(*row, "dataset");
    const std::string& network = t.text(*row, "network");
    Measurement m;
    m.source = "zeus";
    m.where = where;
    m.gpu = gpu;
    m.workload = network + "/" + dataset;
    const std::uint32_t batch = t.count(*row, "batch_size");
    m.power_limit_W = t.positive(*row, "power_limit");
    m.epoch_s = t.positive(*row, "time_per_epoch");
    m.avg_power_W = t.positive(*row, "average_power");
    if (const std::string why = zeus_job(dataset, network, batch, m.job); !why.empty()) {
      out.skipped.push_back({where, why});
      continue;
    }
    m.job.meta.precision = default_fp32_math(gpu);
    out.rows.push_back(std::move(m));
  }
}

// ---- GAISSA ----------------------------------------------------------------------------------------------

// Keras applications' parameter counts (ImageNet heads; transfer learning keeps the backbone).
const std::map<std::string, double>& keras_params() {
  static const std::map<std::string, double> kParams{{"mobilenet_v2", 3.54e6},
                                                     {"nasnet_mobile", 5.33e6},
                                                     {"resnet50", 25.6e6},
                                                     {"vgg16", 138.4e6},
                                                     {"xception", 22.9e6}};
  return kParams;
}

/// A Keras application trained as GAISSA trained it ("keras-<architecture>", transfer learning from
/// ImageNet): its job described the same way whether the row is GAISSA's own or a calibrated record of such
/// a run. Known by their FLOPs only: the Keras models run at an unstated image size; with a frozen backbone a
/// step is about one forward pass. Keras model.fit runs a TensorFlow graph, but with TensorFlow's
/// per-operator dispatch rather than torch.compile-style fusion: left on the eager stack (fitted as compiled,
/// these host-bound runs would pull the compiled factor to 1 and make fusion a no-op for every job).
/// False for a model that is not one of them.
bool describe_keras_transfer(Measurement& m) {
  const std::string& model = m.job.meta.model;
  if (model.rfind(kKerasPrefix, 0) != 0) return false;
  const auto params = keras_params().find(model.substr(kKerasPrefix.size()));
  if (params == keras_params().end()) return false;
  m.workload = model;
  if (!(m.job.meta.params > 0.0)) m.job.meta.params = params->second;
  m.job.meta.training_flops_per_sample = m.job.meta.flops_per_sample;
  m.job.meta.precision = default_fp32_math(m.gpu);
  return true;
}

/// GAISSA's "trained epochs" is, by its preprocessing (src/data/preprocessing.py,
/// _get_number_of_trained_epochs), the 10 epochs of the frozen backbone's head plus the restored
/// fine-tuning epoch's absolute 0-based index plus the early-stopping patience, 20; the run stopped at that
/// index + 20, so it ran 10 + (index + 20 - 10 + 1) = trained - 9 epochs (the power logs show as many).
constexpr double kGaissaHeadEpochs = 10.0, kGaissaCountedNotRun = 9.0;
/// GAISSA's mean of nvidia-smi's utilization.gpu over the run (its src/features).
constexpr const char* kGaissaBusy = "gpu usage (%)";

void read_gaissa(const fs::path& file, MeasurementSet& out) {
  Table t(file);
  while (const auto row = t.next()) {
    const SourceLocation where{file.string(), row->line, 0};
    const std::string& gpu_name = t.text(*row, "gpu model");
    const std::string& arch = t.text(*row, "architecture");
    const std::string gpu = preset_for_gpu_name(gpu_name);
    if (gpu.empty()) {
      out.skipped.push_back({where, fmt::format("no GPU preset for '{}'", gpu_name)});
      continue;
    }
    if (!keras_params().count(arch)) {
      out.skipped.push_back({where, fmt::format("unknown Keras architecture '{}'", arch)});
      continue;
    }
    Measurement m;
    m.source = "gaissa";
    m.where = where;
    m.gpu = gpu;
    const double trained = t.positive(*row, "trained epochs");
    if (!(trained > kGaissaHeadEpochs))
      throw ConfigError(
          t.where(*row, "trained epochs"), "trained epochs",
          fmt::format("{} is no more than the 10 head epochs every GAISSA run trains", trained));
    const double ran = trained - kGaissaCountedNotRun;
    m.job.meta.model = std::string(kKerasPrefix) + arch;
    m.job.meta.flops_per_sample = t.positive(*row, "GFLOPs") * 1e9;
    describe_keras_transfer(m);
    m.job.meta.batch_size = t.count(*row, "batch size");
    // "total seen images" counts the training and validation images of every trained epoch as GAISSA
    // counted them: per epoch, they are over that count.
    m.job.meta.dataset_samples = t.positive(*row, "total seen images") / trained;
    m.job.epochs = static_cast<std::uint32_t>(ran);
    m.tdp_W = t.positive(*row, "max power limit (W)");
    m.epoch_s = t.positive(*row, "training duration (h)") * 3600.0 / ran;
    m.avg_power_W = t.positive(*row, "average power draw (W)");
    if (t.has(kGaissaBusy)) {
      const double busy = t.number(*row, kGaissaBusy, true).value_or(0.0);
      if (busy < 0.0 || busy > 100.0)
        throw ConfigError(t.where(*row, kGaissaBusy), kGaissaBusy,
                          fmt::format("{} is not a percentage (0 to 100)", busy));
      m.gpu_busy = busy / 100.0;
    }
    out.rows.push_back(std::move(m));
  }
}

// ---- fleetwatt records -----------------------------------------------------------------------------------

void read_records(const fs::path& file, MeasurementSet& out) {
  Table t(file);
  while (const auto row = t.next()) {
    const SourceLocation where{file.string(), row->line, 0};
    // Every number is read (and checked) before deciding to skip, so a malformed row is always an error.
    const auto num = [&](const char* col) { return t.number(*row, col, true).value_or(0.0); };
    const auto whole = [&](const char* col) {
      return core::checked_integer<std::uint32_t>(num(col), t.where(*row, col), col);
    };
    RecordedRun r;
    r.model = t.text(*row, "model");
    r.gpu_type = t.text(*row, "gpu_type");
    r.params = num("params");
    r.flops = num("flops");
    r.batch_size = whole("batch_size");
    r.data_size = num("data_size");
    r.input_size = whole("input_size");
    r.workers = whole("workers");
    r.epochs = whole("epochs");
    r.gpus = whole("gpus");
    jobs::PhaseProfile p;
    p.peak_W = num("peak_W"), p.peak_s = num("peak_s"), p.valley_W = num("valley_W"),
    p.valley_s = num("valley_s");
    for (const char* col :
         {"params", "flops", "batch_size", "data_size", "peak_W", "peak_s", "valley_W", "valley_s"})
      if (num(col) < 0.0) throw ConfigError(t.where(*row, col), col, "must not be negative");
    for (const char* col : {"epoch_s", "epoch_W", "power_limit_W", "max_power_limit_W"})
      if (t.has(col) && num(col) < 0.0) throw ConfigError(t.where(*row, col), col, "must not be negative");
    if (record_gpu(r.gpu_type).empty()) {
      out.skipped.push_back({where, fmt::format("no GPU preset for gpu_type '{}'", r.gpu_type)});
      continue;
    }
    // The epochs found in the log where the record has them; else one epoch is one peak (the training
    // steps) and one valley (checkpoint, evaluation) of the square wave.
    const double epoch_s = t.has("epoch_s") ? num("epoch_s") : 0.0;
    const double epoch_W = t.has("epoch_W") ? num("epoch_W") : 0.0;
    if (!(epoch_s > 0.0) && !(p.epoch_s() > 0.0)) {
      out.skipped.push_back({where, "no measured phases (peak_s and valley_s are 0) and no epochs"});
      continue;
    }
    set_measured_epoch(r, epoch_s, epoch_W, p);
    r.power_limit_W = t.has("power_limit_W") ? num("power_limit_W") : 0.0;
    r.max_power_limit_W = t.has("max_power_limit_W") ? num("max_power_limit_W") : 0.0;
    Measurement m = recorded_measurement(r, where);
    out.rows.push_back(std::move(m));
  }
}

// ---- NeuSight --------------------------------------------------------------------------------------------

const std::regex& neusight_name() {
  static const std::regex re(R"(^(.+)-(train|inf)-(\d+)-(\d+)(-dp4|-tp4|-pp4_1)?(-fusion)?\.json$)");
  return re;
}

/// The zoo name for a NeuSight model name: the zoo's own spelling where it knows the model, else the
/// NeuSight name unchanged.
std::string zoo_name_for(const std::string& neusight) {
  std::string dashed = neusight;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (const std::string& candidate : {neusight, dashed})
    if (is_zoo_model(candidate)) return candidate;
  return neusight;
}

void read_neusight_file(const fs::path& file, MeasurementSet& out) {
  const std::string fname = file.filename().string();
  std::smatch match;
  if (!std::regex_match(fname, match, neusight_name())) return;
  const SourceLocation where{file.string(), 0, 0};
  const std::string gpu_folder = file.parent_path().filename().string();
  const std::string model = match[1], mode = match[2], parallel = match[5];
  const bool inference = mode == "inf", fusion = match[6].matched;
  // Parse (and so check) the file before deciding whether to use it.
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(where, "file", "cannot open the measurement file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(where, "json", fmt::format("not valid JSON: {}", e.what()));
  }
  if (!j.is_object() || !j.contains("e2e_latency"))
    throw ConfigError(where, "e2e_latency", "missing (a NeuSight label file holds e2e_latency in ms)");
  if (!j["e2e_latency"].is_number() || !(j["e2e_latency"].get<double>() > 0.0))
    throw ConfigError(where, "e2e_latency", "must be a positive number of milliseconds");
  const double e2e_ms = j["e2e_latency"].get<double>();
  const std::string gpu = preset_for_gpu_name(gpu_folder);
  if (gpu.empty()) {
    out.skipped.push_back({where, fmt::format("no GPU preset for NeuSight GPU folder '{}'", gpu_folder)});
    return;
  }
  if (!parallel.empty()) {
    out.skipped.push_back(
        {where, fmt::format("4-GPU run ({}): only one-GPU steps are compared", parallel.substr(1))});
    return;
  }
  if (model.rfind("switch", 0) == 0) {
    out.skipped.push_back({where, fmt::format("mixture-of-experts model '{}' is not modelled", model)});
    return;
  }
  const auto seq = static_cast<std::uint32_t>(std::stoul(match[3]));
  const auto batch = static_cast<std::uint32_t>(std::stoul(match[4]));
  Measurement m;
  m.source = "neusight";
  m.where = where;
  m.gpu = gpu;
  m.workload = model + "-" + mode;
  m.inference = inference;
  m.step_s = e2e_ms / 1000.0;
  auto& meta = m.job.meta;
  meta.model = zoo_name_for(model);
  if (meta.model == "gpt3_xl") {
    // NeuSight's GPT-3 XL configuration sets the width to heads x head size (24 x 128 = 3072) where the
    // GPT-3 paper's XL has d_model 2048: its per-operator CSVs show c_attn as 3072 -> 9216 and the MLP as
    // 3072 -> 12288. Predict what was measured, in GPT-2's layout as the zoo's GPT-3 (50257 tokens, 2048
    // learned positions, tied head).
    TransformerShape s;
    s.layers = 24, s.d_model = 3072, s.heads = 24, s.d_ff = 4 * 3072, s.seq_len = seq;
    s.vocab = 50257, s.max_positions = 2048, s.lm_head = true;
    m.shape = s;
  }
  meta.batch_size = batch;
  meta.input_size = seq;
  meta.dataset_samples = batch;  // one step
  meta.precision = jobs::Precision::fp32;
  if (fusion) meta.stack = jobs::SoftwareStack::compiled;
  if (inference && m.shape)
    meta.training_flops_per_sample = transformer(*m.shape).forward_flops;
  else if (inference && is_zoo_model(meta.model))
    meta.training_flops_per_sample = count_model(meta.model, seq).forward_flops;
  out.rows.push_back(std::move(m));
}

// ---- layouts ---------------------------------------------------------------------------------------------

enum class Layout { none, zeus, gaissa, records, neusight, neusight_operators };

/// NeuSight's per-operator file of a step: the step file's name with .csv.
bool neusight_operator_name(const fs::path& file) {
  return file.extension() == ".csv" && std::regex_match(file.stem().string() + ".json", neusight_name());
}

Layout layout_of(const fs::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".json")
    return std::regex_match(file.filename().string(), neusight_name()) ? Layout::neusight : Layout::none;
  if (ext != ".csv") return Layout::none;
  const std::string header = first_line(file);
  if (header == kZeusHeader) return Layout::zeus;
  if (header.rfind(kGaissaHeaderStart, 0) == 0) return Layout::gaissa;
  for (const std::string& layout : fit::record_headers())
    if (header == layout) return Layout::records;
  return neusight_operator_name(file) ? Layout::neusight_operators : Layout::none;
}

void read_file(const fs::path& file, Layout layout, MeasurementSet& out) {
  switch (layout) {
    case Layout::zeus:
      return read_zeus(file, out);
    case Layout::gaissa:
      return read_gaissa(file, out);
    case Layout::records:
      return read_records(file, out);
    case Layout::neusight:
      return read_neusight_file(file, out);
    case Layout::neusight_operators: {
      // Kernels of GPUs without a preset are skipped by the reader, as their steps are.
      auto kernels = read_neusight_gemms(file);
      out.gemms.insert(out.gemms.end(), kernels.begin(), kernels.end());
      return;
    }
    case Layout::none:
      return;
  }
}

void read_folder(const fs::path& folder, MeasurementSet& out) {
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(folder)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  for (const auto& p : entries) {
    std::error_code ec;
    if (fs::is_directory(p, ec))
      read_folder(p, out);
    else if (fs::is_regular_file(p, ec))
      read_file(p, layout_of(p), out);
  }
}

}  // namespace

bool known_by_flops_only(const Measurement& m) {
  return !m.shape && known_by_flops_only(m.job.meta);
}

std::string preset_for_gpu_name(const std::string& name) {
  // Names as the sources spell them (NeuSight folders, nvidia-smi, Zeus file names), compared with case
  // and punctuation removed.
  static const std::map<std::string, std::string> kAliases{
      {"teslav100pcie32gb", "v100-pcie-32gb"},
      {"v100", "v100-pcie-32gb"},  // Zeus: its power limits top at 250 W, the PCIe card
      {"teslav100sxm232gb", "v100"},
      {"nvidiaa100pcie40gb", "a100-pcie-40gb"},
      {"nvidiaa100sxm440gb", "a100-sxm4-40gb"},
      {"nvidiaa100sxm480gb", "a100-sxm-80gb"},
      {"nvidiaa10080gbpcie", "a100-pcie-80gb"},
      {"nvidiaa100pcie80gb", "a100-pcie-80gb"},
      {"nvidial4", "l4"},
      {"teslap4", "p4"},
      {"teslat4", "t4"},
      {"nvidiat4", "t4"},
      {"teslap100sxm216gb", "p100"},
      {"amdinstinctmi100", "mi100"},
      {"amdinstinctmi210", "mi210"},
      {"amdinstinctmi250", "mi250"},
      {"nvidiaa40", "a40"},
      {"nvidiaa10", "a10"},
      {"nvidial40s", "l40s"},
      {"quadrortx6000", "rtx6000"},
      {"nvidiaquadrortx6000", "rtx6000"},
      {"nvidiageforcertx3070", "rtx3070"},
      {"nvidiageforcertx3090", "rtx3090"},
      {"nvidiageforcertx2080ti", "rtx2080ti"},
      {"geforcertx2080ti", "rtx2080ti"},
      {"nvidiageforcegtx750ti", "gtx750ti"},
      {"geforcegtx750ti", "gtx750ti"},
      {"nvidiah100sxm580gb", "h100-sxm"},
      {"nvidiah10080gbhbm3", "h100-sxm"},
      {"nvidiah100pcie", "h100-pcie"},
      {"nvidiaa800sxm480gb", "a800"},
  };
  const std::string key = normalise(name);
  if (key.empty()) return {};
  if (const auto it = kAliases.find(key); it != kAliases.end()) return it->second;
  for (const auto& g : gpu_presets())
    if (normalise(g.id) == key) return g.id;
  return {};
}

void set_measured_epoch(RecordedRun& run, double epoch_s, double epoch_W,
                        const jobs::PhaseProfile& square_wave) {
  run.epoch_s = epoch_s > 0.0 ? epoch_s : square_wave.epoch_s();
  run.power_W = epoch_s > 0.0 && epoch_W > 0.0 ? epoch_W : square_wave.mean_W();
}

std::string record_gpu(const std::string& gpu_type) {
  for (const auto& g : gpu_presets())
    if (g.id == gpu_type) return g.id;
  return preset_for_gpu_name(gpu_type);
}

Measurement recorded_measurement(const RecordedRun& r, const SourceLocation& where) {
  Measurement m;
  m.source = "records";
  m.where = where;
  m.gpu = record_gpu(r.gpu_type);
  m.job.meta.model = r.model;
  m.workload = r.model.empty() ? "records" : r.model;
  m.job.meta.params = r.params;
  m.job.meta.flops_per_sample = r.flops;
  m.job.meta.batch_size = r.batch_size;
  m.job.meta.dataset_samples = r.data_size;
  m.job.meta.input_size = r.input_size;
  m.job.meta.workers = r.workers;
  m.job.epochs = std::max<std::uint32_t>(1, r.epochs);
  m.job.n_gpus = std::max<std::uint32_t>(1, r.gpus);
  m.epoch_s = r.epoch_s;
  m.avg_power_W = r.power_W;
  // The board's limits as the log read them: the highest settable one stands for the board's maximum
  // (GAISSA's "max power limit"), and a limit below it is the run's.
  m.tdp_W = r.max_power_limit_W;
  if (r.power_limit_W > 0.0 && !(r.max_power_limit_W > 0.0 && r.power_limit_W >= r.max_power_limit_W))
    m.power_limit_W = r.power_limit_W;
  if (!m.gpu.empty()) describe_keras_transfer(m);
  return m;
}

MeasurementSet read_measurements(const std::filesystem::path& path) {
  MeasurementSet out;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    read_folder(path, out);
    return out;
  }
  if (!fs::exists(path, ec)) throw ConfigError({path.string(), 0, 0}, "file", "no such file or folder");
  const Layout layout = layout_of(path);
  if (layout == Layout::none)
    throw ConfigError(
        {path.string(), 1, 0}, "header",
        "not a measurement layout fleetwatt knows (Zeus summary CSV, GAISSA records CSV, NeuSight "
        "label JSON, fleetwatt records CSV)");
  read_file(path, layout, out);
  return out;
}

}  // namespace fleetwatt::models
