// Model zoo counts against the published reference counts (torchvision / HuggingFace parameter totals, and
// the MACs at 224 x 224 reported by torchvision's model documentation and the fvcore/ptflops counters).
#include "fleetwatt/models/zoo/model_zoo.hpp"

#include <catch2/catch.hpp>

using namespace fleetwatt::models;

TEST_CASE("Zoo parameter counts equal the reference implementations' exactly", "[models][zoo]") {
  // torchvision: resnet18 11,689,512; resnet34 21,797,672; resnet50 25,557,032; resnet101 44,549,160;
  // vgg16 138,357,544; mobilenet_v2 3,504,872; vit_b_16 86,567,656.
  CHECK(resnet(18).params == 11689512.0);
  CHECK(resnet(34).params == 21797672.0);
  CHECK(resnet(50).params == 25557032.0);
  CHECK(resnet(101).params == 44549160.0);
  CHECK(vgg16().params == 138357544.0);
  CHECK(mobilenet_v2().params == 3504872.0);
  CHECK(vit("b").params == 86567656.0);
  // HuggingFace: bert-base-uncased with pooler 109,482,240; gpt2 124,439,808.
  CHECK(bert("base").params == 109482240.0);
  CHECK(gpt2("small").params == 124439808.0);
}

TEST_CASE("Zoo MACs at 224x224 lie within 2 percent of the published figures", "[models][zoo]") {
  // Published GMACs at 224: ResNet-18 1.81, -34 3.66, -50 4.09, -101 7.8, VGG16 15.47, MobileNetV2 0.30,
  // ViT-B/16 17.56.
  const auto within = [](double macs, double published_g) {
    return std::abs(macs / 1e9 - published_g) / published_g < 0.02;
  };
  CHECK(within(resnet(18).forward_macs, 1.81));
  CHECK(within(resnet(34).forward_macs, 3.66));
  CHECK(within(resnet(50).forward_macs, 4.09));
  CHECK(within(resnet(101).forward_macs, 7.8));
  CHECK(within(vgg16().forward_macs, 15.47));
  CHECK(within(mobilenet_v2().forward_macs, 0.30));
  CHECK(within(vit("b").forward_macs, 17.56));
}

TEST_CASE("A FLOP is two multiply-accumulates and a training step is three forward passes", "[models][zoo]") {
  const ModelCount m = resnet(50);
  CHECK(m.forward_flops == 2.0 * m.forward_macs);
  CHECK(m.training_flops() == 3.0 * m.forward_flops);
}

TEST_CASE("Convolutional MACs scale with the image area at other sizes", "[models][zoo]") {
  // VGG16's convolutions see 4x the pixels at 448 (the 7x7 adaptive pool keeps the classifier fixed):
  // classifier MACs 25088*4096 + 4096*4096 + 4096*1000 = 123,633,664.
  const double fc = 25088.0 * 4096 + 4096.0 * 4096 + 4096.0 * 1000;
  CHECK(vgg16(448).forward_macs - fc == Approx(4.0 * (vgg16(224).forward_macs - fc)).epsilon(1e-12));
  CHECK(vgg16(448).params == vgg16(224).params);
}

TEST_CASE("Transformer counts follow the closed forms", "[models][zoo]") {
  // BERT-base at sequence length L: per layer L*(4d^2 + 8d^2) + 2 L^2 d MACs, pooler d^2.
  const double d = 768, L = 128;
  const double expected = 12 * (L * 12 * d * d + 2 * L * L * d) + d * d;
  CHECK(bert("base", 128).forward_macs == Approx(expected).epsilon(1e-12));
  // Parameters do not depend on the sequence length.
  CHECK(bert("base", 128).params == bert("base", 512).params);
  // ViT-B/16 at 384: 576 patches + class token, position embeddings grow with them.
  CHECK(vit("b", 384).params - vit("b", 224).params == (577.0 - 197.0) * 768);
  // GPT-2 medium: 24 layers of 12 d^2 + 13 d, embeddings (50257 + 1024) d, final LayerNorm 2d (d = 1024).
  const double dm = 1024;
  CHECK(gpt2("medium").params == 24 * (12 * dm * dm + 13 * dm) + (50257 + 1024) * dm + 2 * dm);
}

