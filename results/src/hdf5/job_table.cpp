// The job table, appended in blocks of rows (see job_table.hpp). Each column is a name, its units and how a
// job's record gives its value; the columns and their values are those the table has always had.
#include "job_table.hpp"

#include <fmt/format.h>

#include <limits>
#include <optional>

#include "chunk_compressor.hpp"
#include "hdf5_datasets.hpp"

namespace fleetwatt::results {

struct JobTable::Column {
  enum class Kind { real, integer, text };
  std::string name, units;
  Kind kind = Kind::real;
  std::function<double(const sim::JobRecord&)> real;
  std::function<std::int64_t(const sim::JobRecord&)> integer;
  std::function<std::string(const sim::JobRecord&)> text;
  std::vector<double> reals;
  std::vector<std::int64_t> integers;
  std::vector<std::string> texts;
  std::optional<AppendableSeries> series;
  std::optional<AppendableStrings> strings;

  void add(const sim::JobRecord& j) {
    if (kind == Kind::real)
      reals.push_back(real(j));
    else if (kind == Kind::integer)
      integers.push_back(integer(j));
    else
      texts.push_back(text(j));
  }
  void flush() {
    if (kind == Kind::real) {
      series->append(reals.data(), reals.size());
      reals.clear();
    } else if (kind == Kind::integer) {
      series->append(integers.data(), integers.size());
      integers.clear();
    } else {
      strings->append(texts);
      texts.clear();
    }
  }
};

JobTable::JobTable(H5::Group group, NodeOf node_of, bool gpu_column, std::size_t block_rows,
                   ChunkCompressor* compressor)
    : group_(std::move(group)),
      node_of_(std::move(node_of)),
      gpu_column_(gpu_column),
      block_rows_(std::max<std::size_t>(1, block_rows)),
      own_compressor_(compressor ? nullptr : std::make_unique<ChunkCompressor>(false)),
      compressor_(compressor ? compressor : own_compressor_.get()) {}

JobTable::~JobTable() = default;

void JobTable::create(const sim::JobRecord* first) {
  created_ = true;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  using Kind = Column::Kind;
  const auto real = [this](std::string name, std::string units,
                           std::function<double(const sim::JobRecord&)> f) {
    auto c = std::make_unique<Column>();
    c->name = std::move(name), c->units = std::move(units), c->kind = Kind::real, c->real = std::move(f);
    columns_.push_back(std::move(c));
  };
  const auto integer = [this](std::string name, std::string units,
                              std::function<std::int64_t(const sim::JobRecord&)> f) {
    auto c = std::make_unique<Column>();
    c->name = std::move(name), c->units = std::move(units), c->kind = Kind::integer,
    c->integer = std::move(f);
    columns_.push_back(std::move(c));
  };
  const auto text = [this](std::string name, std::string units,
                           std::function<std::string(const sim::JobRecord&)> f) {
    auto c = std::make_unique<Column>();
    c->name = std::move(name), c->units = std::move(units), c->kind = Kind::text, c->text = std::move(f);
    columns_.push_back(std::move(c));
  };
  integer("id", "1", [](const sim::JobRecord& j) { return j.spec.id; });
  text("class", "text", [](const sim::JobRecord& j) { return j.spec.job_class; });
  integer("n_gpus", "1", [](const sim::JobRecord& j) { return std::int64_t{j.spec.n_gpus}; });
  text("nodes", "text: comma-separated node indices", [this](const sim::JobRecord& j) {
    std::string ns;
    std::int64_t last = -1;
    for (auto gpu : j.gpus) {
      const std::int64_t node = node_of_(gpu);
      if (node == last) continue;
      if (!ns.empty()) ns += ',';
      ns += std::to_string(node);
      last = node;
    }
    return ns;
  });
  text("state", "text: pending|queued|running|finished at the horizon",
       [](const sim::JobRecord& j) { return std::string(sim::to_string(j.state)); });
  real("submit_s", "s", [](const sim::JobRecord& j) { return j.spec.submit_s; });
  real("start_s", "s (NaN: never started)", [](const sim::JobRecord& j) { return j.start_s; });
  real("end_s", "s (NaN: not finished by the horizon)", [](const sim::JobRecord& j) { return j.end_s; });
  integer("epochs", "1", [](const sim::JobRecord& j) { return std::int64_t{j.spec.epochs}; });
  integer("epochs_done", "1", [](const sim::JobRecord& j) { return std::int64_t{j.epochs_done}; });
  real("peak_W", "W per GPU", [](const sim::JobRecord& j) { return j.peak_W; });
  real("peak_s", "s per epoch", [](const sim::JobRecord& j) { return j.peak_s; });
  real("valley_W", "W per GPU", [](const sim::JobRecord& j) { return j.valley_W; });
  real("valley_s", "s per epoch", [](const sim::JobRecord& j) { return j.valley_s; });
  real("energy_J", "J (all the job's GPUs, up to the horizon)",
       [](const sim::JobRecord& j) { return j.energy_J; });
  // Where the job came from: trace id and status, and which fields were inferred rather than recorded.
  if (gpu_column_)
    text("gpu", "text: GPU preset id of the node group it ran on (empty: never started)",
         [](const sim::JobRecord& j) { return std::string(j.gpu); });
  text("trace_id", "text: the job's id in its source trace",
       [](const sim::JobRecord& j) { return j.spec.trace_id; });
  text("status", "text: unknown|completed|failed|cancelled|running|pending in the source",
       [](const sim::JobRecord& j) { return std::string(jobs::to_string(j.spec.status)); });
  text("inferred", "text: comma-separated fields drawn from priors, not recorded",
       [](const sim::JobRecord& j) { return jobs::inferred_names(j.spec.inferred); });
  real("recorded_runtime_s", "s (NaN: none recorded)",
       [nan](const sim::JobRecord& j) { return j.spec.recorded_runtime_s.value_or(nan); });
  real("limit_s", "s after start at which the job is stopped (NaN: none)",
       [nan](const sim::JobRecord& j) { return j.spec.limit_s.value_or(nan); });
  real("paused_gpu_s", "GPU-s lost to pauses", [](const sim::JobRecord& j) { return j.paused_gpu_s; });
  real("compute_s", "s of compute in peak phases (whole run, up to the horizon)",
       [](const sim::JobRecord& j) { return j.parts.compute_s; });
  real("comm_s", "s of exposed communication", [](const sim::JobRecord& j) { return j.parts.comm_s; });
  // A step-level job's exposed communication by parallel group (0 for other jobs): tensor parallel inside
  // NVLink keeps the plan's time; the others grow where the fabric is congested.
  for (std::size_t g = 0; g < jobs::kCommGroups; ++g) {
    const auto group = static_cast<jobs::CommGroup>(g);
    real(fmt::format("{}_comm_s", jobs::to_string(group)),
         fmt::format("s of exposed {}-parallel communication (part of comm_s; step-level plans)",
                     jobs::to_string(group)),
         [g](const sim::JobRecord& j) { return j.parts.comm_group_s[g]; });
  }
  real("io_s", "s of exposed data loading", [](const sim::JobRecord& j) { return j.parts.io_s; });
  real("checkpoint_s", "s of checkpoint writing and end-of-epoch work (valleys)",
       [](const sim::JobRecord& j) { return j.parts.checkpoint_s; });
  real("compute_J", "J (all the job's GPUs) during compute",
       [](const sim::JobRecord& j) { return j.parts.compute_J; });
  real("comm_J", "J (all the job's GPUs) during exposed communication",
       [](const sim::JobRecord& j) { return j.parts.comm_J; });
  real("io_J", "J (all the job's GPUs) during exposed data loading",
       [](const sim::JobRecord& j) { return j.parts.io_J; });
  real("checkpoint_J", "J (all the job's GPUs) during checkpoints and epoch ends",
       [](const sim::JobRecord& j) { return j.parts.checkpoint_J; });
  real("bubble_s", "s of pipeline bubble (fill and drain) in peak phases",
       [](const sim::JobRecord& j) { return j.parts.bubble_s; });
  real("bubble_J", "J (all the job's GPUs) during pipeline bubbles",
       [](const sim::JobRecord& j) { return j.parts.bubble_J; });
  real("startup_s", "s of a step-level job's start-up (model load, warm-up)",
       [](const sim::JobRecord& j) { return j.parts.startup_s; });
  real("startup_J", "J (all the job's GPUs) during the start-up",
       [](const sim::JobRecord& j) { return j.parts.startup_J; });
  real("step_s", "s: a step-level job's step period as last simulated, uncapped (NaN: drawn by epochs)",
       [](const sim::JobRecord& j) { return j.step_s; });
  // [smoothing] and [failures]: their columns only when the run has them (the first row says so), so every
  // other run's table stays as it was.
  if (first && first->smoothing_J)
    real("smoothing_J",
         "J (all the job's GPUs): smoothing's or burn's extra energy over the work's own draw on the same "
         "timeline (0: the job not smoothed)",
         [](const sim::JobRecord& j) { return *j.smoothing_J; });
  if (first && first->failures) {
    integer("interruptions", "1: interruptions that struck in [0, horizon)",
            [](const sim::JobRecord& j) { return std::int64_t{j.failures->interruptions}; });
    real("lost_gpu_s",
         "GPU-s of work lost and redone: at each interruption, the time since the epoch's start (its last "
         "checkpoint) less pauses, x GPUs",
         [](const sim::JobRecord& j) { return j.failures->lost_gpu_s; });
    real("lost_J", "J (all the job's GPUs) spent on that lost work",
         [](const sim::JobRecord& j) { return j.failures->lost_J; });
    real("restart_s", "s in restart delays (GPUs idle) and reloads (checkpoint power)",
         [](const sim::JobRecord& j) { return j.failures->restart_s; });
    real("restart_J", "J (all the job's GPUs) during restarts",
         [](const sim::JobRecord& j) { return j.failures->restart_J; });
  }
  // One chunk a block: every block but the last fills a chunk from its start, which the compressor takes
  // whole; the last is padded to one.
  const hsize_t chunk_rows = block_rows_;
  for (auto& c : columns_) {
    if (c->kind == Kind::text)
      c->strings.emplace(group_, c->name, c->units, chunk_rows);
    else
      c->series.emplace(group_, c->name,
                        c->kind == Kind::real ? H5::PredType::NATIVE_DOUBLE : H5::PredType::NATIVE_INT64,
                        c->units, chunk_rows, compressor_);
  }
}

void JobTable::append(const sim::JobRecord& job) {
  if (!created_) create(&job);
  for (auto& c : columns_) c->add(job);
  ++rows_;
  if (++buffered_ >= block_rows_) flush();
}

void JobTable::flush() {
  for (auto& c : columns_) c->flush();
  buffered_ = 0;
}

void JobTable::finish() {
  if (!created_) create(nullptr);
  flush();
  compressor_->finish();
}

}  // namespace fleetwatt::results
