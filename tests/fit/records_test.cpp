// Tests of the records: trace summaries over several GPUs, job metadata files, the records CSV line, the
// CSV table the fitting reads, and the `fleetwatt calibrate` command end to end.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/records.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models::fit;
using fleetwatt::test::TempDir;

namespace {
/// Two GPUs at 1 Hz: idle 50 W for 10 s, three (peak 300 W x 30 s, valley 100 W x 10 s) cycles without the
/// last valley, idle 50 W for 10 s; GPU 1 draws 10 W more in every phase.
std::string two_gpu_log() {
  std::ostringstream os;
  os << "timestamp, index, power.draw [W], utilization.gpu [%]\n";
  std::vector<double> levels;
  auto add = [&](double w, int n) { levels.insert(levels.end(), std::size_t(n), w); };
  add(50, 10);
  for (int c = 0; c < 3; ++c) {
    add(300, 30);
    if (c < 2) add(100, 10);
  }
  add(50, 10);
  for (std::size_t i = 0; i < levels.size(); ++i)
    for (int g = 0; g < 2; ++g)
      os << "2024/05/01 12:" << (i / 60 < 10 ? "0" : "") << i / 60 << ":" << (i % 60 < 10 ? "0" : "")
         << i % 60 << ".000, " << g << ", " << levels[i] + 10.0 * g << " W, 90 %\n";
  return os.str();
}
}  // namespace

TEST_CASE("a two-GPU log is summarised per GPU, with energies summed over the GPUs", "[records]") {
  std::istringstream in(two_gpu_log());
  const auto trace = read_power_trace(in, "two.csv");
  const auto s = summarise_trace(trace);
  CHECK(s.gpus.size() == 2);
  CHECK(s.n_peaks == 3);
  CHECK(s.n_valleys == 2);
  // Per GPU mean of 300/310 W and 100/110 W.
  CHECK(s.peak_W == Approx(305.0));
  CHECK(s.valley_W == Approx(105.0));
  CHECK(s.peak_s == Approx(30.0));
  CHECK(s.valley_s == Approx(10.0));
  // Hand-integrated trapezoids at 1 Hz: the sum of the samples less half the first and last one.
  // GPU 0: 20 x 50 + 90 x 300 + 20 x 100 - 50 = 29950 J; GPU 1: 20 x 60 + 90 x 310 + 20 x 110 - 60 = 31240 J.
  CHECK(s.energy_J == Approx(29950.0 + 31240.0));
  // The boundaries sit halfway between samples, so the clean square wave integrates exactly.
  CHECK(s.phase_energy_J == Approx(s.energy_J));
  const auto only1 = summarise_trace(trace, 1);
  CHECK(only1.peak_W == Approx(310.0));
  CHECK(only1.energy_J == Approx(s.energy_J - trapezoid_energy_J(trace.gpu(0))));
}

TEST_CASE("job metadata files are read and bad keys are named with their position", "[records]") {
  TempDir dir;
  const auto ok = dir.write("job.toml", "model = \"resnet50\"\nparams = 25.6e6\nbatch_size = 32\ngpus = 4\n");
  const auto m = read_job_meta_toml(ok);
  CHECK(m.model == "resnet50");
  CHECK(*m.params == 25.6e6);
  CHECK(*m.gpus == 4.0);
  CHECK_FALSE(m.flops.has_value());
  const auto bad = dir.write("bad.toml", "model = \"x\"\nbatchsize = 32\n");
  CHECK_THROWS_WITH(read_job_meta_toml(bad), Catch::Contains("bad.toml:2:1") && Catch::Contains("batchsize"));
  const auto typed = dir.write("typed.toml", "params = \"many\"\n");
  CHECK_THROWS_WITH(read_job_meta_toml(typed), Catch::Contains("typed.toml:1") && Catch::Contains("number"));
}