TEST_CASE("LSTM and GRU counts follow PyTorch's layout", "[models][zoo]") {
  // LSTM layer: 4h(d + h) weights + 8h biases; GRU: 3h(d + h) + 6h.
  RecurrentShape s;
  s.layers = 2, s.input_size = 100, s.hidden_size = 200, s.seq_len = 50;
  const ModelCount lstm = recurrent(s);
  CHECK(lstm.params == 4 * 200.0 * (100 + 200) + 8 * 200.0 + 4 * 200.0 * (200 + 200) + 8 * 200.0);
  CHECK(lstm.forward_macs == 50 * (4 * 200.0 * 300 + 4 * 200.0 * 400));
  s.gru = true;
  CHECK(recurrent(s).params == 3 * 200.0 * 300 + 6 * 200.0 + 3 * 200.0 * 400 + 6 * 200.0);
}

TEST_CASE("The zoo refuses unknown models and impossible input sizes, listing what it knows",
          "[models][zoo]") {
  CHECK_THROWS_WITH(count_model("resnet51"), Catch::Contains("unknown model 'resnet51'") &&
                                                 Catch::Contains("resnet50") &&
                                                 Catch::Contains("gpt2-small"));
  CHECK_THROWS_WITH(count_model("vit-b16", 200), Catch::Contains("multiple of the patch size"));
  CHECK_THROWS_WITH(count_model("bert-base", 1024), Catch::Contains("1..512"));
  CHECK_THROWS_WITH(count_model("resnet50", 8), Catch::Contains("too small"));
  CHECK(count_model("resnet50").params == resnet(50).params);
}

TEST_CASE("ShuffleNetV2 and NeuMF match their reference counts", "[models][zoo]") {
  // torchvision shufflenet_v2_x1_0: 2,278,604 parameters, 0.146 GMACs at 224 (within 2 %).
  CHECK(shufflenet_v2().params == 2278604.0);
  CHECK(std::abs(shufflenet_v2().forward_macs / 146e6 - 1.0) < 0.02);
  // NeuMF on MovieLens-1M (6040 users, 3706 items, factor 32, MLP 256-128-64-32):
  // embeddings (6040 + 3706) * (32 + 128), MLP 256*128+128 + 128*64+64 + 64*32+32, prediction 64 + 1.
  CHECK(neumf().params == (6040.0 + 3706) * 160 + (256 * 128 + 128) + (128 * 64 + 64) + (64 * 32 + 32) + 65);
}

namespace {
const OpWork& op(const ModelCount& m, OpClass c) {
  return m.ops[static_cast<std::size_t>(c)];
}

/// Embedding parameters that are only gathered by row (the documented rule: they add no weight bytes; a
/// tied token table is read whole by the vocabulary projection and so does count, once).
double lookup_only_params(const std::string& name) {
  if (name == "bert-base") return (30522.0 + 512 + 2) * 768;  // word, position, token-type tables
  if (name == "bert-large") return (30522.0 + 512 + 2) * 1024;
  if (name == "gpt2-small") return 1024.0 * 768;  // position tables
  if (name == "gpt2-medium") return 1024.0 * 1024;
  if (name == "gpt2_large") return 1024.0 * 1280;
  if (name == "gpt3_xl") return 2048.0 * 2048;
  if (name == "gpt3_27") return 2048.0 * 2560;
  if (name == "opt_13") return 2050.0 * 2048;
  if (name == "neumf") return (6040.0 + 3706) * (32 + 128);  // GMF and MLP user/item tables
  if (name == "gpt3_67") return 2048.0 * 4096;
  if (name == "gpt3_13b") return 2048.0 * 5140;
  if (name == "gpt3_175b") return 2048.0 * 12288;
  if (name == "gpt3_5b") return 2048.0 * 4096;
  if (name == "gpt3_20b") return 2048.0 * 6144;
  // The Llama layout unties its embeddings: the input table is only gathered, the output one is a GEMM.
  if (name == "llama2_7b" || name == "mixtral_8x7b") return 32000.0 * 4096;
  if (name == "llama2_13b") return 32000.0 * 5120;
  if (name == "llama2_70b") return 32000.0 * 8192;
  if (name == "llama3_8b") return 128256.0 * 4096;
  if (name == "llama3_70b") return 128256.0 * 8192;
  if (name == "llama31_405b") return 128256.0 * 16384;
  if (name == "mixtral_8x22b") return 32000.0 * 6144;
  if (name == "nemotron3_8b") return 256000.0 * 4096;  // Nemotron unties them too
  if (name == "nemotron3_22b" || name == "nemotron4_15b") return 256000.0 * 6144;
  if (name == "nemotron4_340b") return 256000.0 * 18432;
  // Grok-1 ties them: the table is the output projection's weights (its GEMM reads it whole).
  return 0.0;  // CNNs and ViT read every parameter whole (ViT's class token and position table are added)
}
}  // namespace

