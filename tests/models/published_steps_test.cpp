// Published LLM pre-training step times: the readers on small tables worked by hand, the shared files'
// rows, the 3D-parallel step model against every row fleetwatt can express (the development set of its
// calibration), and the built-in calibration against a refit.
#include "fleetwatt/models/fit/published_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include "fleetwatt/models/training/step_calibration.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models;
using fleetwatt::jobs::Precision;

namespace {

const char* const kBridgeTable =
    "# Performance\n"
    "## 25.11 NeMo Container\n"
    "### Pre-Training Performance\n"
    "#### System: DGX-H100\n"
    "| Model | #-GPUs | Precision | GBS | MBS | Sequence Length | FSDP | TP | PP | CP | VP | EP | GA | "
    "Tokens / "
    "sec / GPU | Model TFLOP / sec / GPU |\n"
    "|-------|--------|-----------|-----|-----|-----------------|------|----|----|----|----|----|----|------|"
    "---|\n"
    "| LLAMA3_70B | 64 | FP8-CS | 128 | 1 | 8192 | 0 | 4 | 8 | 1 | 5 | 1 | 64 | 1602 | 719 |\n"
    "| LLAMA3_8B | 8 | FP8-CS (FP8-MX) | 128 | 2 | 8192 | 8 | 1 | 1 | 1 | n/a | 1 | 8 | 31,508 (29789) | "
    "1622 |\n"
    "| DeepSeekV3 | 256 | BF16 | 4096 | 1 | 4096 | 0 | 1 | 2 | 1 | 4 | 32 | 32 | 3848 | 961 |\n"
    "#### System: DGX-GB300\n"
    "| Model | #-GPUs | Precision | GBS | MBS | Sequence Length | FSDP | TP | PP | CP | VP | EP | GA | "
    "Tokens / "
    "sec / GPU | Model TFLOP / sec / GPU |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    "| LLAMA3_8B | 8 | NVFP4 | 128 | 2 | 8192 | 0 | 1 | 1 | 1 | n/a | 1 | 8 | 40000 | 2000 |\n"
    "### SFT Performance\n"
    "#### Model: LLAMA3_70B\n"
    "| System | #-GPUs | Precision | GBS | MBS | Sequence Length | TP | PP | CP | VP | EP | Tokens / sec / "
    "GPU | "
    "Model TFLOP / sec / GPU |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    "| DGX-H100 | 32 | FP8 | 32 | 1 | 4096 | 4 | 4 | 1 | 5 | n/a | 1638 | 710 |\n";

}  // namespace

TEST_CASE("A Megatron-Bridge summary: releases, systems, precisions and step times by hand",
          "[models][published]") {
  fleetwatt::test::TempDir dir;
  std::filesystem::create_directories(dir / "megatron-bridge-performance");
  dir.write("megatron-bridge-performance/performance-summary.md", kBridgeTable);
  const auto rows = read_published_steps(dir.path());
  // Four pre-training rows; the SFT table is not pre-training.
  REQUIRE(rows.size() == 4);
  const PublishedStep& a = rows[0];
  CHECK(a.source == "Megatron-Bridge 25.11");
  CHECK(a.system == "DGX-H100");
  CHECK(a.gpu == "h100-sxm");
  CHECK(a.zoo == "llama3_70b");
  CHECK(a.precision == Precision::fp8);
  CHECK(a.precision_supported);
  CHECK(a.where.line == 7);
  CHECK(a.parallel.tp == 4);
  CHECK(a.parallel.pp == 8);
  CHECK(a.parallel.vp == 5);
  CHECK(a.parallel.micro_batch == 1);
  CHECK(a.parallel.zero == 1);  // the distributed optimizer
  // 128 sequences of 8,192 tokens at 1,602 tokens/s on each of 64 GPUs: 1,048,576 / 102,528 = 10.227 s.
  CHECK(a.step_s == Approx(128.0 * 8192.0 / (1602.0 * 64.0)));
  CHECK(a.step_s == Approx(10.2271).epsilon(1e-4));
  CHECK(a.unsupported.empty());
  // "31,508 (29789)": the first figure, thousands separator and all; FSDP 8 is ZeRO-3 over the data-parallel
  // group; VP "n/a" is no interleaving.
  const PublishedStep& b = rows[1];
  CHECK(b.tokens_per_s_per_gpu == 31508.0);
  CHECK(b.parallel.zero == 3);
  CHECK(b.parallel.fsdp_shard_size == 0);
  CHECK(b.parallel.vp == 1);
  CHECK(b.parallel.micro_batch == 2);
  CHECK(b.step_s == Approx(128.0 * 8192.0 / (31508.0 * 8.0)));
  CHECK(rows[2].unsupported == "model DeepSeekV3 is not in the zoo");
  CHECK(rows[3].unsupported == "no GPU preset for DGX-GB300");
}

