// Extendible HDF5 datasets with chunking, deflate (after a byte shuffle or alone), and units attributes.
#include <algorithm>
#include <cstring>

#include "chunk_compressor.hpp"
#include "hdf5_datasets.hpp"

namespace fleetwatt::results {

namespace {
/// Variable-length strings in UTF-8: h5py reads them back as `str` (`.asstr()` for datasets), whatever the
/// text (job classes, node group names and the scenario may be non-ASCII).
H5::StrType utf8_string() {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  return type;
}

H5::DSetCreatPropList compressed(int rank, const hsize_t* chunk, Packing packing = Packing::shuffle_deflate) {
  H5::DSetCreatPropList p;
  p.setChunk(rank, chunk);
  if (packing == Packing::shuffle_deflate) p.setShuffle();
  // Level 1 deflate: most of the size win of higher levels at a fraction of the time.
  p.setDeflate(1);
  // Every chunk is written in full, so HDF5 need not pre-fill it.
  p.setFillTime(H5D_FILL_TIME_NEVER);
  return p;
}
/// Access properties of a dataset that only grows at its end: a chunk cache of one chunk. Appends fill one
/// chunk after another and never come back to a full one, so one is all they need; HDF5's default of 1 MB
/// per dataset would otherwise fill with finished chunks, which with the job table's forty columns is tens
/// of MB that grow with the run until the cache is full.
H5::DSetAccPropList append_only(hsize_t chunk, std::size_t value_bytes) {
  H5::DSetAccPropList p;
  p.setChunkCache(101, static_cast<std::size_t>(chunk) * value_bytes, 1.0);
  return p;
}
// Writes n rows after a 1-D dataset's `size` rows, through HDF5's filters (the extent already holds them).
void write_rows(H5::DataSet& dataset, hsize_t size, const void* data, const H5::DataType& type, hsize_t n) {
  H5::DataSpace file_space = dataset.getSpace();
  hsize_t offset[1] = {size}, count[1] = {n};
  file_space.selectHyperslab(H5S_SELECT_SET, count, offset);
  H5::DataSpace mem_space(1, count);
  dataset.write(data, type, mem_space, file_space);
}
// Grows a 1-D extendible dataset by n rows and writes them after its `size` rows (then counted in `size`).
void append_rows(H5::DataSet& dataset, hsize_t& size, const void* data, const H5::DataType& type, hsize_t n) {
  if (n == 0) return;
  hsize_t new_size[1] = {size + n};
  dataset.extend(new_size);
  write_rows(dataset, size, data, type, n);
  size += n;
}
}  // namespace

void write_string_attribute(H5::H5Object& obj, const std::string& name, const std::string& value) {
  const H5::StrType type = utf8_string();
  H5::Attribute a = obj.createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
  a.write(type, H5std_string(value));
}

void write_int_attribute(H5::H5Object& obj, const std::string& name, std::int64_t value) {
  H5::Attribute a = obj.createAttribute(name, H5::PredType::NATIVE_INT64, H5::DataSpace(H5S_SCALAR));
  a.write(H5::PredType::NATIVE_INT64, &value);
}

void write_double_attribute(H5::H5Object& obj, const std::string& name, double value) {
  H5::Attribute a = obj.createAttribute(name, H5::PredType::NATIVE_DOUBLE, H5::DataSpace(H5S_SCALAR));
  a.write(H5::PredType::NATIVE_DOUBLE, &value);
}

AppendableSeries::AppendableSeries(H5::Group& group, const std::string& name, const H5::PredType& type,
                                   const std::string& units, hsize_t chunk, ChunkCompressor* compressor,
                                   Packing packing)
    : type_(type), chunk_(chunk), compressor_(compressor), packing_(packing) {
  hsize_t dims[1] = {0}, maxdims[1] = {H5S_UNLIMITED};
  H5::DataSpace space(1, dims, maxdims);
  dataset_ = group.createDataSet(name, type, space, compressed(1, &chunk, packing),
                                 append_only(chunk, type.getSize()));
  write_string_attribute(dataset_, "units", units);
}

void AppendableSeries::append(const void* data, hsize_t n) {
  if (n == 0) return;
  if (!compressor_ || size_ % chunk_ != 0) {
    // HDF5 reads back the chunk it writes into: every chunk queued for a direct write must be in the file.
    if (compressor_) compressor_->finish();
    append_rows(dataset_, size_, data, type_, n);
    return;
  }
  // From a chunk's start: every chunk, the last padded with zeros past the extent, compressed by the
  // compressor and written directly.
  hsize_t new_size[1] = {size_ + n};
  dataset_.extend(new_size);
  const std::size_t value_bytes = type_.getSize(), chunk_bytes = chunk_ * value_bytes;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (hsize_t k = 0; k < n; k += chunk_) {
    const std::size_t used = std::min(chunk_, n - k) * value_bytes;
    auto values = compressor_->buffer(chunk_bytes);
    std::memcpy(values.data(), bytes + k * value_bytes, used);
    std::memset(values.data() + used, 0, chunk_bytes - used);
    compressor_->submit(dataset_.getId(), {size_ + k, 0}, std::move(values),
                        packing_ == Packing::shuffle_deflate ? value_bytes : 0);
  }
  size_ += n;
}

AppendableStrings::AppendableStrings(H5::Group& group, const std::string& name, const std::string& units,
                                     hsize_t chunk)
    : type_(utf8_string()) {
  hsize_t dims[1] = {0}, maxdims[1] = {H5S_UNLIMITED};
  H5::DataSpace space(1, dims, maxdims);
  H5::DSetCreatPropList p;
  p.setChunk(1, &chunk);
  dataset_ = group.createDataSet(name, type_, space, p, append_only(chunk, type_.getSize()));
  write_string_attribute(dataset_, "units", units);
}

void AppendableStrings::append(const std::vector<std::string>& values) {
  if (values.empty()) return;
  std::vector<const char*> ptrs;
  ptrs.reserve(values.size());
  for (const auto& v : values) ptrs.push_back(v.c_str());
  append_rows(dataset_, size_, ptrs.data(), type_, values.size());
}

AppendableMatrix::AppendableMatrix(H5::Group& group, const std::string& name, hsize_t rows,
                                   const std::string& units, hsize_t chunk_rows, hsize_t chunk_cols,
                                   ChunkCompressor* compressor, Packing packing)
    : rows_(rows),
      chunk_rows_(std::max<hsize_t>(1, std::min(rows, chunk_rows))),
      chunk_cols_(std::max<hsize_t>(1, chunk_cols)),
      compressor_(compressor),
      packing_(packing) {
  hsize_t dims[2] = {rows, 0}, maxdims[2] = {rows, H5S_UNLIMITED};
  H5::DataSpace space(2, dims, maxdims);
  hsize_t chunk[2] = {chunk_rows_, chunk_cols_};
  dataset_ = group.createDataSet(name, H5::PredType::NATIVE_DOUBLE, space, compressed(2, chunk, packing));
  write_string_attribute(dataset_, "units", units);
}

void AppendableMatrix::append_columns(const double* block, hsize_t cols) {
  if (cols == 0) return;
  hsize_t new_size[2] = {rows_, cols_ + cols};
  dataset_.extend(new_size);
  if (compressor_ && cols_ % chunk_cols_ == 0 && cols <= chunk_cols_) {
    // Up to one chunk's columns from a chunk's start: each band of chunk_rows_ rows is a chunk, padded with
    // zeros past the extent (the last band's rows, a last block's columns).
    constexpr std::size_t value_bytes = sizeof(double);
    const std::size_t row_bytes = cols * value_bytes, chunk_row_bytes = chunk_cols_ * value_bytes;
    for (hsize_t r = 0; r < rows_; r += chunk_rows_) {
      auto values = compressor_->buffer(chunk_rows_ * chunk_row_bytes);
      const hsize_t band = std::min(chunk_rows_, rows_ - r);
      unsigned char* out = values.data();
      for (hsize_t i = 0; i < band; ++i, out += chunk_row_bytes) {
        std::memcpy(out, block + (r + i) * cols, row_bytes);
        if (row_bytes < chunk_row_bytes) std::memset(out + row_bytes, 0, chunk_row_bytes - row_bytes);
      }
      std::memset(out, 0, static_cast<std::size_t>(values.data() + values.size() - out));
      compressor_->submit(dataset_.getId(), {r, cols_}, std::move(values),
                          packing_ == Packing::shuffle_deflate ? value_bytes : 0);
    }
    cols_ += cols;
    return;
  }
  if (compressor_) compressor_->finish();  // HDF5 reads back the chunks it writes into (see append)
  H5::DataSpace file_space = dataset_.getSpace();
  hsize_t offset[2] = {0, cols_}, count[2] = {rows_, cols};
  file_space.selectHyperslab(H5S_SELECT_SET, count, offset);
  H5::DataSpace mem_space(2, count);
  dataset_.write(block, H5::PredType::NATIVE_DOUBLE, mem_space, file_space);
  cols_ += cols;
}

template <class T>
static void write_plain(H5::Group& group, const std::string& name, const std::vector<T>& v,
                        const H5::PredType& type, const std::string& units) {
  hsize_t dims[1] = {v.size()};
  H5::DataSpace space(1, dims);
  H5::DataSet ds = v.empty() ? group.createDataSet(name, type, space) : [&] {
    hsize_t chunk[1] = {std::min<hsize_t>(v.size(), 65536)};
    return group.createDataSet(name, type, space, compressed(1, chunk));
  }();
  if (!v.empty()) ds.write(v.data(), type);
  write_string_attribute(ds, "units", units);
}

void write_vector(H5::Group& group, const std::string& name, const std::vector<double>& v,
                  const std::string& units) {
  write_plain(group, name, v, H5::PredType::NATIVE_DOUBLE, units);
}

void write_vector(H5::Group& group, const std::string& name, const std::vector<std::int64_t>& v,
                  const std::string& units) {
  write_plain(group, name, v, H5::PredType::NATIVE_INT64, units);
}

void write_strings(H5::Group& group, const std::string& name, const std::vector<std::string>& v,
                   const std::string& units) {
  const H5::StrType type = utf8_string();
  hsize_t dims[1] = {v.size()};
  H5::DataSet ds = group.createDataSet(name, type, H5::DataSpace(1, dims));
  std::vector<const char*> ptrs;
  ptrs.reserve(v.size());
  for (const auto& s : v) ptrs.push_back(s.c_str());
  if (!v.empty()) ds.write(ptrs.data(), type);
  write_string_attribute(ds, "units", units);
}

void write_scalar(H5::Group& group, const std::string& name, std::int64_t v, const std::string& units) {
  H5::DataSet ds = group.createDataSet(name, H5::PredType::NATIVE_INT64, H5::DataSpace(H5S_SCALAR));
  ds.write(&v, H5::PredType::NATIVE_INT64);
  write_string_attribute(ds, "units", units);
}

void write_scalar(H5::Group& group, const std::string& name, double v, const std::string& units) {
  H5::DataSet ds = group.createDataSet(name, H5::PredType::NATIVE_DOUBLE, H5::DataSpace(H5S_SCALAR));
  ds.write(&v, H5::PredType::NATIVE_DOUBLE);
  write_string_attribute(ds, "units", units);
}

}  // namespace fleetwatt::results
