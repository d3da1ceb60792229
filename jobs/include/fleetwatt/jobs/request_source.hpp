// LLM requests drawn one at a time in arrival order, so a campus-scale service (thousands of requests a
// second over a day or a year) need not hold them all: a recorded trace replayed (its rate scaled, repeated
// to fill a horizon), or generated arrivals (jobs/request_generator.hpp). Collecting a source gives the
// vector the exact mode plays.
#pragma once

#include <vector>

#include "fleetwatt/jobs/request_trace.hpp"

namespace fleetwatt::jobs {

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  /// The next request in arrival order into `out`; false once there are no more.
  virtual bool next(Request& out) = 0;
};

/// A list in memory, in its order.
class RequestList final : public RequestSource {
 public:
  explicit RequestList(const std::vector<Request>& requests) : requests_(requests) {}
  bool next(Request& out) override;

 private:
  const std::vector<Request>& requests_;
  std::size_t next_ = 0;
};

/// A trace at `rate_scale` times its rate and, when `horizon_s` > 0, repeated back to back until the
/// horizon (scale_and_fill's requests, one at a time). Throws std::invalid_argument as scale_and_fill does.
class TraceReplay final : public RequestSource {
 public:
  TraceReplay(const RequestTrace& trace, double rate_scale, double horizon_s);
  bool next(Request& out) override;

 private:
  const RequestTrace& trace_;
  double rate_scale_, horizon_s_, period_ = 0.0, shift_ = 0.0;
  std::size_t next_ = 0;
};

/// Every request a source gives.
[[nodiscard]] std::vector<Request> collect(RequestSource& source);

}  // namespace fleetwatt::jobs
