// Data-parallel step arithmetic and data loading, by hand.
#include <catch2/catch.hpp>

#include "fleetwatt/models/training/training_io.hpp"

using namespace fleetwatt::models;
using fleetwatt::jobs::ModelMetadata;
using fleetwatt::jobs::Precision;

TEST_CASE("gradient bytes are params times bytes per element of the gradient precision") {
  ModelMetadata m;
  m.params = 25.6e6;  // ResNet-50
  TrainingIoConfig c;
  m.precision = Precision::fp32;
  CHECK(gradient_bytes(m, c) == Approx(25.6e6 * 4));
  m.precision = Precision::bf16;
  CHECK(gradient_bytes(m, c) == Approx(25.6e6 * 2));
  c.gradient_bytes = 4.0;  // fp32 gradient reduction forced
  CHECK(gradient_bytes(m, c) == Approx(25.6e6 * 4));
}

TEST_CASE("steps per epoch round the last partial batch up") {
  CHECK(steps_per_epoch(1281167, 256) == 5005);  // ImageNet-1k at batch 256: 5004.56 -> 5005
  CHECK(steps_per_epoch(100000, 256) == 391);
  CHECK(steps_per_epoch(0, 256) == 1);
}

TEST_CASE("communication hides behind backward up to the overlap fraction and the backward time") {
  // compute 0.3 s, backward = 2/3 of it = 0.2 s.
  CHECK(exposed_communication(0.3, 0.1, 0.7, 2.0 / 3) == Approx(0.1 - 0.07));  // overlap-limited
  CHECK(exposed_communication(0.3, 0.5, 0.7, 2.0 / 3) == Approx(0.5 - 0.2));   // backward-limited
  CHECK(exposed_communication(0.3, 0.1, 0.0, 2.0 / 3) == Approx(0.1));         // no overlap
}

TEST_CASE("one job alone reads at the full storage bandwidth, ten at once take ten times as long") {
  // 100,000 samples of 100 kB from 10 GB/s storage: 1 s alone; a tenth of the bandwidth each: 10 s.
  const double samples = 1e5, bytes = 1e5, storage = 10e9;
  const auto alone = epoch_loading(samples, bytes, storage, 1000, 1e6, 0.0, 0, 1);
  CHECK(alone.load_s == Approx(1.0));
  CHECK(alone.rate_samples_per_s == Approx(1e5));
  const auto shared = epoch_loading(samples, bytes, storage / 10, 1000, 1e6, 0.0, 0, 1);
  CHECK(shared.load_s == Approx(10.0));
}

TEST_CASE("decoding workers bound the loading rate") {
  // 8 workers x 150 samples/s = 1200 samples/s, far below what storage delivers.
  const auto l = epoch_loading(120000, 1e5, 10e9, 8, 150, 0.0, 0, 1);
  CHECK(l.rate_samples_per_s == Approx(1200));
  CHECK(l.load_s == Approx(100.0));
}

TEST_CASE("prefetching hides loading under compute except the pipeline fill") {
  // Loading 100 s; compute 150 s over 100 steps: only the first batch (1 s) is exposed. Without prefetch
  // all 100 s are. With compute 60 s, the 40 s excess is exposed too.
  CHECK(epoch_loading(120000, 1e5, 10e9, 8, 150, 150.0, 2, 100).exposed_s == Approx(1.0));
  CHECK(epoch_loading(120000, 1e5, 10e9, 8, 150, 150.0, 0, 100).exposed_s == Approx(100.0));
  CHECK(epoch_loading(120000, 1e5, 10e9, 8, 150, 60.0, 2, 100).exposed_s == Approx(41.0));
}

TEST_CASE("sample and checkpoint sizes follow the documented rules") {
  ModelMetadata m;
  TrainingIoConfig c;
  m.input_size = 224;
  CHECK(bytes_per_sample(m, c) == Approx(3 * 224 * 224 * 0.2));
  m.input_size = 2048;  // a sequence of tokens
  CHECK(bytes_per_sample(m, c) == Approx(4 * 2048));
  m.input_size = 512;
  m.model = "bert-base";  // a language model reads token ids at any length
  CHECK(bytes_per_sample(m, c) == Approx(4 * 512));
  c.bytes_per_sample = 110e3;
  CHECK(bytes_per_sample(m, c) == Approx(110e3));
  m.params = 1e9;
  CHECK(checkpoint_bytes(m, c) == Approx(12e9));  // fp32 weights + two Adam moments
}
