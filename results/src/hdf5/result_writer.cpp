// The HDF5 result file. Series are buffered and appended in chunk-sized blocks so memory stays flat however
// long the simulated span; the file lives under a temporary name until commit().
#include "fleetwatt/results/hdf5/result_writer.hpp"

#include <fmt/format.h>
#include <chrono>
#include <cmath>
#include <ctime>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>

#include "chunk_compressor.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/results/hdf5/hdf5_error.hpp"
#include "fleetwatt/results/metrics/job_times.hpp"
#include "hdf5_commit.hpp"
#include "hdf5_datasets.hpp"
#include "job_table.hpp"

namespace fleetwatt::results {

namespace {
constexpr hsize_t kSeriesChunk = 16384;
constexpr hsize_t kChangeChunk = 65536;
// A node block holds at most this many values (nodes x columns) before it is written.
constexpr std::size_t kNodeBlockValues = 1u << 21;

std::string utc_now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
}  // namespace

namespace {
// The destructor does not run when the constructor throws (out of memory sizing a buffer, an HDF5 failure):
// this removes the temporary file then, unless the constructor finished and dismissed it.
struct RemoveUnlessBuilt {
  const std::filesystem::path& temp;
  bool built = false;
  ~RemoveUnlessBuilt() {
    std::error_code ec;
    if (!built) std::filesystem::remove(temp, ec);
  }
};
}  // namespace

struct ResultWriter::Impl {
  // The facility, node and GPU-change series' whole chunks are compressed on its thread while the engine
  // runs (chunk_compressor.hpp).
  ChunkCompressor compressor;
  // Optionals because the HDF5 C++ classes have no (non-deprecated) copy assignment.
  std::unique_ptr<H5::H5File> file;
  std::optional<H5::Group> root, facility_group, nodes_group, gpus_group, changes_group;
  std::optional<AppendableSeries> f_time, f_it, f_facility, f_energy, f_carbon, f_cost, f_pue;
  // On-site batteries only, created at their first sample: grid import, battery power, state of charge.
  std::optional<AppendableSeries> f_import, f_battery, f_soc;
  std::vector<double> fb_import, fb_battery, fb_soc;
  // Grid events only (never with batteries), created at their first sample: the IT load off the grid.
  std::optional<AppendableSeries> f_ups, f_unserved;
  std::vector<double> fb_ups, fb_unserved;
  /// A series beside grid import (battery or outage figures): where it goes, its name, unit and value.
  struct BesideImport {
    std::optional<AppendableSeries>* series;
    std::vector<double>* buffer;
    const char* name;
    const char* unit;
    double value;
  };
  /// The interval's meter is its grid import, not its demand; the series beside it are created with it.
  void import_sample(sim::Time start, double import_W, std::initializer_list<BesideImport> beside) {
    meter_pending = false;
    import_meter = true;
    meter(start.ns(), import_W);
    if (!f_import) {
      const QuietStderr quiet;
      f_import.emplace(*facility_group, "grid_import_W", H5::PredType::NATIVE_DOUBLE, "W", kSeriesChunk);
      for (const auto& b : beside)
        b.series->emplace(*facility_group, b.name, H5::PredType::NATIVE_DOUBLE, b.unit, kSeriesChunk);
    }
    fb_import.push_back(import_W);
    for (const auto& b : beside) b.buffer->push_back(b.value);
    if (fb_import.size() >= kSeriesChunk) flush_battery();
  }
  void flush_battery() {
    const QuietStderr quiet;
    if (!f_import) return;
    f_import->append(fb_import.data(), fb_import.size());
    fb_import.clear();
    for (auto [series, buffer] : {std::pair{&f_battery, &fb_battery}, std::pair{&f_soc, &fb_soc},
                                  std::pair{&f_ups, &fb_ups}, std::pair{&f_unserved, &fb_unserved}}) {
      if (*series) (*series)->append(buffer->data(), buffer->size());
      buffer->clear();
    }
  }
  std::optional<AppendableSeries> n_time;
  std::optional<AppendableMatrix> n_power;
  std::optional<AppendableSeries> c_gpu, c_time, c_power;
  std::vector<double> fb_time, fb_it, fb_facility, fb_energy, fb_carbon, fb_cost, fb_pue;
  std::vector<double> nb_time;
  std::vector<double> nb_block;  // nodes x block_cols, row-major
  std::size_t block_cols = 1, block_used = 0;
  std::uint32_t nodes = 0;
  std::vector<std::uint32_t> cb_gpu;
  std::vector<double> cb_time, cb_power;
  bool gpu_changes = true;
  // Network power change points (a few per job), appended in blocks to /network, created at the first.
  std::vector<double> net_time, net_power;
  std::optional<H5::Group> network_group;
  std::optional<AppendableSeries> net_time_ds, net_power_ds;
  // The job table, when the engine streams it (stream_jobs); /jobs is created then.
  std::optional<H5::Group> jobs_group;
  std::unique_ptr<JobTable> jobs;
  /// Appends the buffered network changes but the last `keep` (a later change at the same instant replaces
  /// the last one).
  void flush_network(std::size_t keep) {
    const QuietStderr quiet;
    if (net_time.size() <= keep) return;
    if (!network_group) {
      network_group.emplace(file->createGroup("/network"));
      net_time_ds.emplace(*network_group, "time_s", H5::PredType::NATIVE_DOUBLE, "s", kChangeChunk);
      net_power_ds.emplace(
          *network_group, "power_W", H5::PredType::NATIVE_DOUBLE,
          "W: switches, NICs, links and storage servers draw power_W[i] from time_s[i] until time_s[i+1]",
          kChangeChunk);
    }
    const std::size_t n = net_time.size() - keep;
    net_time_ds->append(net_time.data(), n);
    net_power_ds->append(net_power.data(), n);
    net_time.erase(net_time.begin(), net_time.begin() + static_cast<std::ptrdiff_t>(n));
    net_power.erase(net_power.begin(), net_power.begin() + static_cast<std::ptrdiff_t>(n));
  }
  // The meter's series feeds the grid metrics and the power-quality figures (finished by write_summary):
  // the facility's demand, or, when batteries report, the grid import of the same interval, which is what
  // the utility sees. The bank sends an interval's battery sample right after its facility sample, so a
  // facility sample waits until the next one (or the summary) to learn which of the two it is.
  std::optional<GridMetricsBuilder> grid;
  GridMetrics grid_metrics;
  std::optional<PowerQualityBuilder> quality;
  PowerQuality power_quality;
  bool meter_pending = false;
  std::int64_t meter_start_ns = 0;
  double meter_W = 0.0;
  bool import_meter = false;  ///< the meter is grid import (batteries reported)
  JobTimes job_times;         ///< every job written to /jobs, for /summary's waits and job times

