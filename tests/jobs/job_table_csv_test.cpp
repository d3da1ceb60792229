// Tests for fleetwatt's own job table: every JobSpec field round-trips, unknown columns are refused.
#include <catch2/catch.hpp>

#include <sstream>

#include "fleetwatt/jobs/job_table_csv.hpp"
#include "fleetwatt/jobs/trace.hpp"

using namespace fleetwatt::jobs;

TEST_CASE("a job table round-trips every JobSpec field", "[traces]") {
  JobSpec a;
  a.id = 7;
  a.trace_id = "job,with,commas";
  a.submit_s = 12.5;
  a.n_gpus = 4;
  a.gpu_fraction = 0.25;
  a.epochs = 3;
  a.job_class = "vit";
  a.meta.model = "vit-b16";
  a.meta.params = 86.6e6;
  a.meta.flops_per_sample = 17.6e9;
  a.meta.training_flops_per_sample = 1.2 * 17.6e9;
  a.meta.batch_size = 512;
  a.meta.dataset_samples = 1.0e6 / 3.0;
  a.meta.input_size = 224;
  a.meta.workers = 8;
  a.meta.precision = Precision::bf16;
  a.meta.stack = SoftwareStack::compiled;
  a.meta.parallel = Parallelism{2, 2, 1, 3, 4, Recompute::selective, 3, 5, 0};
  a.phases = PhaseProfile{300.5, 10.0, 90.0, 2.0};
  a.user = "u1";
  a.status = JobStatus::cancelled;
  a.recorded_runtime_s = 99.0;
  a.recorded_wait_s = 1.0;
  a.user_estimate_s = 200.0;
  a.limit_s = 99.0;
  a.deferrable = true;
  a.deadline_s = 5000.0;
  a.inferred = inferred::model | inferred::epochs;
  JobSpec b;
  b.id = 8;
  b.submit_s = 20.0;
  b.job_class = "bert";

  std::stringstream ss;
  write_job_table_csv(ss, {a, b});
  TraceOptions o;
  o.format = TraceFormat::fleetwatt_csv;
  const auto r = read_trace(ss, "table.csv", o);
  REQUIRE(r.skipped.empty());
  REQUIRE(r.jobs.size() == 2);
  const auto& x = r.jobs[0];
  CHECK(x.id == 7);
  CHECK(x.trace_id == a.trace_id);
  CHECK(x.submit_s == 0.0);  // re-based on the first submission
  CHECK(x.n_gpus == 4);
  CHECK(x.gpu_fraction == 0.25);
  CHECK(x.epochs == 3);
  CHECK(x.meta.model == "vit-b16");
  CHECK(x.meta.dataset_samples == a.meta.dataset_samples);  // shortest round-trip formatting
  CHECK(x.meta.precision == Precision::bf16);
  CHECK(x.meta.stack == SoftwareStack::compiled);
  CHECK(x.meta.parallel == a.meta.parallel);
  CHECK(r.jobs[1].meta.parallel == Parallelism{});
  CHECK(x.meta.workers == 8);
  CHECK(x.meta.training_flops_per_sample == a.meta.training_flops_per_sample);
  REQUIRE(x.phases);
  CHECK(*x.phases == *a.phases);
  CHECK(x.status == JobStatus::cancelled);
  CHECK(*x.limit_s == 99.0);
  CHECK(*x.user_estimate_s == 200.0);
  CHECK(x.deferrable);
  CHECK(*x.deadline_s == 5000.0);
  CHECK(x.inferred == (inferred::model | inferred::epochs));
  CHECK(r.jobs[1].submit_s == 7.5);
  CHECK(r.jobs[1].job_class == "bert");
  CHECK(r.jobs[1].meta.stack == SoftwareStack::eager);
  CHECK(r.jobs[1].inferred == 0);  // it names a class and its epochs: nothing to infer
}

TEST_CASE("a job table row without model fields or epochs has them inferred", "[traces]") {
  std::istringstream in("submit_s,n_gpus\n0,2\n");
  TraceOptions o;
  o.format = TraceFormat::fleetwatt_csv;
  const auto r = read_trace(in, "t.csv", o);
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.jobs[0].n_gpus == 2);
  CHECK((r.jobs[0].inferred & inferred::model) != 0);
  CHECK((r.jobs[0].inferred & inferred::epochs) != 0);
}

TEST_CASE("a job table with an unknown column is refused, naming it", "[traces]") {
  std::istringstream in("submit_s,n_gpus,gpus_per_node\n0,2,8\n");
  TraceOptions o;
  o.format = TraceFormat::fleetwatt_csv;
  try {
    (void)read_trace(in, "t.csv", o);
    FAIL("unknown column accepted");
  } catch (const TraceFormatError& e) {
    CHECK(e.field() == "gpus_per_node");
    CHECK(e.where().line == 1);
  }
}

TEST_CASE("a bad job table cell is reported with line and column", "[traces]") {
  std::istringstream in("submit_s,n_gpus,status\n0,2,done\n5,1,completed\n");
  TraceOptions o;
  o.format = TraceFormat::fleetwatt_csv;
  const auto r = read_trace(in, "t.csv", o);
  REQUIRE(r.skipped.size() == 1);
  CHECK(r.skipped[0].where.line == 2);
  CHECK(r.skipped[0].where.column == 5);  // "done" in "0,2,done"
  CHECK(r.skipped[0].field == "status");
  CHECK(r.jobs.size() == 1);
}

