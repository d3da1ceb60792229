// A serving service in fleet mode: a fluid model of continuous batching by cohorts of arrivals (see the
// header).
#include "fleetwatt/sim/serving/service_fleet.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <utility>

namespace fleetwatt::sim {
namespace {

/// A request in flight: what its latencies and end need.
struct Member {
  std::uint64_t seq = 0;
  ServedRequest request;
};

/// The requests that arrived in one interval, admitted together and decoding in the same iterations: the
/// tokens the cohort has generated since its admission, and where each member ends on that count (its
/// generation plus the tokens the cohort ran before its first token), in ascending order.
struct Cohort {
  std::vector<Member> members;  ///< in the order of `lengths`
  std::vector<double> lengths;  ///< each member's end on the cohort's count (set at admission)
  double mean_input = 0.0;
  double kv_tokens = 0.0;  ///< prompt and generation tokens of its unfinished members (their KV reservation)
  double generated = 0.0;  ///< tokens each unfinished member has generated
  std::size_t done = 0;    ///< members finished (the shortest first)
  bool admitted = false;   ///< past its prompt: decoding
  double admit_s = 0.0;    ///< when its first tokens came out
  /// Tokens its count will run for members still short of their first token after the admission interval
  /// (no token of theirs): taken off the tokens it generates next.
  double offset_debt = 0.0;
  [[nodiscard]] double active() const { return double(lengths.size() - done); }
};

using LengthOrder = std::vector<std::pair<double, std::uint32_t>>;

/// Sorts (length, position) pairs (lengths not negative) as std::sort would: by whole tokens with a counting
/// sort, then by the rest within each whole token by insertion. A cohort holds thousands of members whose
/// lengths span a few thousand tokens, so this is linear where a comparison sort costs n log n (the fleet
/// mode's largest cost at campus scale). `scratch` and `counts` are reused buffers.
void sort_by_length(LengthOrder& v, LengthOrder& scratch, std::vector<std::uint32_t>& counts) {
  if (v.size() < 64) {
    std::sort(v.begin(), v.end());
    return;
  }
  double longest = 0.0;
  for (const auto& e : v) longest = std::max(longest, e.first);
  const auto range = static_cast<std::size_t>(longest) + 2;
  if (range > 16 * v.size()) {  // lengths too spread for counting to pay
    std::sort(v.begin(), v.end());
    return;
  }
  counts.assign(range, 0);
  for (const auto& e : v) ++counts[static_cast<std::size_t>(e.first) + 1];
  for (std::size_t i = 1; i < range; ++i) counts[i] += counts[i - 1];
  scratch.resize(v.size());
  for (const auto& e : v) scratch[counts[static_cast<std::size_t>(e.first)]++] = e;
  // Within a whole token the pairs keep their positions' order (the counting pass is stable): insertion
  // by length, then position, finishes the order.
  for (std::size_t i = 1; i < scratch.size(); ++i) {
    const auto x = scratch[i];
    std::size_t j = i;
    while (j > 0 && x < scratch[j - 1]) {
      scratch[j] = scratch[j - 1];
      --j;
    }
    scratch[j] = x;
  }
  v.swap(scratch);
}

/// Decode iterations of `running` sequences on `replicas` replicas. Requests go to the replicas in turn and
/// run for lengths that differ, so at any moment the running sequences sit on the replicas about as if each
/// had picked one at random: a replica holds none with probability (1 - 1/R)^N, and a busy one holds N / (R x
/// the busy share), at the sequences' mean context.
struct DecodeShare {
  double occupied = 1.0;         ///< the busy share of the replicas
  models::IterationBatch batch;  ///< a busy replica's decode iteration
  models::IterationCost cost;
};
DecodeShare decode_share(const ServiceConfig& c, double replicas, double running, double context) {
  DecodeShare d;
  d.occupied = replicas > 1.0 ? 1.0 - std::pow(1.0 - 1.0 / replicas, running) : 1.0;
  d.batch.decode_sequences = std::max(1.0, running / (replicas * d.occupied));
  d.batch.decode_context_tokens = d.batch.decode_sequences * context / running;
  d.cost = models::serving_iteration(c.replica, d.batch, c.constants);
  return d;
}

/// An iteration of `base` with `n` whole prompts of `chunk` tokens beside it, for prompts of `pieces` such
/// chunks each (a prompt longer than an iteration's tokens takes several).
models::IterationCost with_prompts(const ServiceConfig& c, models::IterationBatch base, double n,
                                   double chunk, double pieces) {
  base.prefill_tokens = n * chunk;
  base.prefill_sequences = n;
  base.prefill_attended_keys = n * chunk * (chunk + 1.0) / 2.0;
  models::IterationCost cost = models::serving_iteration(c.replica, base, c.constants);
  cost.time_s *= pieces;
  return cost;
}

/// Writes a fleet-mode run into a ServiceRun whose requests are the ones played, in order.
class RunSink final : public FleetServiceSink {
 public:
  explicit RunSink(ServiceRun& run) : run_(run) {}
  void request_done(std::uint64_t seq, const ServedRequest& r) override {
    run_.requests[seq].first_token_s = r.first_token_s;
    run_.requests[seq].end_s = r.end_s;
  }
  void interval_done(std::size_t, double power_W, std::uint64_t, double, const IntervalLoad& load) override {
    run_.power_W.push_back(power_W);
    run_.load.push_back(load);
  }

