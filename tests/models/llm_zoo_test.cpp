// The zoo's LLMs against their published parameter counts (each with its source and the tolerance its
// rounding allows), and the training FLOPs per token, 6 N + 12 L s d_attention, worked out by hand.
#include <catch2/catch.hpp>

#include "fleetwatt/models/zoo/model_zoo.hpp"

using namespace fleetwatt::models;

namespace {
/// |x - published| <= half a unit of the published figure's last digit (`unit`).
bool rounds_to(double x, double published, double unit) {
  return std::abs(x - published) <= unit / 2.0 + 1e-6 * unit;
}
}  // namespace

TEST_CASE("GPT-3 family parameter counts round to Brown et al. 2020 table 2.1", "[models][zoo][llm]") {
  // Table 2.1 n_params: 1.3B, 2.7B, 6.7B, 13.0B, 175.0B. GPT-2 layout: 12 L d^2 + 13 L d + (50257 + 2048) d
  // + 2 d. 6.7B: 32 x (12 x 4096^2 + 13 x 4096) = 6,444,154,880; + 52305 x 4096 = 214,241,280; + 8192
  // = 6,658,404,352.
  CHECK(count_model("gpt3_67").params == 6658404352.0);
  CHECK(rounds_to(count_model("gpt3_67").params, 6.7e9, 0.1e9));
  CHECK(rounds_to(count_model("gpt3_xl").params, 1.3e9, 0.1e9));
  CHECK(rounds_to(count_model("gpt3_27").params, 2.7e9, 0.1e9));
  // 13B at d_model 5140: 40 x (12 x 5140^2 + 13 x 5140) = 12,684,080,800; + 52305 x 5140 = 268,847,700;
  // + 10,280 = 12,952,938,780, which rounds to the table's 13.0B.
  CHECK(count_model("gpt3_13b").params == 12952938780.0);
  CHECK(rounds_to(count_model("gpt3_13b").params, 13.0e9, 0.1e9));
  // 175B: 96 x (12 x 12288^2 + 13 x 12288) = 173,961,510,912; + 52305 x 12288 = 642,723,840; + 24,576
  // = 174,604,259,328. The table's "175.0B" is 0.2 % above what its own shape gives in this layout (the
  // paper gives no exact count), so this one is held to the nearest billion only.
  CHECK(count_model("gpt3_175b").params == 174604259328.0);
  CHECK(rounds_to(count_model("gpt3_175b").params, 175e9, 1e9));
  CHECK(count_model("gpt3_13b").d_attention == 40u * 128u);
}

TEST_CASE("Llama 2 and Llama 3 parameter counts equal the model cards", "[models][zoo][llm]") {
  // Exact counts of the HuggingFace checkpoints (meta-llama/Llama-2-7b-hf 6,738,415,616; Meta-Llama-3-8B
  // 8,030,261,248). By hand, Llama 2 7B: 2 x 32000 x 4096 = 262,144,000 embeddings; per layer 4 x 4096^2
  // + 3 x 4096 x 11008 + 2 x 4096 = 202,383,360, x 32 = 6,476,267,520; + 4096 final norm.
  CHECK(count_model("llama2_7b").params == 6738415616.0);
  // Llama 3 8B: per layer 2 x 4096^2 + 2 x 4096 x 1024 (8 KV heads of 128) + 3 x 4096 x 14336 + 8192
  // = 218,112,000, x 32 = 6,979,584,000; + 2 x 128256 x 4096 = 1,050,673,152; + 4096.
  CHECK(count_model("llama3_8b").params == 8030261248.0);
  // Llama 2 13B (meta-llama/Llama-2-13b-hf 13,015,864,320): 40 x 317,204,480 + 327,680,000 + 5120.
  CHECK(count_model("llama2_13b").params == 13015864320.0);
  // Llama 2 70B: per layer 2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28672 + 16384 = 855,654,400, x 80
  // = 68,452,352,000; + 2 x 32000 x 8192 = 524,288,000; + 8192 = 68,976,648,192 (the model card's "69B";
  // the paper's name "70B" is nominal).
  CHECK(count_model("llama2_70b").params == 68976648192.0);
  CHECK(rounds_to(count_model("llama2_70b").params, 69e9, 1e9));
  // Llama 3 70B: 68,452,352,000 + 2 x 128256 x 8192 + 8192 = 70,553,706,496 (model card: 70.6B).
  CHECK(count_model("llama3_70b").params == 70553706496.0);
  CHECK(rounds_to(count_model("llama3_70b").params, 70.6e9, 0.1e9));
  // Llama 3.1 405B (report table 3: 126 layers, 16384, FFN 53248, 128 / 8 heads): per layer 2 x 16384^2
  // + 2 x 16384 x 1024 + 3 x 16384 x 53248 + 32768 = 3,187,703,808, x 126 = 401,650,679,808; + 2 x 128256
  // x 16384 = 4,202,692,608; + 16384 = 405,853,388,800 (model card: 406B; the report's name: 405B).
  CHECK(count_model("llama31_405b").params == 405853388800.0);
  CHECK(rounds_to(count_model("llama31_405b").params, 406e9, 1e9));
  // Dense models: every parameter is active.
  CHECK(count_model("llama3_8b").active_params == count_model("llama3_8b").params);
  CHECK(count_model("llama3_8b").expert_params == 0.0);
}

