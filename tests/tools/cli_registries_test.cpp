// Keys checked against the registries' declarations, end to end through the fleetwatt command: keys no
// chosen component takes, misspelt policy tables, dotted paths in policy errors, deprecated spellings with
// one warning each, compare's policy list, and `fleetwatt list` (plain and --markdown, which
// docs/components.md carries verbatim).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

// Nine lines: whatever a case appends starts on line 10.
const std::string kBase = R"([fleet]
nodes = 2
gpus_per_node = 4
[workload]
horizon_s = 3600
[[workload.jobs]]
n_gpus = 4
class = "vit"
dataset_samples = 10000
)";

std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// The summary without its first line (which holds the wall time).
std::string summary_body(const std::string& out) {
  return out.substr(out.find('\n') + 1);
}

}  // namespace

TEST_CASE("a key no chosen component takes exits 2 with one located line and no result file",
          "[cli][bad-input][registries]") {
  struct Case {
    std::string name, toml, expected;
  };
  const std::vector<Case> cases = {
      {"a leaf-spine key on a torus", "[topology]\nkind = \"torus\"\nspines = 3\n",
       "s.toml:12:1: topology.spines: unknown key for kind torus (a leaf_spine key; torus takes dims, "
       "hosts_per_router and the keys common to every kind)"},
      {"a fat-tree key on a torus, written first", "[topology]\nkind = \"torus\"\nk = 8\nspines = 3\n",
       "s.toml:12:1: topology.k: unknown key for kind torus (a fat_tree key;"},
      {"a key fifo does not take", "[scheduler]\npolicy = \"fifo\"\nbanana = 1\n",
       "s.toml:12:1: scheduler.banana: unknown key (policy fifo and placement first_fit take no parameters)"},
      {"a key neither powercap nor pack takes",
       "[scheduler]\npolicy = \"powercap\"\nplacement = \"pack\"\nbanana = 1\n",
       "s.toml:13:1: scheduler.banana: unknown key (known here: nodes_per_rack, cap_w, mode, "
       "min_cap_fraction)"},
      {"a misspelt policy table", "[scheduler]\npolicy = \"sjf\"\n[scheduler.sjff]\nestimate = \"user\"\n",
       "s.toml:12:1: scheduler.sjff: unknown policy table [scheduler.sjff] (known policies: fifo, sjf, easy, "
       "powercap, carbon, consolidate, dr)"},
      {"a key of another policy in a policy table", "[scheduler.sjf]\ncap_w = 5\n",
       "s.toml:11:1: scheduler.sjf.cap_w: unknown key (known here: estimate)"},
      {"a policy key beside the policy's own table",
       "[scheduler]\npolicy = \"powercap\"\ncap_w = 5000\n[scheduler.powercap]\ncap_w = 6000\n",
       "s.toml:12:1: scheduler.cap_w: write it in [scheduler.powercap], which holds policy powercap's "
       "parameters"},
      {"a missing cap, named where it belongs",
       "[scheduler]\npolicy = \"powercap\"\n[scheduler.powercap]\nmode = \"queue\"\n",
       "s.toml:12:1: scheduler.powercap.cap_w: missing (the facility power cap)"},
      {"a missing cap with no table", "[scheduler]\npolicy = \"powercap\"\n",
       "scheduler.powercap.cap_w: missing (the facility power cap)"},
      {"a bad mode, named where it is",
       "[scheduler]\npolicy = \"powercap\"\n[scheduler.powercap]\ncap_w = 5000\nmode = \"fast\"\n",
       "s.toml:14:1: scheduler.powercap.mode: 'fast' is not queue or gpu_cap"},
      {"a bad mode given in [scheduler] itself",
       "[scheduler]\npolicy = \"powercap\"\ncap_w = 5000\nmode = \"fast\"\n",
       "s.toml:13:1: scheduler.mode: 'fast' is not queue or gpu_cap"},
      {"a missing demand-response target",
       "[scheduler]\npolicy = \"dr\"\n[scheduler.dr]\nstart_s = 0\nend_s = 60\n",
       "s.toml:12:1: scheduler.dr.target_w: missing (the facility power to hold)"},
      {"a key of another trace format",
       "[workload.trace]\nfile = \"jobs.csv\"\nformat = \"philly\"\nswf_procs_per_gpu = 2\n",
       "s.toml:13:1: workload.trace.swf_procs_per_gpu: unknown key (known here: file, format,"},
      {"a predictor key of another kind", "[predictor]\nkind = \"table\"\nmfu = 0.4\n",
       "s.toml:12:1: predictor.mfu: unknown key (this takes no parameters)"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    TempDir dir;
    dir.write("jobs.csv",
              "job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W\n1,0,1,1,10,200,1,60\n");
    dir.write("s.toml", kBase + c.toml);
    const auto out = dir / "out.h5";
    const auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() +
                               " run s.toml -o " + out.string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(r.err.rfind("fleetwatt: error: ", 0) == 0);
    CHECK(lines(r.err) == 1);
    CHECK_FALSE(std::filesystem::exists(out));
  }
}

TEST_CASE("a powercap table with cap_w runs, cap_W runs the same with exactly one deprecation warning",
          "[cli][registries]") {
  // Same file and output names in two folders: the summaries may differ only by what the spelling does.
  TempDir now_dir, old_dir;
  now_dir.write("s.toml", kBase + "[scheduler]\npolicy = \"powercap\"\n[scheduler.powercap]\ncap_w = 2500\n");
  old_dir.write("s.toml", kBase + "[scheduler]\npolicy = \"powercap\"\n[scheduler.powercap]\ncap_W = 2500\n");
  const std::string run = " && " + fleetwatt_command() + " run s.toml -o out.h5";
  const auto now = run_command("cd " + now_dir.path().string() + run);
  const auto old = run_command("cd " + old_dir.path().string() + run);
  CHECK(now.exit_code == 0);
  CHECK(now.err.empty());
  CHECK(old.exit_code == 0);
  CHECK(old.err == "fleetwatt: warning: s.toml:13:1: scheduler.powercap.cap_W is deprecated; write cap_w\n");
  CHECK(summary_body(old.out) == summary_body(now.out));
  CHECK(now.out.find("scheduler powercap") != std::string::npos);
}

TEST_CASE("each deprecated spelling warns once, also when compare builds its policy again",
          "[cli][registries]") {
  TempDir dir;
  dir.write("s.toml",
            kBase +
                "[scheduler]\npolicy = \"consolidate\"\n[scheduler.consolidate]\nsleep_W = 20\n"
                "wake_energy_J = 30000\n[scheduler.dr]\nstart_s = 0\nend_s = 60\ntarget_W = 2000\n");
  const auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() +
                             " compare s.toml --policies consolidate,dr,fifo --threads 1");
  CHECK(r.exit_code == 0);
  CHECK(lines(r.err) == 3);
  for (const char* w : {"scheduler.consolidate.sleep_W is deprecated; write sleep_w",
                        "scheduler.consolidate.wake_energy_J is deprecated; write wake_energy_j",
                        "scheduler.dr.target_W is deprecated; write target_w"})
    CHECK(r.err.find(w) != std::string::npos);
}

