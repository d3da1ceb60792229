// Programs of the symbolic regression: structure helpers, protected scalar semantics, the compiled postfix
// evaluator over Eigen arrays, simplification, printing and parsing of formulas.
#include "fleetwatt/models/fit/program.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <functional>

namespace fleetwatt::models::fit {

namespace {
constexpr double kProtect = 0.001;  // gplearn's closeness-to-zero guard
}

int arity(Op op) noexcept {
  switch (op) {
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
      return 2;
    case Op::var:
    case Op::cst:
      return 0;
    default:
      return 1;
  }
}

std::string_view op_name(Op op) noexcept {
  static constexpr std::string_view names[] = {"add", "sub", "mul", "div", "sqrt", "log", "abs",  "neg",
                                               "inv", "sig", "sin", "cos", "tan",  "var", "const"};
  return names[static_cast<int>(op)];
}

std::optional<Op> op_from_name(std::string_view name) noexcept {
  if (name == "sigmoid") return Op::sig;
  for (int i = 0; i < op_function_count; ++i)
    if (op_name(static_cast<Op>(i)) == name) return static_cast<Op>(i);
  return std::nullopt;
}

std::size_t subtree_end(const Program& p, std::size_t start) noexcept {
  int need = 1;
  std::size_t i = start;
  while (need > 0 && i < p.size()) {
    need += arity(p[i].op) - 1;
    ++i;
  }
  return i;
}

int depth(const Program& p) {
  std::vector<int> open;  // remaining arguments of each open function
  int d = 0;
  for (const Node& n : p) {
    if (arity(n.op) > 0) {
      open.push_back(arity(n.op));
      d = std::max(d, static_cast<int>(open.size()));
    } else {
      while (!open.empty() && --open.back() == 0) open.pop_back();
    }
  }
  return d;
}

bool is_valid(const Program& p) noexcept {
  return !p.empty() && subtree_end(p, 0) == p.size() && [&] {
    int need = 1;
    for (const Node& n : p) {
      if (need <= 0) return false;
      need += arity(n.op) - 1;
    }
    return need == 0;
  }();
}

double apply(Op op, double a, double b) noexcept {
  switch (op) {
    case Op::add:
      return a + b;
    case Op::sub:
      return a - b;
    case Op::mul:
      return a * b;
    case Op::div:
      return std::abs(b) > kProtect ? a / b : 1.0;
    case Op::sqrt:
      return std::sqrt(std::abs(a));
    case Op::log:
      return std::abs(a) > kProtect ? std::log(std::abs(a)) : 0.0;
    case Op::abs:
      return std::abs(a);
    case Op::neg:
      return -a;
    case Op::inv:
      return std::abs(a) > kProtect ? 1.0 / a : 0.0;
    case Op::sig:
      return 1.0 / (1.0 + std::exp(-a));
    case Op::sin:
      return std::sin(a);
    case Op::cos:
      return std::cos(a);
    case Op::tan:
      return std::tan(a);
    case Op::var:
    case Op::cst:
      break;
  }
  return 0.0;
}

Evaluator::Evaluator(const Eigen::MatrixXd& x) : x_(x) {}

const Eigen::ArrayXd& Evaluator::evaluate(const Program& p) {
  return evaluate(p, 0, p.size());
}

const Eigen::ArrayXd& Evaluator::evaluate(const Program& p, std::size_t begin, std::size_t end) {
  // Postfix = the prefix program read backwards: arguments come before their function, and a binary
  // function finds its left argument on top of the stack.
  postfix_.assign(std::make_reverse_iterator(p.begin() + static_cast<std::ptrdiff_t>(end)),
                  std::make_reverse_iterator(p.begin() + static_cast<std::ptrdiff_t>(begin)));
  const Eigen::Index n = x_.rows();
  std::size_t sp = 0;
  for (const Node& node : postfix_) {
    if (arity(node.op) == 0) {
      if (stack_.size() <= sp) stack_.emplace_back(n);
      auto& top = stack_[sp++];
      if (node.op == Op::var)
        top = x_.col(node.var).array();
      else
        top.setConstant(n, node.value);
      continue;
    }
    auto& a = stack_[sp - 1];
    switch (node.op) {
      case Op::sqrt:
        a = a.abs().sqrt();
        break;
      case Op::log:
        a = (a.abs() > kProtect).select(a.abs().log(), 0.0);
        break;
      case Op::abs:
        a = a.abs();
        break;
      case Op::neg:
        a = -a;
        break;
      case Op::inv:
        a = (a.abs() > kProtect).select(a.inverse(), 0.0);
        break;
      case Op::sig:
        a = (1.0 + (-a).exp()).inverse();
        break;
      case Op::sin:
        a = a.sin();
        break;
      case Op::cos:
        a = a.cos();
        break;
      case Op::tan:
        a = a.tan();
        break;
      default: {
        auto& b = stack_[sp - 2];  // right argument; the result goes here
        switch (node.op) {
          case Op::add:
            b = a + b;
            break;
          case Op::sub:
            b = a - b;
            break;
          case Op::mul:
            b = a * b;
            break;
          case Op::div:
            b = (b.abs() > kProtect).select(a / b, 1.0);
            break;
          default:
            break;
        }
        --sp;
      }
    }
  }
  return stack_[0];
}

double evaluate_row(const Program& p, const double* features) noexcept {
  std::vector<double> s(p.size() + 1);
  std::size_t sp = 0;
  for (auto it = p.rbegin(); it != p.rend(); ++it) {
    const Node& node = *it;
    switch (arity(node.op)) {
      case 0:
        s[sp++] = node.op == Op::var ? features[node.var] : node.value;
        break;
      case 1:
        s[sp - 1] = apply(node.op, s[sp - 1]);
        break;
      default:
        s[sp - 2] = apply(node.op, s[sp - 1], s[sp - 2]);
        --sp;
    }
  }
  return s[0];
}

namespace {

struct Tree {
  Node node;
  std::vector<Tree> kids;
};

Tree to_tree(const Program& p, std::size_t& i) {
  Tree t{p[i++], {}};
  for (int k = 0; k < arity(t.node.op); ++k) t.kids.push_back(to_tree(p, i));
  return t;
}

void to_prefix(const Tree& t, Program& out) {
  out.push_back(t.node);
  for (const auto& k : t.kids) to_prefix(k, out);
}

bool same(const Tree& a, const Tree& b) {
  if (!(a.node == b.node) || a.kids.size() != b.kids.size()) return false;
  for (std::size_t i = 0; i < a.kids.size(); ++i)
    if (!same(a.kids[i], b.kids[i])) return false;
  return true;
}

bool is_const(const Tree& t, double v) {
  return t.node.op == Op::cst && t.node.value == v;
}

Tree constant(double v) {
  return Tree{Node{Op::cst, 0, v}, {}};
}

Tree simplify_tree(Tree t) {
  for (auto& k : t.kids) k = simplify_tree(std::move(k));
  const Op op = t.node.op;
  if (arity(op) == 0) return t;
  const bool all_const =
      std::all_of(t.kids.begin(), t.kids.end(), [](const Tree& k) { return k.node.op == Op::cst; });
  if (all_const) {
    const double v = apply(op, t.kids[0].node.value, t.kids.size() > 1 ? t.kids[1].node.value : 0.0);
    if (std::isfinite(v)) return constant(v);
  }
  auto& k = t.kids;
  const auto cst = [](const Tree& x) { return x.node.op == Op::cst; };
  const auto node = [](Op o) { return Node{o, 0, 0.0}; };
  switch (op) {
    case Op::add:
      if (is_const(k[1], 0.0)) return k[0];
      if (is_const(k[0], 0.0)) return k[1];
      // Constants gathered in front: x + c -> c + x; c1 + (c2 + x) -> (c1 + c2) + x. Two constants whose sum
      // overflows stay as they are (swapping them again and again recursed until the stack overflowed).
      if (cst(k[1]) && !cst(k[0])) return simplify_tree(Tree{t.node, {k[1], k[0]}});
      if (cst(k[0]) && k[1].node.op == Op::add && cst(k[1].kids[0]) &&
          std::isfinite(k[0].node.value + k[1].kids[0].node.value))
        return simplify_tree(
            Tree{t.node, {constant(k[0].node.value + k[1].kids[0].node.value), k[1].kids[1]}});
      break;
    case Op::sub:
      if (is_const(k[1], 0.0)) return k[0];
      if (same(k[0], k[1])) return constant(0.0);
      if (is_const(k[0], 0.0)) return simplify_tree(Tree{Node{Op::neg, 0, 0.0}, {k[1]}});
      if (cst(k[1])) return simplify_tree(Tree{node(Op::add), {constant(-k[1].node.value), k[0]}});
      break;
    case Op::mul:
      if (is_const(k[1], 1.0)) return k[0];
      if (is_const(k[0], 1.0)) return k[1];
      if (is_const(k[0], 0.0) || is_const(k[1], 0.0)) return constant(0.0);
      // x * c -> c * x; c1 * (c2 * x) -> (c1 c2) * x; c * -x -> (-c) * x; c1 * (c2 + x) -> c1 c2 + c1 * x: an
      // affine chain folds to one offset and one factor.
      if (cst(k[1]) && !cst(k[0])) return simplify_tree(Tree{t.node, {k[1], k[0]}});
      if (cst(k[0]) && k[1].node.op == Op::mul && cst(k[1].kids[0]) &&
          std::isfinite(k[0].node.value * k[1].kids[0].node.value))
        return simplify_tree(
            Tree{t.node, {constant(k[0].node.value * k[1].kids[0].node.value), k[1].kids[1]}});
      if (cst(k[0]) && k[1].node.op == Op::neg)
        return simplify_tree(Tree{t.node, {constant(-k[0].node.value), k[1].kids[0]}});
      if (cst(k[0]) && k[1].node.op == Op::add && cst(k[1].kids[0]) &&
          std::isfinite(k[0].node.value * k[1].kids[0].node.value))
        return simplify_tree(
            Tree{node(Op::add),
                 {constant(k[0].node.value * k[1].kids[0].node.value), Tree{t.node, {k[0], k[1].kids[1]}}}});
      break;
    case Op::div:
      if (is_const(k[1], 1.0)) return k[0];
      // A constant divisor outside the protected band always divides: div(x, c) = (1 / c) * x.
      if (cst(k[1]) && std::abs(k[1].node.value) > kProtect)
        return simplify_tree(Tree{node(Op::mul), {constant(1.0 / k[1].node.value), k[0]}});
      break;
    case Op::neg:
      if (k[0].node.op == Op::neg) return k[0].kids[0];
      break;
    case Op::abs:
      // abs(abs x) = abs(neg x) = abs x.
      if (k[0].node.op == Op::abs || k[0].node.op == Op::neg) return Tree{t.node, {k[0].kids[0]}};
      break;
    case Op::sqrt:
    case Op::log:
      // Both already take the magnitude of their argument.
      if (k[0].node.op == Op::abs || k[0].node.op == Op::neg)
        return simplify_tree(Tree{t.node, {k[0].kids[0]}});
      break;
    default:
      break;
  }
  return t;
}

bool plain_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (const char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return !op_from_name(s);
}

std::string number_text(double v) {
  char buf[32];
  const auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, p);
}

}  // namespace