TEST_CASE("Mixtral 8x7B has 46.7B parameters of which 12.9B are active", "[models][zoo][llm]") {
  // Jiang et al. 2024, section 2: "47B" total, "13B" active; the model card: 46.7B and 12.9B. By hand: per
  // layer attention 41,943,040 + 8 experts x 176,160,768 + router 4096 x 8 + norms 8192 = 1,451,270,144;
  // x 32 + 2 x 32000 x 4096 + 4096 = 46,702,792,704. Active: 2 experts: 394,305,536 per layer, x 32
  // + 262,148,096 = 12,879,925,248.
  const ModelCount m = count_model("mixtral_8x7b");
  CHECK(m.params == 46702792704.0);
  CHECK(m.active_params == 12879925248.0);
  CHECK(rounds_to(m.params, 46.7e9, 0.1e9));
  CHECK(rounds_to(m.active_params, 12.9e9, 0.1e9));
  CHECK(m.expert_params == 32.0 * 8 * 176160768.0);
  // A token's forward pass runs 2 of the 8 experts: MACs per token ~ active parameters (minus the input
  // lookup, plus the attention scores), so about a quarter of a dense 46.7B.
  CHECK(m.forward_macs / m.input_size < 0.35 * m.params);
}

TEST_CASE("Training FLOPs per token are 6 N + 12 L s d", "[models][zoo][llm]") {
  // Llama 2 7B at s = 4096: 6 x 6,738,415,616 = 40,430,493,696; 12 x 32 x 4096 x 4096 = 6,442,450,944.
  CHECK(count_model("llama2_7b").training_flops_per_token(4096) == 46872944640.0);
  // GPT-3 175B at 2048: 6 x 174,604,259,328 + 12 x 96 x 2048 x 12288 = 1,047,625,555,968
  // + 28,991,029,248 = 1,076,616,585,216 (Kaplan et al.'s 6 N = 1.05 TFLOP plus 2.8 % attention).
  CHECK(count_model("gpt3_175b").training_flops_per_token(2048) == 1076616585216.0);
  // Mixtral counts its active parameters only: 6 x 12,879,925,248 + 12 x 32 x 4096 x 4096.
  CHECK(count_model("mixtral_8x7b").training_flops_per_token(4096) ==
        6.0 * 12879925248.0 + 12.0 * 32 * 4096 * 4096);
}

TEST_CASE("LLM zoo names, aliases and context limits", "[models][zoo][llm]") {
  CHECK(count_model("llama-2-7b").name == "llama2_7b");
  CHECK(count_model("llama3_405b").name == "llama31_405b");
  CHECK(count_model("gpt3-175b").name == "gpt3_175b");
  // Llama 3 defaults to its 8K pre-training sequence and accepts up to the 128K of its long-context stage
  // (Llama 3 Herd of Models, section 3.4.2), as NeMo's long-sequence recipes train it.
  CHECK(count_model("llama3_8b").input_size == 8192);
  CHECK(count_model("llama3_70b", 131072).input_size == 131072);
  CHECK(count_model("llama2_7b", 2048).input_size == 2048);
  CHECK_THROWS_WITH(count_model("llama2_7b", 8192), Catch::Contains("1..4096"));
  CHECK_THROWS_WITH(count_model("gpt3_175b", 4096), Catch::Contains("1..2048"));
  for (const char* name : {"llama2_7b", "mixtral_8x7b", "gpt3_175b"}) {
    INFO(name);
    const ModelCount m = count_model(name);
    CHECK(m.family == ModelFamily::transformer);
    CHECK(m.blocks > 0);
    CHECK(m.d_model > 0);
  }
}

