// Synthetic arrivals. A non-homogeneous Poisson process is sampled by thinning (Lewis & Shedler): draw
// candidates at the peak rate and keep each with probability rate(t) / peak rate, which is exact for any
// bounded rate profile.
#include "fleetwatt/workloads/job_generator.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "fleetwatt/workloads/random.hpp"

namespace fleetwatt::workloads {

double arrival_rate(const GeneratorConfig& c, double t_s) {
  constexpr double kDay = 86400.0;
  const double phase = 2.0 * std::numbers::pi * (t_s - c.peak_time_of_day_s) / kDay;
  return c.mean_rate_per_s * (1.0 + c.diurnal_amplitude * std::cos(phase));
}

std::vector<JobSpec> generate_jobs(const GeneratorConfig& c, std::uint64_t seed, std::int64_t first_id) {
  std::vector<JobSpec> jobs;
  if (c.mix.empty() || !(c.mean_rate_per_s > 0.0)) return jobs;
  Random rng(seed);
  std::vector<double> mix_weights;
  for (const auto& m : c.mix) mix_weights.push_back(m.weight);
  const double peak_rate = c.mean_rate_per_s * (1.0 + c.diurnal_amplitude);
  double t = c.start_s;
  std::int64_t id = first_id;
  for (;;) {
    t += rng.exponential(peak_rate);
    if (t >= c.end_s) break;
    // Draw every random number of a candidate in a fixed order, accepted or not, so a change to one mix
    // entry's parameters does not reshuffle the arrival times.
    const double keep = rng.uniform();
    const std::size_t mi = rng.weighted(mix_weights);
    const MixEntry& m = c.mix[mi];
    const std::size_t gi =
        m.n_gpus_weights.empty() ? rng.integer(0, m.n_gpus.size() - 1) : rng.weighted(m.n_gpus_weights);
    const auto epochs = static_cast<std::uint32_t>(rng.integer(m.epochs_min, m.epochs_max));
    const double samples = m.samples_min > 0.0 ? std::round(rng.uniform(m.samples_min, m.samples_max)) : 0.0;
    if (keep * peak_rate >= arrival_rate(c, t)) continue;
    JobSpec j;
    j.id = id++;
    j.job_class = m.job_class;
    j.class_origin = m.class_origin;
    j.submit_s = t;
    j.n_gpus = m.n_gpus[gi];
    j.epochs = epochs;
    j.meta.dataset_samples = samples;
    jobs.push_back(std::move(j));
  }
  return jobs;
}

std::vector<JobSpec> build_workload(const Scenario& s) {
  std::vector<JobSpec> jobs = s.workload.jobs;
  if (s.workload.generator) {
    std::int64_t next = 1;
    for (const auto& j : jobs) next = std::max(next, j.id + 1);
    auto generated = generate_jobs(*s.workload.generator, s.seed, next);
    jobs.insert(jobs.end(), std::make_move_iterator(generated.begin()),
                std::make_move_iterator(generated.end()));
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
  return jobs;
}

}  // namespace fleetwatt::workloads
