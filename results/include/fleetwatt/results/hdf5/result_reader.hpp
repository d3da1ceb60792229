// Reads fleetwatt result files back (tests, comparisons, users' own tools).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
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
  /// Values [offset, offset + count) of a 1-D numeric dataset (fewer at its end): long series in pieces.
  [[nodiscard]] std::vector<double> doubles(const std::string& path, std::size_t offset,
                                            std::size_t count) const;
  /// Columns [col0, col0 + ncols) of a 2-D dataset (fewer at its end), row-major rows x ncols.
  [[nodiscard]] Matrix matrix_columns(const std::string& path, std::size_t col0, std::size_t ncols) const;
  /// Values in a 1-D dataset (its length), or 0 for a scalar.
  [[nodiscard]] std::size_t length(const std::string& path) const;
  enum class Kind { text, integer, real };
  /// What a dataset holds: strings, integers or floating-point numbers.
  [[nodiscard]] Kind kind(const std::string& path) const;
  [[nodiscard]] std::vector<std::int64_t> integers(const std::string& path) const;
  [[nodiscard]] std::vector<std::string> strings(const std::string& path) const;
  [[nodiscard]] Matrix matrix(const std::string& path) const;
  /// Whether an object ("/" for the root) has the attribute.
  [[nodiscard]] bool has_attribute(const std::string& object, const std::string& name) const;
  /// A string attribute of an object ("/" for the root).
  [[nodiscard]] std::string string_attribute(const std::string& object, const std::string& name) const;
  [[nodiscard]] std::int64_t integer_attribute(const std::string& object, const std::string& name) const;
  [[nodiscard]] double double_attribute(const std::string& object, const std::string& name) const;
  /// The fields of a 1-D compound dataset (a table such as /sweep/members), in order, with what each holds.
  [[nodiscard]] std::vector<std::pair<std::string, Kind>> table_fields(const std::string& path) const;
  /// One text field of a table, one value per row.
  [[nodiscard]] std::vector<std::string> table_strings(const std::string& path,
                                                       const std::string& field) const;
  /// One numeric field of a table (integers too), as doubles.
  [[nodiscard]] std::vector<double> table_doubles(const std::string& path, const std::string& field) const;
  /// Every dataset path in the file, sorted.
  [[nodiscard]] std::vector<std::string> datasets() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fleetwatt::results
