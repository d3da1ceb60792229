// A job's 3D-parallel keys (tp, pp, dp, ep, zero / fsdp, recompute, micro_batch, seq, global_batch,
// global_batch_tokens): what they set, and each inconsistency refused at its line, column and key.
#include <catch2/catch.hpp>

#include "fleetwatt/runs/scenario_loader.hpp"
#include "scenario_test_support.hpp"

using namespace fleetwatt::jobs;
using namespace fleetwatt::runs;
using fleetwatt::test::error_of;

namespace {
/// One job of a [workload] (line 3 on) followed by `extra` lines.
std::string job(const std::string& extra) {
  return "[workload]\n[[workload.jobs]]\nmodel = \"llama2_7b\"\ndataset_samples = 1000\n" + extra;
}
}  // namespace

TEST_CASE("parallel keys set the job's split, n_gpus follows from tp x pp x dp", "[scenario][parallel]") {
  const std::string fleet = "[fleet]\nnodes = 64\ngpus_per_node = 8\n";
  const auto s =
      parse_scenario(fleet + job("tp = 8\npp = 4\nvp = 3\nfirst_stage_layers = 7\nlast_stage_layers = 6\ndp "
                                 "= 16\nfsdp = true\nrecompute = \"selective\"\n"
                                 "micro_batch = 2\nseq = 4096\nglobal_batch_tokens = 4194304\n"),
                     "s.toml");
  REQUIRE(s.workload.jobs.size() == 1);
  const JobSpec& j = s.workload.jobs[0];
  CHECK(j.n_gpus == 8 * 4 * 16);
  CHECK(j.meta.parallel.tp == 8);
  CHECK(j.meta.parallel.pp == 4);
  CHECK(j.meta.parallel.vp == 3);
  CHECK(j.meta.parallel.first_stage_layers == 7);
  CHECK(j.meta.parallel.last_stage_layers == 6);
  CHECK(j.meta.parallel.dp(j.n_gpus) == 16);
  CHECK(j.meta.parallel.zero == 3);
  CHECK(j.meta.parallel.recompute == Recompute::selective);
  CHECK(j.meta.parallel.micro_batch == 2);
  CHECK(j.meta.input_size == 4096);
  CHECK(j.meta.batch_size == 4194304 / 4096);  // 1024 sequences
  // Without the keys a job is plain data parallel, as before.
  const auto plain = parse_scenario(fleet + job("n_gpus = 4\nbatch_size = 64\n"), "s.toml");
  CHECK(plain.workload.jobs[0].meta.parallel == Parallelism{});
  CHECK(plain.workload.jobs[0].meta.parallel.dp(4) == 4);
  // n_gpus with tp and pp gives dp; global_batch is batch_size.
  const auto mixed =
      parse_scenario(fleet + job("n_gpus = 64\ntp = 8\nep = 8\nzero = 1\nglobal_batch = 512\n"), "s.toml");
  CHECK(mixed.workload.jobs[0].meta.parallel.dp(64) == 8);
  CHECK(mixed.workload.jobs[0].meta.parallel.ep == 8);
  CHECK(mixed.workload.jobs[0].meta.batch_size == 512);
}

