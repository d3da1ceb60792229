// A scenario's service played into what its result file keeps: its series per facility interval over the
// window [0, horizon) (power, arrivals, completions, tokens, latency percentiles) and its totals there. A
// fleet-mode service streams its requests (generated or replayed one at a time), so memory follows the
// requests in flight; an exact-mode one plays them all and is cut into the same record.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fleetwatt/results/hdf5/service_record.hpp"
#include "fleetwatt/runs/service_request.hpp"
#include "fleetwatt/sim/serving/service_fleet.hpp"

namespace fleetwatt::runs {

/// Quantiles of many positive values within 1 %: counts in bins 1 % wide on a log scale from 1 us to 1e6 s
/// (values outside fall in the end bins); a quantile is its bin's geometric centre.
class LogHistogram {
 public:
  LogHistogram();
  void add(double x);
  [[nodiscard]] std::uint64_t count() const noexcept { return n_; }
  /// The q-quantile (0..1); NaN without values.
  [[nodiscard]] double quantile(double q) const;

 private:
  std::vector<std::uint64_t> bins_;
  std::uint64_t n_ = 0;
};

/// A service's record built as it plays: the sink of a fleet-mode run, or fed an exact-mode run's requests.
class ServiceSeriesBuilder final : public sim::FleetServiceSink {
 public:
  /// `header`: the record's name and description (model, GPU, replicas, interval...); its series are filled
  /// here over [0, horizon_s). `after_W`: the service's GPUs' draw once its run has ended (idle replicas).
  ServiceSeriesBuilder(results::ServiceRecord header, double horizon_s, double after_W,
                       double after_replicas);
  void request_done(std::uint64_t seq, const sim::ServedRequest& request) override;
  void interval_done(std::size_t k, double power_W, std::uint64_t arrivals, double active_replicas,
                     const sim::IntervalLoad& load) override;
  /// The record: intervals the run did not reach at after_W (with the fewest replicas the service keeps),
  /// the totals and window percentiles.
  [[nodiscard]] results::ServiceRecord finish();
  /// Tokens come out late by `lag_s` (a mean over each interval of the record's): a request's first token
  /// and end each move by the lag of their interval, as an absorbing service's work fell behind its plan
  /// (sim::ServiceOutcome::lag_s). Before any request is told.
  void delay_by(std::vector<double> lag_s) { lag_s_ = std::move(lag_s); }

 private:
  struct Bucket {
    std::vector<double> ttft, tpot;
    double tokens = 0.0;
    std::int64_t met = 0;  ///< requests that met the SLO
  };
  void flush(std::size_t k, Bucket& b);
  void record_request(const sim::ServedRequest& q);
  results::ServiceRecord r_;
  double horizon_s_, after_W_, after_replicas_;
  std::size_t n_ = 0, reached_ = 0;     ///< intervals in the window; intervals the run told
  std::map<std::size_t, Bucket> open_;  ///< ended requests of intervals not yet told
  LogHistogram ttft_, tpot_, e2e_;
  std::vector<double> lag_s_;  ///< empty: on the plan's time
  [[nodiscard]] double lag_at(double t) const;
};

/// A scenario's service: its configuration and record.
struct PlayedService {
  sim::ServiceConfig config;
  results::ServiceRecord record;
};

/// Plays `request` over [0, horizon) (its horizon_s): in fleet mode streamed (never holding the requests),
/// in exact mode held and played whole. Throws as prepare_service does, and TraceFormatError at a request
/// that does not fit a replica's KV cache. `lag_s` (fleet mode; empty: none) makes each interval's tokens
/// that late (ServiceSeriesBuilder::delay_by): an absorbing service played again, its latencies, SLO and
/// completions as its requests saw them.
[[nodiscard]] PlayedService play_scenario_service(const ServeRequest& request, const std::string& name,
                                                  std::vector<double> lag_s = {});

/// The run summary's lines of a service: its GPUs and replicas, requests served and GPU energy in the window,
/// energy per 1,000 output tokens, and the window's latency percentiles.
[[nodiscard]] std::string service_summary_text(const results::ServiceRecord& record);

}  // namespace fleetwatt::runs
