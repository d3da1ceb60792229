// The genetic-programming loop, operator for operator as gplearn 0.4 writes it (build_program,
// _tournament, crossover, subtree_mutation, hoist_mutation, point_mutation, get_subtree), with the
// population evaluated in parallel over contiguous chunks and an optional constant refinement at the end.
#include "fleetwatt/models/fit/symbolic_regression.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

#include "fleetwatt/jobs/random.hpp"

namespace fleetwatt::models::fit {

using jobs::Random;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// numpy's randint(n): uniform in [0, n).
std::size_t randint(Random& rng, std::size_t n) {
  return static_cast<std::size_t>(rng.integer(0, n - 1));
}

Node random_terminal(const GpConfig& c, int n_features, Random& rng) {
  const std::size_t t = randint(rng, static_cast<std::size_t>(n_features) + 1);
  if (t == static_cast<std::size_t>(n_features))
    return Node{Op::cst, 0, rng.uniform(c.const_min, c.const_max)};
  return Node{Op::var, static_cast<std::uint16_t>(t), 0.0};
}

Node random_function(const GpConfig& c, Random& rng) {
  return Node{c.functions[randint(rng, c.functions.size())], 0, 0.0};
}

Program build_program(const GpConfig& c, int n_features, Random& rng) {
  const bool full = randint(rng, 2) != 0;
  const int max_depth = c.init_depth_min +
                        static_cast<int>(randint(
                            rng, static_cast<std::size_t>(std::max(1, c.init_depth_max - c.init_depth_min))));
  Program program{random_function(c, rng)};
  std::vector<int> stack{arity(program[0].op)};
  const std::size_t n_func = c.functions.size();
  while (!stack.empty()) {
    const int depth = static_cast<int>(stack.size());
    const std::size_t choice = randint(rng, static_cast<std::size_t>(n_features) + n_func);
    if (depth < max_depth && (full || choice <= n_func)) {
      program.push_back(random_function(c, rng));
      stack.push_back(arity(program.back().op));
    } else {
      program.push_back(random_terminal(c, n_features, rng));
      --stack.back();
      while (stack.back() == 0) {
        stack.pop_back();
        if (stack.empty()) return program;
        --stack.back();
      }
    }
  }
  return program;
}

/// gplearn's get_subtree: functions are chosen with weight 0.9, terminals 0.1 (Koza).
std::pair<std::size_t, std::size_t> get_subtree(const Program& p, Random& rng) {
  double total = 0.0;
  for (const Node& n : p) total += arity(n.op) > 0 ? 0.9 : 0.1;
  const double u = rng.uniform() * total;
  double acc = 0.0;
  std::size_t start = p.size() - 1;
  for (std::size_t i = 0; i < p.size(); ++i) {
    acc += arity(p[i].op) > 0 ? 0.9 : 0.1;
    if (u < acc) {
      start = i;
      break;
    }
  }
  return {start, subtree_end(p, start)};
}

Program crossover(const Program& parent, const Program& donor, Random& rng) {
  const auto [start, end] = get_subtree(parent, rng);
  const auto [ds, de] = get_subtree(donor, rng);
  Program out(parent.begin(), parent.begin() + static_cast<std::ptrdiff_t>(start));
  out.insert(out.end(), donor.begin() + static_cast<std::ptrdiff_t>(ds),
             donor.begin() + static_cast<std::ptrdiff_t>(de));
  out.insert(out.end(), parent.begin() + static_cast<std::ptrdiff_t>(end), parent.end());
  return out;
}

Program hoist_mutation(const Program& parent, Random& rng) {
  const auto [start, end] = get_subtree(parent, rng);
  const Program sub(parent.begin() + static_cast<std::ptrdiff_t>(start),
                    parent.begin() + static_cast<std::ptrdiff_t>(end));
  const auto [ss, se] = get_subtree(sub, rng);
  Program out(parent.begin(), parent.begin() + static_cast<std::ptrdiff_t>(start));
  out.insert(out.end(), sub.begin() + static_cast<std::ptrdiff_t>(ss),
             sub.begin() + static_cast<std::ptrdiff_t>(se));
  out.insert(out.end(), parent.begin() + static_cast<std::ptrdiff_t>(end), parent.end());
  return out;
}

Program point_mutation(const Program& parent, const GpConfig& c, int n_features, Random& rng) {
  Program out = parent;
  std::vector<std::size_t> mutate;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (rng.uniform() < c.p_point_replace) mutate.push_back(i);
  for (const std::size_t i : mutate) {
    const int a = arity(out[i].op);
    if (a > 0) {
      std::vector<Op> same;
      for (const Op f : c.functions)
        if (arity(f) == a) same.push_back(f);
      out[i] = Node{same[randint(rng, same.size())], 0, 0.0};
    } else {
      out[i] = random_terminal(c, n_features, rng);
    }
  }
  return out;
}

double mae_of(const Eigen::ArrayXd& pred, const Eigen::VectorXd& y) {
  const double m = (pred - y.array()).abs().mean();
  return std::isfinite(m) ? m : kInf;
}

/// The program's top-level additive terms, as [begin, end) node ranges: add and sub nodes are opened from
/// the left, breadth first, until there are `max_terms` terms or none is left to open.
std::vector<std::pair<std::size_t, std::size_t>> additive_terms(const Program& p, int max_terms) {
  std::vector<std::pair<std::size_t, std::size_t>> terms{{0, p.size()}};
  for (std::size_t i = 0; i < terms.size();) {
    const auto [b, e] = terms[i];
    const Op op = p[b].op;
    if (static_cast<int>(terms.size()) < max_terms && (op == Op::add || op == Op::sub)) {
      const std::size_t mid = subtree_end(p, b + 1);
      terms[i] = {b + 1, mid};
      terms.insert(terms.begin() + static_cast<std::ptrdiff_t>(i) + 1, {mid, e});
    } else {
      ++i;
    }
  }
  return terms;
}

/// Least-squares weights w of y ~ w0 + sum_i w_i term_i(x) and the MAE of that fit (infinity when a term is
/// not finite). With one term this is Keijzer's linear scaling a + b f.
struct TermFit {
  std::vector<std::pair<std::size_t, std::size_t>> terms;
  Eigen::VectorXd w;
  double mae = kInf;
};

TermFit fit_terms(Evaluator& ev, const Program& p, const Eigen::VectorXd& y, int max_terms) {
  TermFit f;
  f.terms = additive_terms(p, std::max(1, max_terms));
  const auto k = static_cast<Eigen::Index>(f.terms.size());
  if (k == 1) {
    const Eigen::ArrayXd& v = ev.evaluate(p);
    const auto [a, b] = linear_scale(v, y);
    f.w = Eigen::Vector2d(a, b);
    const double m = (a + b * v - y.array()).abs().mean();
    f.mae = std::isfinite(m) ? m : kInf;
    return f;
  }
  Eigen::MatrixXd design(y.size(), k + 1);
  design.col(0).setOnes();
  for (Eigen::Index i = 0; i < k; ++i) {
    const auto [b, e] = f.terms[static_cast<std::size_t>(i)];
    design.col(i + 1) = ev.evaluate(p, b, e).matrix();
    if (!design.col(i + 1).allFinite()) return f;
  }
  // Column pivoting: collinear terms (a constant term, a term repeated) get weight 0 instead of blowing up.
  f.w = design.colPivHouseholderQr().solve(y);
  const double m = (design * f.w - y).array().abs().mean();
  f.mae = f.w.allFinite() && std::isfinite(m) ? m : kInf;
  return f;
}

/// The program with its fitted weights written in: w0 + w1 * term1 + ... + wk * termk.
Program embed_weights(const Program& p, const TermFit& f) {
  Program out{Node{Op::add, 0, 0.0}, Node{Op::cst, 0, f.w(0)}};
  for (std::size_t i = 0; i < f.terms.size(); ++i) {
    if (i + 1 < f.terms.size()) out.push_back(Node{Op::add, 0, 0.0});
    out.push_back(Node{Op::mul, 0, 0.0});
    out.push_back(Node{Op::cst, 0, f.w(static_cast<Eigen::Index>(i) + 1)});
    out.insert(out.end(), p.begin() + static_cast<std::ptrdiff_t>(f.terms[i].first),
               p.begin() + static_cast<std::ptrdiff_t>(f.terms[i].second));
  }
  return out;
}

/// Least-squares refinement of a program's constants (Levenberg-Marquardt, numerical Jacobian).
struct ConstantFit {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  Program* program;
  std::vector<std::size_t> slots;
  const Eigen::MatrixXd* x;
  const Eigen::VectorXd* y;