TEST_CASE("records are appended under one header and read back as a table", "[records]") {
  TempDir dir;
  std::istringstream in(two_gpu_log());
  const auto s = summarise_trace(read_power_trace(in, "two.csv"));
  JobRecordMeta m;
  m.model = "vit, base";  // a comma forces quoting
  m.params = 86e6;
  const auto path = dir / "records.csv";
  append_record(path, m, s);
  append_record(path, m, s);
  const auto t = RecordTable::read(path);
  CHECK(t.rows() == 2);
  CHECK(t.cell(1, t.column("model")) == "vit, base");
  CHECK(t.numeric("gpus") == std::vector<double>{2.0, 2.0});
  CHECK(t.numeric("peak_W")[0] == Approx(305.0));
  CHECK(t.line_of(1) == 3);
  // An empty metadata value is not a number.
  CHECK_THROWS_WITH(t.numeric("flops"), Catch::Contains("records.csv:2:") && Catch::Contains("flops"));
  // The epochs found go in the last two cells; a file in the layout before them keeps its layout.
  TraceSummary with_epochs = s;
  with_epochs.epoch_s = 40.5;
  with_epochs.epoch_W = 180.25;
  append_record(path, m, with_epochs);
  const auto t3 = RecordTable::read(path);
  CHECK(std::stod(t3.cell(2, t3.column("epoch_s"))) == 40.5);
  CHECK(std::stod(t3.cell(2, t3.column("epoch_W"))) == 180.25);
  CHECK(t3.cell(0, t3.column("epoch_s")).empty());
  const auto old = dir / "old.csv";
  std::ofstream(old) << record_header_without_epochs() << "\n";
  append_record(old, m, with_epochs);
  const auto t4 = RecordTable::read(old);
  CHECK(t4.columns().size() == t.columns().size() - 4);
  CHECK(t4.cell(0, t4.column("source")) == "two.csv");
  CHECK(t4.cell(0, t4.columns().size() - 1) == "two.csv");  // no cell past the header's last
  // The layout with the epochs but before the board's limits keeps its layout too.
  const auto epochs_only = dir / "epochs-only.csv";
  std::ofstream(epochs_only) << record_header_without_epochs() << ",epoch_s,epoch_W\n";
  TraceSummary with_limits = with_epochs;
  with_limits.power_limit_W = 200.0;
  with_limits.max_power_limit_W = 240.0;
  append_record(epochs_only, m, with_limits);
  const auto t5 = RecordTable::read(epochs_only);
  CHECK(t5.columns().size() == t.columns().size() - 2);
  CHECK(std::stod(t5.cell(0, t5.column("epoch_W"))) == 180.25);
  append_record(path, m, with_limits);
  const auto t6 = RecordTable::read(path);
  CHECK(std::stod(t6.cell(3, t6.column("power_limit_W"))) == 200.0);
  CHECK(std::stod(t6.cell(3, t6.column("max_power_limit_W"))) == 240.0);
  std::ofstream(dir / "other.csv") << "a,b\n1,2\n";
  CHECK_THROWS_WITH(append_record(dir / "other.csv", m, s), Catch::Contains("different header"));
}

TEST_CASE("the records table names file, line and column of bad cells and missing columns", "[records]") {
  const auto t = RecordTable::parse("x,y\n1,2\n3,abc\n", "r.csv");
  CHECK_THROWS_WITH(t.numeric("y"), Catch::Contains("r.csv:3:3") && Catch::Contains("'abc' is not a number"));
  CHECK_THROWS_WITH(t.numeric("z"), Catch::Contains("no such column") && Catch::Contains("x, y"));
  CHECK_THROWS_WITH(RecordTable::parse("x,y\n1\n", "r.csv"), Catch::Contains("r.csv:2:1"));
  CHECK(t.filtered("x", "3").rows() == 1);
}

TEST_CASE("fleetwatt calibrate prints JSON with the measured and segmented figures", "[records][command]") {
  const auto bin = fleetwatt::test::fleetwatt_binary();
  if (bin.empty() || !std::filesystem::exists(bin)) {
    WARN("skipped: the fleetwatt binary is not built");
    return;
  }
  TempDir dir;
  const auto log = dir.write("two.csv", two_gpu_log());
  const auto r =
      fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --gpu 1 --json");
  REQUIRE(r.exit_code == 0);
  for (const char* key :
       {"\"samples\": 130", "\"energy_J\": 31240", "\"n_valleys\": 2", "\"peak_W\": 310", "\"valley_W\": 110",
        "\"energy_J\"", "\"mean_power_W\"", "\"peak_s\": 30", "\"valley_s\": 10"})
    CHECK_THAT(r.out, Catch::Contains(key));
  const auto rec = dir / "rec.csv";
  const auto r2 = fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --records " +
                                               rec.string() + " --model bert --batch-size 64");
  REQUIRE(r2.exit_code == 0);
  CHECK(RecordTable::read(rec).cell(0, 0) == "bert");
  // A zoo model fills what the flags leave out. ResNet-50 at 224 px: 25.56 M parameters and 4.1 G
  // multiply-accumulates (He et al. 2016, table 1: 3.8 G, counting conv layers only; torchvision's summary:
  // 4.09 G MACs, 25.557 M parameters), 8.2 GFLOPs a sample as 2 x MACs.
  const auto zoo_rec = dir / "zoo.csv";
  const auto r3 = fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --records " +
                                               zoo_rec.string() + " --model resnet50 --batch-size 32");
  REQUIRE(r3.exit_code == 0);
  const auto zoo = RecordTable::read(zoo_rec);
  CHECK(zoo.numeric("params")[0] == Approx(25.557e6).epsilon(0.001));
  CHECK(zoo.numeric("flops")[0] == Approx(8.18e9).epsilon(0.01));
  CHECK(zoo.numeric("input_size")[0] == 224.0);
  // Given counts are kept; an input size the model cannot take is bad input naming the key.
  const auto r4 = fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --records " +
                                               zoo_rec.string() + " --model resnet50 --params 1e6");
  REQUIRE(r4.exit_code == 0);
  CHECK(RecordTable::read(zoo_rec).numeric("params")[1] == 1e6);
  const auto r5 = fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --records " +
                                               zoo_rec.string() + " --model resnet50 --input-size 3");
  CHECK(r5.exit_code == 2);
  CHECK_THAT(r5.err, Catch::Contains("input_size"));
  const auto bad = fleetwatt::test::run_command(bin.string() + " calibrate " + (dir / "none.csv").string());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("none.csv") && Catch::Contains("cannot open"));
  const auto badgpu = fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --gpu 5");
  CHECK(badgpu.exit_code == 2);
  CHECK_THAT(badgpu.err, Catch::Contains("no GPU with index 5"));
}