 private:
  ServiceRun& run_;
};

}  // namespace

FleetTotals play_service_fleet(const ServiceConfig& c, jobs::RequestSource& source,
                               const std::string& trace_name, FleetServiceSink& sink, double stop_s) {
  FleetTotals run;
  run.kv_capacity_tokens = kv_capacity_tokens(c);
  const double dt = c.interval_s, tp = c.replica.tp;
  const double floor_W = replica_idle_W(c);
  const bool pools = c.scheduling == ServiceScheduling::disaggregated;
  const double prompt_pool = pools ? double(prefill_pool(c)) : 0.0;
  // Replicas serving now; with autoscaling, those waking (ready time, count) and what a parked one draws.
  double replicas = c.replicas;
  std::deque<std::pair<double, double>> waking;
  const Autoscale& scale = c.autoscale;
  const double parked_W = scale.parked_off ? 0.0 : tp * c.replica.gpu.idle_W;
  std::deque<Cohort> cohorts;  // unfinished, in arrival order
  LengthOrder scratch;
  std::vector<std::uint32_t> counts;
  jobs::Request pending;
  bool has_pending = source.next(pending);
  for (std::size_t k = 0; has_pending || !cohorts.empty(); ++k) {
    const double t0 = double(k) * dt, t1 = t0 + dt;
    if (stop_s > 0.0 && t0 >= stop_s) break;
    // This interval's arrivals form a cohort.
    Cohort fresh;
    while (has_pending && pending.arrival_s < t1) {
      check_request_fits(pending, run.kv_capacity_tokens, trace_name);
      Member m;
      m.seq = run.requests++;
      ServedRequest& s = m.request;
      s.arrival_s = pending.arrival_s, s.input_tokens = pending.input_tokens;
      s.output_tokens = pending.output_tokens, s.record = pending.record;
      s.replica = static_cast<std::uint32_t>(m.seq % c.replicas);
      fresh.members.push_back(m);
      has_pending = source.next(pending);
    }
    const std::uint64_t arrivals = fresh.members.size();
    if (!fresh.members.empty()) {
      for (const Member& m : fresh.members) {
        fresh.lengths.push_back(m.request.output_tokens);
        fresh.mean_input += m.request.input_tokens;
        fresh.kv_tokens += double(m.request.input_tokens) + m.request.output_tokens;
      }
      fresh.mean_input /= double(fresh.members.size());
      cohorts.push_back(std::move(fresh));
    }
    double woken = 0.0;
    if (scale.enabled) {
      while (!waking.empty() && waking.front().first <= t0)
        replicas += waking.front().second, waking.pop_front();
      for (const auto& w : waking) woken += w.second;
      // As many replicas as the running and waiting sequences need at the target utilisation.
      double demand = 0.0;
      for (const Cohort& h : cohorts) demand += h.active();
      const double desired = std::clamp(std::ceil(demand / (scale.target_utilisation * c.max_batch)),
                                        double(scale.min_replicas), double(c.replicas));
      if (desired > replicas + woken) {
        waking.emplace_back(t0 + scale.wake_s, desired - replicas - woken);
        woken = desired - replicas;
      } else {
        // Too many: wakes not yet done are called off first, the newest first, then replicas park.
        double excess = replicas + woken - desired;
        while (excess > 0.0 && !waking.empty()) {
          const double off = std::min(excess, waking.back().second);
          waking.back().second -= off, woken -= off, excess -= off;
          if (!(waking.back().second > 0.0)) waking.pop_back();
        }
        replicas -= excess;
      }
    }
    const double parked = double(c.replicas) - replicas - woken;
    // Admit waiting cohorts, oldest first, while the replicas' batches and KV caches hold them (a cohort
    // whole or not; one alone always, when a replica serves).
    double kv_used = 0.0;
    for (const Cohort& h : cohorts)
      if (h.admitted) kv_used += h.kv_tokens;
    double running = 0.0, prompt_tokens = 0.0, context = 0.0, admitted_prompts = 0.0, first_token_s = 0.0;
    double decode_start_s = 0.0;  // after the first token, until a sequence decodes (the pools' hand-over)
    IntervalLoad load;
    // With disaggregated pools the decode replicas hold the running sequences; the prompt replicas, the
    // prompts.
    const double decoders = replicas - prompt_pool;
    for (Cohort& h : cohorts) {
      if (!h.admitted) {
        const bool room = running + h.active() <= decoders * c.max_batch &&
                          kv_used + h.kv_tokens <= decoders * run.kv_capacity_tokens;
        if (!(replicas > 0.0) || (!room && running > 0.0)) break;
        kv_used += h.kv_tokens;
        h.admitted = true;
        h.admit_s = t0;
        prompt_tokens += h.mean_input * h.active();
        admitted_prompts += h.active();
      }
      running += h.active();
      context += h.active() * (h.mean_input + h.generated);
    }
    load.admitted = admitted_prompts;
    load.prefill_tokens = prompt_tokens;
    for (const Cohort& h : cohorts)
      if (!h.admitted) load.queued_s += h.active() * dt;
    // The running cohorts' tokens this interval at a token every `it` (a cohort admitted now starts after its
    // prompt's iteration, emitting its first token then, and decodes `decode_start_s` later), their ends and
    // load; finished cohorts go.
    const auto advance = [&](const models::IterationCost& it, double first_token_s, double decode_start_s) {
      const double tokens = dt / it.time_s;
      for (Cohort& h : cohorts) {
        if (!h.admitted) break;
        const double from = h.generated;
        const bool first = h.admit_s == t0 && from == 0.0;
        if (first) {
          // Each member's first token a prompt iteration after it arrived (or was admitted); its last, its
          // generation less one later on the cohort's count, which runs from the interval's start.
          for (std::size_t m = 0; m < h.members.size(); ++m) {
            ServedRequest& s = h.members[m].request;
            s.first_token_s = std::max(t0, s.arrival_s) + first_token_s;
            // Its tokens after the first start where the count reaches its first token.
            const double later = std::max(0.0, s.output_tokens - 1.0);
            const double offset = (s.first_token_s + (later > 0.0 ? decode_start_s : 0.0) - t0) / it.time_s;
            h.lengths[m] = offset + later;
            load.decode_tokens += std::min(later, std::max(0.0, tokens - offset));
            h.offset_debt += std::max(0.0, offset - tokens);
            // In the batch from its arrival on (its cohort's members arrive through the interval).
            load.running_s -= std::max(t0, s.arrival_s) - t0;
          }
          // Shortest first; equal lengths in arrival order.
          std::vector<std::pair<double, std::uint32_t>> order(h.members.size());
          for (std::size_t m = 0; m < order.size(); ++m)
            order[m] = {h.lengths[m], static_cast<std::uint32_t>(m)};
          sort_by_length(order, scratch, counts);
          std::vector<Member> members_sorted;
          members_sorted.reserve(order.size());
          for (std::size_t m = 0; m < order.size(); ++m) {
            members_sorted.push_back(h.members[order[m].second]);
            h.lengths[m] = order[m].first;
          }
          h.members = std::move(members_sorted);
        }
        h.generated += tokens;
        const std::size_t done_before = h.done;
        // Members whose length the cohort passed this interval end where it passed it.
        while (h.done < h.lengths.size() && h.lengths[h.done] <= h.generated) {
          const double frac = (h.lengths[h.done] - from) / tokens;
          ServedRequest& s = h.members[h.done].request;
          s.end_s = std::max(s.first_token_s, t0 + std::max(0.0, frac) * dt);
          h.kv_tokens -= double(s.input_tokens) + s.output_tokens;
          sink.request_done(h.members[h.done].seq, s);
          load.running_s += s.end_s - t0;
          ++h.done;
        }
        load.running_s += h.active() * dt;
        if (!first) {
          // A token each for the members going on; the ones that ended, up to their lengths.
          double generated = h.active() * tokens;
          for (std::size_t m = done_before; m < h.done; ++m) generated += h.lengths[m] - from;
          const double owed = std::min(h.offset_debt, generated);
          h.offset_debt -= owed;
          load.decode_tokens += generated - owed;
        }
      }
      // The batch over the interval: each sequence from its arrival (or the interval's start) to its end (or
      // the interval's end).
      run.sequence_seconds += load.running_s;
      // Finished cohorts go, wherever they stand (a short cohort can finish before an older long one).
      for (auto it_c = cohorts.begin(); it_c != cohorts.end();) {
        if (it_c->admitted && it_c->done == it_c->lengths.size())
          it_c = cohorts.erase(it_c);
        else
          ++it_c;
      }
    };
    double power_W = (replicas + woken) * floor_W + parked * parked_W;
    if (running > 0.0 && pools) {
      // Pools: the decode replicas run decode iterations only (their sequences spread by decode_share); the
      // prompt replicas run the interval's prompts alone, as many in an iteration as come within one, for
      // their share of the interval, each prompt's first token one such iteration after it arrives, its
      // decoding once its keys and values have crossed.
      const DecodeShare decode = decode_share(c, decoders, running, context);
      const double occupied = decode.occupied;
      const models::IterationCost& dec = decode.cost;
      double prompt_share = 0.0, prompt_W = 0.0, prompt_iterations = 0.0;
      if (admitted_prompts > 0.0) {
        const double mean_prompt = prompt_tokens / admitted_prompts;
        const double chunk = std::min(mean_prompt, double(c.max_batched_tokens));
        const double pieces = std::ceil(mean_prompt / double(c.max_batched_tokens));
        const double rate = admitted_prompts / (prompt_pool * dt);  // prompts a second a prompt replica takes
        const double per_iteration =
            std::clamp(rate * with_prompts(c, {}, 1.0, chunk, pieces).time_s, 1.0,
                       std::max(1.0, std::floor(double(c.max_batched_tokens) / chunk)));
        const models::IterationCost pre = with_prompts(c, {}, per_iteration, chunk, pieces);
        prompt_iterations = rate / per_iteration * prompt_pool * dt;
        prompt_share = std::min(1.0, rate / per_iteration * pre.time_s);
        prompt_W = pre.power_W;
        first_token_s = pre.time_s;
        decode_start_s = kv_transfer_s(c, mean_prompt + 1.0);
        run.busy_s += prompt_pool * prompt_share * dt;
      }
      power_W = prompt_pool * (prompt_share * tp * prompt_W + (1.0 - prompt_share) * floor_W) +
                decoders * (occupied * tp * dec.power_W + (1.0 - occupied) * floor_W);
      run.busy_s += decoders * occupied * dt;
      run.iterations +=
          static_cast<std::uint64_t>(std::llround(prompt_iterations + decoders * occupied * dt / dec.time_s));
      advance(dec, first_token_s, decode_start_s);
    } else if (running > 0.0) {
      // A replica's iterations at its share of the sequences (decode_share): most decode only; a share q of
      // them also run k whole admitted prompts (chunked prefill), as many as the interval's prompts need.
      // With T_d and T_p those two iterations' times and r the prompts a second a replica admits, q = r T / k
      // and the mean iteration T = T_d + q (T_p - T_d), so T = T_d / (1 - r (T_p - T_d) / k); q at most 1.
      const DecodeShare decode = decode_share(c, replicas, running, context);
      const double occupied = decode.occupied;
      const models::IterationBatch& b = decode.batch;
      const models::IterationCost& dec = decode.cost;
      // The prompt iteration: the decodes with the prompts beside them, or with prefill priority the prompts
      // alone (the decodes waiting for it).
      const bool alone = c.scheduling == ServiceScheduling::prefill_priority;
      models::IterationCost pre = dec;
      const double prompts = admitted_prompts / (replicas * dt);
      // Prompts per prompt iteration: those arriving within a decode iteration share one, as many as its
      // token budget holds beside the decode tokens (the exact scheduler fills it so).
      double per_iteration = 1.0;
      if (prompts > 0.0) {
        const double mean_prompt = prompt_tokens / admitted_prompts;
        const double chunk = std::min(mean_prompt, double(c.max_batched_tokens));
        const double budget =
            std::max(chunk, double(c.max_batched_tokens) - (alone ? 0.0 : b.decode_sequences));
        per_iteration = std::clamp(prompts * dec.time_s, 1.0, std::max(1.0, std::floor(budget / chunk)));
        const double pieces = std::ceil(mean_prompt / double(c.max_batched_tokens));
        pre = with_prompts(c, alone ? models::IterationBatch{} : b, per_iteration, chunk, pieces);
      }
      // A sequence's token takes T = T_d + q x extra, q the prompt iterations in it (r T / k with r the
      // prompts a second and k a prompt iteration's): a prompt iteration replaces a decode one (extra T_p -
      // T_d), or with prefill priority comes on top of it (extra T_p).
      const double extra = alone ? pre.time_s : pre.time_s - dec.time_s;
      const double prompt_iterations = prompts / per_iteration;
      const double mean_s = prompt_iterations * extra < 1.0 ? dec.time_s / (1.0 - prompt_iterations * extra)
                                                            : dec.time_s + extra;
      const double q = std::min(1.0, prompt_iterations * mean_s);
      models::IterationCost it = dec;
      it.time_s = dec.time_s + q * extra;
      it.power_W =
          ((alone ? 1.0 : 1.0 - q) * dec.time_s * dec.power_W + q * pre.time_s * pre.power_W) / it.time_s;
      first_token_s = pre.time_s;
      advance(it, first_token_s, 0.0);
      const double share = occupied;
      power_W = replicas * (share * tp * it.power_W + (1.0 - share) * floor_W) + woken * floor_W +
                parked * parked_W;
      run.busy_s += replicas * share * dt;
      run.iterations += static_cast<std::uint64_t>(std::llround(replicas * share * dt / it.time_s));
    }
    sink.interval_done(k, power_W, arrivals, replicas, load);
    run.energy_J += power_W * dt;
    run.end_s = double(k + 1) * dt;
  }
  return run;
}

ServiceRun run_service_fleet(const ServiceConfig& c, const std::vector<jobs::Request>& requests,
                             const std::string& trace_name) {
  ServiceRun run = start_service_run(c, requests, trace_name);
  jobs::RequestList source(requests);
  RunSink sink(run);
  const FleetTotals totals = play_service_fleet(c, source, trace_name, sink);
  run.energy_J = totals.energy_J;
  run.end_s = totals.end_s;
  run.busy_s = totals.busy_s;
  run.sequence_seconds = totals.sequence_seconds;
  run.iterations = totals.iterations;
  return run;
}

}  // namespace fleetwatt::sim