TEST_CASE("The NeuSight models' parameter counts are exact", "[models][zoo]") {
  // HuggingFace gpt2-large num_parameters(): 774,030,080.
  CHECK(count_model("gpt2_large").params == 774030080.0);
  CHECK(gpt2("large").params == 774030080.0);
  // GPT-2 layout: 12 L d^2 + 13 L d + vocab d + positions d + 2 d (final LayerNorm), vocab 50257.
  // GPT-3 XL, L = 24, d = 2048: 12*24*4,194,304 = 1,207,959,552; 13*24*2048 = 638,976;
  // (50257 + 2048)*2048 = 107,120,640; 2*2048 = 4,096; total 1,315,723,264.
  CHECK(count_model("gpt3_xl").params == 1315723264.0);
  // GPT-3 2.7B, L = 32, d = 2560: 12*32*6,553,600 = 2,516,582,400; 13*32*2560 = 1,064,960;
  // (50257 + 2048)*2560 = 133,900,800; 2*2560 = 5,120; total 2,651,553,280.
  CHECK(count_model("gpt3_27").params == 2651553280.0);
  // HuggingFace facebook/opt-1.3b num_parameters(): 1,315,758,080 = 24 (12 d^2 + 13 d) + (50272 + 2050) d + 2
  // d.
  CHECK(count_model("opt_13").params == 1315758080.0);
  // The NeuSight spellings of the existing models resolve to them.
  CHECK(is_zoo_model("bert_large"));
  CHECK(count_model("bert_large", 512).params == bert("large").params);
  CHECK(count_model("bert_large", 512).name == "bert-large");
  CHECK(count_model("gpt2-large").name == "gpt2_large");
  for (const char* name : {"gpt2_large", "gpt3_xl", "gpt3_27", "opt_13"}) {
    INFO(name);
    CHECK(count_model(name).name == name);
    CHECK(count_model(name).family == ModelFamily::transformer);
  }
  CHECK(count_model("gpt3_xl").input_size == 2048);
  CHECK(count_model("gpt2_large").input_size == 1024);
  CHECK_THROWS_WITH(count_model("opt_13", 2050), Catch::Contains("1..2048"));
  CHECK_THROWS_WITH(count_model("gpt3_xl", 4096), Catch::Contains("1..2048"));
}

