// Tests of symbolic-regression programs: gplearn's protected semantics, the compiled evaluator, printing
// and parsing formulas, simplification.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/models/fit/program.hpp"
#include "fleetwatt/models/fit/symbolic_regression.hpp"

using namespace fleetwatt::models::fit;

namespace {
Node f(Op op) {
  return Node{op, 0, 0.0};
}
Node v(int i) {
  return Node{Op::var, static_cast<std::uint16_t>(i), 0.0};
}
Node c(double x) {
  return Node{Op::cst, 0, x};
}
}  // namespace

TEST_CASE("protected functions follow gplearn's definitions", "[program]") {
  // gplearn: div -> 1 and inv -> 0 when |divisor| <= 0.001; log(|x|), 0 there; sqrt(|x|).
  CHECK(apply(Op::div, 3.0, 0.0005) == 1.0);
  CHECK(apply(Op::div, 3.0, 2.0) == 1.5);
  CHECK(apply(Op::inv, 0.0001) == 0.0);
  CHECK(apply(Op::inv, 4.0) == 0.25);
  CHECK(apply(Op::log, 0.0) == 0.0);
  CHECK(apply(Op::log, -std::exp(1.0)) == Approx(1.0));
  CHECK(apply(Op::sqrt, -4.0) == 2.0);
  CHECK(apply(Op::sig, 0.0) == 0.5);
  CHECK(apply(Op::neg, 2.0) == -2.0);
}

TEST_CASE("the compiled evaluator agrees with the row-by-row interpreter on random programs", "[program]") {
  fleetwatt::jobs::Random rng(4);
  Eigen::MatrixXd x(50, 3);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform(-3, 3);
  Evaluator ev(x);
  GpConfig cfg;
  for (std::uint64_t s = 0; s < 200; ++s) {
    const Program p = random_program(cfg, 3, s);
    REQUIRE(is_valid(p));
    const Eigen::ArrayXd out = ev.evaluate(p);
    for (Eigen::Index i = 0; i < x.rows(); i += 7) {
      const Eigen::RowVectorXd row = x.row(i);
      const double expect = evaluate_row(p, row.data());
      if (std::isfinite(expect)) CHECK(out(i) == Approx(expect).epsilon(1e-12).margin(1e-12));
    }
  }
}

TEST_CASE("a hand-built program evaluates to its closed form", "[program]") {
  // 3 * log(x0) + x1 * x1, in prefix order.
  const Program p{f(Op::add), f(Op::mul), c(3.0), f(Op::log), v(0), f(Op::mul), v(1), v(1)};
  Eigen::MatrixXd x(2, 2);
  x << 2.0, 3.0, 10.0, 0.5;
  const Eigen::VectorXd y = predict(p, x);
  CHECK(y(0) == Approx(3 * std::log(2.0) + 9));
  CHECK(y(1) == Approx(3 * std::log(10.0) + 0.25));
  CHECK(depth(p) == 3);
  CHECK(to_formula(p, {"x1", "x2"}) == "3 * log(x1) + x2 * x2");
}

TEST_CASE("formulas print and parse back to programs with identical values", "[program]") {
  GpConfig cfg;
  const std::vector<std::string> names{"flops", "batch size", "x"};
  fleetwatt::jobs::Random rng(8);
  Eigen::MatrixXd x(20, 3);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform(-2, 2);
  for (std::uint64_t s = 0; s < 300; ++s) {
    const Program p = random_program(cfg, 3, 1000 + s);
    const std::string text = to_formula(p, names);
    FormulaError err;
    const Program q = parse_formula(text, names, &err);
    INFO(text << " -> " << err.message);
    REQUIRE(!q.empty());
    const Eigen::VectorXd a = predict(p, x), b = predict(q, x);
    for (Eigen::Index i = 0; i < a.size(); ++i)
      if (std::isfinite(a(i))) CHECK(b(i) == Approx(a(i)).epsilon(1e-12).margin(1e-12));
  }
}

TEST_CASE("formula errors name the offending token and its position", "[program]") {
  FormulaError err;
  CHECK(parse_formula("x + foo(x)", {"x"}, &err).empty());
  CHECK_THAT(err.message, Catch::Contains("unknown function 'foo'"));
  CHECK(err.offset == 5);
  CHECK(parse_formula("x * y", {"x"}, &err).empty());
  CHECK_THAT(err.message, Catch::Contains("unknown feature 'y'"));
  CHECK(err.offset == 5);
  CHECK(parse_formula("div(x)", {"x"}, &err).empty());
  CHECK_THAT(err.message, Catch::Contains("expected ','"));
  CHECK(parse_formula("(x + 1", {"x"}, &err).empty());
  CHECK_THAT(err.message, Catch::Contains("expected ')'"));
  CHECK(parse_formula("x $ 2", {"x"}, &err).empty());
  CHECK(err.offset == 3);
  // Hand-written conveniences: '/' is protected division, sigmoid is sig.
  const Program p = parse_formula("`batch size` / 2 + sigmoid(0)", {"batch size"}, &err);
  REQUIRE(!p.empty());
  double row[1] = {8.0};
  CHECK(evaluate_row(p, row) == Approx(4.5));
}