  void meter(std::int64_t start_ns, double power_W) {
    grid->add(start_ns, power_W);
    quality->add(start_ns, power_W);
  }
  void settle_meter() {
    if (meter_pending) meter(meter_start_ns, meter_W);
    meter_pending = false;
  }
  [[nodiscard]] const char* meter_series() const {
    return import_meter ? "grid_import_W" : "facility_power_W";
  }

  void flush_facility() {
    const QuietStderr quiet;
    f_time->append(fb_time.data(), fb_time.size());
    f_it->append(fb_it.data(), fb_it.size());
    f_facility->append(fb_facility.data(), fb_facility.size());
    f_pue->append(fb_pue.data(), fb_pue.size());
    fb_pue.clear();
    f_energy->append(fb_energy.data(), fb_energy.size());
    fb_time.clear();
    fb_it.clear();
    fb_facility.clear();
    fb_energy.clear();
  }
  void flush_grid() {
    const QuietStderr quiet;
    f_carbon->append(fb_carbon.data(), fb_carbon.size());
    f_cost->append(fb_cost.data(), fb_cost.size());
    fb_carbon.clear();
    fb_cost.clear();
  }
  void flush_nodes() {
    const QuietStderr quiet;
    if (block_used == 0) return;
    n_time->append(nb_time.data(), nb_time.size());
    if (block_used == block_cols) {
      n_power->append_columns(nb_block.data(), block_used);
    } else {
      // A partly filled block: compact to nodes x block_used before writing.
      std::vector<double> compact(static_cast<std::size_t>(nodes) * block_used);
      for (std::size_t n = 0; n < nodes; ++n)
        for (std::size_t k = 0; k < block_used; ++k)
          compact[n * block_used + k] = nb_block[n * block_cols + k];
      n_power->append_columns(compact.data(), block_used);
    }
    nb_time.clear();
    block_used = 0;
  }
  /// Releases every object before the file closes, so the close really closes (HDF5 keeps a file open
  /// while any of its objects is open); `given_up`: after a failure (give_up_hdf5_file).
  void close_all(bool given_up = false) {
    const QuietStderr quiet;
    compressor.drop();  // chunks still queued belong to a file that is not committed
    f_time.reset();
    f_it.reset();
    f_facility.reset();
    f_pue.reset();
    f_import.reset();
    f_battery.reset();
    f_soc.reset();
    f_ups.reset();
    f_unserved.reset();
    f_energy.reset();
    f_carbon.reset();
    f_cost.reset();
    n_time.reset();
    n_power.reset();
    c_gpu.reset();
    c_time.reset();
    c_power.reset();
    net_time_ds.reset();
    net_power_ds.reset();
    network_group.reset();
    jobs.reset();
    jobs_group.reset();
    root.reset();
    facility_group.reset();
    nodes_group.reset();
    gpus_group.reset();
    changes_group.reset();
    if (given_up)
      give_up_hdf5_file(file);
    else
      close_hdf5_once(file);  // at most once, thrown away when its flush fails (hdf5_commit.hpp)
  }
  /// Appends the buffered GPU changes: whole chunks while the run goes (a change of many GPUs overfills
  /// the buffer; the rest waits, so every append starts on a chunk's edge and is compressed off this
  /// thread), everything at the end.
  void flush_changes(bool all = true) {
    const QuietStderr quiet;
    if (!gpu_changes) return;
    const std::size_t n = all ? cb_gpu.size() : cb_gpu.size() / kChangeChunk * kChangeChunk;
    c_gpu->append(cb_gpu.data(), n);
    c_time->append(cb_time.data(), n);
    c_power->append(cb_power.data(), n);
    const auto written = static_cast<std::ptrdiff_t>(n);
    cb_gpu.erase(cb_gpu.begin(), cb_gpu.begin() + written);
    cb_time.erase(cb_time.begin(), cb_time.begin() + written);
    cb_power.erase(cb_power.begin(), cb_power.begin() + written);
  }
};

ResultWriter::ResultWriter(std::filesystem::path target, const WriterLayout& layout)
    : target_(std::move(target)), impl_(std::make_unique<Impl>()) {
  temp_ = core::temporary_beside(target_);
  live_ = std::make_unique<core::LiveTemporary>(temp_);  // a second Ctrl-C removes it on the way out
  RemoveUnlessBuilt guard{temp_};
  quiet_hdf5_errors();  // on this thread, the one that runs the engine and writes
  try {
    impl_->file = std::make_unique<H5::H5File>(temp_.string(), H5F_ACC_TRUNC);
  } catch (const H5::Exception& e) {
    const auto failure = last_hdf5_io_failure();
    throw ResultFileError(fmt::format("{}: cannot create the result file: {}", target_.string(),
                                      failure ? failure->reason : "is the folder there and writable?"));
  }
  auto& m = *impl_;
  m.root.emplace(m.file->openGroup("/"));
  m.facility_group.emplace(m.file->createGroup("/facility"));
  auto& fg = *m.facility_group;
  auto* z = &m.compressor;
  m.f_time.emplace(fg, "time_s", H5::PredType::NATIVE_DOUBLE, "s", kSeriesChunk, z);
  m.f_it.emplace(fg, "it_power_W", H5::PredType::NATIVE_DOUBLE, "W", kSeriesChunk, z);
  m.f_facility.emplace(fg, "facility_power_W", H5::PredType::NATIVE_DOUBLE, "W", kSeriesChunk, z);
  m.f_pue.emplace(fg, "pue", H5::PredType::NATIVE_DOUBLE, "1", kSeriesChunk, z);
  m.f_energy.emplace(fg, "energy_J", H5::PredType::NATIVE_DOUBLE, "J", kSeriesChunk, z);
  m.f_carbon.emplace(fg, "carbon_kg", H5::PredType::NATIVE_DOUBLE, "kg", kSeriesChunk, z);
  m.f_cost.emplace(fg, "cost", H5::PredType::NATIVE_DOUBLE, "currency of the [grid.price] signal",
                   kSeriesChunk, z);
  write_double_attribute(fg, "interval_s", layout.facility_interval_s);
  write_string_attribute(
      fg, "description",
      "power_W[i] is the exact mean over [time_s[i], time_s[i] + interval_s); energy_J[i] is "
      "cumulative facility energy at the end of that interval; pue[i] is that interval's facility energy / "
      "IT "
      "energy (constant with [facility] cooling = \"constant\", by the hour with \"weather\"); carbon_kg[i] "
      "and cost[i] are the carbon "
      "emitted and the electricity cost over that interval (facility power integrated exactly against "
      "the grid signals; cost is 0 without [grid.price])");

  m.grid.emplace(GridMetricsOptions{core::Duration::from_seconds(layout.facility_interval_s).ns(),
                                    layout.clock, layout.system_peak_hours});
  m.quality.emplace(core::Duration::from_seconds(layout.facility_interval_s).ns(), layout.clock);
  // Where simulated time 0 is on the wall clock: `fleetwatt export` stamps its rows from these.
  write_string_attribute(*m.root, "start", layout.start_text);
  write_int_attribute(*m.root, "start_unix_s", layout.clock.start_unix_s);
  write_int_attribute(*m.root, "start_utc_offset_s", layout.clock.utc_offset_s);

  m.nodes = layout.nodes;
  m.nodes_group.emplace(m.file->createGroup("/nodes"));
  auto& ng = *m.nodes_group;
  m.block_cols = std::clamp<std::size_t>(kNodeBlockValues / std::max<std::uint32_t>(1, layout.nodes), 1, 256);
  m.nb_block.assign(static_cast<std::size_t>(layout.nodes) * m.block_cols, 0.0);
  m.n_time.emplace(ng, "time_s", H5::PredType::NATIVE_DOUBLE, "s", kSeriesChunk);
  // Node power repeats from one interval to the next: deflate alone packs it smaller and faster than
  // after a shuffle (docs/development.md, "Result files").
  m.n_power.emplace(ng, "power_W", layout.nodes, "W", 256, m.block_cols, z, Packing::deflate);
  write_double_attribute(ng, "interval_s", layout.node_interval_s);
  write_string_attribute(ng, "description",
                         "power_W[node][i]: exact mean IT power of the node (base + its GPUs) over "
                         "[time_s[i], time_s[i] + interval_s)");

  m.gpu_changes = layout.gpu_changes;
  m.gpus_group.emplace(m.file->createGroup("/gpus"));
  write_int_attribute(*m.gpus_group, "count",
                      layout.gpus > 0 ? static_cast<std::int64_t>(layout.gpus)
                                      : static_cast<std::int64_t>(layout.nodes) * layout.gpus_per_node);
  write_int_attribute(*m.gpus_group, "gpus_per_node", layout.gpus_per_node);
  if (m.gpu_changes) {
    m.changes_group.emplace(m.file->createGroup("/gpus/changes"));
    auto& cg = *m.changes_group;
    m.c_gpu.emplace(cg, "gpu", H5::PredType::NATIVE_UINT32, "1", kChangeChunk, z);
    m.c_time.emplace(cg, "time_s", H5::PredType::NATIVE_DOUBLE, "s", kChangeChunk, z, Packing::deflate);
    m.c_power.emplace(cg, "power_W", H5::PredType::NATIVE_DOUBLE, "W", kChangeChunk, z, Packing::deflate);
    write_string_attribute(
        cg, "description",
        layout.gpus > 0
            ? "from time_s[i] on, GPU gpu[i] draws power_W[i] (GPUs are numbered node-major through "
              "the node groups of /fleet, in order); rows are in time order and every GPU has a row at "
              "time 0"
            : "from time_s[i] on, GPU gpu[i] (node = gpu / gpus_per_node) draws power_W[i]; rows are in "
              "time order and every GPU has a row at time 0");
  }
  guard.built = true;
}

ResultWriter::~ResultWriter() {
  if (committed_) return;
  // Closed when it can be (an interrupted run); after a failed write, thrown away unclosed, its last writes
  // (datasets closing) sent to /dev/null (give_up_hdf5_file: such a close crashes HDF5's exit handler).
  const auto failure = last_hdf5_io_failure();
  const bool failed = failure && failure->write;
  if (failed && impl_->file) redirect_hdf5_writes(*impl_->file);
  try {
    impl_->close_all(failed);
  } catch (...) {
  }
  std::error_code ec;
  std::filesystem::remove(temp_, ec);
}

void ResultWriter::facility_sample(sim::Time start, double it_W, double facility_W, double energy_J) {
  auto& m = *impl_;
  m.fb_time.push_back(start.seconds());
  m.fb_it.push_back(it_W);
  m.fb_facility.push_back(facility_W);
  m.fb_pue.push_back(it_W > 0.0 ? facility_W / it_W : 0.0);
  m.fb_energy.push_back(energy_J);
  m.settle_meter();
  m.meter_pending = true;
  m.meter_start_ns = start.ns();
  m.meter_W = facility_W;
  if (m.fb_time.size() >= kSeriesChunk) m.flush_facility();
}

void ResultWriter::grid_sample(sim::Time /*start*/, double carbon_kg, double cost) {
  auto& m = *impl_;
  m.fb_carbon.push_back(carbon_kg);
  m.fb_cost.push_back(cost);
  if (m.fb_carbon.size() >= kSeriesChunk) m.flush_grid();
}

void ResultWriter::battery_sample(sim::Time start, double import_W, double battery_W, double soc) {
  auto& m = *impl_;
  m.import_sample(start, import_W,
                  {{&m.f_battery, &m.fb_battery, "battery_W", "W", battery_W},
                   {&m.f_soc, &m.fb_soc, "battery_soc", "1", soc}});
}

void ResultWriter::outage_sample(sim::Time start, double import_W, double ups_W, double unserved_W) {
  auto& m = *impl_;
  m.import_sample(start, import_W,
                  {{&m.f_ups, &m.fb_ups, "ups_W", "W: IT load served by the UPS (interval mean)", ups_W},
                   {&m.f_unserved, &m.fb_unserved, "unserved_W",
                    "W: IT load dark after the UPS ran out (interval mean)", unserved_W}});
}

void ResultWriter::node_samples(sim::Time start, std::span<const double> node_W) {
  auto& m = *impl_;
  m.nb_time.push_back(start.seconds());
  for (std::size_t n = 0; n < node_W.size(); ++n) m.nb_block[n * m.block_cols + m.block_used] = node_W[n];
  if (++m.block_used == m.block_cols) m.flush_nodes();
}

bool ResultWriter::wants_gpu_changes() const {
  return impl_->gpu_changes;
}

void ResultWriter::gpu_change(sim::Time t, std::span<const sim::GpuIndex> gpus, double power_W) {
  auto& m = *impl_;
  if (!m.gpu_changes) return;
  const double ts = t.seconds();
  for (auto g : gpus) {
    m.cb_gpu.push_back(g);
    m.cb_time.push_back(ts);
    m.cb_power.push_back(power_W);
  }
  if (m.cb_gpu.size() >= kChangeChunk) m.flush_changes(false);
}

void ResultWriter::network_change(sim::Time t, double power_W) {
  auto& m = *impl_;
  if (!m.net_time.empty() && m.net_time.back() == t.seconds()) {
    m.net_power.back() = power_W;  // several changes at one instant: keep the last
    return;
  }
  m.net_time.push_back(t.seconds());
  m.net_power.push_back(power_W);
  if (m.net_time.size() > kChangeChunk) m.flush_network(1);
}

void ResultWriter::stream_jobs(sim::Engine& engine, std::size_t block_rows) {
  const QuietStderr quiet;
  auto& m = *impl_;
  m.jobs_group.emplace(m.file->createGroup("/jobs"));
  const sim::Cluster* cluster = &engine.cluster();
  m.jobs = std::make_unique<JobTable>(
      *m.jobs_group, [cluster](sim::GpuIndex gpu) { return std::int64_t{cluster->node_of(gpu)}; },
      engine.layout().groups().size() > 1, block_rows, &m.compressor);
  engine.stream_jobs(this);
}

void ResultWriter::job_done(sim::JobIndex /*index*/, const sim::Job& job) {
  const QuietStderr quiet;
  impl_->job_times.add(job);
  impl_->jobs->append(sim::record_of(job));
}

void ResultWriter::write_jobs(const std::deque<sim::Job>& jobs, std::uint32_t gpus_per_node) {
  const QuietStderr quiet;
  H5::Group g = impl_->file->createGroup("/jobs");
  JobTable table(
      g, [gpus_per_node](sim::GpuIndex gpu) { return std::int64_t{gpu / gpus_per_node}; }, false,
      kJobBlockRows, &impl_->compressor);
  for (const auto& j : jobs) {
    impl_->job_times.add(j);
    table.append(sim::record_of(j));
  }
  table.finish();
}

void ResultWriter::write_jobs(const std::deque<sim::Job>& jobs, const sim::Cluster& cluster,
                              bool gpu_column) {
  const QuietStderr quiet;
  auto& m = *impl_;
  if (m.jobs) {  // streamed: the rest, after the rows already written
    for (const auto& j : jobs) {
      m.job_times.add(j);
      m.jobs->append(sim::record_of(j));
    }
    m.jobs->finish();
    return;
  }
  H5::Group g = m.file->createGroup("/jobs");
  JobTable table(
      g, [&cluster](sim::GpuIndex gpu) { return std::int64_t{cluster.node_of(gpu)}; }, gpu_column,
      kJobBlockRows, &m.compressor);
  for (const auto& j : jobs) {
    m.job_times.add(j);
    table.append(sim::record_of(j));
  }
  table.finish();
}

void ResultWriter::write_fleet(const std::vector<sim::FleetGroup>& groups) {
  const QuietStderr quiet;
  H5::Group g = impl_->file->createGroup("/fleet");
  std::vector<std::string> name, gpu;
  std::vector<std::int64_t> nodes, per_node;
  std::vector<double> idle, tdp, base;
  for (const auto& grp : groups) {
    name.push_back(grp.name);
    gpu.push_back(grp.gpu.id);
    nodes.push_back(grp.nodes);
    per_node.push_back(grp.gpus_per_node);
    idle.push_back(grp.gpu.idle_W);
    tdp.push_back(grp.gpu.tdp_W);
    base.push_back(grp.node_base_W);
  }
  write_strings(g, "name", name, "text: node group name");
  write_vector(g, "nodes", nodes, "1");
  write_vector(g, "gpus_per_node", per_node, "1");
  write_strings(g, "gpu", gpu, "text: GPU preset id");
  write_vector(g, "gpu_idle_W", idle, "W per GPU");
  write_vector(g, "gpu_tdp_W", tdp, "W per GPU");
  write_vector(g, "node_base_W", base, "W per node");
  write_string_attribute(g, "description",
                         "row k: node group k; groups are laid out in order (group 0's nodes first), GPUs "
                         "numbered node-major through them");
}

void ResultWriter::write_services(const std::vector<ServiceRecord>& services) {
  if (services.empty()) return;
  const QuietStderr quiet;
  H5::Group root = impl_->file->createGroup("/services");
  write_string_attribute(root, "description",
                         "one group per LLM service ([[workload.service]]); series per facility interval "
                         "from time zero");
  for (const auto& s : services) {
    H5::Group g = root.createGroup(s.name);
    write_vector(g, "power_W", s.power_W, "W");
    write_vector(g, "arrivals", s.arrivals, "requests per interval");
    write_vector(g, "completions", s.completions, "requests per interval");
    write_vector(g, "output_tokens_per_s", s.output_tokens_per_s, "tokens/s");
    write_vector(g, "replicas_active", s.replicas_active, "replicas");
    write_vector(g, "admitted", s.admitted, "requests per interval");
    write_vector(g, "queued", s.queued, "requests");
    write_vector(g, "running", s.running, "sequences");
    write_vector(g, "batch_occupancy", s.batch_occupancy, "1");
    write_vector(g, "prefill_tokens_per_s", s.prefill_tokens_per_s, "tokens/s");
    write_vector(g, "decode_tokens_per_s", s.decode_tokens_per_s, "tokens/s");
    write_vector(g, "ttft_p50_s", s.ttft_p50_s, "s");
    write_vector(g, "ttft_p99_s", s.ttft_p99_s, "s");
    write_vector(g, "tpot_p50_s", s.tpot_p50_s, "s");
    write_vector(g, "tpot_p99_s", s.tpot_p99_s, "s");
    write_string_attribute(g, "model", s.model);
    write_string_attribute(g, "gpu", s.gpu);
    write_string_attribute(g, "mode", s.mode);
    write_string_attribute(g, "scheduler", s.scheduler);
    write_string_attribute(g, "trace", s.trace);
    write_int_attribute(g, "tp", s.tp);
    write_int_attribute(g, "pp", s.pp);
    write_int_attribute(g, "replicas", s.replicas);
    write_int_attribute(g, "gpus", s.gpus);
    write_int_attribute(g, "max_batch", s.max_batch);
    write_double_attribute(g, "interval_s", s.interval_s);
    write_scalar(g, "energy_J", s.energy_J, "J");
    write_scalar(g, "requests_served", s.requests_served, "requests");
    write_scalar(g, "output_tokens", s.output_tokens, "tokens");
    write_scalar(g, "ttft_p50_s_window", s.latency.ttft_p50_s, "s");
    write_scalar(g, "ttft_p99_s_window", s.latency.ttft_p99_s, "s");
    write_scalar(g, "tpot_p50_s_window", s.latency.tpot_p50_s, "s");
    write_scalar(g, "tpot_p99_s_window", s.latency.tpot_p99_s, "s");
    write_scalar(g, "e2e_p50_s_window", s.latency.e2e_p50_s, "s");
    write_scalar(g, "e2e_p99_s_window", s.latency.e2e_p99_s, "s");
    if (s.slo_ttft_s > 0.0 || s.slo_tpot_s > 0.0) {
      write_vector(g, "slo_met", s.slo_met, "requests per interval");
      write_scalar(g, "slo_met_total", s.slo_met_total, "requests");
      write_scalar(g, "slo_ttft_s", s.slo_ttft_s, "s (0: no bound)");
      write_scalar(g, "slo_tpot_s", s.slo_tpot_s, "s (0: no bound)");
    }
    if (s.absorbing) {
      write_scalar(g, "absorb_mean_lag_s", s.absorb_mean_lag_s, "s");
      write_scalar(g, "absorb_max_lag_s", s.absorb_max_lag_s, "s");
      write_scalar(g, "absorb_bank_J", s.absorb_bank_J, "J");
      write_vector(g, "absorb_lag_s", s.absorb_lag_s, "s");
    }
    if (!s.requests.arrival_s.empty()) {
      const ServiceRequestRows& q = s.requests;
      H5::Group rows = g.createGroup("requests");
      write_string_attribute(
          rows, "description",
          "exact mode: every request the run played, in arrival order (times from time zero; "
          "one ending at or after the horizon was not served in the window)");
      write_vector(rows, "arrival_s", q.arrival_s, "s");
      write_vector(rows, "first_token_s", q.first_token_s, "s");
      write_vector(rows, "end_s", q.end_s, "s");
      write_vector(rows, "input_tokens", q.input_tokens, "tokens");
      write_vector(rows, "output_tokens", q.output_tokens, "tokens");
      write_vector(rows, "replica", q.replica, "replica index");
    }
  }
}

void write_job_datasets(H5::Group& g, const std::vector<sim::Job>& jobs, std::uint32_t gpus_per_node) {
  write_job_datasets(g, jobs,
                     [gpus_per_node](sim::GpuIndex gpu) { return std::int64_t{gpu / gpus_per_node}; });
}

void write_job_datasets(H5::Group& g, const std::vector<sim::Job>& jobs,
                        const std::function<std::int64_t(sim::GpuIndex)>& node_of, bool gpu_column) {
  JobTable table(g, node_of, gpu_column, kJobBlockRows);
  for (const auto& j : jobs) table.append(sim::record_of(j));
  table.finish();
}

void ResultWriter::write_summary(const sim::RunSummary& s) {
  const QuietStderr quiet;
  H5::Group g = impl_->file->createGroup("/summary");
  write_scalar(g, "horizon_s", s.horizon_s, "s");
  write_scalar(g, "jobs_total", static_cast<std::int64_t>(s.jobs_total), "1");
  write_scalar(g, "jobs_finished", static_cast<std::int64_t>(s.jobs_finished), "1");
  write_scalar(g, "jobs_running", static_cast<std::int64_t>(s.jobs_running), "1");
  write_scalar(g, "jobs_queued", static_cast<std::int64_t>(s.jobs_queued), "1");
  // Waits and job times of the jobs in /jobs (warm-up jobs included: they queue like the others).
  write_scalar(g, "wait_mean_s", impl_->job_times.wait_mean_s(),
               "s: start - submit, mean over the jobs that started (NaN: none did)");
  write_scalar(g, "jct_mean_s", impl_->job_times.jct_mean_s(),
               "s: end - submit, mean over the jobs that finished (NaN: none did)");
  write_scalar(g, "gpu_seconds", s.gpu_seconds, "s");
  write_scalar(g, "gpu_utilisation", s.gpu_utilisation, "1");
  write_scalar(g, "gpu_energy_J", s.gpu_energy_J, "J");
  write_scalar(g, "it_energy_J", s.it_energy_J, "J");
  write_scalar(g, "facility_energy_J", s.facility_energy_J, "J");
  write_scalar(g, "peak_facility_W", s.peak_facility_W, "W");
  write_scalar(g, "peak_facility_interval_mean_W", s.peak_facility_sample_W, "W");
  write_scalar(g, "mean_facility_W", s.mean_facility_W, "W");
  write_scalar(g, "carbon_kg", s.carbon_kg, "kg");
  if (s.cooling != "constant") {  // weather-driven cooling: the run's PUE and its hourly range
    write_scalar(g, "pue", s.pue, "1: facility energy / IT energy over the run");
    write_scalar(g, "pue_min_interval", s.pue_min_interval, "1: lowest facility-interval PUE");
    write_scalar(g, "pue_max_interval", s.pue_max_interval, "1: highest facility-interval PUE");
  }
  if (s.battery) {  // on-site batteries: what the utility sees (carbon_kg and cost above are charged on it)
    write_scalar(g, "grid_import_J", s.grid_import_J, "J");
    write_scalar(g, "peak_grid_import_W", s.peak_grid_import_W, "W: highest facility-interval mean import");
    write_scalar(g, "import_limit_W", s.import_limit_W, "W: [grid] import_limit_kw (0: none)");
    write_scalar(g, "time_over_import_limit_s", s.hours_over_import_limit * 3600.0,
                 "s: facility-interval time with mean import above the limit");
    write_scalar(g, "storage_loss_J", s.storage_loss_J, "J");
    write_scalar(g, "storage_change_J", s.storage_change_J, "J: stored energy at the end less at the start");
  }
  if (s.grid_events) {  // [[grid.event]]: what the meter saw (carbon_kg and cost above are charged on import)
    write_scalar(g, "grid_import_J", s.grid_import_J, "J");
    write_scalar(g, "peak_grid_import_W", s.peak_grid_import_W, "W: highest facility-interval mean import");
    write_scalar(g, "grid_events", static_cast<std::int64_t>(s.grid_event_count), "1");
    write_scalar(g, "grid_events_ridden_through", static_cast<std::int64_t>(s.grid_events_ridden_through),
                 "1: shorter than [facility] ride_through_s");
    write_scalar(g, "time_off_grid_s", s.time_off_grid_s,
                 "s: IT load transferred off the grid, before its return ramp");
    write_scalar(g, "load_lost_W", s.load_lost_W, "W: largest facility-interval mean IT load off the grid");
    write_scalar(g, "ups_energy_J", s.ups_energy_J, "J: IT energy the UPS served");
    write_scalar(g, "unserved_energy_J", s.unserved_energy_J, "J: IT energy left dark after a UPS ran out");
    write_scalar(g, "return_ramp_W_per_s", s.return_ramp_W_per_s, "W/s: [facility] return_ramp_kw_per_min");
    write_scalar(g, "grid_interruptions", static_cast<std::int64_t>(s.grid_interruptions),
                 "1: jobs interrupted when a UPS ran out");
  }
  write_scalar(g, "cost", s.cost, "currency of the [grid.price] signal");
  write_scalar(g, "capped_predictions", static_cast<std::int64_t>(s.capped_predictions),
               "1: job predictions whose power was above the GPU's TDP and was capped to it");
  if (s.failures) {  // [failures] enabled: the interruptions in the window and their cost
    write_scalar(g, "interruptions", static_cast<std::int64_t>(s.interruptions),
                 "1: job interruptions that struck in [0, horizon)");
    write_scalar(g, "interruptions_expected", s.interruptions_expected,
                 "1: sum over jobs of rate x GPU time exposed (running epochs, not paused or restarting)");
    write_scalar(g, "failure_rate_per_gpu_hour", s.failure_rate_per_gpu_hour,
                 "1/GPU-h: [failures] rate_per_gpu_hour (a job's own rate overrides it)");
    write_scalar(g, "failure_exposure_gpu_s", s.failure_exposure_gpu_s,
                 "GPU-s running epochs (exposed to failures)");
    write_scalar(g, "lost_gpu_s", s.lost_gpu_s, "GPU-s of work lost to interruptions and redone");
    write_scalar(g, "lost_J", s.lost_J, "J: GPU energy of that work");
    write_scalar(g, "restart_gpu_s", s.restart_gpu_s, "GPU-s in restart delays and reloads");
    write_scalar(g, "restart_J", s.restart_J, "J: GPU energy of the restarts");
  }
  if (s.smoothing) {  // [smoothing]: what it costs
    write_scalar(g, "smoothing_energy_J", s.smoothing_energy_J,
                 "J: extra GPU energy of power smoothing and burn over the work's own draw (all jobs)");
    write_scalar(g, "smoothing_share_of_it", s.it_energy_J > 0.0 ? s.smoothing_energy_J / s.it_energy_J : 0.0,
                 "1: smoothing_energy_J / it_energy_J");
    write_scalar(g, "smoothing_floor_fraction", s.smoothing_floor_fraction, "1: [smoothing] floor_fraction");
    write_string_attribute(g, "smoothing_mode", s.smoothing_mode);
  }
  // The warm-up (simulated before 0, out of every other figure) and how near steady state it left the fleet.
  write_scalar(g, "warmup_s", s.warmup_s, "s");
  write_scalar(g, "jobs_at_start", static_cast<std::int64_t>(s.jobs_at_start), "1: running or queued at 0");
  write_scalar(g, "occupancy_at_start", s.occupancy_at_start, "1: allocated GPUs / GPUs at 0");
  write_scalar(g, "occupancy_mean", s.gpu_utilisation, "1: allocated GPUs / GPUs, mean over [0, horizon)");
  write_string_attribute(g, "scheduler", s.scheduler);
  write_string_attribute(g, "placement", s.placement);
  write_string_attribute(g, "predictor", s.predictor);
  impl_->settle_meter();
  impl_->grid_metrics = impl_->grid->finish(core::Duration::from_seconds(s.horizon_s).ns());
  H5::Group grid = impl_->file->createGroup("/grid");
  write_grid_metrics(g, grid, impl_->grid_metrics, impl_->meter_series());
  impl_->power_quality = impl_->quality->finish(core::Duration::from_seconds(s.horizon_s).ns());
  H5::Group quality = impl_->file->createGroup("/power_quality");
  write_power_quality(quality, impl_->power_quality, impl_->meter_series());
}

const PowerQuality& ResultWriter::power_quality() const noexcept {
  return impl_->power_quality;
}

const GridMetrics& ResultWriter::grid_metrics() const noexcept {
  return impl_->grid_metrics;
}

void ResultWriter::write_provenance(const RunProvenance& p) {
  const QuietStderr quiet;
  auto& root = *impl_->root;
  write_string_attribute(root, "scenario", p.scenario_text);
  write_string_attribute(root, "scenario_file", p.scenario_file);
  write_int_attribute(root, "seed", static_cast<std::int64_t>(p.seed));
  write_string_attribute(root, "fleetwatt_version", p.version);
  write_string_attribute(root, "git_commit", p.git_commit);
  write_string_attribute(root, "created", utc_now_iso8601());
  write_string_attribute(root, "hdf5_version",
                         fmt::format("{}.{}.{}", H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE));
}

void ResultWriter::commit() {
  const QuietStderr quiet;
  auto& m = *impl_;
  m.flush_facility();
  m.flush_grid();
  m.flush_battery();
  m.flush_nodes();
  m.flush_changes();
  m.flush_network(0);
  m.compressor.finish();
  m.close_all();
  std::error_code ec;
  std::filesystem::rename(temp_, target_, ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("{}: cannot move the result into place: {}", target_.string(), ec.message()));
  committed_ = true;
}

}  // namespace fleetwatt::results