TEST_CASE("a job table's stack column is read, and an unknown stack is a bad cell", "[traces][stack]") {
  std::istringstream in(
      "submit_s,n_gpus,model,batch_size,stack\n0,2,resnet50,64,optimized\n5,1,resnet50,64,\n"
      "9,1,resnet50,64,turbo\n");
  TraceOptions o;
  o.format = TraceFormat::fleetwatt_csv;
  const auto r = read_trace(in, "t.csv", o);
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].meta.stack == SoftwareStack::optimized);
  CHECK(r.jobs[1].meta.stack == SoftwareStack::eager);  // empty: the default
  REQUIRE(r.skipped.size() == 1);
  CHECK(r.skipped[0].where.line == 4);
  CHECK(r.skipped[0].where.column == 17);  // "turbo" in "9,1,resnet50,64,turbo"
  CHECK(r.skipped[0].field == "stack");
  CHECK(r.skipped[0].reason == "unknown stack 'turbo' (eager, amp, compiled, optimized)");
}

TEST_CASE("a job table's parallel columns are read, a split that does not fit n_gpus is a bad row",
          "[traces][parallel]") {
  std::istringstream in(
      "submit_s,n_gpus,model,batch_size,tp,pp,ep,zero,micro_batch,recompute\n"
      "0,64,mixtral_8x7b,512,4,2,8,1,2,full\n"
      "5,12,llama2_7b,64,8,,,,,\n"
      "6,16,mixtral_8x7b,64,8,,4,,,\n"
      "7,8,llama2_7b,64,,,,4,,\n"
      "8,8,llama2_7b,64,,,,,,most\n");
  TraceOptions o;
  o.format = TraceFormat::fleetwatt_csv;
  const auto r = read_trace(in, "t.csv", o);
  REQUIRE(r.jobs.size() == 1);
  const Parallelism& p = r.jobs[0].meta.parallel;
  CHECK(p == Parallelism{4, 2, 8, 1, 2, Recompute::full});
  CHECK(p.dp(64) == 8);
  REQUIRE(r.skipped.size() == 4);
  CHECK(r.skipped[0].field == "tp");
  CHECK(r.skipped[0].reason == "n_gpus 12 is not a multiple of tp x cp x pp = 8 x 1 x 1");
  CHECK(r.skipped[1].field == "ep");
  CHECK(r.skipped[1].reason == "ep 4 does not divide the data-parallel degree 2");
  CHECK(r.skipped[2].field == "zero");
  CHECK(r.skipped[3].field == "recompute");
  CHECK(r.skipped[3].reason == "unknown recompute 'most' (none, selective, full)");
  // A vp column: the interleaved schedule needs a pipeline.
  std::istringstream v(
      "submit_s,n_gpus,model,batch_size,tp,pp,vp,last_stage_layers\n"
      "0,64,llama2_7b,512,4,2,4,15\n"
      "1,64,llama2_7b,512,4,,2,\n"
      "2,64,llama2_7b,512,4,,,3\n");
  const auto rv = read_trace(v, "v.csv", o);
  REQUIRE(rv.jobs.size() == 1);
  CHECK(rv.jobs[0].meta.parallel.vp == 4);
  CHECK(rv.jobs[0].meta.parallel.last_stage_layers == 15);
  REQUIRE(rv.skipped.size() == 2);
  CHECK(rv.skipped[0].field == "vp");
  CHECK(rv.skipped[0].reason == "vp 2 interleaves pipeline stages: it needs pp of at least 2");
  CHECK(rv.skipped[1].field == "last_stage_layers");
}

TEST_CASE("a job table's cp and fsdp_shard_size columns are read and checked against the split",
          "[traces][parallel]") {
  // Row 2: 64 GPUs over tp 4 x cp 2 leave dp 8, which a shard group of 4 divides.
  std::istringstream in(
      "submit_s,n_gpus,model,batch_size,input_size,tp,cp,zero,fsdp_shard_size\n"
      "0,64,llama2_7b,64,8192,4,2,3,4\n"
      "1,64,llama2_7b,64,8192,4,3,,\n"
      "2,48,llama2_7b,64,8192,4,3,,\n"
      "3,64,llama2_7b,64,8192,4,2,3,3\n"
      "4,64,llama2_7b,64,8192,4,2,1,4\n");
  TraceOptions o;
  o.format = TraceFormat::fleetwatt_csv;
  const auto r = read_trace(in, "t.csv", o);
  REQUIRE(r.jobs.size() == 1);
  const Parallelism& p = r.jobs[0].meta.parallel;
  CHECK(p.cp == 2);
  CHECK(p.fsdp_shard_size == 4);
  CHECK(p.dp(64) == 8);
  CHECK(p.shard_group(64) == 4);
  REQUIRE(r.skipped.size() == 4);
  CHECK(r.skipped[0].where.line == 3);
  CHECK(r.skipped[0].field == "cp");
  CHECK(r.skipped[0].reason == "n_gpus 64 is not a multiple of tp x cp x pp = 4 x 3 x 1");
  // 48 GPUs hold tp 4 x cp 3, but 8192 tokens do not split into 6 equal chunks.
  CHECK(r.skipped[1].field == "cp");
  CHECK(r.skipped[1].reason.find("cp 3 does not divide the 8192-token sequence into 2 x 3 equal chunks") ==
        0);
  CHECK(r.skipped[2].field == "fsdp_shard_size");
  CHECK(r.skipped[2].reason == "fsdp_shard_size 3 does not divide the data-parallel degree 8");
  CHECK(r.skipped[3].field == "fsdp_shard_size");
  CHECK(r.skipped[3].reason.find("needs zero = 3") != std::string::npos);
}
