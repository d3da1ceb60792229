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
  const double tp = std::max(1u, c.replica.tp);
  const double memory = c.replica.gpu.memory_bytes * tp * c.memory_fraction;
  const double weights = m.params * kElementBytes;
  const double a = m.d_attention > 0 ? m.d_attention : m.d_model;
  const double d_head = m.heads > 0 ? a / m.heads : 0.0, kv_heads = m.kv_heads > 0 ? m.kv_heads : m.heads;
  const double per_token = m.blocks * 2.0 * tp * std::max(1.0, kv_heads / tp) * d_head * kElementBytes;
  if (!(weights < memory) || !(per_token > 0.0))
    throw std::invalid_argument(fmt::format(
        "{}'s weights ({:.1f} GiB in 16 bits) do not fit {} x {} ({:.1f} GiB at memory_fraction {})", m.name,
        weights / 1073741824.0, c.replica.tp, c.replica.gpu.id, memory / 1073741824.0, c.memory_fraction));
  return std::floor((memory - weights) / per_token);
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
    s.replica = static_cast<std::uint32_t>(i % config.replicas);
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

double replica_idle_W(const ServiceConfig& config) {
  return config.replica.tp *
         models::resident_floor(config.replica.gpu, models::default_predictor_fit().power);
}

ServiceRun run_service(const ServiceConfig& config, const std::vector<jobs::Request>& requests,
                       const std::string& trace_name) {
  ServiceRun run = start_service_run(config, requests, trace_name);
  const models::ServingReplica& replica = config.replica;
  const double tp = replica.tp;
  const double idle_W = replica_idle_W(config);
  IntervalSums bins(config.interval_s);
  LoadBins load(config.interval_s);
  std::vector<double> last_active(config.replicas, 0.0);
  for (std::uint32_t rep = 0; rep < config.replicas; ++rep) {
    std::vector<std::size_t> mine;
    for (std::size_t i = rep; i < run.requests.size(); i += config.replicas) mine.push_back(i);
    std::deque<std::size_t> waiting;
    std::vector<Sequence> running;
    std::size_t next = 0;
    double t = 0.0, kv_used = 0.0;
    while (next < mine.size() || !waiting.empty() || !running.empty()) {
      while (next < mine.size() && run.requests[mine[next]].arrival_s <= t) waiting.push_back(mine[next++]);
      while (!waiting.empty() && running.size() < config.max_batch) {
        const ServedRequest& r = run.requests[waiting.front()];
        const double need = double(r.input_tokens) + r.output_tokens;
        if (kv_used + need > run.kv_capacity_tokens) break;
        kv_used += need;
        running.push_back({waiting.front(), t, 0.0, 0.0});
        load.queued.add(r.arrival_s, t, 1.0);
        load.admit(t);
        waiting.pop_front();
      }
      if (running.empty()) {
        // Idle until the next arrival (waiting is empty: an empty cache admits any request that fits).
        const double arrival = run.requests[mine[next]].arrival_s;
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
      const bool decoding = config.scheduling == ServiceScheduling::fcfs || !prompts_left;
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
        if (s.generated >= r.output_tokens) {
          r.end_s = t;
          load.running.add(s.admit_s, t, 1.0);
          kv_used -= double(r.input_tokens) + r.output_tokens;
        } else {
          still.push_back(s);
        }
      }
      running = std::move(still);
    }
    last_active[rep] = t;
  }
  run.end_s = *std::max_element(last_active.begin(), last_active.end());
  // Every replica holds its model at the floor from its last request to the service's last.
  for (std::uint32_t rep = 0; rep < config.replicas; ++rep) bins.add(last_active[rep], run.end_s, idle_W);
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