  int inputs() const { return static_cast<int>(slots.size()); }
  int values() const { return static_cast<int>(y->size()); }
  int operator()(const Eigen::VectorXd& c, Eigen::VectorXd& f) const {
    for (std::size_t i = 0; i < slots.size(); ++i)
      (*program)[slots[i]].value = c(static_cast<Eigen::Index>(i));
    Evaluator ev(*x);
    f = ev.evaluate(*program).matrix() - *y;
    for (Eigen::Index i = 0; i < f.size(); ++i)
      if (!std::isfinite(f(i))) f(i) = 1e150;
    return 0;
  }
};

Program polish(const Program& p, const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  Program work = p;
  ConstantFit fit{&work, {}, &x, &y};
  for (std::size_t i = 0; i < work.size(); ++i)
    if (work[i].op == Op::cst) fit.slots.push_back(i);
  if (fit.slots.empty() || static_cast<Eigen::Index>(fit.slots.size()) >= y.size()) return p;
  Eigen::VectorXd c(static_cast<Eigen::Index>(fit.slots.size()));
  for (std::size_t i = 0; i < fit.slots.size(); ++i)
    c(static_cast<Eigen::Index>(i)) = work[fit.slots[i]].value;
  Eigen::NumericalDiff<ConstantFit> diff(fit);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<ConstantFit>> lm(diff);
  lm.parameters.maxfev = 200 * static_cast<int>(fit.slots.size() + 1);
  lm.minimize(c);
  for (std::size_t i = 0; i < fit.slots.size(); ++i)
    work[fit.slots[i]].value = c(static_cast<Eigen::Index>(i));
  return work;
}

}  // namespace

