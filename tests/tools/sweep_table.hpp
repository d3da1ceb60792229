// Reading columns of a sweep index's /sweep/members table (one compound dataset) in the tests, by name, the
// way h5py or pandas would.
#pragma once

#include <H5Cpp.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fleetwatt::test {

/// A text column of /sweep/members.
inline std::vector<std::string> sweep_text_column(const std::filesystem::path& index,
                                                  const std::string& column) {
  H5::H5File f(index.string(), H5F_ACC_RDONLY);
  H5::DataSet ds = f.openDataSet("/sweep/members");
  const auto n = static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints());
  H5::StrType text(H5::PredType::C_S1, H5T_VARIABLE);
  text.setCset(H5T_CSET_UTF8);
  H5::CompType one(sizeof(char*));
  one.insertMember(column, 0, text);
  std::vector<char*> raw(n, nullptr);
  if (n) ds.read(raw.data(), one);
  std::vector<std::string> out;
  for (char* p : raw) {
    out.emplace_back(p ? p : "");
    free(p);
  }
  return out;
}

/// A numeric column of /sweep/members (integers too), as doubles.
inline std::vector<double> sweep_number_column(const std::filesystem::path& index,
                                               const std::string& column) {
  H5::H5File f(index.string(), H5F_ACC_RDONLY);
  H5::DataSet ds = f.openDataSet("/sweep/members");
  const auto n = static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints());
  H5::CompType one(sizeof(double));
  one.insertMember(column, 0, H5::PredType::NATIVE_DOUBLE);
  std::vector<double> out(n);
  if (n) ds.read(out.data(), one);
  return out;
}

}  // namespace fleetwatt::test