TEST_CASE("Every zoo model's operator classes split its forward pass", "[models][zoo][ops]") {
  for (const auto& e : zoo_entries()) {
    const ModelCount m = count_model(e.name);
    INFO(e.name);
    const double matmul =
        op(m, OpClass::tensor).flops + op(m, OpClass::vector).flops + op(m, OpClass::attention).flops;
    CHECK(matmul == Approx(m.forward_flops).epsilon(1e-12));
    double weight_bytes = 0.0;
    for (const OpWork& w : m.ops) {
      CHECK(w.flops >= 0.0);
      CHECK((w.bytes > 0.0) == (w.kernels > 0.0));  // a class that launches kernels moves bytes
      weight_bytes += w.weight_bytes;
    }
    for (const OpClass c : {OpClass::tensor, OpClass::memory}) {
      CHECK(op(m, c).bytes > 0.0);
      CHECK(op(m, c).kernels > 0.0);
      CHECK(op(m, c).flops > 0.0);
    }
    CHECK(weight_bytes == Approx(4.0 * (m.params - lookup_only_params(e.name))).epsilon(1e-12));
    // Apart from the untied vocabularies (BERT, Llama, Mixtral, Nemotron) and NeuMF's tables, that is 4 bytes
    // per parameter within 1 %.
    if (e.name.rfind("bert", 0) != 0 && e.name != "neumf" && e.name.rfind("llama", 0) != 0 &&
        e.name.rfind("mixtral", 0) != 0 && e.name.rfind("nemotron", 0) != 0)
      CHECK(weight_bytes / (4.0 * m.params) > 0.99);
    if (e.input_kind == "sequence") CHECK(op(m, OpClass::attention).flops > 0.0);
  }
}

TEST_CASE("Generic transformer and recurrent shapes split their forward pass too", "[models][zoo][ops]") {
  TransformerShape t;
  t.layers = 3, t.d_model = 256, t.heads = 8, t.seq_len = 100, t.vocab = 1000, t.lm_head = false;
  const ModelCount m = transformer(t);
  CHECK(op(m, OpClass::tensor).flops + op(m, OpClass::attention).flops == Approx(m.forward_flops));
  CHECK(op(m, OpClass::vector).flops == 0.0);
  // Without the output projection the token table is only gathered: no weight bytes for it (nor positions).
  double weight_bytes = 0.0;
  for (const OpWork& w : m.ops) weight_bytes += w.weight_bytes;
  CHECK(weight_bytes == Approx(4.0 * (m.params - (1000.0 + 100) * 256)).epsilon(1e-12));

  RecurrentShape r;
  r.layers = 2, r.input_size = 100, r.hidden_size = 200, r.seq_len = 50, r.bidirectional = true;
  const ModelCount lstm = recurrent(r);
  CHECK(op(lstm, OpClass::tensor).flops == Approx(lstm.forward_flops).epsilon(1e-12));
  // Per layer and direction: one input GEMM, 50 hidden-state GEMMs and 50 point-wise kernels.
  CHECK(op(lstm, OpClass::tensor).kernels == 2 * 2 * (1 + 50));
  CHECK(op(lstm, OpClass::memory).kernels == 2 * 2 * 50);
  // W_hh and b_hh are read once per time step, W_ih and b_ih once.
  const double w1 = 4 * 200.0 * (100 + 1) + 50 * 4 * 200.0 * (200 + 1);
  const double w2 = 4 * 200.0 * (400 + 1) + 50 * 4 * 200.0 * (200 + 1);
  CHECK(op(lstm, OpClass::tensor).weight_bytes == Approx(4.0 * 2 * (w1 + w2)).epsilon(1e-12));
}

