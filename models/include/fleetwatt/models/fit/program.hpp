// Symbolic-regression programs: expression trees in prefix order (gplearn's representation), their compiled
// postfix form evaluated over Eigen arrays, simplification, readable printing, and parsing back from text.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetwatt::models::fit {

/// Function set (gplearn's, with protected division, log, sqrt and inverse), then terminals.
enum class Op : std::uint8_t {
  add,
  sub,
  mul,
  div,
  sqrt,
  log,
  abs,
  neg,
  inv,
  sig,
  sin,
  cos,
  tan,  // functions
  var,
  cst  // terminals
};

inline constexpr int op_function_count = 13;

[[nodiscard]] int arity(Op op) noexcept;
/// Name used in formulas ("add", "div", "log", "sig", ...).
[[nodiscard]] std::string_view op_name(Op op) noexcept;
/// The function with this name (also "sigmoid" for sig), or nothing.
[[nodiscard]] std::optional<Op> op_from_name(std::string_view name) noexcept;

struct Node {
  Op op = Op::cst;
  std::uint16_t var = 0;  ///< feature index for Op::var
  double value = 0.0;     ///< constant for Op::cst

  friend bool operator==(const Node&, const Node&) = default;
};

/// A program in prefix order: every function node is followed by its arguments' subtrees.
using Program = std::vector<Node>;

/// End (one past the last node) of the subtree starting at `start`.
[[nodiscard]] std::size_t subtree_end(const Program& p, std::size_t start) noexcept;
/// Depth of the program (a lone terminal has depth 0, as in gplearn).
[[nodiscard]] int depth(const Program& p);
/// Whether `p` is one complete tree.
[[nodiscard]] bool is_valid(const Program& p) noexcept;

/// Scalar semantics of each function, protected as in gplearn: div and inv return 1 and 0 when the
/// divisor's magnitude is at most 0.001, log returns 0 there and takes |x|, sqrt takes |x|.
[[nodiscard]] double apply(Op op, double a, double b = 0.0) noexcept;

/// A program compiled for fast evaluation over many rows: postfix instructions and a preallocated stack of
/// Eigen arrays. Not thread-safe; give each thread its own evaluator.
class Evaluator {
 public:
  /// `x` holds one row per sample, one column per feature; it must outlive the evaluator.
  explicit Evaluator(const Eigen::MatrixXd& x);

  /// Evaluates `p` on every row; the result stays valid until the next call.
  const Eigen::ArrayXd& evaluate(const Program& p);
  /// Evaluates the subtree p[begin, end) (one complete tree) on every row.
  const Eigen::ArrayXd& evaluate(const Program& p, std::size_t begin, std::size_t end);
  [[nodiscard]] Eigen::Index rows() const noexcept { return x_.rows(); }

 private:
  const Eigen::MatrixXd& x_;
  std::vector<Eigen::ArrayXd> stack_;
  std::vector<Node> postfix_;
};

/// Value of `p` on a single row of features.
[[nodiscard]] double evaluate_row(const Program& p, const double* features) noexcept;

/// Constant folding and identities that hold for every input (neg(neg x) = x, x + 0, x * 1, x - x = 0, ...).
[[nodiscard]] Program simplify(const Program& p);

/// Readable infix text: +, -, * and unary minus for add, sub, mul and neg; the protected and other
/// functions by name (div(a, b), log(x), sqrt(x), inv(x), sig(x), ...). Feature names that are not plain
/// identifiers are written in backquotes.
[[nodiscard]] std::string to_formula(const Program& p, const std::vector<std::string>& feature_names);

/// How deep parse_formula lets signs, parentheses and function calls nest before it refuses the formula.
inline constexpr int kMaxFormulaNesting = 256;

/// Error of parse_formula: a message and the 1-based character offset of the offending token.
struct FormulaError {
  std::string message;
  std::size_t offset = 0;
  std::string token;
};

/// Parses text written by to_formula (or by hand: + - * /, unary minus, parentheses, numbers, the function
/// names, feature names). Returns the program, or the first error.
[[nodiscard]] Program parse_formula(std::string_view text, const std::vector<std::string>& feature_names,
                                    FormulaError* error);

}  // namespace fleetwatt::models::fit
