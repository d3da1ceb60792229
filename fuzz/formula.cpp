// Fuzz target: formula strings of fitted models (models/fit/program). The parser reports errors in a
// FormulaError rather than by exception; a formula it accepts must print (to_formula) as text it accepts
// again with the same value, and evaluating or simplifying it must be safe for any feature values.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "fleetwatt/models/fit/program.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt::models::fit;
  static const std::vector<std::string> features = {"n_gpus", "batch_size", "params_M", "gpu tdp_W"};
  FormulaError error;
  const Program p = parse_formula(fleetwatt::fuzz::as_text(data, size), features, &error);
  if (p.empty()) return 0;
  const double rows[3][4] = {{1, 32, 25.6, 300}, {0, 0, 0, 0}, {-1e308, 1e308, NAN, INFINITY}};
  for (const auto& row : rows) (void)evaluate_row(p, row);
  (void)simplify(p);
  // The printed form is documented as parse_formula's input: it must read back to the same values.
  const std::string text = to_formula(p, features);
  FormulaError again;
  const Program q = parse_formula(text, features, &again);
  // Printing may add parentheses (-(-x)), so a formula near the nesting limit may print deeper than it.
  if (q.empty() && again.message.find("nests deeper") == std::string::npos) std::abort();
  if (q.empty()) return 0;
  const double a = evaluate_row(p, rows[0]), b = evaluate_row(q, rows[0]);
  if (std::isfinite(a) && std::isfinite(b) && std::abs(a - b) > 1e-9 * std::max(1.0, std::abs(a)))
    std::abort();
  return 0;
}
