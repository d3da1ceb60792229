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

/// The wait of a request arriving at a replica (or pool) for the iteration it is in the middle of: with odds
/// `busy` there is one, and the wait is then spread evenly up to twice its mean, `mean_s` (the iteration's
/// rest at a random instant, in_progress_s). A cohort's members take their places in that distribution by
/// `x`, a fixed low-discrepancy sequence in [0, 1) (EvenSpread), so its percentiles follow it and runs
/// repeat.
struct InProgress {
  double busy = 0.0, mean_s = 0.0;
  [[nodiscard]] double wait_s(double x) const { return x < busy ? x / busy * 2.0 * mean_s : 0.0; }
  /// The mean wait, busy x mean_s.
  [[nodiscard]] double mean_wait_s() const { return busy * mean_s; }
};

/// Weyl's sequence with the golden ratio's fraction, from 0.5: evenly spread in [0, 1) whatever the count.
struct EvenSpread {
  double x = 0.5;
  double next() {
    const double v = x;
    x += 0.6180339887498949;
    if (x >= 1.0) x -= 1.0;
    return v;
  }
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
  /// Disaggregated pools: from its admission interval's start until the prompt pool reaches its prompts
  /// (the work queued ahead of them), then its prompt iteration's time, and the move of the keys and values.
  /// Its members' prompts are spread over the cohort's prompt work (`prompt_work_s` of the pool's time).
  double prompt_wait_s = 0.0, prompt_s = 0.0, handover_s = 0.0, prompt_work_s = 0.0;
  /// Pools: how a prompt arriving with no work queued ahead of it waits for the iteration a prompt replica is
  /// in the middle of (none with nothing ahead in the queue: the queue's wait holds it).
  InProgress prompt_in_progress;
  double attended_keys = 0.0;  ///< over its prompts' tokens, the keys each attends: sum of P (P + 1) / 2
  double decode_from_s = 0.0;  ///< pools: when its members' decoding starts, on average
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

/// The mean rest of the iteration in progress that a request arriving at a random time at a busy replica
/// waits for: iterations of `short_s`, a share `q` of them (by count) of `long_s` instead. A random instant
/// falls in an iteration with odds in proportion to its length, and halfway through it on average:
/// E[T^2] / (2 E[T]).
double in_progress_s(double short_s, double long_s, double q) {
  const double mean = (1.0 - q) * short_s + q * long_s;
  return mean > 0.0 ? ((1.0 - q) * short_s * short_s + q * long_s * long_s) / (2.0 * mean) : 0.0;
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

/// `n` prompts of `mean_prompt` tokens on a prompt pool of `pool` replicas within one interval of `dt`: as
/// many share an iteration as arrive within one, up to the iteration's token budget; all it holds when they
/// wait behind other prompts (`queued`), as the replica then finds them waiting.
struct PromptWork {
  models::IterationCost iteration;  ///< one iteration of prompt tokens (a prompt over the budget: a chunk)
  double iterations = 0.0;          ///< how many the prompts take
  double prompt_s = 0.0;            ///< a prompt's own iterations: from its first chunk to its first token
  [[nodiscard]] double replica_s() const { return iterations * iteration.time_s; }
};
PromptWork prompt_work(const ServiceConfig& c, double n, double mean_prompt, double attended_keys,
                       double pool, double dt, bool queued) {
  const double chunk = std::min(mean_prompt, double(c.max_batched_tokens));
  const double pieces = std::ceil(mean_prompt / double(c.max_batched_tokens));
  const double rate = n / (pool * dt);  // prompts a second a prompt replica takes
  const double most = std::max(1.0, std::floor(double(c.max_batched_tokens) / chunk));
  const double per_iteration =
      std::clamp(queued ? n : rate * with_prompts(c, {}, 1.0, chunk, pieces).time_s, 1.0, most);
  // Iterations of per_iteration chunks over all the prompts' tokens, each with its share of the keys the
  // prompts' tokens attend (a chunk attends its prompt's earlier chunks too).
  PromptWork w;
  w.iterations = n * mean_prompt / (per_iteration * chunk);
  models::IterationBatch b;
  b.prefill_tokens = per_iteration * chunk;
  b.prefill_sequences = n / w.iterations;
  b.prefill_attended_keys = attended_keys / w.iterations;
  w.iteration = models::serving_iteration(c.replica, b, c.constants);
  w.prompt_s = mean_prompt / chunk * w.iteration.time_s;
  return w;
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
  // Engines play the part of replicas here (a replica of pp stages is pp of them: serving_engines).
  const std::uint32_t engines = serving_engines(c), pp = c.replica.stages();
  const double floor_W = engine_idle_W(c);
  const bool pools = c.scheduling == ServiceScheduling::disaggregated;
  const double prompt_pool = pools ? double(prefill_pool(c)) * pp : 0.0;
  // Engines serving now; with autoscaling, those waking (ready time, count) and what a parked one draws.
  double replicas = engines;
  std::deque<std::pair<double, double>> waking;
  const Autoscale& scale = c.autoscale;
  const double parked_W = scale.parked_off ? 0.0 : tp * c.replica.gpu.idle_W;
  std::deque<Cohort> cohorts;  // unfinished, in arrival order
  // Disaggregated pools: the prompt pool's work admitted and not yet done (replica-seconds) and its GPU
  // energy per GPU (J): the prompts queued on the prompt replicas.
  double prompt_backlog_s = 0.0, prompt_backlog_J = 0.0;
  // Request-seconds waiting for the prompt pool in the intervals ahead (the next first), of members admitted
  // with a wait past their admission interval: queued there, not in the batch.
  std::deque<double> wait_ahead_s;
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
      s.replica = static_cast<std::uint32_t>(m.seq % engines / pp);
      fresh.members.push_back(m);
      has_pending = source.next(pending);
    }
    const std::uint64_t arrivals = fresh.members.size();
    if (!fresh.members.empty()) {
      for (const Member& m : fresh.members) {
        fresh.lengths.push_back(m.request.output_tokens);
        fresh.mean_input += m.request.input_tokens;
        fresh.attended_keys += double(m.request.input_tokens) * (m.request.input_tokens + 1.0) / 2.0;
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
                                        double(scale.min_replicas), double(engines));
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
    const double parked = double(engines) - replicas - woken;
    // Admit waiting cohorts, oldest first, while the replicas' batches and KV caches hold them (a cohort
    // whole or not; one alone always, when a replica serves) and, with pools, while the prompt pool has time
    // left in the interval.
    double kv_used = 0.0;
    for (const Cohort& h : cohorts)
      if (h.admitted) kv_used += h.kv_tokens;
    double running = 0.0, prompt_tokens = 0.0, context = 0.0, admitted_prompts = 0.0;
    double decoding = 0.0, decoding_context = 0.0;  // pools: the running sequences the decode pool holds
    // Pools: the prompt work admitted this interval (replica-seconds), its energy per GPU and iterations.
    double new_prompt_s = 0.0, new_prompt_J = 0.0, prompt_iterations = 0.0;
    IntervalLoad load;
    if (!wait_ahead_s.empty()) {
      load.queued_s += wait_ahead_s.front();
      load.running_s -= wait_ahead_s.front();
      wait_ahead_s.pop_front();
    }
    // With disaggregated pools the decode replicas hold the running sequences; the prompt replicas, the
    // prompts.
    const double decoders = replicas - prompt_pool;
    for (Cohort& h : cohorts) {
      if (!h.admitted) {
        const bool room = running + h.active() <= decoders * c.max_batch &&
                          kv_used + h.kv_tokens <= decoders * run.kv_capacity_tokens;
        if (!(replicas > 0.0) || (!room && running > 0.0)) break;
        if (pools) {
          // The prompt pool takes a cohort while it has time left in the interval: the work queued ahead of
          // it comes first. Otherwise the cohort waits, and the ones behind it.
          const double ahead_s = prompt_backlog_s + new_prompt_s;
          if (ahead_s >= prompt_pool * dt) break;
          const PromptWork w =
              prompt_work(c, h.active(), h.mean_input, h.attended_keys, prompt_pool, dt, ahead_s > 0.0);
          h.prompt_wait_s = ahead_s / prompt_pool;
          h.prompt_work_s = w.replica_s() / prompt_pool;
          h.prompt_s = w.prompt_s;
          // Behind queued work the queue's wait holds the iteration in progress already.
          h.prompt_in_progress = ahead_s > 0.0
                                     ? InProgress{}
                                     : InProgress{std::min(1.0, w.replica_s() / (prompt_pool * dt)),
                                                  in_progress_s(w.iteration.time_s, w.iteration.time_s, 0.0)};
          h.handover_s = kv_transfer_s(c, h.mean_input + 1.0);
          h.decode_from_s = t0 + h.prompt_wait_s + h.prompt_work_s / 2.0 +
                            h.prompt_in_progress.mean_wait_s() + h.prompt_s + h.handover_s;
          new_prompt_s += w.replica_s();
          new_prompt_J += w.replica_s() * w.iteration.power_W;
          prompt_iterations += w.iterations;
        }
        kv_used += h.kv_tokens;
        h.admitted = true;
        h.admit_s = t0;
        prompt_tokens += h.mean_input * h.active();
        admitted_prompts += h.active();
      }
      running += h.active();
      context += h.active() * (h.mean_input + h.generated);
      // With pools a cohort decodes only once the prompt pool has run it and its keys and values crossed
      // (its members on average): before then its sequences hold no decode replica.
      const double share = pools ? std::clamp((t1 - h.decode_from_s) / dt, 0.0, 1.0) : 1.0;
      decoding += share * h.active();
      decoding_context += share * h.active() * (h.mean_input + h.generated);
    }
    load.admitted = admitted_prompts;
    load.prefill_tokens = prompt_tokens;
    for (const Cohort& h : cohorts)
      if (!h.admitted) load.queued_s += h.active() * dt;
    // The running cohorts' tokens this interval at a token every `it` (a cohort admitted now starts after the
    // iteration in progress at its replica and its prompt's iteration, emitting its first token then; with
    // pools it waits for the prompt pool first and decodes once its keys and values have crossed), their ends
    // and load; finished cohorts go.
    const auto advance = [&](const models::IterationCost& it, double first_token_s,
                             const InProgress& at_replica) {
      const double tokens = dt / it.time_s;
      for (Cohort& h : cohorts) {
        if (!h.admitted) break;
        const double from = h.generated;
        const bool first = h.admit_s == t0 && from == 0.0;
        if (first) {
          // Each member's first token the iteration in progress and a prompt iteration after it arrived (or
          // was admitted); its last, its generation less one later on the cohort's count, which runs from the
          // interval's start.
          EvenSpread spread;
          for (std::size_t m = 0; m < h.members.size(); ++m) {
            const double place = spread.next();
            ServedRequest& s = h.members[m].request;
            const double arrived = std::max(t0, s.arrival_s);
            // With pools, the cohort's prompts in arrival order through its share of the pool's time.
            const double reached =
                t0 + h.prompt_wait_s + double(m) / double(h.members.size()) * h.prompt_work_s;
            const double start =
                pools ? std::max(reached, s.arrival_s + h.prompt_in_progress.wait_s(place)) : arrived;
            s.first_token_s = start + (pools ? h.prompt_s : at_replica.wait_s(place) + first_token_s);
            // Its tokens after the first start where the count reaches its first token.
            const double later = std::max(0.0, s.output_tokens - 1.0);
            const double offset = (s.first_token_s + (later > 0.0 ? h.handover_s : 0.0) - t0) / it.time_s;
            h.lengths[m] = offset + later;
            load.decode_tokens += std::min(later, std::max(0.0, tokens - offset));
            h.offset_debt += std::max(0.0, offset - tokens);
            // In the batch from its arrival on (its cohort's members arrive through the interval), or with
            // pools from when the prompt pool reaches it, waiting until then.
            load.running_s -= std::min(start, t1) - t0;
            load.queued_s += std::min(start, t1) - arrived;
            for (std::size_t j = 0; t1 + double(j) * dt < start; ++j) {
              if (wait_ahead_s.size() <= j) wait_ahead_s.resize(j + 1, 0.0);
              wait_ahead_s[j] += std::min(start, t1 + double(j + 1) * dt) - (t1 + double(j) * dt);
            }
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
    // Pools: the prompt replicas work through the queued prompts, as much as the interval holds.
    const double prompt_queue_s = prompt_backlog_s + new_prompt_s;
    const double prompt_done_s = std::min(prompt_queue_s, prompt_pool * dt);
    const double prompt_W = prompt_queue_s > 0.0 ? (prompt_backlog_J + new_prompt_J) / prompt_queue_s : 0.0;
    if (running > 0.0 && pools) {
      // Pools: the decode replicas run decode iterations only (their sequences spread by decode_share); the
      // prompt replicas run the queued prompts alone (prompt_work), each cohort's first token one such
      // iteration after the pool reaches it, its decoding once its keys and values have crossed.
      // No sequence decoding yet (every one still at the prompt pool): the decode replicas idle.
      const bool idle = !(decoding > 0.0);
      const DecodeShare decode = idle ? decode_share(c, decoders, running, context)
                                      : decode_share(c, decoders, decoding, decoding_context);
      const double occupied = idle ? 0.0 : decode.occupied;
      const models::IterationCost& dec = decode.cost;
      const double prompt_share = prompt_done_s / (prompt_pool * dt);
      run.busy_s += prompt_done_s;
      power_W = prompt_pool * (prompt_share * tp * prompt_W + (1.0 - prompt_share) * floor_W) +
                decoders * (occupied * tp * dec.power_W + (1.0 - occupied) * floor_W);
      run.busy_s += decoders * occupied * dt;
      run.iterations +=
          static_cast<std::uint64_t>(std::llround(prompt_iterations + decoders * occupied * dt / dec.time_s));
      advance(dec, 0.0, InProgress{});
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
      // A prompt arriving at a busy replica first waits for the iteration in progress to end.
      advance(it, pre.time_s, InProgress{occupied, in_progress_s(dec.time_s, dec.time_s + extra, q)});
      const double share = occupied;
      power_W = replicas * (share * tp * it.power_W + (1.0 - share) * floor_W) + woken * floor_W +
                parked * parked_W;
      run.busy_s += replicas * share * dt;
      run.iterations += static_cast<std::uint64_t>(std::llround(replicas * share * dt / it.time_s));
    }
    prompt_backlog_s = prompt_queue_s - prompt_done_s;
    prompt_backlog_J = prompt_backlog_s * prompt_W;
    sink.interval_done(k, power_W, arrivals, replicas / pp, load);
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
