// Reading result datasets and attributes back.
#include "fleetwatt/results/result_reader.hpp"

#include <H5Cpp.h>

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace fleetwatt::results {

struct ResultReader::Impl {
  explicit Impl(const std::string& path) : file(path, H5F_ACC_RDONLY) {}
  H5::H5File file;
};

ResultReader::ResultReader(const std::filesystem::path& file) {
  H5::Exception::dontPrint();
  try {
    impl_ = std::make_unique<Impl>(file.string());
  } catch (const H5::Exception&) {
    throw std::runtime_error(fmt::format("{}: cannot open as an HDF5 file", file.string()));
  }
}

ResultReader::~ResultReader() = default;

bool ResultReader::has(const std::string& path) const {
  // Check each prefix: H5Lexists fails on a missing intermediate group.
  std::size_t pos = 0;
  while ((pos = path.find('/', pos + 1)) != std::string::npos)
    if (H5Lexists(impl_->file.getId(), path.substr(0, pos).c_str(), H5P_DEFAULT) <= 0) return false;
  return H5Lexists(impl_->file.getId(), path.c_str(), H5P_DEFAULT) > 0;
}

static H5::DataSet open_dataset(const H5::H5File& f, const std::string& path) {
  try {
    return f.openDataSet(path);
  } catch (const H5::Exception&) {
    throw std::runtime_error(fmt::format("no dataset {}", path));
  }
}

std::vector<double> ResultReader::doubles(const std::string& path) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  const auto n = static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints());
  std::vector<double> v(n);
  if (n) ds.read(v.data(), H5::PredType::NATIVE_DOUBLE);
  return v;
}

std::vector<std::int64_t> ResultReader::integers(const std::string& path) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  const auto n = static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints());
  std::vector<std::int64_t> v(n);
  if (n) ds.read(v.data(), H5::PredType::NATIVE_INT64);
  return v;
}

std::vector<std::string> ResultReader::strings(const std::string& path) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  const auto n = static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints());
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  std::vector<char*> raw(n, nullptr);
  if (n) ds.read(raw.data(), type);
  std::vector<std::string> out;
  for (char* p : raw) out.emplace_back(p ? p : "");
  if (n) {
    H5::DataSpace space = ds.getSpace();
    H5Dvlen_reclaim(type.getId(), space.getId(), H5P_DEFAULT, raw.data());
  }
  return out;
}

Matrix ResultReader::matrix(const std::string& path) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  H5::DataSpace space = ds.getSpace();
  if (space.getSimpleExtentNdims() != 2) throw std::runtime_error(fmt::format("{} is not 2-D", path));
  hsize_t dims[2];
  space.getSimpleExtentDims(dims);
  Matrix m;
  m.rows = dims[0];
  m.cols = dims[1];
  m.values.resize(m.rows * m.cols);
  if (!m.values.empty()) ds.read(m.values.data(), H5::PredType::NATIVE_DOUBLE);
  return m;
}

static H5::Attribute open_attribute(const H5::H5File& f, const std::string& object, const std::string& name) {
  try {
    if (object == "/") return f.openGroup("/").openAttribute(name);
    H5O_info_t info;
    H5Oget_info_by_name(f.getId(), object.c_str(), &info, H5P_DEFAULT);
    if (info.type == H5O_TYPE_DATASET) return f.openDataSet(object).openAttribute(name);
    return f.openGroup(object).openAttribute(name);
  } catch (const H5::Exception&) {
    throw std::runtime_error(fmt::format("no attribute {} on {}", name, object));
  }
}

std::string ResultReader::string_attribute(const std::string& object, const std::string& name) const {
  H5::Attribute a = open_attribute(impl_->file, object, name);
  H5std_string s;
  a.read(a.getStrType(), s);
  return s;
}

std::int64_t ResultReader::integer_attribute(const std::string& object, const std::string& name) const {
  H5::Attribute a = open_attribute(impl_->file, object, name);
  std::int64_t v = 0;
  a.read(H5::PredType::NATIVE_INT64, &v);
  return v;
}

static herr_t collect(hid_t, const char* name, const H5O_info_t* info, void* out) {
  if (info->type == H5O_TYPE_DATASET)
    static_cast<std::vector<std::string>*>(out)->push_back(std::string("/") + name);
  return 0;
}

std::vector<std::string> ResultReader::datasets() const {
  std::vector<std::string> out;
  H5Ovisit(impl_->file.getId(), H5_INDEX_NAME, H5_ITER_INC, collect, &out);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fleetwatt::results
