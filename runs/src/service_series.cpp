// A scenario's service played into its record (see service_series.hpp).
#include "fleetwatt/runs/service_series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "fleetwatt/jobs/trace.hpp"

namespace fleetwatt::runs {
namespace {

constexpr double kHistogramLow = 1e-6, kHistogramHigh = 1e6, kHistogramRatio = 1.01;
const double kLogRatio = std::log(kHistogramRatio);
const auto kHistogramBins =
    static_cast<std::size_t>(std::ceil(std::log(kHistogramHigh / kHistogramLow) / std::log(kHistogramRatio)));
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

LogHistogram::LogHistogram() : bins_(kHistogramBins, 0) {}

void LogHistogram::add(double x) {
  const double v = std::log(std::max(x, kHistogramLow) / kHistogramLow) / kLogRatio;
  bins_[std::min(kHistogramBins - 1, static_cast<std::size_t>(v))] += 1;
  ++n_;
}

double LogHistogram::quantile(double q) const {
  if (n_ == 0) return kNaN;
  // The bin holding the value of rank q (n - 1), counted from 0, as numpy's default quantile ranks.
  const auto rank = static_cast<std::uint64_t>(std::floor(std::clamp(q, 0.0, 1.0) * double(n_ - 1)));
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < bins_.size(); ++b) {
    seen += bins_[b];
    if (seen > rank) return kHistogramLow * std::exp((double(b) + 0.5) * kLogRatio);
  }
  return kHistogramHigh;
}

ServiceSeriesBuilder::ServiceSeriesBuilder(results::ServiceRecord header, double horizon_s, double after_W,
                                           double after_replicas)
    : r_(std::move(header)), horizon_s_(horizon_s), after_W_(after_W), after_replicas_(after_replicas) {
  n_ = static_cast<std::size_t>(std::ceil(horizon_s / r_.interval_s - 1e-9));
  r_.power_W.assign(n_, after_W);
  r_.arrivals.assign(n_, 0);
  r_.completions.assign(n_, 0);
  r_.output_tokens_per_s.assign(n_, 0.0);
  r_.replicas_active.assign(n_, after_replicas);
  r_.admitted.assign(n_, 0);
  r_.queued.assign(n_, 0.0), r_.running.assign(n_, 0.0), r_.batch_occupancy.assign(n_, 0.0);
  r_.prefill_tokens_per_s.assign(n_, 0.0), r_.decode_tokens_per_s.assign(n_, 0.0);
  if (r_.slo_ttft_s > 0.0 || r_.slo_tpot_s > 0.0) r_.slo_met.assign(n_, 0);
  r_.ttft_p50_s.assign(n_, kNaN), r_.ttft_p99_s.assign(n_, kNaN);
  r_.tpot_p50_s.assign(n_, kNaN), r_.tpot_p99_s.assign(n_, kNaN);
}

double ServiceSeriesBuilder::lag_at(double t) const {
  if (lag_s_.empty() || !(t >= 0.0)) return 0.0;
  const auto k = static_cast<std::size_t>(std::floor(t / r_.interval_s));
  return k < lag_s_.size() ? lag_s_[k] : 0.0;
}

void ServiceSeriesBuilder::request_done(std::uint64_t, const sim::ServedRequest& planned) {
  if (lag_s_.empty()) return record_request(planned);
  sim::ServedRequest late = planned;
  late.first_token_s += lag_at(planned.first_token_s);
  // Never before its first token (the two lags differ).
  late.end_s = std::max(planned.end_s + lag_at(planned.end_s), late.first_token_s);
  record_request(late);
}

void ServiceSeriesBuilder::record_request(const sim::ServedRequest& q) {
  // A request ending at or after the horizon is not served in the window.
  if (!(q.end_s < horizon_s_) || n_ == 0) return;
  const auto k = std::min(n_ - 1, static_cast<std::size_t>(std::floor(q.end_s / r_.interval_s)));
  Bucket& b = open_[k];
  const double ttft = q.first_token_s - q.arrival_s;
  b.ttft.push_back(ttft);
  ttft_.add(ttft);
  e2e_.add(q.end_s - q.arrival_s);
  if (q.output_tokens > 1) {
    const double tpot = (q.end_s - q.first_token_s) / (q.output_tokens - 1.0);
    b.tpot.push_back(tpot);
    tpot_.add(tpot);
  }
  b.tokens += q.output_tokens;
  const bool slo = r_.slo_ttft_s > 0.0 || r_.slo_tpot_s > 0.0;
  const double tpot = q.output_tokens > 1 ? (q.end_s - q.first_token_s) / (q.output_tokens - 1.0) : 0.0;
  if (slo && !(r_.slo_ttft_s > 0.0 && ttft > r_.slo_ttft_s) && !(r_.slo_tpot_s > 0.0 && tpot > r_.slo_tpot_s))
    ++b.met;
}

void ServiceSeriesBuilder::flush(std::size_t k, Bucket& b) {
  const auto ended = static_cast<std::int64_t>(b.ttft.size());
  r_.completions[k] += ended;
  r_.requests_served += ended;
  r_.output_tokens += static_cast<std::int64_t>(b.tokens);
  r_.output_tokens_per_s[k] = b.tokens / r_.interval_s;
  if (!r_.slo_met.empty()) r_.slo_met[k] += b.met, r_.slo_met_total += b.met;
  r_.ttft_p50_s[k] = jobs::quantile(b.ttft, 0.5), r_.ttft_p99_s[k] = jobs::quantile(b.ttft, 0.99);
  if (!b.tpot.empty())
    r_.tpot_p50_s[k] = jobs::quantile(b.tpot, 0.5), r_.tpot_p99_s[k] = jobs::quantile(b.tpot, 0.99);
}

void ServiceSeriesBuilder::interval_done(std::size_t k, double power_W, std::uint64_t arrivals,
                                         double active_replicas, const sim::IntervalLoad& load) {
  if (k < n_) {
    const double dt = r_.interval_s;
    r_.power_W[k] = power_W;
    r_.replicas_active[k] = active_replicas;
    r_.arrivals[k] = static_cast<std::int64_t>(arrivals);
    r_.admitted[k] = std::llround(load.admitted);
    r_.queued[k] = load.queued_s / dt;
    r_.running[k] = load.running_s / dt;
    const double slots = active_replicas * r_.pp * r_.max_batch;  // each stage of a replica an engine
    r_.batch_occupancy[k] = slots > 0.0 ? r_.running[k] / slots : 0.0;
    r_.prefill_tokens_per_s[k] = load.prefill_tokens / dt;
    r_.decode_tokens_per_s[k] = load.decode_tokens / dt;
    reached_ = k + 1;
  }
  // No request told from now on ends in an interval up to k: theirs are complete.
  while (!open_.empty() && open_.begin()->first <= k) {
    flush(open_.begin()->first, open_.begin()->second);
    open_.erase(open_.begin());
  }
}

results::ServiceRecord ServiceSeriesBuilder::finish() {
  for (auto& [k, b] : open_) flush(k, b);
  open_.clear();
  for (std::size_t k = reached_; k < n_; ++k)
    r_.power_W[k] = after_W_, r_.replicas_active[k] = after_replicas_;
  r_.energy_J = 0.0;
  for (std::size_t k = 0; k < n_; ++k)
    r_.energy_J += r_.power_W[k] * std::min(r_.interval_s, horizon_s_ - double(k) * r_.interval_s);
  r_.latency = {ttft_.quantile(0.5),  ttft_.quantile(0.99), tpot_.quantile(0.5),
                tpot_.quantile(0.99), e2e_.quantile(0.5),   e2e_.quantile(0.99)};
  return std::move(r_);
}

PlayedService play_scenario_service(const ServeRequest& o, const std::string& name,
                                    std::vector<double> lag_s) {
  PlayedService p;
  p.config = service_config(o);
  const sim::ServiceConfig& c = p.config;
  const bool fleet = o.mode == "fleet";
  const jobs::RequestTrace read = jobs::read_request_trace(std::filesystem::path(o.trace));
  results::ServiceRecord header;
  header.name = name;
  header.model = c.replica.model.name;
  header.gpu = c.replica.gpu.id;
  header.mode = o.mode;
  header.scheduler = std::string(sim::to_string(c.scheduling));
  header.trace = read.name;
  header.tp = c.replica.tp, header.pp = c.replica.pp, header.replicas = c.replicas;
  header.gpus = static_cast<std::uint32_t>(sim::service_gpus(c));
  header.max_batch = c.max_batch;
  header.interval_s = c.interval_s;
  header.slo_ttft_s = o.slo_ttft_s, header.slo_tpot_s = o.slo_tpot_s;
  // Once every request has ended: every replica idle at its floor, or with autoscaling the fewest kept so
  // and the rest parked.
  const double kept = c.autoscale.enabled ? c.autoscale.min_replicas : c.replicas;
  const double parked_W =
      c.autoscale.parked_off ? 0.0 : sim::service_gpus(c) / c.replicas * c.replica.gpu.idle_W;
  const double after_W = sim::replica_idle_W(c) * kept + (c.replicas - kept) * parked_W;
  ServiceSeriesBuilder builder(std::move(header), o.horizon_s, after_W, kept);
  builder.delay_by(std::move(lag_s));
  if (fleet) {
    const auto source = request_source(o, read);
    (void)sim::play_service_fleet(c, *source, read.name, builder, o.horizon_s);
    p.record = builder.finish();
    return p;
  }
  // Exact mode: every request and iteration, then told to the builder interval by interval, each
  // interval's requests first.
  const ServedTrace served = [&] {
    ServedTrace t = prepare_service(o, c, read);
    play(t);
    return t;
  }();
  const sim::ServiceRun& run = served.run;
  const double dt = c.interval_s;
  std::vector<std::size_t> by_end(run.requests.size());
  std::iota(by_end.begin(), by_end.end(), std::size_t{0});
  std::sort(by_end.begin(), by_end.end(),
            [&](std::size_t a, std::size_t b) { return run.requests[a].end_s < run.requests[b].end_s; });
  std::vector<std::uint64_t> arrivals(run.power_W.size(), 0);
  for (const auto& q : run.requests)
    if (const auto k = static_cast<std::size_t>(std::floor(q.arrival_s / dt)); k < arrivals.size())
      ++arrivals[k];
  std::size_t next = 0;
  for (std::size_t k = 0; k < run.power_W.size(); ++k) {
    const double t1 = double(k + 1) * dt;
    for (; next < by_end.size() && run.requests[by_end[next]].end_s < t1; ++next)
      builder.request_done(by_end[next], run.requests[by_end[next]]);
    // The run's last interval is its mean over the part the run covers; the replicas idle after it.
    const double width = std::min(dt, run.end_s - double(k) * dt);
    builder.interval_done(k, (run.power_W[k] * width + after_W * (dt - width)) / dt, arrivals[k], c.replicas,
                          run.load[k]);
  }
  for (; next < by_end.size(); ++next) builder.request_done(by_end[next], run.requests[by_end[next]]);
  p.record = builder.finish();
  results::ServiceRequestRows& rows = p.record.requests;
  for (const sim::ServedRequest& q : run.requests) {
    rows.arrival_s.push_back(q.arrival_s), rows.first_token_s.push_back(q.first_token_s);
    rows.end_s.push_back(q.end_s);
    rows.input_tokens.push_back(q.input_tokens), rows.output_tokens.push_back(q.output_tokens);
    rows.replica.push_back(q.replica);
  }
  return p;
}

std::string service_summary_text(const results::ServiceRecord& r) {
  const double per_1000 = r.output_tokens > 0 ? 1000.0 * r.energy_J / double(r.output_tokens) : 0.0;
  const double window_s = r.interval_s * double(r.power_W.size());
  return fmt::format(
             "  {:<28}{} {} GPUs: {} replicas of {} at tp {}{} ({} mode{}; trace {})\n"
             "    requests served           {} ({} output tokens)\n"
             "    GPU energy                {:.4g} kWh, {:.4g} kJ per 1,000 output tokens, {:.4g} J per "
             "request "
             "(mean {:.4g} kW)\n"
             "    latency                   first token p50 {:.3g} s, p99 {:.3g} s; per output token p50 "
             "{:.3g} ms, "
             "p99 {:.3g} ms\n"
             "    end to end                p50 {:.3g} s, p99 {:.3g} s\n",
             "service " + r.name, r.gpus, r.gpu, r.replicas, r.model, r.tp,
             r.pp > 1 ? fmt::format(" pp {}", r.pp) : std::string(), r.mode,
             r.scheduler == "fcfs" ? std::string() : ", " + r.scheduler + " scheduler", r.trace,
             r.requests_served, r.output_tokens, r.energy_J / 3.6e6, per_1000 / 1e3,
             r.requests_served > 0 ? r.energy_J / double(r.requests_served) : 0.0,
             window_s > 0.0 ? r.energy_J / window_s / 1e3 : 0.0, r.latency.ttft_p50_s, r.latency.ttft_p99_s,
             1e3 * r.latency.tpot_p50_s, 1e3 * r.latency.tpot_p99_s, r.latency.e2e_p50_s,
             r.latency.e2e_p99_s) +
         (r.slo_met.empty()
              ? std::string()
              : fmt::format(
                    "    SLO                       {:.4g} % of the requests served met it (first token "
                    "within "
                    "{}, per output token within {})\n",
                    r.requests_served > 0 ? 100.0 * double(r.slo_met_total) / double(r.requests_served) : 0.0,
                    r.slo_ttft_s > 0.0 ? fmt::format("{:.3g} s", r.slo_ttft_s) : std::string("any time"),
                    r.slo_tpot_s > 0.0 ? fmt::format("{:.3g} ms", 1e3 * r.slo_tpot_s)
                                       : std::string("any time"))) +
         (r.absorbing
              ? fmt::format(
                    "    absorbing                 work late by {:.3g} s on average, {:.3g} s at most; "
                    "{:+.4g} kWh against its plan at the end\n",
                    r.absorb_mean_lag_s, r.absorb_max_lag_s, r.absorb_bank_J / 3.6e6)
              : std::string());
}

}  // namespace fleetwatt::runs