TEST_CASE("fleetwatt calibrate reads the same run from a DCGM dump as from nvidia-smi's CSV",
          "[records][command][dcgm]") {
  const auto bin = fleetwatt::test::fleetwatt_binary();
  if (bin.empty() || !std::filesystem::exists(bin)) {
    WARN("skipped: the fleetwatt binary is not built");
    return;
  }
  // two_gpu_log() as Prometheus samples (series after series, as promtool tsdb dump lists them), with an
  // SM activity of 0.9 in the peaks and 0.1 elsewhere for GPU 1.
  std::istringstream csv(two_gpu_log());
  std::string line;
  std::getline(csv, line);
  std::ostringstream power[2], sm;
  for (int i = 0; std::getline(csv, line); ++i) {
    const int gpu = (i % 2);
    const double W = std::stod(line.substr(line.find(", ", 25) + 2));
    const long long ms = 1714564800000LL + 1000LL * (i / 2);
    power[gpu] << "DCGM_FI_DEV_POWER_USAGE{gpu=\"" << gpu << "\",Hostname=\"n1\"} " << W << ' ' << ms << '\n';
    if (gpu == 1)
      sm << "DCGM_FI_PROF_SM_ACTIVE{gpu=\"1\",Hostname=\"n1\"} " << (W > 200 ? 0.9 : 0.1) << ' ' << ms
         << '\n';
  }
  TempDir dir;
  const auto log = dir.write("two.csv", two_gpu_log());
  const auto prom = dir.write(
      "two.prom", "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n" + power[0].str() + power[1].str() + sm.str());
  const auto a =
      fleetwatt::test::run_command(bin.string() + " calibrate " + log.string() + " --gpu 1 --json");
  const auto b =
      fleetwatt::test::run_command(bin.string() + " calibrate " + prom.string() + " --gpu 1 --json");
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  // Everything but the source's name and the SM activity (which only the dump has) is the same text.
  const auto figures = [](const std::string& out) {
    const auto from = out.find("\"gpus\"");
    std::string s = out.substr(from);
    const auto sm_at = s.find("\"sm_active\"");
    return s.erase(sm_at, s.find("], ", sm_at) + 3 - sm_at);
  };
  CHECK(figures(a.out) == figures(b.out));
  CHECK_THAT(a.out, Catch::Contains("\"sm_active\": [], "));
  // GPU 1: 90 samples in peaks (0.9) and 40 elsewhere (0.1): (90 x 0.9 + 40 x 0.1) / 130.
  CHECK_THAT(b.out,
             Catch::Contains("\"sm_active\": [{\"gpu\": 1, \"samples\": 130, \"mean\": 0.65384615384615"));
  const auto text = fleetwatt::test::run_command(bin.string() + " calibrate " + prom.string());
  CHECK_THAT(text.out,
             Catch::Contains("SM activity (DCGM_FI_PROF_SM_ACTIVE) of GPU 1: mean 0.654 over 130 samples"));
  // A bad sample: exit 2, one line naming the file, line, column and key.
  const auto bad = dir.write("bad.prom", "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 1.5e7 1714564800000\n");
  const auto r = fleetwatt::test::run_command(bin.string() + " calibrate " + bad.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "fleetwatt: error: " + bad.string() +
                     ":1:34: DCGM_FI_DEV_POWER_USAGE: '1.5e7' is not a power in W (0 to 1e6)\n");
}
