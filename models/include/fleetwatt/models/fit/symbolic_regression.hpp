// Genetic-programming symbolic regression with gplearn's semantics (SymbolicRegressor): ramped
// half-and-half initial population, tournament selection, crossover, subtree/hoist/point mutation with
// point replacement, parsimony-penalised mean absolute error, a stopping criterion on the raw fitness.
// Each program is compiled to postfix and evaluated over Eigen arrays; a population is evaluated by up to
// `threads` threads, and the result is identical whatever the thread count (all randomness is drawn on
// the calling thread, in order, from one seeded generator).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <vector>

#include "fleetwatt/models/fit/program.hpp"

namespace fleetwatt::models::fit {

struct GpConfig {
  int population = 2000;     ///< paper: 15,000
  int generations = 50;      ///< paper: 50
  int tournament_size = 20;  ///< gplearn default
  int init_depth_min = 2;    ///< ramped half-and-half depth range (gplearn's init_depth)
  int init_depth_max = 6;
  double const_min = -5.0;  ///< constants drawn uniformly from [const_min, const_max]
  double const_max = 5.0;
  double p_crossover = 0.7;  ///< gplearn's default operator probabilities; the rest is reproduction
  double p_subtree_mutation = 0.1;
  double p_hoist_mutation = 0.05;
  double p_point_mutation = 0.1;
  double p_point_replace = 0.05;   ///< per-node replacement probability of a point mutation
  double parsimony = 0.001;        ///< penalty per node added to the MAE when selecting
  double stopping_criteria = 0.0;  ///< stop once the best raw MAE is at or below this
  std::vector<Op> functions{Op::add, Op::sub, Op::mul, Op::div, Op::sqrt, Op::log, Op::abs,
                            Op::neg, Op::inv, Op::sig, Op::sin, Op::cos,  Op::tan};
  std::uint64_t seed = 0;
  int threads = 2;  ///< evaluation threads (results do not depend on it)
  /// Refine the constants of the best program by Levenberg-Marquardt on the squared error (not part of
  /// gplearn; off means gplearn's result exactly).
  bool polish_constants = true;
  int polish_candidates = 20;  ///< distinct fittest programs of the last generation also refined
  /// Every this many generations, the fittest `polish_top` programs get their constants refined in place
  /// (a memetic step; 0 turns it off). Not part of gplearn.
  int polish_every = 10;
  int polish_top = 5;
  /// Judge each program by the MAE of its best linear rescaling a + b f(x) (least squares; Keijzer 2003)
  /// and wrap the final program in that rescaling. Not part of gplearn; off means gplearn's fitness.
  bool linear_scaling = true;
  /// With linear scaling, up to this many top-level additive terms of a program (its add/sub nodes
  /// opened from the root) each get their own least-squares weight, as the genes of multigene GP do
  /// (Searson et al. 2010): w0 + w1 t1 + ... + wk tk. 1 is Keijzer's a + b f.
  int scaled_terms = 4;
};

struct GpResult {
  Program program;              ///< simplified best program
  double train_mae = 0.0;       ///< raw fitness of the program on the training rows
  double validation_mae = 0.0;  ///< on the validation rows (0 without)
  int generations_run = 0;
  std::uint64_t evaluations = 0;  ///< programs evaluated
  std::vector<double> best_mae_per_generation;
};

/// Fits y ~ f(x). With validation rows, the returned program is the best-of-generation program with the
/// smallest validation MAE; without, gplearn's choice: the best raw fitness of the last generation.
[[nodiscard]] GpResult fit_symbolic(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                    const GpConfig& config, const Eigen::MatrixXd* x_val = nullptr,
                                    const Eigen::VectorXd* y_val = nullptr);

/// Builds one random program as gplearn's _Program.build_program does (used by tests and the benchmark).
[[nodiscard]] Program random_program(const GpConfig& config, int n_features, std::uint64_t seed);

/// Raw MAE of every program (infinity for a non-finite output), evaluated by `threads` threads; with
/// `linear_scaling`, the MAE of each program's least-squares weighting of up to `scaled_terms` additive
/// terms (a + b f for one).
[[nodiscard]] std::vector<double> evaluate_population(const std::vector<Program>& programs,
                                                      const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                                      int threads, bool linear_scaling = false,
                                                      int scaled_terms = 1);

/// The least-squares a, b of y ~ a + b f (b = 0 when f is constant or not finite).
[[nodiscard]] std::pair<double, double> linear_scale(const Eigen::ArrayXd& f, const Eigen::VectorXd& y);

/// Predictions of a program on rows of (standardised) features.
[[nodiscard]] Eigen::VectorXd predict(const Program& p, const Eigen::MatrixXd& x);

}  // namespace fleetwatt::models::fit
