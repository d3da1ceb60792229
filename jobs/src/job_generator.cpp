// Synthetic arrivals. A non-homogeneous Poisson process is sampled by thinning (Lewis & Shedler): draw
// candidates at the peak rate and keep each with probability rate(t) / peak rate, which is exact for any
// bounded rate profile.
#include "fleetwatt/jobs/job_generator.hpp"
#include "fleetwatt/jobs/job_source.hpp"
#include "fleetwatt/jobs/job_stream.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/jobs/warmup.hpp"

namespace fleetwatt::jobs {

double arrival_rate(const GeneratorConfig& c, double t_s) {
  constexpr double kDay = 86400.0;
  const double phase = 2.0 * std::numbers::pi * (t_s - c.peak_time_of_day_s) / kDay;
  return c.mean_rate_per_s * (1.0 + c.diurnal_amplitude * std::cos(phase));
}

namespace {

/// One candidate arrival's draws, taken in a fixed order whether it is kept or not, so a change to one mix
/// entry's parameters does not reshuffle the arrival times. Returns the job when thinning keeps it.
std::optional<JobSpec> draw_candidate(const GeneratorConfig& c, Random& rng,
                                      const std::vector<double>& mix_weights, double peak_rate, double t) {
  const double keep = rng.uniform();
  const std::size_t mi = rng.weighted(mix_weights);
  const MixEntry& m = c.mix[mi];
  const std::size_t gi =
      m.n_gpus_weights.empty() ? rng.integer(0, m.n_gpus.size() - 1) : rng.weighted(m.n_gpus_weights);
  const auto epochs = static_cast<std::uint32_t>(rng.integer(m.epochs_min, m.epochs_max));
  const double samples = m.samples_min > 0.0 ? std::round(rng.uniform(m.samples_min, m.samples_max)) : 0.0;
  if (keep * peak_rate >= arrival_rate(c, t)) return std::nullopt;
  JobSpec j;
  j.job_class = m.job_class;
  j.class_origin = m.class_origin;
  j.submit_s = t;
  j.n_gpus = m.n_gpus[gi];
  j.epochs = epochs;
  j.meta.dataset_samples = samples;
  return j;
}

std::vector<double> mix_weights_of(const GeneratorConfig& c) {
  std::vector<double> w;
  for (const auto& m : c.mix) w.push_back(m.weight);
  return w;
}

}  // namespace

ArrivalStream::ArrivalStream(const GeneratorConfig& c, std::uint64_t seed, std::int64_t first_id)
    : config_(c),
      rng_(seed),
      mix_weights_(mix_weights_of(c)),
      peak_rate_(c.mean_rate_per_s * (1.0 + c.diurnal_amplitude)),
      t_(c.start_s),
      id_(first_id),
      done_(c.mix.empty() || !(c.mean_rate_per_s > 0.0)) {}

std::optional<JobSpec> ArrivalStream::next() {
  while (!done_) {
    t_ += rng_.exponential(peak_rate_);
    if (t_ >= config_.end_s) {
      done_ = true;
      break;
    }
    if (auto j = draw_candidate(config_, rng_, mix_weights_, peak_rate_, t_)) {
      j->id = id_++;
      return j;
    }
  }
  return std::nullopt;
}

std::vector<JobSpec> generate_jobs(const GeneratorConfig& c, std::uint64_t seed, std::int64_t first_id,
                                   const std::atomic<bool>* stop) {
  std::vector<JobSpec> jobs;
  ArrivalStream arrivals(c, seed, first_id);
  while (auto j = arrivals.next()) {
    jobs.push_back(std::move(*j));
    if (jobs.size() % core::kStopPollEvery == 0) core::throw_if_stopped(stop);
  }
  return jobs;
}

std::vector<JobSpec> generate_warmup_jobs(const GeneratorConfig& c, std::uint64_t seed, double warmup_s,
                                          std::int64_t first_id, const std::atomic<bool>* stop) {
  std::vector<JobSpec> jobs;
  if (c.mix.empty() || !(c.mean_rate_per_s > 0.0) || !(warmup_s > 0.0)) return jobs;
  // Its own stream of the same seed: the window's arrivals stay those of a run without a warm-up.
  Random rng(seed ^ kWarmupStream);
  const std::vector<double> mix_weights = mix_weights_of(c);
  const double peak_rate = c.mean_rate_per_s * (1.0 + c.diurnal_amplitude);
  // The candidate process is homogeneous Poisson, so walking it backwards from start_s is as exact as
  // forwards; thinning against rate(t) at t < start_s continues the day/night cycle into the warm-up.
  double t = c.start_s;
  for (std::uint64_t drawn = 1;; ++drawn) {
    if (drawn % core::kStopPollEvery == 0) core::throw_if_stopped(stop);
    t -= rng.exponential(peak_rate);
    if (t < c.start_s - warmup_s) break;
    if (auto j = draw_candidate(c, rng, mix_weights, peak_rate, t)) jobs.push_back(std::move(*j));
  }
  std::reverse(jobs.begin(), jobs.end());
  std::int64_t id = first_id;
  for (auto& j : jobs) j.id = id++;
  return jobs;
}

std::vector<JobSpec> build_workload(const WorkloadConfig& w, std::uint64_t seed,
                                    const std::atomic<bool>* stop) {
  std::vector<JobSpec> jobs = w.jobs;
  if (w.generator) {
    std::int64_t next = 1;
    for (const auto& j : jobs) next = std::max(next, j.id + 1);
    auto generated = generate_jobs(*w.generator, seed, next, stop);
    // Warm-up arrivals (ids after the window's, which stay those of a run without one) lead up to a
    // generator that opens with the window; one that starts later begins from an empty fleet by choice.
    const double warmup_s = w.warmup_s.value_or(0.0);
    if (w.generator->start_s == 0.0 && warmup_s > 0.0) {
      next += static_cast<std::int64_t>(generated.size());
      auto warmup = w.periodic_warmup ? periodic_warmup_jobs(generated, w.horizon_s, warmup_s, next, stop)
                                      : generate_warmup_jobs(*w.generator, seed, warmup_s, next, stop);
      generated.insert(generated.begin(), std::make_move_iterator(warmup.begin()),
                       std::make_move_iterator(warmup.end()));
    }
    jobs.insert(jobs.end(), std::make_move_iterator(generated.begin()),
                std::make_move_iterator(generated.end()));
  }
  sort_by_submit(jobs);
  return jobs;
}

}  // namespace fleetwatt::jobs
