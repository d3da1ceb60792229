// Resource bounds checked before the run: a series interval below the floor, a fabric far larger than its
// fleet, a periodic warm-up of too many window copies, a job longer than the clock holds and a bad explicit
// job are refused as located bad input (exit 2, one line, no output) before any heavy work; the memory a run
// would hold is checked against --max-memory; a run that runs out of memory leaves no temporary file.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <string>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace fleetwatt::test;

namespace {

/// One GPU, one short explicit ViT job; `workload` and `output` are appended to their tables.
std::string one_gpu(const std::string& workload, const std::string& output) {
  return "[fleet]\nnodes = 1\ngpus_per_node = 1\n[workload]\n" + workload +
         "\n[[workload.jobs]]\nclass = \"vit\"\nn_gpus = 1\nepochs = 1\n[output]\n" + output + "\n";
}

/// Files in `dir` other than `keep`: what a failed command left behind.
std::size_t files_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// "ulimit -v KIB; " (nothing under ASan).
std::string address_limit(long kib) {
  return kAsan ? std::string() : "ulimit -v " + std::to_string(kib) + "; ";
}

/// `fleetwatt ARGS` under a 4 GB address-space limit and a 60 s time limit: a finding that ran away in
/// memory or time ends as bad_alloc (exit 1) or timeout's 124 instead of exhausting the test machine.
CommandResult bounded(const std::string& args) {
  return run_command(address_limit(4000000) + "timeout -k 5 60 " + fleetwatt_command() + " " + args);
}

}  // namespace

TEST_CASE("a series interval below 1 ms is refused at its key before the run", "[cli][bounds]") {
  TempDir dir;
  // Formerly: 12.6 GB of power-quality buffers for a 1 ms run at 1e-6 s, bad_alloc at 1e-8.
  for (const char* key : {"facility_interval_s", "node_interval_s"}) {
    const auto scenario = dir.write("s.toml", one_gpu("horizon_s = 0.001", std::string(key) + " = 1e-6"));
    const auto r = bounded("run " + scenario.string() + " -o " + (dir / "out.h5").string());
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("s.toml:11:1: ") != std::string::npos);
    CHECK(r.err.find(std::string("output.") + key + ": must be at least 0.001 s") != std::string::npos);
    CHECK(lines(r.err) == 1);
    CHECK(files_in(dir.path()) == 1);  // the scenario alone
  }
  // --set goes through the same check; compare's --facility-interval has the same floor.
  const auto scenario = dir.write("s.toml", one_gpu("horizon_s = 10", ""));
  auto r = bounded("run " + scenario.string() + " --set output.facility_interval_s=1e-8 -o " +
                   (dir / "out.h5").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("must be at least 0.001 s") != std::string::npos);
  r = bounded("compare " + scenario.string() + " --facility-interval 1e-8");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--facility-interval") != std::string::npos);
  // At the floor itself a short run holds memory for its samples only and runs.
  const auto fine = dir.write("fine.toml", one_gpu("horizon_s = 1", "facility_interval_s = 0.001"));
  r = bounded("run -q " + fine.string() + " -o " + (dir / "fine.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("a run whose series would not fit is refused by --max-memory, naming the interval",
          "[cli][bounds]") {
  TempDir dir;
  // 100 s at 1 ms: 100,000 meter values (0.8 MB) and a spectrum segment of 2^17 samples (5.8 MB).
  const auto scenario = dir.write("s.toml", one_gpu("horizon_s = 100", "facility_interval_s = 0.001"));
  auto r = bounded("run -q " + scenario.string() + " --max-memory 4MB -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("s.toml: output.facility_interval_s: the run would hold about 0.00612 GiB in memory "
                   "(100000 facility intervals, a power-quality segment of 131072 samples, 0 jobs held") !=
        std::string::npos);
  CHECK(r.err.find("above --max-memory 0.00391 GiB") != std::string::npos);
  CHECK(lines(r.err) == 1);
  CHECK_FALSE(fs::exists(dir / "out.h5"));
  r = bounded("run -q " + scenario.string() + " --max-memory 64MB -o " + (dir / "out.h5").string());
  CHECK(r.exit_code == 0);
  // compare and sweep take the option too.
  r = bounded("compare -q " + scenario.string() + " --policies fifo --max-memory 4MB");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--max-memory") != std::string::npos);
  // A sweep's member is refused as it would be by --max-output: the member fails, saying why.
  r = bounded("sweep " + scenario.string() + " --grid seed=1..1 --max-memory 4MB -o " +
              (dir / "sw.h5").string());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("m000000 seed=1 failed") != std::string::npos);
  CHECK(r.err.find("above --max-memory 0.00391 GiB") != std::string::npos);
}