Program simplify(const Program& p) {
  std::size_t i = 0;
  Tree t = simplify_tree(to_tree(p, i));
  Program out;
  to_prefix(t, out);
  return out;
}

std::string to_formula(const Program& p, const std::vector<std::string>& names) {
  // Returns text and precedence: 1 sum, 2 product, 3 unary minus, 4 atom.
  std::function<std::pair<std::string, int>(std::size_t&)> rec =
      [&](std::size_t& i) -> std::pair<std::string, int> {
    const Node n = p[i++];
    switch (n.op) {
      case Op::cst:
        return n.value < 0 ? std::pair{fmt::format("({})", number_text(n.value)), 4}
                           : std::pair{number_text(n.value), 4};
      case Op::var: {
        const std::string& name = n.var < names.size() ? names[n.var] : fmt::format("X{}", n.var);
        return {plain_identifier(name) ? name : fmt::format("`{}`", name), 4};
      }
      case Op::add:
      case Op::sub:
      case Op::mul: {
        auto [a, pa] = rec(i);
        auto [b, pb] = rec(i);
        const int prec = n.op == Op::mul ? 2 : 1;
        if (pa < prec) a = fmt::format("({})", a);
        // The parser groups from the left, so a right operand of the same precedence keeps its brackets:
        // a + (b - c) is not a + b - c in floating point (1e308 + (1 - 1e308) is 1, (1e308 + 1) - 1e308 is
        // 0).
        if (pb <= prec || pb == 3) b = fmt::format("({})", b);
        return {fmt::format("{}{}{}", a, n.op == Op::add ? " + " : n.op == Op::sub ? " - " : " * ", b), prec};
      }
      case Op::neg: {
        auto [a, pa] = rec(i);
        return {pa < 4 ? fmt::format("-({})", a) : fmt::format("-{}", a), 3};
      }
      default: {
        std::string s = fmt::format("{}({}", op_name(n.op), rec(i).first);
        if (arity(n.op) == 2) s = fmt::format("{}, {}", s, rec(i).first);
        return {s + ")", 4};
      }
    }
  };
  std::size_t i = 0;
  return rec(i).first;
}

