// A serving service in fleet mode: a fluid model of continuous batching by cohorts of arrivals (see the
// header).
#include "fleetwatt/sim/serving/service_fleet.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

namespace fleetwatt::sim {
namespace {

/// The requests that arrived in one interval, admitted together and decoding in the same iterations: the
/// tokens the cohort has generated since its admission, and where each member ends on that count (its
/// generation plus the tokens the cohort ran before its first token), in ascending order.
struct Cohort {
  std::vector<std::size_t> requests;  ///< indices into the run's requests, in the order of `lengths`
  std::vector<double> lengths;        ///< each member's end on the cohort's count (set at admission)
  double mean_input = 0.0;
  double kv_tokens = 0.0;  ///< prompt and generation tokens of its unfinished members (their KV reservation)
  double generated = 0.0;  ///< tokens each unfinished member has generated
  std::size_t done = 0;    ///< members finished (the shortest first)
  bool admitted = false;   ///< past its prompt: decoding
  double admit_s = 0.0;    ///< when its first tokens came out
  [[nodiscard]] double active() const { return double(lengths.size() - done); }
};

}  // namespace

ServiceRun run_service_fleet(const ServiceConfig& c, const std::vector<jobs::Request>& requests,
                             const std::string& trace_name) {
  ServiceRun run = start_service_run(c, requests, trace_name);
  const double dt = c.interval_s, replicas = c.replicas, tp = c.replica.tp;
  const double floor_W = replica_idle_W(c);
  std::deque<Cohort> cohorts;  // unfinished, in arrival order
  std::size_t next = 0;
  for (std::size_t k = 0; next < requests.size() || !cohorts.empty(); ++k) {
    const double t0 = double(k) * dt, t1 = t0 + dt;
    // This interval's arrivals form a cohort.
    Cohort fresh;
    while (next < requests.size() && requests[next].arrival_s < t1) fresh.requests.push_back(next++);
    if (!fresh.requests.empty()) {
      for (const std::size_t i : fresh.requests) {
        fresh.lengths.push_back(requests[i].output_tokens);
        fresh.mean_input += requests[i].input_tokens;
        fresh.kv_tokens += double(requests[i].input_tokens) + requests[i].output_tokens;
      }
      fresh.mean_input /= double(fresh.requests.size());
      cohorts.push_back(std::move(fresh));
    }
    // Admit waiting cohorts, oldest first, while the replicas' batches and KV caches hold them (a cohort
    // whole or not; one alone always).
    double kv_used = 0.0;
    for (const Cohort& h : cohorts)
      if (h.admitted) kv_used += h.kv_tokens;
    double running = 0.0, prompt_tokens = 0.0, context = 0.0, admitted_prompts = 0.0, first_token_s = 0.0;
    for (Cohort& h : cohorts) {
      if (!h.admitted) {
        const bool room = running + h.active() <= replicas * c.max_batch &&
                          kv_used + h.kv_tokens <= replicas * run.kv_capacity_tokens;
        if (!room && running > 0.0) break;
        kv_used += h.kv_tokens;
        h.admitted = true;
        h.admit_s = t0;
        prompt_tokens += h.mean_input * h.active();
        admitted_prompts += h.active();
      }
      running += h.active();
      context += h.active() * (h.mean_input + h.generated);
    }
    double power_W = replicas * floor_W;
    if (running > 0.0) {
      // A replica's iterations at its share of the sequences: most decode only; a share q of them also run
      // a whole admitted prompt (chunked prefill), as many as the interval's prompts need. With T_d and T_p
      // those two iterations' times and r the prompts a second a replica admits, q = r x T and the mean
      // iteration T = T_d + q (T_p - T_d), so T = T_d / (1 - r (T_p - T_d)); q at most 1.
      const double per_replica = running / replicas;
      models::IterationBatch b;
      b.decode_sequences = std::max(1.0, per_replica);
      b.decode_context_tokens = b.decode_sequences * context / running;
      const models::IterationCost dec = models::serving_iteration(c.replica, b, c.constants);
      models::IterationCost pre = dec;
      const double prompts = admitted_prompts / (replicas * dt);
      if (prompts > 0.0) {
        const double mean_prompt = prompt_tokens / admitted_prompts;
        b.prefill_tokens = std::min(mean_prompt, double(c.max_batched_tokens));
        b.prefill_sequences = 1.0;
        b.prefill_attended_keys = b.prefill_tokens * (b.prefill_tokens + 1.0) / 2.0;
        pre = models::serving_iteration(c.replica, b, c.constants);
        // A prompt longer than an iteration's tokens takes several.
        const double pieces = std::ceil(mean_prompt / double(c.max_batched_tokens));
        pre.time_s *= pieces;
      }
      const double extra = pre.time_s - dec.time_s;
      const double mean_s = prompts * extra < 1.0 ? dec.time_s / (1.0 - prompts * extra) : pre.time_s;
      const double q = std::min(1.0, prompts * mean_s);
      models::IterationCost it = dec;
      it.time_s = dec.time_s + q * extra;
      it.power_W = (dec.time_s * (1.0 - q) * dec.power_W + pre.time_s * q * pre.power_W) / it.time_s;
      first_token_s = pre.time_s;
      // With fewer sequences than replicas, each replica runs one for that share of the interval and idles
      // the rest.
      const double share = std::min(1.0, per_replica);
      power_W = replicas * (share * tp * it.power_W + (1.0 - share) * floor_W);
      run.busy_s += replicas * share * dt;
      run.iterations += static_cast<std::uint64_t>(std::llround(replicas * share * dt / it.time_s));
      // Each running sequence generates a token an iteration; a cohort admitted now starts after its prompt's
      // iteration, emitting its first token then.
      const double tokens = dt / it.time_s;
      for (Cohort& h : cohorts) {
        if (!h.admitted) break;
        const double from = h.generated;
        if (h.admit_s == t0 && from == 0.0) {
          // Each member's first token a prompt iteration after it arrived (or was admitted); its last, its
          // generation less one later on the cohort's count, which runs from the interval's start.
          for (std::size_t m = 0; m < h.requests.size(); ++m) {
            ServedRequest& s = run.requests[h.requests[m]];
            s.first_token_s = std::max(t0, s.arrival_s) + first_token_s;
            h.lengths[m] = (s.first_token_s - t0) / it.time_s + (s.output_tokens - 1.0);
          }
          std::vector<std::size_t> order(h.requests.size());
          for (std::size_t m = 0; m < order.size(); ++m) order[m] = m;
          std::sort(order.begin(), order.end(),
                    [&](std::size_t a, std::size_t b) { return h.lengths[a] < h.lengths[b]; });
          std::vector<std::size_t> requests_sorted;
          std::vector<double> lengths_sorted;
          for (const std::size_t m : order)
            requests_sorted.push_back(h.requests[m]), lengths_sorted.push_back(h.lengths[m]);
          h.requests = std::move(requests_sorted), h.lengths = std::move(lengths_sorted);
        }
        h.generated += tokens;
        // Members whose length the cohort passed this interval end where it passed it.
        while (h.done < h.lengths.size() && h.lengths[h.done] <= h.generated) {
          const std::size_t i = h.requests[h.done];
          const double frac = (h.lengths[h.done] - from) / tokens;
          ServedRequest& s = run.requests[i];
          s.end_s = std::max(s.first_token_s, t0 + std::max(0.0, frac) * dt);
          h.kv_tokens -= double(s.input_tokens) + s.output_tokens;
          ++h.done;
        }
      }
      // The batch over the interval: the mean of the running sequences at its start and at its end.
      double running_end = 0.0;
      for (const Cohort& h : cohorts)
        if (h.admitted) running_end += h.active();
      run.sequence_seconds += (running + running_end) / 2.0 * dt;
      // Finished cohorts go, wherever they stand (a short cohort can finish before an older long one).
      for (auto it_c = cohorts.begin(); it_c != cohorts.end();) {
        if (it_c->admitted && it_c->done == it_c->lengths.size())
          it_c = cohorts.erase(it_c);
        else
          ++it_c;
      }
    }
    run.power_W.push_back(power_W);
    run.energy_J += power_W * dt;
  }
  run.end_s = double(run.power_W.size()) * dt;
  return run;
}

}  // namespace fleetwatt::sim