TEST_CASE("A throughput cell beyond any GPU, or a count beyond 32 bits, is refused at its row and column",
          "[models][published][edges]") {
  // "1e308" read as its leading digit 1 became a step of 65,536 s; now the exponent is read and the figure
  // is refused (any GPU stays far below 10^8 tokens/s and 10^6 TFLOP/s).
  fleetwatt::test::TempDir dir;
  std::filesystem::create_directories(dir / "megatron-bridge-performance");
  const std::string header =
      "## 25.11 NeMo Container\n### Pre-Training Performance\n#### System: DGX-H100\n"
      "| Model | #-GPUs | Precision | GBS | MBS | Sequence Length | TP | PP | CP | VP | Tokens / sec / GPU "
      "|\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n";
  const auto read_row = [&](const std::string& gpus, const std::string& tokens) {
    dir.write(
        "megatron-bridge-performance/performance-summary.md",
        header + "| LLAMA3_8B | " + gpus + " | BF16 | 128 | 1 | 8192 | 1 | 1 | 1 | n/a | " + tokens + " |\n");
    return read_published_steps(dir.path());
  };
  CHECK(read_row("8", "1.5e4").front().tokens_per_s_per_gpu == 15000.0);
  for (const char* tokens : {"1e308", "1e400", "2e8"})
    CHECK_THROWS_WITH(read_row("8", tokens), Catch::Contains("performance-summary.md:6:") &&
                                                 Catch::Contains("Tokens / sec / GPU: ") &&
                                                 Catch::Contains("beyond the 1e+08 any GPU reaches"));
  CHECK_THROWS_WITH(read_row("4294967296", "1000"),
                    Catch::Contains("#-GPUs: expected a whole number, found '4294967296'"));
}