TEST_CASE("a formula nested beyond the parser's limit is refused, not a stack overflow", "[program]") {
  // 1,000,000 '(' or '-' used to recurse once per character and overflow the
  // stack (SIGSEGV) when a model file held such a formula.
  FormulaError err;
  const std::string deep(1000000, '(');
  CHECK(parse_formula(deep + "x", {"x"}, &err).empty());
  CHECK(err.message == "the formula nests deeper than 256 levels");
  // The formula itself is level 1 (read at offset 1), the k-th '(' opens level k + 1 at offset k + 1: the
  // 257th level, one too many, begins at offset 257.
  CHECK(err.offset == 257);
  CHECK(parse_formula(std::string(1000000, '-') + "x", {"x"}, &err).empty());
  CHECK(err.message == "the formula nests deeper than 256 levels");
  // 255 parentheses around x: 256 levels with the formula itself, the most that is accepted.
  const Program ok = parse_formula(std::string(255, '(') + "x" + std::string(255, ')'), {"x"}, &err);
  REQUIRE(!ok.empty());
  double row[1] = {3.0};
  CHECK(evaluate_row(ok, row) == 3.0);
}

TEST_CASE("simplification leaves two constants whose sum or product overflows as they are", "[program]") {
  // Found by fuzzing (fuzz/formula): 1e308 + 1e308 does not fold (inf), and the rule x + c -> c + x swapped
  // the two constants back and forth until the stack overflowed (SIGSEGV); the same for a product.
  const std::vector<std::string> n{"a"};
  FormulaError err;
  CHECK(to_formula(simplify(parse_formula("1e308 + 1e308", n, &err)), n) == "1e+308 + 1e+308");
  CHECK(to_formula(simplify(parse_formula("1e308 * 1e308", n, &err)), n) == "1e+308 * 1e+308");
  // Simplified to 1e308 * (1e308 * a): the brackets stay, as (1e308 * 1e308) * a is another number.
  CHECK(to_formula(simplify(parse_formula("a * 1e308 * 1e308", n, &err)), n) == "1e+308 * (1e+308 * a)");
}

TEST_CASE("a printed formula keeps the grouping of a right operand of the same precedence", "[program]") {
  // Found by fuzzing (fuzz/formula, CI smoke of 2026-11-24): a + (b - c) printed as a + b - c, which the
  // parser reads as (a + b) - c. In floating point that is another number: with b = 1e308 and c = 1e308,
  // 4 + (1e308 - 1e308) = 4 but (4 + 1e308) - 1e308 = 0 (the 4 is absorbed).
  const std::vector<std::string> n{"a"};
  FormulaError err;
  const Program p = parse_formula("4 + (1e308 - 1e308)", n, &err);
  REQUIRE(!p.empty());
  const double row[1] = {0.0};
  CHECK(evaluate_row(p, row) == 4.0);
  const std::string text = to_formula(p, n);
  CHECK(text == "4 + (1e+308 - 1e+308)");
  CHECK(evaluate_row(parse_formula(text, n, &err), row) == 4.0);
  // The same for a product's right operand; left operands need no brackets.
  CHECK(to_formula(parse_formula("a * (2 * a)", n, &err), n) == "a * (2 * a)");
  CHECK(to_formula(parse_formula("a - (a - 1)", n, &err), n) == "a - (a - 1)");
  CHECK(to_formula(parse_formula("(a - 1) - a", n, &err), n) == "a - 1 - a");
}

TEST_CASE("simplification folds constants and removes identities", "[program]") {
  const std::vector<std::string> n{"a"};
  CHECK(to_formula(simplify({f(Op::add), v(0), f(Op::mul), c(2.0), c(0.0)}), n) == "a");
  CHECK(to_formula(simplify({f(Op::neg), f(Op::neg), v(0)}), n) == "a");
  CHECK(to_formula(simplify({f(Op::mul), f(Op::add), c(1.0), c(2.0), v(0)}), n) == "3 * a");
  CHECK(to_formula(simplify({f(Op::sub), v(0), v(0)}), n) == "0");
  CHECK(to_formula(simplify({f(Op::log), f(Op::abs), v(0)}), n) == "log(a)");
  CHECK(to_formula(simplify({f(Op::div), v(0), c(1.0)}), n) == "a");
  // An affine chain folds to one offset and one factor: 2 + 3 * (-4 + a) = -10 + 3 * a; (a - 1) * 2 * 5
  // = -10 + 10 * a; 2 * -(3 * a) = -6 * a.
  CHECK(to_formula(simplify({f(Op::add), c(2.0), f(Op::mul), c(3.0), f(Op::add), c(-4.0), v(0)}), n) ==
        "(-10) + 3 * a");
  CHECK(to_formula(simplify({f(Op::mul), f(Op::mul), f(Op::sub), v(0), c(1.0), c(2.0), c(5.0)}), n) ==
        "(-10) + 10 * a");
  CHECK(to_formula(simplify({f(Op::mul), c(2.0), f(Op::neg), f(Op::mul), c(3.0), v(0)}), n) == "(-6) * a");
  // A constant divisor outside the protected band is a factor; inside it, div is 1 and stays as written.
  CHECK(to_formula(simplify({f(Op::div), v(0), c(4.0)}), n) == "0.25 * a");
  CHECK(to_formula(simplify({f(Op::div), v(0), c(0.0005)}), n) == "div(a, 5e-04)");
}
