// A serving service played request by request: round-robin dispatch, continuous batching per replica, the
// power series and latencies (see the header).
#include "fleetwatt/sim/serving/service_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"

namespace fleetwatt::sim {
namespace {

/// Bytes of a 16-bit weight, key or value element.
constexpr double kElementBytes = 2.0;

/// A rate's integral per interval (joules from watts, tokens from tokens a second): what [a, b) adds at a
/// constant rate, spread over the intervals it touches.
class IntervalSums {
 public:
  explicit IntervalSums(double interval_s) : dt_(interval_s) {}
  void add(double a, double b, double rate) {
    if (!(b > a)) return;
    auto i = static_cast<std::size_t>(std::floor(a / dt_));
    while (a < b) {
      if (sums_.size() <= i) sums_.resize(i + 1, 0.0);
      const double edge = std::min(b, static_cast<double>(i + 1) * dt_);
      sums_[i] += rate * (edge - a);
      a = edge;
      ++i;
    }
  }
  [[nodiscard]] const std::vector<double>& sums() const noexcept { return sums_; }

 private:
  double dt_;
  std::vector<double> sums_;
};

/// Bytes of one token's keys and values over a replica's GPUs (16-bit elements).
double kv_bytes_per_token(const ServiceConfig& c) {
  const models::ModelCount& m = c.replica.model;
  const double tp = c.replica.stage_gpus();
  const double a = m.d_attention > 0 ? m.d_attention : m.d_model;
  const double d_head = m.heads > 0 ? a / m.heads : 0.0, kv_heads = m.kv_heads > 0 ? m.kv_heads : m.heads;
  return m.blocks * 2.0 * tp * std::max(1.0, kv_heads / tp) * d_head * kElementBytes;
}

/// A sequence a replica runs.
struct Sequence {
  std::size_t request = 0;  ///< index into the run's requests
  double admit_s = 0.0;     ///< when it entered the batch
  double prefilled = 0.0;   ///< prompt tokens processed
  double generated = 0.0;   ///< tokens generated
};

/// What the requests did, interval by interval: each quantity spread over the time it took, as the energy is.
struct LoadBins {
  explicit LoadBins(double interval_s)
      : dt(interval_s), queued(interval_s), running(interval_s), prefill(interval_s), decode(interval_s) {}
  void admit(double t) {
    const auto k = static_cast<std::size_t>(std::floor(t / dt));
    if (admitted.size() <= k) admitted.resize(k + 1, 0.0);
    admitted[k] += 1.0;
  }
  /// The run's series over `n` intervals.
  [[nodiscard]] std::vector<IntervalLoad> series(std::size_t n) const {
    std::vector<IntervalLoad> out(n);
    const auto at = [](const std::vector<double>& v, std::size_t k) { return k < v.size() ? v[k] : 0.0; };
    for (std::size_t k = 0; k < n; ++k)
      out[k] = {at(admitted, k), at(queued.sums(), k), at(running.sums(), k), at(prefill.sums(), k),
                at(decode.sums(), k)};
    return out;
  }
  double dt;
  std::vector<double> admitted;
  IntervalSums queued, running, prefill, decode;  ///< rates (requests, sequences, tokens/s) over time
};

}  // namespace

double kv_capacity_tokens(const ServiceConfig& c) {
  if (c.replicas == 0) throw std::invalid_argument("replicas must be at least 1");
  if (c.max_batch == 0) throw std::invalid_argument("max_batch must be at least 1");
  if (c.max_batched_tokens == 0) throw std::invalid_argument("max_batched_tokens must be at least 1");
  if (!(c.memory_fraction > 0.0 && c.memory_fraction <= 1.0))
    throw std::invalid_argument(fmt::format("memory_fraction must be in (0, 1], not {}", c.memory_fraction));
  if (!(c.interval_s > 0.0) || !std::isfinite(c.interval_s))
    throw std::invalid_argument(fmt::format("interval_s must be positive, not {}", c.interval_s));
  const models::ModelCount& m = c.replica.model;
  const double tp = c.replica.stage_gpus(), pp = c.replica.stages();
  const double memory = c.replica.gpu.memory_bytes * tp * pp * c.memory_fraction;
  const double weights = m.params * kElementBytes;
  const double per_token = kv_bytes_per_token(c);
  if (!(weights < memory) || !(per_token > 0.0))
    throw std::invalid_argument(fmt::format(
        "{}'s weights ({:.1f} GiB in 16 bits) do not fit {} x {} ({:.1f} GiB at memory_fraction {})", m.name,
        weights / 1073741824.0, tp * pp, c.replica.gpu.id, memory / 1073741824.0, c.memory_fraction));
  // The pp engines of a replica share its cache (vLLM gives each virtual engine 1/pp of the blocks).
  return std::floor((memory - weights) / pp / per_token);
}

ServiceRun start_service_run(const ServiceConfig& config, const std::vector<jobs::Request>& requests,
                             const std::string& trace_name) {
  ServiceRun run;
  run.kv_capacity_tokens = kv_capacity_tokens(config);
  for (const jobs::Request& r : requests) check_request_fits(r, run.kv_capacity_tokens, trace_name);
  run.requests.reserve(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const jobs::Request& r = requests[i];
    ServedRequest s;
    s.arrival_s = r.arrival_s, s.input_tokens = r.input_tokens, s.output_tokens = r.output_tokens;
    s.replica = static_cast<std::uint32_t>(i % serving_engines(config) / config.replica.stages());
    s.record = r.record;
    run.requests.push_back(s);
  }
  return run;
}

void check_request_fits(const jobs::Request& r, double kv_capacity_tokens, const std::string& trace_name) {
  if (double(r.input_tokens) + r.output_tokens > kv_capacity_tokens)
    throw core::TraceFormatError(
        {trace_name, r.record, 0}, "input_tokens",
        fmt::format("a request of {} + {} tokens needs more KV cache than a replica holds ({:.0f} tokens)",
                    r.input_tokens, r.output_tokens, kv_capacity_tokens));
}

double engine_idle_W(const ServiceConfig& config) {
  return config.replica.tp *
         models::resident_floor(config.replica.gpu, models::default_predictor_fit().power);
}

double replica_idle_W(const ServiceConfig& config) {
  return config.replica.stages() * engine_idle_W(config);
}

std::uint32_t serving_engines(const ServiceConfig& config) {
  return config.replicas * config.replica.stages();
}

double service_gpus(const ServiceConfig& config) {
  return double(config.replicas) * config.replica.tp * config.replica.stages();
}

namespace {

/// What one replica plays: requests in the order they become ready for it, and when.
struct ReplicaWork {
  std::vector<std::size_t> requests;  ///< indices into the run's requests
  std::vector<double> ready;          ///< when each joins this replica's queue (ascending)
  bool prompts_done = false;          ///< a decode pool's replica: the prompts ran elsewhere
  bool to_first_token = false;        ///< a prefill pool's replica: each request leaves at its first token
};

/// Continuous batching on one replica (see the header); returns when it last worked. Its energy goes to
/// `bins`, what its requests did to `load`.
double play_replica(const ServiceConfig& config, ServiceRun& run, const ReplicaWork& work, IntervalSums& bins,
                    LoadBins& load) {
  const models::ServingReplica& replica = config.replica;
  const double tp = replica.tp, idle_W = engine_idle_W(config);
  const std::vector<std::size_t>& mine = work.requests;
  std::deque<std::size_t> waiting;  // positions in `mine`
  std::vector<Sequence> running;
  std::size_t next = 0;
  double t = 0.0, kv_used = 0.0;
  const auto kv_need = [&](const ServedRequest& r) {
    return double(r.input_tokens) + (work.to_first_token ? 1.0 : double(r.output_tokens));
  };
  while (next < mine.size() || !waiting.empty() || !running.empty()) {
    while (next < mine.size() && work.ready[next] <= t) waiting.push_back(next++);
    while (!waiting.empty() && running.size() < config.max_batch) {
      const std::size_t at = waiting.front();
      const ServedRequest& r = run.requests[mine[at]];
      if (kv_used + kv_need(r) > run.kv_capacity_tokens) break;
      kv_used += kv_need(r);
      if (work.prompts_done)
        running.push_back({mine[at], t, double(r.input_tokens), 1.0});
      else
        running.push_back({mine[at], t, 0.0, 0.0});
      load.queued.add(work.ready[at], t, 1.0);
      if (!work.prompts_done) load.admit(t);
      waiting.pop_front();
    }
    if (running.empty()) {
      // Idle until the next arrival (waiting is empty: an empty cache admits any request that fits).
      const double arrival = work.ready[next];
      bins.add(t, arrival, idle_W);
      t = arrival;
      continue;
    }
    // The batch: every sequence past its prompt generates a token and prompt chunks fill the rest; with
    // prefill priority, prompts alone while any is unfinished.
    models::IterationBatch batch;
    std::vector<double> chunk(running.size(), 0.0);
    std::vector<char> decodes(running.size(), 0);
    double budget = config.max_batched_tokens;
    bool prompts_left = false;
    for (const Sequence& s : running)
      prompts_left = prompts_left || s.prefilled < run.requests[s.request].input_tokens;
    const bool decoding = config.scheduling != ServiceScheduling::prefill_priority || !prompts_left;
    for (std::size_t i = 0; i < running.size() && decoding; ++i)
      if (const Sequence& s = running[i]; s.prefilled >= run.requests[s.request].input_tokens) {
        const ServedRequest& r = run.requests[s.request];
        decodes[i] = 1;
        batch.decode_sequences += 1.0;
        batch.decode_context_tokens += r.input_tokens + s.generated;
        budget -= 1.0;
      }
    for (std::size_t i = 0; i < running.size() && budget > 0.0; ++i) {
      const Sequence& s = running[i];
      const double left = run.requests[s.request].input_tokens - s.prefilled;
      if (!(left > 0.0)) continue;
      const double c = std::min(left, budget);
      chunk[i] = c;
      budget -= c;
      batch.prefill_tokens += c;
      batch.prefill_attended_keys += c * s.prefilled + c * (c + 1.0) / 2.0;
      if (c == left) batch.prefill_sequences += 1.0;
    }
    const models::IterationCost cost = models::serving_iteration(replica, batch, config.constants);
    bins.add(t, t + cost.time_s, tp * cost.power_W);
    load.prefill.add(t, t + cost.time_s, batch.prefill_tokens / cost.time_s);
    load.decode.add(t, t + cost.time_s, batch.decode_sequences / cost.time_s);
    run.busy_s += cost.time_s;
    run.sequence_seconds += static_cast<double>(running.size()) * cost.time_s;
    ++run.iterations;
    t += cost.time_s;
    // Tokens out: a finished prompt emits the first token, a decode the next.
    std::vector<Sequence> still;
    for (std::size_t i = 0; i < running.size(); ++i) {
      Sequence s = running[i];
      ServedRequest& r = run.requests[s.request];
      if (chunk[i] > 0.0) {
        s.prefilled += chunk[i];
        if (s.prefilled < r.input_tokens) {
          still.push_back(s);
          continue;
        }
        r.first_token_s = t;
        s.generated = 1.0;
      } else if (decodes[i]) {
        s.generated += 1.0;
      } else {  // a prompt that got no tokens this time, or a decode held back for the prompts
        still.push_back(s);
        continue;
      }
      const bool leaves = work.to_first_token || s.generated >= r.output_tokens;
      if (leaves) {
        if (s.generated >= r.output_tokens) r.end_s = t;
        load.running.add(s.admit_s, t, 1.0);
        kv_used -= kv_need(r);
      } else {
        still.push_back(s);
      }
    }
    running = std::move(still);
  }
  return t;
}

}  // namespace

std::uint32_t prefill_pool(const ServiceConfig& c) {
  return c.prefill_replicas > 0 ? c.prefill_replicas : std::max(1u, c.replicas / 4);
}

double kv_transfer_s(const ServiceConfig& c, double tokens) {
  // kv_bytes_per_token is over a stage's tp GPUs for every layer; each stage sends its layers' share.
  return tokens * kv_bytes_per_token(c) /
         (c.replica.stage_gpus() * c.replica.stages() * c.kv_link_Bps);
}

ServiceRun run_service(const ServiceConfig& config, const std::vector<jobs::Request>& requests,
                       const std::string& trace_name) {
  ServiceRun run = start_service_run(config, requests, trace_name);
  const double idle_W = engine_idle_W(config);
  IntervalSums bins(config.interval_s);
  LoadBins load(config.interval_s);
  // Engines: a replica of pp stages is pp of them, the replica's in a row (engine / pp is its replica).
  const std::uint32_t engines = serving_engines(config), pp = config.replica.stages();
  std::vector<double> last_active(engines, 0.0);
  const bool pools = config.scheduling == ServiceScheduling::disaggregated;
  const std::uint32_t prompt_engines = pools ? prefill_pool(config) * pp : engines;
  // The engines that run the prompts (all of them, without separate pools): requests in turn.
  std::vector<ReplicaWork> work(engines);
  for (std::size_t i = 0; i < run.requests.size(); ++i) {
    ReplicaWork& w = work[i % prompt_engines];
    w.requests.push_back(i), w.ready.push_back(run.requests[i].arrival_s);
    w.to_first_token = pools;
    run.requests[i].replica = static_cast<std::uint32_t>(i % prompt_engines / pp);
  }
  for (std::uint32_t rep = 0; rep < prompt_engines; ++rep)
    last_active[rep] = play_replica(config, run, work[rep], bins, load);
  if (pools) {
    // Each request with tokens after its first moves its prompt's keys and values to a decode replica (in
    // turn, in the order they get there), which generates the rest.
    std::vector<std::pair<double, std::size_t>> handed;
    for (std::size_t i = 0; i < run.requests.size(); ++i)
      if (const ServedRequest& r = run.requests[i]; r.output_tokens > 1)
        handed.emplace_back(r.first_token_s + kv_transfer_s(config, r.input_tokens + 1.0), i);
    std::stable_sort(handed.begin(), handed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::uint32_t decoders = engines - prompt_engines;
    for (std::size_t k = 0; k < handed.size(); ++k) {
      const std::uint32_t rep = prompt_engines + static_cast<std::uint32_t>(k % decoders);
      ReplicaWork& w = work[rep];
      w.requests.push_back(handed[k].second), w.ready.push_back(handed[k].first);
      w.prompts_done = true;
      run.requests[handed[k].second].replica = rep / pp;
    }
    for (std::uint32_t rep = prompt_engines; rep < engines; ++rep)
      last_active[rep] = play_replica(config, run, work[rep], bins, load);
  }
  run.end_s = *std::max_element(last_active.begin(), last_active.end());
  // Every replica holds its model at the floor from its last request to the service's last.
  for (std::uint32_t rep = 0; rep < engines; ++rep) bins.add(last_active[rep], run.end_s, idle_W);
  const auto intervals = static_cast<std::size_t>(std::ceil(run.end_s / config.interval_s));
  std::vector<double> joules = bins.sums();
  joules.resize(std::max(intervals, joules.size()), 0.0);
  for (const double j : joules) run.energy_J += j;
  run.power_W.reserve(joules.size());
  for (std::size_t i = 0; i < joules.size(); ++i) {
    // The last interval's mean over the part of it the run covers.
    const double width = std::min(config.interval_s, run.end_s - static_cast<double>(i) * config.interval_s);
    run.power_W.push_back(width > 0.0 ? joules[i] / width : 0.0);
  }
  run.load = load.series(run.power_W.size());
  return run;
}

}  // namespace fleetwatt::sim