TEST_CASE("NeMo's summary and long-sequence tables: defaults, HTML rows and NeMo's own FLOP count",
          "[models][published]") {
  fleetwatt::test::TempDir dir;
  std::filesystem::create_directories(dir / "nemo-performance");
  dir.write(
      "nemo-performance/performance_summary_24.07.md",
      "### Pretraining\n"
      "| Model | #-GPUs | GBS | MBS | Sequence Length| TP | PP | CP | VP | Tokens / sec / GPU | Model TFLOP "
      "/ "
      "sec / GPU | Est |\n"
      "| ----- | ------ | --- | --- | ---------------| -- | -- | -- | -- | --- | --- | --- |\n"
      "| LLAMA2-7B     | 8      | 128  | 1   | 4096           | 1  | 1  | 1  | 1  | 16934              | "
      "780                     | ***7***                                                | \n");
  dir.write("nemo-performance/performance_long_sequence.md",
            "## LLAMA2-7B (FP8) - H100\n<table>\n  <tbody>\n    <tr>\n      <td>32</td>\n      <td>32</td>\n"
            "      <td>128</td>\n      <td>595</td>\n      <td>2</td>\n      <td>1</td>\n      <td>8</td>\n"
            "      <td>2</td>\n      <td>610</td>\n      <td class=\"speedup\">1.03</td>\n    </tr>\n"
            "    <tr>\n      <td>8</td>\n      <td>8</td>\n      <td>512</td>\n      <td>1,671</td>\n"
            "      <td>1</td>\n      <td>1</td>\n      <td>2</td>\n      <td>1</td>\n      <td>1,671</td>\n"
            "      <td>1.00</td>\n    </tr>\n  </tbody>\n</table>\n");
  const auto rows = read_published_steps(dir.path());
  REQUIRE(rows.size() == 3);
  const PublishedStep& s = rows[2];  // files in path order: the long-sequence file first
  CHECK(s.source == "NeMo 24.07");
  CHECK(s.gpu == "h100-sxm");
  CHECK(s.precision == Precision::fp8);
  CHECK(s.zoo == "llama2_7b");
  CHECK(s.step_s == Approx(128.0 * 4096.0 / (16934.0 * 8.0)));
  // The CP run of 32K tokens on 32 GPUs: TP 2, DP 8, CP 2, 610 model TFLOP/s per GPU by NeMo's count for
  // Llama 2 7B (L 32, h 4096, a 32 heads, g 32 groups, f 11008, V 32000): gbs s L h^2 (12 + 12 g/a + 18 f/h +
  // 12 s/h + 6 V/(L h)).
  const PublishedStep& l = rows[0];
  CHECK(l.source == "NeMo long-sequence");
  CHECK(l.seq == 32768);
  CHECK(l.parallel.tp == 2);
  CHECK(l.parallel.cp == 2);
  const double L = 32, h = 4096, f = 11008, V = 32000, S = 32768;
  const double flops =
      128.0 * S * L * h * h * (12.0 + 12.0 + 18.0 * f / h + 12.0 * S / h + 6.0 * V / (L * h));
  CHECK(l.step_s == Approx(flops / (610e12 * 32.0)));
  // The B200 table's rows give fewer ranks than GPUs (1 x 1 x 2 x 1 on 8): the row says so.
  CHECK(rows[1].unsupported == "the source's TP x PP x DP x CP = 1 x 1 x 2 x 1 is not its 8 GPUs");
}

TEST_CASE("A published row as a job: the long-sequence model beyond its context, Megatron's uneven split",
          "[models][published]") {
  PublishedStep r;
  r.zoo = "llama2_7b", r.gpu = "h100-sxm", r.source = "NeMo long-sequence", r.gpus = 8, r.global_batch = 4;
  r.seq = 131072, r.precision = Precision::fp8;
  r.parallel.tp = 4, r.parallel.cp = 2;
  const auto j = published_step_job(r);
  // Llama 2 7B trained at 128K tokens, beyond its 4,096: its shape, so the zoo's context check does not bite.
  CHECK(j.meta.shape.layers == 32);
  CHECK(j.meta.shape.hidden == 4096);
  CHECK(j.meta.input_size == 131072);
  CHECK(j.meta.attention == fleetwatt::jobs::Attention::flash2);  // NeMo up to 24.07
  // Llama 3.1 405B's 126 layers on 8 stages: (126 + 2) / 8 = 16 per stage counting the embedding and the
  // loss as a layer each, so 15 on the first and the last.
  r.zoo = "llama31_405b", r.source = "Megatron-Bridge 25.11", r.seq = 8192, r.parallel.pp = 8;
  const auto k = published_step_job(r);
  CHECK(k.meta.parallel.first_stage_layers == 15);
  CHECK(k.meta.parallel.last_stage_layers == 15);
  CHECK(k.meta.attention == fleetwatt::jobs::Attention::fused);
  CHECK_FALSE(k.meta.shape.given());
}