TEST_CASE("a fabric far larger than its fleet is refused at its key before any work", "[cli][bounds]") {
  TempDir dir;
  // Found by the generated-scenario fuzzer: a 10 x 10^6 torus for one 2-GPU server built 10^7 routers for
  // over 28 s under ASan, deaf to Ctrl-C (10^6 routers: 2.7 s and 820 MB in a Release build).
  const std::string scenario =
      "[fleet]\nnodes = 1\ngpus_per_node = 2\n[topology]\nkind = \"torus\"\n"
      "dims = [10.0, 1000000.0]\n[workload]\nhorizon_s = 600\n"
      "[workload.preset]\ncluster = \"philly\"\nrate_per_hour = 10.0\n";
  const auto file = dir.write("s.toml", scenario);
  for (const std::string command : {"run", "compare", "topology"}) {
    const auto r =
        bounded(command + " " + file.string() + (command == "run" ? " -o " + (dir / "out.h5").string() : ""));
    INFO(command << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("s.toml:5:1: topology.dims: the torus fabric would hold 1e+07 switches, 2e+07 links") !=
          std::string::npos);
    CHECK(lines(r.err) == 1);
    CHECK(files_in(dir.path()) == 1);
  }
  // The fabric just large enough is built: the square 2-D torus the kind picks itself.
  const auto fits = dir.write(
      "fits.toml", scenario.substr(0, scenario.find("dims")) + scenario.substr(scenario.find("[workload]")));
  const auto r = bounded("topology " + fits.string());
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("a job longer than the clock holds is refused at its epochs under every policy", "[cli][bounds]") {
  TempDir dir;
  // Formerly accepted: with a second job queued behind it, easy ended mid-run with "simulated time overflow"
  // (exit 1); fifo and sjf ran it to the horizon.
  for (const char* policy : {"sjf", "easy", "fifo"}) {
    const auto scenario = dir.write(
        "s.toml", std::string("[fleet]\nnodes = 1\ngpus_per_node = 1\n[scheduler]\npolicy = \"") + policy +
                      "\"\n[workload]\nhorizon_s = 3600\n[[workload.jobs]]\nclass = \"vit\"\nn_gpus = 1\n"
                      "epochs = 4294967295\n[[workload.jobs]]\nclass = \"vit\"\nn_gpus = 1\nsubmit_s = 10\n");
    const auto r = bounded("run " + scenario.string() + " -o " + (dir / "out.h5").string());
    INFO(policy << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("s.toml:9:1: epochs: job 1: 4294967295 epochs of ") != std::string::npos);
    CHECK(r.err.find("beyond the 1e+09 s a run can simulate") != std::string::npos);
    CHECK(lines(r.err) == 1);
    CHECK(files_in(dir.path()) == 1);
  }
}

TEST_CASE("a periodic warm-up of too many window copies is refused before any is laid", "[cli][bounds]") {
  TempDir dir;
  // Formerly ~8.6e13 copies of a 1 ns window: a spin that ignored Ctrl-C.
  const auto scenario = dir.write("s.toml", R"([fleet]
nodes = 1
gpus_per_node = 1
[workload]
horizon_s = 1e-9
warmup_arrivals = "periodic"
[workload.generator]
rate_per_hour = 30
[[workload.generator.mix]]
class = "vit"
n_gpus = [1]
epochs = [1, 2]
)");
  const auto r = bounded("run " + scenario.string() + " -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("s.toml:6:1: workload.warmup_arrivals: \"periodic\" would repeat the 1e-09 s window") !=
        std::string::npos);
  CHECK(lines(r.err) == 1);
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("a bad explicit job is refused before the generator's arrivals are drawn", "[cli][bounds]") {
  TempDir dir;
  // A zoo CNN without dataset_samples beside a day of generated arrivals (1.4 M with the periodic warm-up):
  // formerly refused only after every arrival was drawn and predicted, which under this 1 GB limit ran out
  // of memory (exit 1); now refused before any is drawn.
  const auto scenario = dir.write("s.toml", R"([fleet]
nodes = 64
gpus_per_node = 8
[workload]
horizon_s = 86400
warmup_arrivals = "periodic"
[workload.generator]
rate_per_hour = 30000
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 8]
epochs = [1, 5]
[[workload.jobs]]
model = "resnet50"
n_gpus = 1
epochs = 1
batch_size = 64
)");
  const auto r = run_command(address_limit(1000000) + "timeout -k 5 60 " + fleetwatt_command() + " run " +
                             scenario.string() + " -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("s.toml:13:1: dataset_samples: must be positive") != std::string::npos);
  CHECK(lines(r.err) == 1);
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("running out of memory leaves no temporary file and says so in one line", "[cli][bounds]") {
  if (kAsan) {
    WARN("skipped under AddressSanitizer: it cannot run under an address-space limit");
    return;
  }
  TempDir dir;
  // The old reproducer: a 1e-8 s interval sized a buffer of 2^37 samples in the writer's constructor, whose
  // bad_alloc left out.h5.tmp-PID (the destructor does not run then); now refused before any file exists.
  const auto tiny = dir.write("tiny.toml", one_gpu("horizon_s = 0.001", "facility_interval_s = 1e-8"));
  auto r = run_command(address_limit(4000000) + "timeout -k 5 60 " + fleetwatt_command() + " run " +
                       tiny.string() + " -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(lines(r.err) == 1);
  CHECK(files_in(dir.path()) == 1);
  // A run that fits the estimate but not the process's 300 MB: 10^8 facility intervals held for the
  // load-duration curve outgrow it mid-run. The writer's temporary file goes with the error.
  const auto big = dir.write("big.toml", one_gpu("horizon_s = 100000",
                                                 "facility_interval_s = 0.001\n"
                                                 "node_interval_s = 100000\n"
                                                 "gpu_changes = false"));
  r = run_command(address_limit(300000) + "timeout -k 5 60 " + fleetwatt_command() + " run -q " +
                  big.string() + " --max-output 1TB -o " + (dir / "big.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err ==
        "fleetwatt: error: out of memory (the system refused an allocation); no result file was written\n");
  CHECK(files_in(dir.path()) == 2);  // the two scenarios
}

TEST_CASE("Ctrl-C stops compare while it draws and predicts its workload", "[cli][bounds][signals]") {
  TempDir dir;
  // 1.44 M arrivals held for the policies: drawing and predicting them took over 20 s, during which SIGINT
  // was only noted (nothing polled it) and the command ran on until the engine's first poll.
  const auto scenario = dir.write("s.toml", R"([fleet]
nodes = 64
gpus_per_node = 8
[workload]
horizon_s = 86400
warmup_s = 0
[workload.generator]
rate_per_hour = 60000
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 8]
epochs = [1, 5]
)");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r =
      run_command(address_limit(4000000) + "timeout --preserve-status -k 30 -s INT 1 " + fleetwatt_command() +
                  " compare -q " + scenario.string() + " --policies fifo --threads 1 --max-memory 8GB");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.err);
  CHECK(r.exit_code == 130);
  CHECK(s < 10.0);  // generous: it ends within the second after the signal at 1 s
  CHECK(r.err == "fleetwatt: interrupted; no result file was written\n");
  CHECK(files_in(dir.path()) == 1);
}

namespace {

/// Two GPUs fed `rate_per_hour` arrivals of short ViT jobs over `horizon_s`, with `warmup` in [workload].
std::string flooded(const std::string& rate_per_hour, const std::string& horizon_s,
                    const std::string& warmup) {
  return "[fleet]\nnodes = 1\ngpus_per_node = 2\n[workload]\nhorizon_s = " + horizon_s + "\n" + warmup +
         "\n[workload.generator]\nrate_per_hour = " + rate_per_hour +
         "\n[[workload.generator.mix]]\nclass = \"vit\"\nn_gpus = [1]\nepochs = [1, 2]\n"
         "dataset_samples = [1000, 2000]\n";
}

}  // namespace

TEST_CASE("a queue the fleet cannot keep up with is refused at the arrival rate when it outgrows the memory",
          "[cli][bounds]") {
  TempDir dir;
  // 10^6 arrivals a minute on two GPUs whose jobs last seconds: nearly all of them queue. Drawn as the run
  // goes, the queue itself was the memory: a 60 s window with a 600 s warm-up was killed by the kernel at
  // 24 GB. Now the queue may hold what --max-memory leaves: 1 GB is ~400,000 held jobs of ~2.6 kB.
  const auto scenario = dir.write("q.toml", flooded("60000000", "60", "warmup_s = 0"));
  const auto r = bounded("run -q " + scenario.string() + " --max-memory 1GB -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("q.toml:8:1: workload.generator.rate_per_hour: at 00:00:") != std::string::npos);
  CHECK(r.err.find("the fleet cannot keep up with the arrivals") != std::string::npos);
  CHECK(lines(r.err) == 1);
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("the warm-up a streamed run lays down up front counts in its memory", "[cli][bounds]") {
  TempDir dir;
  // A periodic warm-up of 600 s repeats a 60 s window of 10^6 arrivals 10 times: 10^7 jobs held before
  // the run starts (~2.6 kB each, ~24 GiB), refused before any is drawn.
  const auto scenario =
      dir.write("w.toml", flooded("60000000", "60", "warmup_s = 600\nwarmup_arrivals = \"periodic\""));
  // Refused under the default limit (2 GB, or less where less memory is available), at warmup_s.
  const auto r = bounded("run -q " + scenario.string() + " -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  // rate x warm-up, 10^6 / 60 s x 600 s, exactly: the expectation, not a count of drawn jobs.
  CHECK(r.err.find("w.toml:6:1: workload: 1e+07 jobs, held to the end of the run") != std::string::npos);
  CHECK(r.err.find("more than the memory allowed") != std::string::npos);
  CHECK(lines(r.err) == 1);
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("a streamed run's size is estimated from the expected arrivals, before any is drawn",
          "[cli][bounds]") {
  TempDir dir;
  // 2^32 arrivals an hour for 60 s: 4294967296 / 3600 x 60 = 71582788.3 jobs expected, refused by the
  // job table's size without drawing them (counting them took 9 s before the estimate, 85 s under ASan);
  // a count of drawn arrivals would not be the mean to the job.
  const auto scenario = dir.write("s.toml", flooded("4294967296", "60", "warmup_s = 0"));
  const auto r = bounded("run -q " + scenario.string() + " -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("71582788 jobs") != std::string::npos);
  CHECK(r.err.find("above --max-output 10 GiB") != std::string::npos);
  CHECK(files_in(dir.path()) == 1);
}

namespace {

/// The PAI-calibrated preset at `rate_per_hour` over two days on 64 GPUs: 48 x rate jobs expected.
std::string pai_preset(const std::string& rate_per_hour) {
  return "[fleet]\nnodes = 16\ngpus_per_node = 4\n[workload]\nhorizon_s = 172800\n[workload.preset]\n"
         "cluster = \"pai\"\nrate_per_hour = " +
         rate_per_hour + "\n";
}

}  // namespace

TEST_CASE("a held job list is sized against --max-memory before any job is drawn", "[cli][bounds]") {
  TempDir dir;
  // 20,000 an hour for 48 h: 960,000 preset jobs expected, ~2.6 kB each held: 2.5 GB. They were drawn and
  // matched (9 s, 4.4 GB for compare) before the limit was checked; now the expectation meets it first.
  const auto scenario = dir.write("p.toml", pai_preset("20000"));
  for (const std::string& command :
       {"compare -q " + scenario.string() + " --policies fifo --max-memory 1GB",
        "run -q " + scenario.string() + " --max-memory 1GB -o " + (dir / "out.h5").string()}) {
    const auto r = bounded(command);
    INFO(command << '\n' << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("p.toml:4:1: workload: 9.6e+05 jobs, held to the end of the run") != std::string::npos);
    CHECK(r.err.find("more than the memory allowed, 1 GiB") != std::string::npos);
    CHECK(lines(r.err) == 1);
    CHECK(files_in(dir.path()) == 1);
  }
}

TEST_CASE("Ctrl-C stops a sweep member while it draws its workload", "[cli][bounds][signals]") {
  TempDir dir;
  // 240,000 preset jobs drawn and matched for the member: seconds, during which the sweep polled nothing.
  const auto scenario = dir.write("p.toml", pai_preset("5000"));
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_command(address_limit(8000000) + "timeout --preserve-status -k 30 -s INT 1 " +
                             fleetwatt_command() + " sweep " + scenario.string() +
                             " --grid seed=1..2 --max-memory 4GB -o " + (dir / "sw.h5").string());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.err);
  CHECK(r.exit_code == 130);
  CHECK(s < 10.0);  // generous: it ends within the second after the signal at 1 s
  CHECK_FALSE(fs::exists(dir / "sw.h5"));
}

TEST_CASE(
    "a fleet and interconnect too large for the memory are refused at fleet.nodes before they are built",
    "[cli][bounds]") {
  TempDir dir;
  // 250,000 servers on a fat tree: 2.2 GB of fleet state and fabric (measured), built in 10 s before any
  // check. Estimated now at ~9 kB a server with its NIC: 2.3 GiB, over the default 2 GB.
  const auto fleet = [](const std::string& nodes) {
    return "[fleet]\nnodes = " + nodes +
           "\ngpus_per_node = 8\n[topology]\nkind = \"fat_tree\"\n[workload]\nhorizon_s = 3600\n"
           "[[workload.jobs]]\nclass = \"vit\"\nn_gpus = 1\nepochs = 1\n[output]\nnode_interval_s = 3600\n";
  };
  const auto big = dir.write("big.toml", fleet("250000"));
  auto r = bounded("run -q " + big.string() + " --max-memory 2GB -o " + (dir / "out.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("big.toml: fleet.nodes: the run would hold about ") != std::string::npos);
  CHECK(r.err.find("250000 servers and their interconnect at 2.") != std::string::npos);
  CHECK(lines(r.err) == 1);
  CHECK_FALSE(fs::exists(dir / "out.h5"));
  // A campus-sized fleet fits: 1,000 servers are ~9 MB.
  const auto campus = dir.write("campus.toml", fleet("1000"));
  r = bounded("run -q " + campus.string() + " --max-memory 2GB -o " + (dir / "campus.h5").string());
  CHECK(r.exit_code == 0);
}
