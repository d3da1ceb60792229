// Reads fleetwatt result files back (tests, comparisons, users' own tools).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace fleetwatt::results {

/// A 2-D dataset, row-major.
struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;
  [[nodiscard]] double at(std::size_t r, std::size_t c) const { return values[r * cols + c]; }
};

class ResultReader {
 public:
  explicit ResultReader(const std::filesystem::path& file);
  ~ResultReader();
  ResultReader(const ResultReader&) = delete;
  ResultReader& operator=(const ResultReader&) = delete;

  [[nodiscard]] bool has(const std::string& path) const;
  /// A 1-D numeric dataset (any integer or float type) as doubles.
  [[nodiscard]] std::vector<double> doubles(const std::string& path) const;
  [[nodiscard]] std::vector<std::int64_t> integers(const std::string& path) const;
  [[nodiscard]] std::vector<std::string> strings(const std::string& path) const;
  [[nodiscard]] Matrix matrix(const std::string& path) const;
  /// A string attribute of an object ("/" for the root).
  [[nodiscard]] std::string string_attribute(const std::string& object, const std::string& name) const;
  [[nodiscard]] std::int64_t integer_attribute(const std::string& object, const std::string& name) const;
  /// Every dataset path in the file, sorted.
  [[nodiscard]] std::vector<std::string> datasets() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fleetwatt::results
