// The job table streamed as the run goes (finished jobs written in blocks and dropped from the engine) is
// the table written whole at the end, bit for bit: at the block boundaries (0, 1, a block, a block + 1
// jobs) and over a long run of the shipped default fleet.
#include <catch2/catch.hpp>

#include <H5Cpp.h>
#include <fmt/format.h>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/results/hdf5/result_writer.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/run_to_file.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "test_support.hpp"
#include "tools/result_files_equal.hpp"

using namespace fleetwatt;

namespace {
// n jobs of one GPU each on 2 servers of 2 GPUs. Job 0 runs longest (`first_epochs` epochs of 60 s, 720 s
// by default): the jobs after it finish first and wait in memory until it has, since rows are written in
// job order. Jobs 1.. arrive every 30 s and run 1 to 3 epochs.
std::string scenario(int n, int first_epochs = 12) {
  std::string s = R"(
seed = 5
[fleet]
nodes = 2
gpus_per_node = 2
gpu_idle_w = 50
node_base_w = 100
[workload]
horizon_s = 900
warmup_s = 0
[output]
facility_interval_s = 10
node_interval_s = 60
)";
  // No job at all: a scenario needs a workload, so a generator whose rate draws none in 900 s (about
  // 2.5e-10 expected arrivals; the seed fixes that there are none).
  if (n == 0)
    s += "[workload.generator]\nrate_per_hour = 1e-9\n[[workload.generator.mix]]\nclass = \"vit\"\n"
         "n_gpus = [1]\nepochs = [1, 1]\n";
  for (int k = 0; k < n; ++k)
    s += fmt::format(
        "[[workload.jobs]]\nsubmit_s = {}\nn_gpus = 1\nepochs = {}\npeak_w = 300\npeak_s = 50\nvalley_w = "
        "80\nvalley_s = 10\n",
        30 * k, k == 0 ? first_epochs : 1 + k % 3);
  return s;
}

results::WriterLayout layout_of(const runs::PreparedRun& r, const sim::Engine& e) {
  return {r.setup.nodes,
          r.setup.gpus_per_node,
          r.scenario.output.facility_interval_s,
          r.scenario.output.node_interval_s,
          r.scenario.output.gpu_changes,
          e.cluster().uniform() ? 0 : e.cluster().gpus(),
          {r.scenario.output.start_unix_s, r.scenario.output.start_utc_offset_s},
          r.scenario.output.start,
          r.scenario.grid.system_peak_hours};
}

/// The run written as before streaming: every job kept in the engine, the table written whole at the end.
void write_whole(const runs::Scenario& s, const std::filesystem::path& out) {
  auto r = runs::prepare_run(s);
  const auto engine = runs::make_engine(r);
  results::ResultWriter w(out, layout_of(r, *engine));
  engine->attach(&w);
  engine->run();
  REQUIRE(engine->first_job() == 0);  // nothing streamed away
  w.write_jobs(engine->jobs(), engine->cluster(), engine->layout().groups().size() > 1);
  w.write_summary(engine->summary());
  w.commit();
}

void write_streamed(const runs::Scenario& s, const std::filesystem::path& out, std::size_t block_rows) {
  auto r = runs::prepare_run(s);
  runs::RunToFileOptions o;
  o.job_block_rows = block_rows;
  (void)runs::run_to_file(r, out, std::move(o));
}

/// Records what the engine hands over: each job's index and whether it had finished.
struct RecordingJobSink final : sim::JobSink {
  std::vector<sim::JobIndex> indices;
  std::vector<std::int64_t> ids;
  bool all_finished = true;
  void job_done(sim::JobIndex index, const sim::Job& job) override {
    indices.push_back(index);
    ids.push_back(job.spec.id);
    all_finished = all_finished && job.state == sim::JobState::finished;
  }
};
}  // namespace

TEST_CASE("the streamed job table equals the whole one at block boundaries", "[results][jobs]") {
  constexpr std::size_t kBlock = 4;
  for (const int n : {0, 1, 4, 5, 9}) {
    INFO(n << " jobs, blocks of " << kBlock);
    test::TempDir dir;
    const auto prepared = runs::parse_scenario(scenario(n), dir / "s.toml");
    write_whole(prepared, dir / "whole.h5");
    write_streamed(prepared, dir / "block.h5", kBlock);
    write_streamed(prepared, dir / "default.h5", results::kJobBlockRows);
    CHECK(test::result_files_difference(dir / "whole.h5", dir / "block.h5").empty());
    CHECK(test::result_files_difference(dir / "whole.h5", dir / "default.h5").empty());
    const results::ResultReader r(dir / "block.h5");
    const auto ids = r.integers("/jobs/id");
    REQUIRE(ids.size() == static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) CHECK(ids[static_cast<std::size_t>(k)] == k + 1);  // ids: list positions
  }
}