std::pair<double, double> linear_scale(const Eigen::ArrayXd& f, const Eigen::VectorXd& y) {
  const double mf = f.mean(), my = y.mean();
  if (!std::isfinite(mf)) return {my, 0.0};
  const double var = (f - mf).square().sum();
  const double cov = ((f - mf) * (y.array() - my)).sum();
  const double b = var > 1e-300 ? cov / var : 0.0;
  if (!std::isfinite(b)) return {my, 0.0};
  return {my - b * mf, b};
}

Program random_program(const GpConfig& config, int n_features, std::uint64_t seed) {
  Random rng(seed);
  return build_program(config, n_features, rng);
}

std::vector<double> evaluate_population(const std::vector<Program>& programs, const Eigen::MatrixXd& x,
                                        const Eigen::VectorXd& y, int threads, bool linear_scaling,
                                        int scaled_terms) {
  std::vector<double> out(programs.size(), kInf);
  auto work = [&](std::size_t lo, std::size_t hi) {
    Evaluator ev(x);
    for (std::size_t i = lo; i < hi; ++i)
      out[i] = linear_scaling ? fit_terms(ev, programs[i], y, scaled_terms).mae
                              : mae_of(ev.evaluate(programs[i]), y);
  };
  const std::size_t t = static_cast<std::size_t>(std::clamp(threads, 1, 64));
  if (t == 1 || programs.size() < 64) {
    work(0, programs.size());
    return out;
  }
  std::vector<std::thread> pool;
  const std::size_t chunk = (programs.size() + t - 1) / t;
  for (std::size_t k = 1; k < t; ++k)
    pool.emplace_back(work, std::min(programs.size(), k * chunk), std::min(programs.size(), (k + 1) * chunk));
  work(0, std::min(programs.size(), chunk));
  for (auto& th : pool) th.join();
  return out;
}

Eigen::VectorXd predict(const Program& p, const Eigen::MatrixXd& x) {
  Evaluator ev(x);
  return ev.evaluate(p).matrix();
}