TEST_CASE("compare trims blanks around policy names and refuses a bad one in one clean line",
          "[cli][compare][registries]") {
  TempDir dir;
  const auto scenario = dir.write("s.toml", kBase).string();
  const auto ok = run_command(fleetwatt_command() + " compare " + scenario + " --policies \"fifo, sjf\"");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("\nfifo ") != std::string::npos);
  CHECK(ok.out.find("\nsjf ") != std::string::npos);
  const auto bad = run_command(fleetwatt_command() + " compare " + scenario + " --policies \"fifo, sjff\"");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.rfind("fleetwatt: error: --policies: unknown policy 'sjff' (known: fifo, sjf,", 0) == 0);
  CHECK(lines(bad.err) == 1);
}

TEST_CASE("fleetwatt list shows every registry's parameters with defaults and units, within 80 columns",
          "[cli][list][registries]") {
  const auto r = run_command(fleetwatt_command() + " list");
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    INFO(line);
    CHECK(line.size() <= 80);  // not a terminal: 80 columns
  }
  for (const char* s :
       {"- cap_w (W, required): the facility power cap", "- idle_timeout_s (s, default 600):",
        "- sleep_w (W, default 20):", "- nodes_per_rack (servers, default 16):", "- spines (default 4):",
        "- nic_gbps (Gb/s, default 400):", "- swf_procs_per_gpu (processors, default 1):",
        "- path (required):", "- epoch_end_s (s, default 5.8):", "trace formats ([workload.trace] format):"})
    CHECK(r.out.find(s) != std::string::npos);
}

TEST_CASE("docs/components.md's registry tables are fleetwatt list --markdown, verbatim",
          "[cli][list][docs]") {
  std::ifstream in(source_dir() / "docs" / "components.md");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string page = ss.str();
  const std::string begin = "<!-- fleetwatt list --markdown -->\n", end = "<!-- end -->";
  const auto b = page.find(begin);
  REQUIRE(b != std::string::npos);
  const auto e = page.find(end, b);
  REQUIRE(e != std::string::npos);
  const auto r = run_command(fleetwatt_command() + " list --markdown");
  REQUIRE(r.exit_code == 0);
  // Regenerate with: fleetwatt list --markdown, pasted between the two marker comments.
  CHECK(page.substr(b + begin.size(), e - b - begin.size()) == r.out);
}
