// Reading result datasets and attributes back.
#include "fleetwatt/results/hdf5/result_reader.hpp"

#include <H5Cpp.h>

#include "fleetwatt/results/hdf5/hdf5_error.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace fleetwatt::results {

struct ResultReader::Impl {
  explicit Impl(const std::string& path) : file(path, H5F_ACC_RDONLY) {}
  H5::H5File file;
};

ResultReader::ResultReader(const std::filesystem::path& file) {
  quiet_hdf5_errors();
  try {
    impl_ = std::make_unique<Impl>(file.string());
  } catch (const H5::Exception&) {
    // A system call's failure (no such file, no permission) says so; else HDF5 refused the content.
    const auto failure = last_hdf5_io_failure();
    throw ResultFileError(fmt::format("{}: cannot read it: {}", file.string(),
                                      failure ? failure->reason : "not an HDF5 file or damaged"));
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

std::vector<double> ResultReader::doubles(const std::string& path, std::size_t offset,
                                          std::size_t count) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  H5::DataSpace file_space = ds.getSpace();
  const auto n = static_cast<std::size_t>(file_space.getSimpleExtentNpoints());
  if (offset >= n) return {};
  const hsize_t take = std::min(count, n - offset);
  std::vector<double> v(take);
  if (take == 0) return v;
  hsize_t start[1] = {offset}, size[1] = {take};
  file_space.selectHyperslab(H5S_SELECT_SET, size, start);
  H5::DataSpace mem_space(1, size);
  ds.read(v.data(), H5::PredType::NATIVE_DOUBLE, mem_space, file_space);
  return v;
}

Matrix ResultReader::matrix_columns(const std::string& path, std::size_t col0, std::size_t ncols) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  H5::DataSpace file_space = ds.getSpace();
  if (file_space.getSimpleExtentNdims() != 2) throw std::runtime_error(fmt::format("{} is not 2-D", path));
  hsize_t dims[2];
  file_space.getSimpleExtentDims(dims);
  Matrix m;
  m.rows = dims[0];
  m.cols = col0 >= dims[1] ? 0 : std::min<std::size_t>(ncols, dims[1] - col0);
  m.values.resize(m.rows * m.cols);
  if (m.values.empty()) return m;
  hsize_t start[2] = {0, col0}, size[2] = {m.rows, m.cols};
  file_space.selectHyperslab(H5S_SELECT_SET, size, start);
  H5::DataSpace mem_space(2, size);
  ds.read(m.values.data(), H5::PredType::NATIVE_DOUBLE, mem_space, file_space);
  return m;
}

std::size_t ResultReader::length(const std::string& path) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  H5::DataSpace space = ds.getSpace();
  return space.getSimpleExtentNdims() == 0 ? 0 : static_cast<std::size_t>(space.getSimpleExtentNpoints());
}

ResultReader::Kind ResultReader::kind(const std::string& path) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  switch (ds.getTypeClass()) {
    case H5T_STRING:
      return Kind::text;
    case H5T_INTEGER:
      return Kind::integer;
    default:
      return Kind::real;
  }
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
  // Read in the file's character set (UTF-8 now, ASCII in older files): HDF5 converts no other way.
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(ds.getStrType().getCset());
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

std::vector<std::pair<std::string, ResultReader::Kind>> ResultReader::table_fields(
    const std::string& path) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  if (ds.getTypeClass() != H5T_COMPOUND) throw std::runtime_error(fmt::format("{} is not a table", path));
  const H5::CompType type = ds.getCompType();
  std::vector<std::pair<std::string, Kind>> out;
  for (int i = 0; i < type.getNmembers(); ++i) {
    const auto c = type.getMemberClass(static_cast<unsigned>(i));
    out.emplace_back(type.getMemberName(static_cast<unsigned>(i)), c == H5T_STRING    ? Kind::text
                                                                   : c == H5T_INTEGER ? Kind::integer
                                                                                      : Kind::real);
  }
  return out;
}

std::vector<std::string> ResultReader::table_strings(const std::string& path,
                                                     const std::string& field) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  const auto n = static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints());
  H5::StrType text(H5::PredType::C_S1, H5T_VARIABLE);
  text.setCset(H5T_CSET_UTF8);
  H5::CompType one(sizeof(char*));
  one.insertMember(field, 0, text);
  std::vector<char*> raw(n, nullptr);
  if (n) ds.read(raw.data(), one);
  std::vector<std::string> out;
  for (char* p : raw) out.emplace_back(p ? p : "");
  if (n) {
    H5::DataSpace space = ds.getSpace();
    H5Dvlen_reclaim(one.getId(), space.getId(), H5P_DEFAULT, raw.data());
  }
  return out;
}

std::vector<double> ResultReader::table_doubles(const std::string& path, const std::string& field) const {
  H5::DataSet ds = open_dataset(impl_->file, path);
  const auto n = static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints());
  H5::CompType one(sizeof(double));
  one.insertMember(field, 0, H5::PredType::NATIVE_DOUBLE);
  std::vector<double> out(n);
  if (n) ds.read(out.data(), one);
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

bool ResultReader::has_attribute(const std::string& object, const std::string& name) const {
  if (object != "/" && !has(object)) return false;
  try {
    (void)open_attribute(impl_->file, object, name);
    return true;
  } catch (const std::runtime_error&) {
    return false;
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

double ResultReader::double_attribute(const std::string& object, const std::string& name) const {
  H5::Attribute a = open_attribute(impl_->file, object, name);
  double v = 0;
  a.read(H5::PredType::NATIVE_DOUBLE, &v);
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