GpResult fit_symbolic(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const GpConfig& c,
                      const Eigen::MatrixXd* x_val, const Eigen::VectorXd* y_val) {
  Random rng(c.seed);
  const int nf = static_cast<int>(x.cols());
  const auto pop = static_cast<std::size_t>(std::max(1, c.population));
  const double probs[4] = {c.p_crossover, c.p_crossover + c.p_subtree_mutation,
                           c.p_crossover + c.p_subtree_mutation + c.p_hoist_mutation,
                           c.p_crossover + c.p_subtree_mutation + c.p_hoist_mutation + c.p_point_mutation};
  GpResult result;
  std::vector<Program> programs, next;
  std::vector<double> raw, fitness;
  std::vector<Program> best_of_gen;
  for (int gen = 0; gen < std::max(1, c.generations); ++gen) {
    next.clear();
    next.reserve(pop);
    if (gen == 0) {
      for (std::size_t i = 0; i < pop; ++i) next.push_back(build_program(c, nf, rng));
    } else {
      auto tournament = [&]() -> const Program& {
        std::size_t best = randint(rng, pop);
        for (int k = 1; k < c.tournament_size; ++k) {
          const std::size_t i = randint(rng, pop);
          if (fitness[i] < fitness[best]) best = i;
        }
        return programs[best];
      };
      for (std::size_t i = 0; i < pop; ++i) {
        const double method = rng.uniform();
        const Program& parent = tournament();
        if (method < probs[0]) {
          const Program& donor = tournament();
          next.push_back(crossover(parent, donor, rng));
        } else if (method < probs[1]) {
          next.push_back(crossover(parent, build_program(c, nf, rng), rng));
        } else if (method < probs[2]) {
          next.push_back(hoist_mutation(parent, rng));
        } else if (method < probs[3]) {
          next.push_back(point_mutation(parent, c, nf, rng));
        } else {
          next.push_back(parent);
        }
      }
    }
    programs.swap(next);
    raw = evaluate_population(programs, x, y, c.threads, c.linear_scaling, c.scaled_terms);
    result.evaluations += pop;
    fitness.resize(pop);
    for (std::size_t i = 0; i < pop; ++i) fitness[i] = raw[i] + c.parsimony * double(programs[i].size());
    if (c.polish_constants && c.polish_every > 0 && gen > 0 && gen % c.polish_every == 0 &&
        gen + 1 < c.generations) {
      // Refine the constants of the fittest few in place, so that good shapes spread with good constants.
      std::vector<std::size_t> order(pop);
      for (std::size_t i = 0; i < pop; ++i) order[i] = i;
      const auto top = std::min<std::size_t>(pop, static_cast<std::size_t>(std::max(0, c.polish_top)));
      std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                        [&](std::size_t a, std::size_t b) {
                          return fitness[a] < fitness[b] || (fitness[a] == fitness[b] && a < b);
                        });
      for (std::size_t k = 0; k < top; ++k) {
        const std::size_t i = order[k];
        Program candidate;
        Evaluator ev(x);
        if (c.linear_scaling) {
          // Refine the constants inside the fitted weights; the individual keeps them written in.
          candidate = polish(embed_weights(programs[i], fit_terms(ev, programs[i], y, c.scaled_terms)), x, y);
        } else {
          candidate = polish(programs[i], x, y);
        }
        const double m = c.linear_scaling ? fit_terms(ev, candidate, y, c.scaled_terms).mae
                                          : mae_of(ev.evaluate(candidate), y);
        result.evaluations += 1;
        if (m < raw[i]) {
          programs[i] = std::move(candidate);
          raw[i] = m;
          fitness[i] = m + c.parsimony * double(programs[i].size());
        }
      }
    }
    const std::size_t best = static_cast<std::size_t>(std::min_element(raw.begin(), raw.end()) - raw.begin());
    best_of_gen.push_back(programs[best]);
    result.best_mae_per_generation.push_back(raw[best]);
    result.generations_run = gen + 1;
    if (raw[best] <= c.stopping_criteria) break;
  }

  // Candidates for the final choice: every generation's best, and with constant refinement also the
  // fittest distinct programs of the last generation (refinement can rescue a good shape whose constants
  // evolution left rough).
  std::vector<Program> candidates = best_of_gen;
  if (c.polish_constants) {
    std::vector<std::size_t> order(pop);
    for (std::size_t i = 0; i < pop; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return fitness[a] < fitness[b]; });
    std::size_t added = 0;
    for (std::size_t i = 0; i < pop && added < static_cast<std::size_t>(c.polish_candidates); ++i) {
      const Program& p = programs[order[i]];
      if (std::find(candidates.begin(), candidates.end(), p) != candidates.end()) continue;
      candidates.push_back(p);
      ++added;
    }
  }
  // With linear scaling, each program's weights (fitted on the training rows) become part of it.
  for (auto& p : candidates) {
    if (c.linear_scaling) {
      Evaluator ev(x);
      p = embed_weights(p, fit_terms(ev, p, y, c.scaled_terms));
    }
    p = simplify(p);
  }
  auto val_mae = [&](const Program& p) {
    Evaluator ev(*x_val);
    return mae_of(ev.evaluate(p), *y_val);
  };
  auto train_mae = [&](const Program& p) {
    Evaluator ev(x);
    return mae_of(ev.evaluate(p), y);
  };
  const bool has_val = x_val && y_val && x_val->rows() > 0;
  if (c.polish_constants) {
    const std::size_t n = candidates.size();
    for (std::size_t i = 0; i < n; ++i) {
      Program polished = simplify(polish(candidates[i], x, y));
      if (is_valid(polished) && train_mae(polished) < train_mae(candidates[i]))
        candidates.push_back(std::move(polished));
    }
  }
  // The final program: gplearn's (the last generation's best), or the candidate the validation rows favour.
  Program chosen = candidates[best_of_gen.size() - 1];
  if (has_val) {
    double best = kInf;
    for (const auto& p : candidates)
      if (const double m = val_mae(p); m < best) {
        best = m;
        chosen = p;
      }
  } else if (c.polish_constants) {
    double best = kInf;
    for (const auto& p : candidates)
      if (const double m = train_mae(p) + c.parsimony * double(p.size()); m < best) {
        best = m;
        chosen = p;
      }
  }
  result.program = chosen;
  result.train_mae = train_mae(chosen);
  result.validation_mae = has_val ? val_mae(chosen) : 0.0;
  return result;
}

}  // namespace fleetwatt::models::fit