TEST_CASE("the engine hands finished jobs over in job order and holds the rest", "[results][jobs]") {
  test::TempDir dir;
  const int n = 9;
  auto prepared = runs::prepare_run(runs::parse_scenario(scenario(n, 20), dir / "s.toml"));
  const auto engine = runs::make_engine(prepared);
  RecordingJobSink sink;
  engine->stream_jobs(&sink);
  engine->run();
  // Job 0 (20 epochs of 60 s = 1200 s) is still running at the 900 s horizon: every job after it waits
  // behind it, so nothing is handed over although jobs 1.. finished.
  CHECK(sink.indices.empty());
  CHECK(engine->first_job() == 0);
  CHECK(engine->jobs().size() == static_cast<std::size_t>(n));
  // With job 0 done at 720 s, the finished prefix goes: all 9 jobs (the last, submitted at 240 s, runs at
  // most 3 epochs) end before 900 s.
  auto short_first = runs::prepare_run(runs::parse_scenario(scenario(n), dir / "s.toml"));
  const auto e2 = runs::make_engine(short_first);
  RecordingJobSink sink2;
  e2->stream_jobs(&sink2);
  e2->run();
  REQUIRE(sink2.indices.size() == static_cast<std::size_t>(n));
  CHECK(sink2.all_finished);
  for (std::size_t k = 0; k < sink2.indices.size(); ++k) {
    CHECK(sink2.indices[k] == k);
    CHECK(sink2.ids[k] == static_cast<std::int64_t>(k) + 1);
  }
  // Handed over + held = every job; the first held is the first not finished.
  CHECK(e2->first_job() == sink2.indices.size());
  CHECK(sink2.indices.size() + e2->jobs().size() == static_cast<std::size_t>(n));
  if (!e2->jobs().empty()) CHECK(e2->jobs().front().state != sim::JobState::finished);
  CHECK(e2->summary().jobs_total == static_cast<std::uint64_t>(n));
}

TEST_CASE("a long run of the default fleet streams the job table it would have written whole",
          "[results][jobs]") {
  test::TempDir dir;
  // 30 h of the shipped default fleet (its 13 h warm-up before): about 6,900 jobs, so blocks of 7 rows
  // cross hundreds of block boundaries while jobs finish out of order.
  auto s =
      runs::load_scenario(std::filesystem::path(FLEETWATT_SOURCE_DIR) / "examples/scenarios/day-fleet.toml",
                          {"workload.horizon_s=108000", "output.gpu_changes=false",
                           "output.node_interval_s=3600", "output.facility_interval_s=60"});
  const auto& prepared = s;
  write_whole(prepared, dir / "whole.h5");
  write_streamed(prepared, dir / "block.h5", 7);
  CHECK(test::result_files_difference(dir / "whole.h5", dir / "block.h5").empty());
  const results::ResultReader r(dir / "block.h5");
  CHECK(r.integers("/jobs/id").size() > 6000);
}

TEST_CASE("the job table's numeric columns are chunked a block at a time and compressed", "[results][jobs]") {
  // One chunk a block, so each block goes whole to the compressor; the last, partial one is padded to a
  // chunk. The values read back are checked above; here, the layout: 9 jobs in blocks of 4 are 3 chunks
  // of 4 rows, each shuffled and deflated, and the first blocks' repeating columns pack below their size.
  test::TempDir dir;
  const auto prepared = runs::parse_scenario(scenario(9), dir / "s.toml");
  write_streamed(prepared, dir / "block.h5", 4);
  const H5::H5File f((dir / "block.h5").string(), H5F_ACC_RDONLY);
  for (const char* name : {"/jobs/peak_W", "/jobs/energy_J", "/jobs/n_gpus"}) {
    INFO(name);
    const H5::DataSet d = f.openDataSet(name);
    const H5::DSetCreatPropList p = d.getCreatePlist();
    hsize_t chunk[1] = {0};
    REQUIRE(p.getChunk(1, chunk) == 1);
    CHECK(chunk[0] == 4);
    REQUIRE(p.getNfilters() == 2);
    const auto filter = [&p](int k) {
      unsigned flags = 0, config = 0, values[8] = {};
      std::size_t n = 8;
      char filter_name[64] = {};
      return p.getFilter(k, flags, n, values, sizeof filter_name, filter_name, config);
    };
    CHECK(filter(0) == H5Z_FILTER_SHUFFLE);
    CHECK(filter(1) == H5Z_FILTER_DEFLATE);
    hsize_t nchunks = 0;
    REQUIRE(H5Dget_num_chunks(d.getId(), d.getSpace().getId(), &nchunks) >= 0);
    CHECK(nchunks == 3);
  }
  // With the default block, the 9 rows are one chunk of 4,096 (32,768 bytes uncompressed), padded: it
  // deflated to 71 bytes when measured (libdeflate on Debian 12, 2026-11-29).
  write_streamed(prepared, dir / "default.h5", results::kJobBlockRows);
  const H5::H5File g((dir / "default.h5").string(), H5F_ACC_RDONLY);
  const H5::DataSet peak = g.openDataSet("/jobs/peak_W");
  hsize_t chunk[1] = {0};
  REQUIRE(peak.getCreatePlist().getChunk(1, chunk) == 1);
  CHECK(chunk[0] == results::kJobBlockRows);
  CHECK(peak.getStorageSize() < 100);
}
