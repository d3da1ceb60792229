// Model zoo counts against the published reference counts (torchvision / HuggingFace parameter totals, and
// the MACs at 224 x 224 reported by torchvision's model documentation and the fvcore/ptflops counters).
#include "fleetwatt/models/model_zoo.hpp"

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