TEST_CASE("The step model against every published step fleetwatt can express", "[models][published]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto rows = read_published_steps(data);
  std::size_t unsupported = 0;
  for (const auto& r : rows) unsupported += !r.unsupported.empty();
  // What the shared files hold (the counts pin the readers): NeMo 24.07's 12 pre-training rows, the
  // long-sequence tables' 17 CP runs, Megatron-Bridge's rows of every release; fleetwatt expresses the
  // dense Llama, GPT-3 and Nemotron rows on H100, B200 and GB200 in FP8 and BF16.
  CHECK(rows.size() == 297);
  CHECK(rows.size() - unsupported == 53);
  const auto compared = compare_published_steps(rows);
  REQUIRE(compared.size() == 53);
  double sum = 0.0;
  for (const auto& c : compared) {
    INFO(fmt::format("{} {} on {} x {}: published {:.3f} s, predicted {:.3f} s ({:+.1f} %)",
                     c.row->where.to_string(), c.row->zoo, c.row->gpus, c.row->gpu, c.row->step_s,
                     c.predicted_s, 100.0 * c.error));
    REQUIRE(c.refused.empty());
    sum += std::abs(c.error);
    // A run the memory model says cannot fit as the table states it ran with recomputation or offloading
    // the table does not give: 20 %. Every other row: 15 %.
    CHECK(std::abs(c.error) <= (c.fits ? 0.15 : 0.20));
  }
  const double mean = sum / compared.size();
  CHECK(mean <= 0.10);
  // The guard sits at the measured figure (docs/predictors.md "Step time of LLM jobs").
  CHECK(mean == Approx(0.0424).margin(0.002));
}

TEST_CASE("The built-in step calibration is the refit on the published steps", "[models][published]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const StepCalibration fit = fit_step_calibration(read_published_steps(data));
  if (const char* out = std::getenv("FLEETWATT_STEP_CALIBRATION_OUT")) {
    std::ofstream(out) << format_step_calibration(fit);
  }
  const StepCalibration& built_in = default_step_calibration();
  CHECK(built_in.gemm_factor == Approx(fit.gemm_factor).epsilon(1e-5));
  CHECK(built_in.attention_factor == Approx(fit.attention_factor).epsilon(1e-5));
  CHECK(built_in.flash2_factor == Approx(fit.flash2_factor).epsilon(1e-5));
  CHECK(built_in.tp_overlap == Approx(fit.tp_overlap).margin(1e-6));
  CHECK(built_in.rows == fit.rows);
  // Each source left out, the others fit, its mean |error| at docs/predictors.md's figures: Blackwell's
  // rows 14.3 % when fitted on Hopper alone (the in-step GEMM factor of one architecture does not carry fully
  // to the other), Megatron-Bridge's H100 rows 7.7 %, NeMo 24.07 3.4 %, the long-sequence runs 4.3 %.
  REQUIRE(fit.loo_error.size() == 4);
  const std::map<std::string, double> measured{{"Megatron-Bridge Blackwell", 0.143},
                                               {"Megatron-Bridge H100", 0.0765},
                                               {"NeMo 24.07", 0.0342},
                                               {"NeMo long-sequence", 0.043}};
  for (const auto& [group, error] : fit.loo_error) {
    INFO(group);
    CHECK(error <= measured.at(group) + 0.005);
  }
}

TEST_CASE("A calibration file round-trips and a bad one names its key", "[models][published]") {
  StepCalibration c;
  c.gemm_factor = 1.25, c.attention_factor = 1.05, c.flash2_factor = 1.4, c.tp_overlap = 0.8, c.rows = 7;
  c.loo_error["NeMo 24.07"] = 0.07;
  const StepCalibration back = parse_step_calibration(format_step_calibration(c), "c.toml");
  CHECK(back.gemm_factor == 1.25);
  CHECK(back.flash2_factor == 1.4);
  CHECK(back.tp_overlap == 0.8);
  CHECK(back.loo_error.at("NeMo 24.07") == 0.07);
  CHECK_THROWS_WITH(parse_step_calibration("gemm_factor = 1\nattention_factor = 1\nflash2_factor = 1\n"
                                           "tp_overlap = 1.5\n",
                                           "c.toml"),
                    Catch::Contains("tp_overlap") && Catch::Contains("c.toml"));
}