TEST_CASE("Nemotron, Grok-1, Mixtral 8x22B and NeMo's GPT-3 5B / 20B against their published counts",
          "[models][zoo][llm]") {
  // Nemotron-4 15B (Parmar et al. 2024, section 2: "3.2 billion embedding parameters and 12.5 billion
  // non-embedding parameters"; NeMo's Nemotron4Config15B: 32 layers, d 6144, 48 heads of 128, 8 KV heads,
  // squared-ReLU FFN 24576, vocabulary 256,000, LayerNorm with a bias). By hand: per layer 2 x 6144^2 + 2 x
  // 6144 x 1024 + 2 x 6144 x 24576 + 2 x 2 x 6144 = 390,094,848, x 32 = 12,483,035,136 (12.5B); embeddings 2
  // x 256,000 x 6144 = 3,145,728,000 (the paper's 3.2B is 1.7 % above it); + 12,288 for the final norm.
  const ModelCount n15 = count_model("nemotron4_15b");
  CHECK(n15.params == 15628775424.0);
  CHECK(rounds_to(n15.params - 2.0 * 256000.0 * 6144.0 - 2.0 * 6144.0, 12.5e9, 0.1e9));
  CHECK(n15.d_ff == 24576u);
  CHECK(n15.ffn_in_matrices == 1u);  // a plain feed-forward
  // Nemotron-4 340B (model card: "340 billion parameters"; model_config.yaml: 96 layers, d 18432, 96 heads
  // of 192, 8 KV heads, FFN 73728): per layer 2 x 18432^2 + 2 x 18432 x 1536 + 2 x 18432 x 73728 + 4 x 18432
  // = 3,454,083,072, x 96 = 331,591,974,912; + 9,437,184,000 embeddings + 36,864 = 341,029,195,776.
  const ModelCount n340 = count_model("nemotron4_340b");
  CHECK(n340.params == 341029195776.0);
  CHECK(std::abs(n340.params / 340e9 - 1.0) < 0.005);
  // Nemotron-3 8B and 22B (NeMo's Nemotron3Config8B / 22B, full multi-head attention): their names are
  // nominal, the counts what their shapes give (8.54B, 21.27B).
  CHECK(count_model("nemotron3_8b").params == 8540135424.0);
  CHECK(count_model("nemotron3_22b").params == 21266116608.0);
  // Grok-1 (xai-org/grok-1 README: "Parameters: 314B", "2 experts used per token"): per layer 2 x 6144^2 +
  // 2 x 6144 x 1024 + 8 x 3 x 6144 x 32768 + 6144 x 8 (router) + 4 x 6144 = 4,919,992,320, x 64
  // = 314,879,508,480; the tied embedding 131,072 x 6144 = 805,306,368; + 6144. 315.7B: 0.5 % above the
  // README's figure, which rounds down.
  const ModelCount grok = count_model("grok1_314b");
  CHECK(grok.params == 315684820992.0);
  CHECK(std::abs(grok.params / 314e9 - 1.0) < 0.01);
  // Active: two experts of eight, 83.8B, 26.5 % (xAI: "25% of the weights active on a given token").
  CHECK(grok.active_params == 83756587008.0);
  CHECK(grok.experts == 8u);
  CHECK(grok.top_k == 2u);
  // Mixtral 8x22B (Mistral's weights page: "Mixtral-8x22B-v0.3 | 140.6B | 39.1B"; v0.1's vocabulary of
  // 32,000): per layer 2 x 6144^2 + 2 x 6144 x 1024 + 8 x 3 x 6144 x 16384 + 6144 x 8 + 2 x 6144
  // = 2,504,060,928, x 56 = 140,227,411,968; + 2 x 32000 x 6144 + 6144.
  const ModelCount mix = count_model("mixtral_8x22b");
  CHECK(mix.params == 140620634112.0);
  CHECK(rounds_to(mix.params, 140.6e9, 0.1e9));
  CHECK(std::abs(mix.active_params - 39.1e9) < 0.06e9);  // 39.15B: v0.3's larger vocabulary adds 9.4M
  // NeMo's GPT-3 5B and 20B (GPT-2 layout, 12 L d^2 + 13 L d + (50257 + 2048) d + 2 d): 5.05B and 20.26B.
  CHECK(count_model("gpt3_5b").params == 5047365632.0);
  CHECK(count_model("gpt3_20b").params == 20256221184.0);
}

TEST_CASE("A decoder given by its shape counts as the zoo model of that shape", "[models][zoo][llm]") {
  // Llama 3 70B by its shape (report table 3): the same parameters, FLOPs and work as the zoo's.
  fleetwatt::jobs::ModelShape s;
  s.layers = 80, s.hidden = 8192, s.heads = 64, s.kv_heads = 8, s.ffn_hidden = 28672, s.vocab = 128256;
  const ModelCount a = decoder_from_shape(s, 8192, "custom"), b = count_model("llama3_70b", 8192);
  CHECK(a.params == b.params);
  CHECK(a.forward_flops == b.forward_flops);
  CHECK(a.training_flops_per_token(8192) == b.training_flops_per_token(8192));
  CHECK(a.kv_heads == 8u);
  // No context limit: a shape states none (a zoo model refuses a sequence beyond its context).
  CHECK_NOTHROW(decoder_from_shape(s, 262144, "custom"));
  CHECK_THROWS_WITH(count_model("llama3_70b", 131073), Catch::Contains("1..131072"));
  // A plain feed-forward (gated_mlp = false) has two matrices: Nemotron-3 8B's shape gives its count less
  // the LayerNorm biases the shape does not carry (2 x 4096 per norm, 2 norms per layer, and the final).
  fleetwatt::jobs::ModelShape n;
  n.layers = 32, n.hidden = 4096, n.heads = 32, n.ffn_hidden = 16384, n.vocab = 256000, n.gated = false;
  CHECK(decoder_from_shape(n, 4096, "n").params == count_model("nemotron3_8b").params - 65.0 * 4096.0);
  // A shape that cannot be: heads not dividing hidden.
  n.heads = 30;
  CHECK_THROWS_WITH(decoder_from_shape(n, 4096, "n"), Catch::Contains("heads"));
  // zoo_model_shape gives a Llama-layout zoo model's shape back.
  const auto z = zoo_model_shape("llama3_70b");
  REQUIRE(z);
  CHECK(*z == s);
}