namespace {

class Parser {
 public:
  Parser(std::string_view text, const std::vector<std::string>& names) : s_(text), names_(names) {}

  Program run(FormulaError* err) {
    try {
      next();
      Program p = expr();
      if (tok_.kind != Tok::end) fail("unexpected '" + tok_.text + "' after the end of the formula");
      return p;
    } catch (const FormulaError& e) {
      if (err) *err = e;
      return {};
    }
  }

 private:
  enum class Tok { end, number, name, op };
  struct Token {
    Tok kind = Tok::end;
    std::string text;
    double value = 0.0;
    std::size_t offset = 0;  // 1-based
  };

  [[noreturn]] void fail(const std::string& msg) const { throw FormulaError{msg, tok_.offset, tok_.text}; }

  void next() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    tok_ = Token{};
    tok_.offset = pos_ + 1;
    if (pos_ >= s_.size()) return;
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
      double v = 0;
      const auto [p, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), v);
      const std::size_t len = static_cast<std::size_t>(p - (s_.data() + pos_));
      tok_.text = std::string(s_.substr(pos_, std::max<std::size_t>(len, 1)));
      if (ec != std::errc()) fail("'" + tok_.text + "' is not a number");
      tok_.kind = Tok::number;
      tok_.value = v;
      pos_ += len;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t e = pos_;
      while (e < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '_' || s_[e] == '.'))
        ++e;
      tok_.kind = Tok::name;
      tok_.text = std::string(s_.substr(pos_, e - pos_));
      pos_ = e;
    } else if (c == '`') {
      const std::size_t e = s_.find('`', pos_ + 1);
      tok_.text = std::string(s_.substr(pos_));
      if (e == std::string_view::npos) fail("unterminated `quoted` feature name");
      tok_.kind = Tok::name;
      tok_.text = std::string(s_.substr(pos_ + 1, e - pos_ - 1));
      quoted_ = true;
      pos_ = e + 1;
      return;
    } else if (std::string_view("+-*/(),").find(c) != std::string_view::npos) {
      tok_.kind = Tok::op;
      tok_.text = std::string(1, c);
      ++pos_;
    } else {
      tok_.text = std::string(1, c);
      fail("unexpected character '" + tok_.text + "'");
    }
    quoted_ = false;
  }

  bool is(const char* op) const { return tok_.kind == Tok::op && tok_.text == op; }

  void expect(const char* op) {
    if (!is(op))
      fail(std::string("expected '") + op + "' but found '" +
           (tok_.kind == Tok::end ? "end of formula" : tok_.text) + "'");
    next();
  }

  static Program join(Op op, Program a, Program b) {
    Program p{Node{op, 0, 0.0}};
    p.insert(p.end(), a.begin(), a.end());
    p.insert(p.end(), b.begin(), b.end());
    return p;
  }

  Program expr() {
    Program p = term();
    while (is("+") || is("-")) {
      const Op op = is("+") ? Op::add : Op::sub;
      next();
      p = join(op, std::move(p), term());
    }
    return p;
  }

  Program term() {
    Program p = unary();
    while (is("*") || is("/")) {
      const Op op = is("*") ? Op::mul : Op::div;
      next();
      p = join(op, std::move(p), unary());
    }
    return p;
  }

  // Each unary sign, parenthesis and function call nests one level deeper in the parser's own recursion:
  // a bound keeps a hostile formula ("((((...", "----...") from overflowing the stack. Fitted formulas nest
  // a few dozen levels at most.
  struct Nesting {
    explicit Nesting(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxFormulaNesting)
        parser.fail("the formula nests deeper than " + std::to_string(kMaxFormulaNesting) + " levels");
    }
    ~Nesting() { --parser.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    Parser& parser;
  };

  Program unary() {
    const Nesting nesting(*this);
    if (is("-")) {
      next();
      Program a = unary();
      if (a.size() == 1 && a[0].op == Op::cst) {
        a[0].value = -a[0].value;
        return a;
      }
      a.insert(a.begin(), Node{Op::neg, 0, 0.0});
      return a;
    }
    if (is("+")) {
      next();
      return unary();
    }
    return primary();
  }

  Program primary() {
    if (tok_.kind == Tok::number) {
      Program p{Node{Op::cst, 0, tok_.value}};
      next();
      return p;
    }
    if (is("(")) {
      next();
      Program p = expr();
      expect(")");
      return p;
    }
    if (tok_.kind == Tok::name) {
      const Token name = tok_;
      const bool quoted = quoted_;
      next();
      if (!quoted && is("(")) {
        const auto op = op_from_name(name.text);
        if (!op) {
          tok_ = name;
          fail("unknown function '" + name.text +
               "' (known: add, sub, mul, div, sqrt, log, abs, neg, inv, sig, sin, cos, tan)");
        }
        next();
        Program p{Node{*op, 0, 0.0}};
        for (int k = 0; k < arity(*op); ++k) {
          if (k > 0) expect(",");
          Program a = expr();
          p.insert(p.end(), a.begin(), a.end());
        }
        expect(")");
        return p;
      }
      for (std::size_t j = 0; j < names_.size(); ++j)
        if (names_[j] == name.text) return Program{Node{Op::var, static_cast<std::uint16_t>(j), 0.0}};
      tok_ = name;
      std::string known;
      for (const auto& n : names_) known += (known.empty() ? "" : ", ") + n;
      fail("unknown feature '" + name.text + "' (the model's features: " + known + ")");
    }
    fail(tok_.kind == Tok::end ? "the formula ends where a value is expected"
                               : "unexpected '" + tok_.text + "'");
  }

  std::string_view s_;
  const std::vector<std::string>& names_;
  std::size_t pos_ = 0;
  Token tok_;
  bool quoted_ = false;
  int depth_ = 0;
};

}  // namespace

Program parse_formula(std::string_view text, const std::vector<std::string>& names, FormulaError* error) {
  return Parser(text, names).run(error);
}

}  // namespace fleetwatt::models::fit