TEST_CASE("inconsistent parallel keys are refused at their line", "[scenario][parallel][bad-input]") {
  // The job's own keys start on line 3; the extra ones on line 5.
  CHECK(error_of(job("n_gpus = 64\ntp = 8\npp = 2\ndp = 2\n")) ==
        "bad.toml:8:1: workload.jobs[0].dp: tp x cp x pp x dp = 8 x 1 x 2 x 2 = 32 but n_gpus = 64");
  CHECK(error_of(job("n_gpus = 12\ntp = 8\n")) ==
        "bad.toml:6:1: workload.jobs[0].tp: n_gpus 12 is not a multiple of tp x cp x pp = 8 x 1 x 1");
  CHECK(error_of(job("n_gpus = 16\ntp = 8\nep = 4\n")) ==
        "bad.toml:7:1: workload.jobs[0].ep: ep 4 does not divide the data-parallel degree 2");
  CHECK(error_of(job("n_gpus = 8\nzero = 4\n")).rfind("bad.toml:6:1: workload.jobs[0].zero:", 0) == 0);
  CHECK(error_of(job("n_gpus = 8\nzero = 1\nfsdp = true\n")) ==
        "bad.toml:7:1: workload.jobs[0].fsdp: fsdp = true is ZeRO stage 3; it contradicts zero");
  CHECK(error_of(job("n_gpus = 8\nrecompute = \"some\"\n")) ==
        "bad.toml:6:1: workload.jobs[0].recompute: unknown recompute 'some' (known: none, selective, full)");
  CHECK(error_of(job("n_gpus = 8\nglobal_batch = 8\nbatch_size = 8\n"))
            .rfind("bad.toml:6:1: workload.jobs[0].global_batch: give one of", 0) == 0);
  CHECK(error_of(job("n_gpus = 8\nglobal_batch_tokens = 4096\n")) ==
        "bad.toml:6:1: workload.jobs[0].global_batch_tokens: needs the sequence length (seq)");
  CHECK(error_of(job("n_gpus = 8\nseq = 4096\nglobal_batch_tokens = 5000\n")) ==
        "bad.toml:7:1: workload.jobs[0].global_batch_tokens: 5000 tokens is not a whole number of 4096-token "
        "sequences");
  CHECK(error_of(job("n_gpus = 8\nglobal_batch = 24\nmicro_batch = 2\n")) ==
        "bad.toml:7:1: workload.jobs[0].micro_batch: the global batch 24 is not a whole number of "
        "micro-batches of 2 on 8 data-parallel replicas");
  CHECK(error_of(job("n_gpus = 16\ntp = 8\nvp = 2\n")) ==
        "bad.toml:7:1: workload.jobs[0].vp: vp 2 interleaves pipeline stages: it needs pp of at least 2");
  CHECK(error_of(job("n_gpus = 16\ntp = 8\nfirst_stage_layers = 7\n")) ==
        "bad.toml:7:1: workload.jobs[0].first_stage_layers: first_stage_layers 7 sets a pipeline stage: it "
        "needs "
        "pp of at least 2");
  CHECK(error_of(job("tp = 2\n")) ==
        "bad.toml:2:1: workload.jobs[0].n_gpus: missing (every job needs n_gpus, or tp x pp x dp)");
}

TEST_CASE("step-level keys set the job's schedule, and [output] sets the threshold and the change rows",
          "[scenario][steps]") {
  const std::string fleet = "[fleet]\nnodes = 4\ngpus_per_node = 8\n";
  const auto s = parse_scenario(fleet + job("n_gpus = 8\nwaveform = \"steps\"\ncheckpoint_every_steps = 50\n"
                                            "startup_s = 30\n[output]\nstep_waveform_min_s = 5\n"
                                            "step_gpu_changes = true\n"),
                                "s.toml");
  const JobSpec& j = s.workload.jobs.at(0);
  CHECK(j.schedule.waveform == Waveform::steps);
  CHECK(j.schedule.checkpoint_every_steps == 50);
  CHECK(j.schedule.startup_s == 30.0);
  CHECK(s.output.step_waveform_min_s == 5.0);
  CHECK(s.output.step_gpu_changes);
  // Defaults: auto, one checkpoint per epoch, start-up from the plan, threshold from the interval, means.
  const auto d = parse_scenario(fleet + job("n_gpus = 8\n"), "s.toml");
  CHECK(d.workload.jobs.at(0).schedule.waveform == Waveform::automatic);
  CHECK(d.workload.jobs.at(0).schedule.checkpoint_every_steps == 0);
  CHECK(!d.workload.jobs.at(0).schedule.startup_s);
  CHECK(!d.output.step_waveform_min_s);
  CHECK(!d.output.step_gpu_changes);
}

TEST_CASE("bad step-level keys are refused at their line", "[scenario][steps][bad-input]") {
  CHECK(error_of(job("n_gpus = 8\nwaveform = \"wiggly\"\n")) ==
        "bad.toml:6:1: workload.jobs[0].waveform: unknown waveform 'wiggly' (known: auto, steps, epochs)");
  CHECK(error_of(job("n_gpus = 8\ncheckpoint_every_steps = 0\n"))
            .rfind("bad.toml:6:1: workload.jobs[0].checkpoint_every_steps:", 0) == 0);
  CHECK(error_of(job("n_gpus = 8\nstartup_s = -1\n")).rfind("bad.toml:6:1: workload.jobs[0].startup_s:", 0) ==
        0);
  CHECK(error_of(job("n_gpus = 8\n[output]\nstep_waveform_min_s = -2\n"))
            .rfind("bad.toml:7:1: output.step_waveform_min_s:", 0) == 0);
}
