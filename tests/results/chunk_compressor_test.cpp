// Whole chunks compressed off the engine's thread and written directly (chunk_compressor.hpp): what HDF5
// reads back through the datasets' declared filters is exactly what was appended, for series and node
// matrices, with and without the byte shuffle, on a worker thread and without one, across chunk edges.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "chunk_compressor.hpp"
#include "hdf5_datasets.hpp"
#include "test_support.hpp"

using namespace fleetwatt;
using results::Packing;

namespace {
/// Values like a power series: levels that hold for a while, then change (so deflate has runs to find),
/// with fractions that use every byte of a double.
std::vector<double> series(std::size_t n, double scale) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * (1.0 + std::floor(static_cast<double>(i) / 37.0) / 7.0);
  return v;
}

std::vector<double> read_all(H5::DataSet& d) {
  H5::DataSpace space = d.getSpace();
  std::vector<hsize_t> dims(static_cast<std::size_t>(space.getSimpleExtentNdims()));
  space.getSimpleExtentDims(dims.data());
  std::size_t n = 1;
  for (auto x : dims) n *= x;
  std::vector<double> out(n);
  d.read(out.data(), H5::PredType::NATIVE_DOUBLE);
  return out;
}
}  // namespace

TEST_CASE("series appended through the compressor read back exactly, in whole chunks and tails",
          "[results][hdf5]") {
  const bool threaded = GENERATE(true, false);
  const Packing packing = GENERATE(Packing::shuffle_deflate, Packing::deflate);
  INFO("threaded " << threaded << ", shuffle " << (packing == Packing::shuffle_deflate));
  test::TempDir dir;
  const auto path = (dir / "s.h5").string();
  const std::vector<double> values = series(5000, 412.5);
  std::vector<std::uint32_t> gpus(5000);
  for (std::size_t i = 0; i < gpus.size(); ++i) gpus[i] = static_cast<std::uint32_t>((i * 7) % 4000);
  {
    H5::H5File file(path, H5F_ACC_TRUNC);
    H5::Group g = file.openGroup("/");
    results::ChunkCompressor z(threaded);
    results::AppendableSeries s(g, "power_W", H5::PredType::NATIVE_DOUBLE, "W", 1000, &z, packing);
    results::AppendableSeries u(g, "gpu", H5::PredType::NATIVE_UINT32, "1", 1000, &z, packing);
    // 2,500 (two whole chunks and a tail, padded, all written directly), 700 (not at a chunk's start:
    // through HDF5, which reads back the padded chunk, so it must be in the file by then), 800 (likewise,
    // ending on a chunk's edge), then 1,000 from a chunk's start (whole).
    std::size_t at = 0;
    for (std::size_t n : {2500u, 700u, 800u, 1000u}) {
      s.append(values.data() + at, n);
      u.append(gpus.data() + at, n);
      at += n;
    }
    CHECK(s.size() == 5000);
    z.finish();
    // Repeating values pack: the chunks written directly were compressed.
    CHECK(s.dataset().getStorageSize() < values.size() * sizeof(double) / 4);
  }
  H5::H5File file(path, H5F_ACC_RDONLY);
  H5::DataSet d = file.openDataSet("power_W");
  CHECK(d.getCreatePlist().getNfilters() == (packing == Packing::shuffle_deflate ? 2 : 1));
  CHECK(read_all(d) == values);
  std::vector<std::uint32_t> back(5000);
  file.openDataSet("gpu").read(back.data(), H5::PredType::NATIVE_UINT32);
  CHECK(back == gpus);
}

TEST_CASE("a node matrix appended through the compressor reads back exactly, edge rows and columns included",
          "[results][hdf5]") {
  const bool threaded = GENERATE(true, false);
  const Packing packing = GENERATE(Packing::shuffle_deflate, Packing::deflate);
  test::TempDir dir;
  const auto path = (dir / "m.h5").string();
  // 300 nodes in chunks of 256 rows (an edge band of 44) and 16 columns; five whole blocks, then 7 columns.
  constexpr std::size_t rows = 300, cols = 16;
  std::vector<double> full(rows * (5 * cols + 7));  // row-major, every column appended
  const std::size_t total_cols = 5 * cols + 7;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < total_cols; ++c)
      full[r * total_cols + c] =
          500.0 + static_cast<double>(r % 13) * 61.25 + static_cast<double>(c / 5) / 3.0;
  {
    H5::H5File file(path, H5F_ACC_TRUNC);
    H5::Group g = file.openGroup("/");
    results::ChunkCompressor z(threaded);
    results::AppendableMatrix m(g, "power_W", rows, "W", 256, cols, &z, packing);
    std::size_t at = 0;
    for (std::size_t width : {cols, cols, cols, cols, cols, std::size_t{7}}) {
      std::vector<double> block(rows * width);
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < width; ++c) block[r * width + c] = full[r * total_cols + at + c];
      m.append_columns(block.data(), width);
      at += width;
    }
    CHECK(m.columns() == total_cols);
    z.finish();
  }
  H5::H5File file(path, H5F_ACC_RDONLY);
  H5::DataSet d = file.openDataSet("power_W");
  CHECK(read_all(d) == full);
}

TEST_CASE("chunks dropped before they are written leave the dataset's extent unwritten, not corrupt",
          "[results][hdf5]") {
  test::TempDir dir;
  const auto path = (dir / "d.h5").string();
  H5::H5File file(path, H5F_ACC_TRUNC);
  H5::Group g = file.openGroup("/");
  results::ChunkCompressor z(true);
  results::AppendableSeries s(g, "x", H5::PredType::NATIVE_DOUBLE, "1", 100, &z, Packing::deflate);
  const auto values = series(1000, 1.0);
  s.append(values.data(), values.size());
  z.drop();  // an uncommitted file: nothing more is written, and nothing waits on the worker
  z.finish();
  CHECK(s.size() == 1000);
}