TEST_CASE("A one-layer transformer's operator classes by hand", "[models][zoo][ops]") {
  TransformerShape s;
  s.layers = 1, s.d_model = 64, s.heads = 4, s.seq_len = 8, s.vocab = 0;
  const ModelCount m = transformer(s);
  // T = 8, d = 64, d_ff = 256, h = 4: T d = 512, T d_ff = 2048, scores h T^2 = 256, T^2 d = 4096.
  // tensor: Q, K, V, out (4 d^2 = 16384 MACs per token), MLP (2 d d_ff = 32768): 2*8*49152 = 786,432 FLOPs;
  // bytes: read 5 T d + T d_ff = 4608, written the same: 4*9216 = 36,864; weights 4 d^2 + 4 d + 2 d d_ff +
  // d_ff + d = 49,728 -> 198,912 bytes; 6 GEMMs.
  CHECK(op(m, OpClass::tensor).flops == 786432.0);
  CHECK(op(m, OpClass::tensor).bytes == 36864.0);
  CHECK(op(m, OpClass::tensor).weight_bytes == 198912.0);
  CHECK(op(m, OpClass::tensor).kernels == 6.0);
  // attention: QK^T and AV, 2 x 2 T^2 d = 16,384 FLOPs; bytes: QK^T reads Q, K (1024) and writes the scores
  // (256), scale/mask and softmax each read and write them (1024), AV reads them and V (768) and writes
  // T d (512): 3584 elements = 14,336 bytes; 4 kernels; no weights.
  CHECK(op(m, OpClass::attention).flops == 16384.0);
  CHECK(op(m, OpClass::attention).bytes == 14336.0);
  CHECK(op(m, OpClass::attention).weight_bytes == 0.0);
  CHECK(op(m, OpClass::attention).kernels == 4.0);
  // memory FLOPs: position lookup 512, add of input and positions 512; in the layer 2 LayerNorms 5*512
  // each, GELU 2048, 2 residual adds 512 each, score chain 7*256 = 1792; final LayerNorm 5*512:
  // 1024 + 5120 + 2048 + 1024 + 1792 + 2560 = 13,568.
  CHECK(op(m, OpClass::memory).flops == 13568.0);
  // memory bytes (elements read + written): lookup 512 + 512, add 1024 + 512, LayerNorms 2 x 1024, GELU
  // 4096, residual adds 2 x 1536, final LayerNorm 1024: 12,800 elements = 51,200 bytes; weights: three
  // LayerNorms of 2 d = 384 parameters = 1536 bytes; kernels 1 + 1 + 2 + 1 + 2 + 1 = 8.
  CHECK(op(m, OpClass::memory).bytes == 51200.0);
  CHECK(op(m, OpClass::memory).weight_bytes == 1536.0);
  CHECK(op(m, OpClass::memory).kernels == 8.0);
  CHECK(op(m, OpClass::vector).kernels == 0.0);
  // forward_flops = 2 (8 * 49152 + 2 * 8^2 * 64) = 2 * 401,408 = 802,816 = 786,432 + 16,384.
  CHECK(m.forward_flops == 802816.0);
}

TEST_CASE("Attention and grouped-convolution work land in their classes", "[models][zoo][ops]") {
  // BERT-large at 512: 24 layers x (QK^T + AV) = 24 * 2 * (2 * 512 * 512 * 1024) FLOPs per sample.
  CHECK(op(count_model("bert_large", 512), OpClass::attention).flops == 24.0 * 2 * (2.0 * 512 * 512 * 1024));
  // ResNet-50 has no grouped convolutions; MobileNetV2 and ShuffleNetV2 have depthwise ones.
  const ModelCount r50 = resnet(50, 224);
  CHECK(op(r50, OpClass::vector).flops == 0.0);
  CHECK(op(r50, OpClass::attention).flops == 0.0);
  CHECK(op(r50, OpClass::tensor).flops == r50.forward_flops);
  // One kernel per convolution / linear layer, and every ReLU, BN, pool and residual add in memory.
  CHECK(op(r50, OpClass::tensor).kernels == r50.weight_layers);
  CHECK(op(mobilenet_v2(), OpClass::vector).flops > 0.0);
  CHECK(op(shufflenet_v2(), OpClass::vector).flops > 0.0);
  CHECK(op(shufflenet_v2(32), OpClass::vector).flops > 0.0);
  // ResNet-18's stem: conv 7x7/2 to 64 x 112 x 112 reads the 3 x 224 x 224 image.
  // Memory kernels: stem BN, ReLU, max pool (3) + 8 blocks x (2 BN + ReLU + add + ReLU = 5) + 3
  // projection BNs + the average pool = 47.
  CHECK(op(resnet(18), OpClass::memory).kernels == 47.0);
}
