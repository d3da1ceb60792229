// A job's record: what the job table reads, with NaN where a figure does not apply and the smoothing and
// failure figures only when the run has them.
#include <catch2/catch.hpp>

#include <cmath>

#include "fleetwatt/sim/fleet/job_record.hpp"

using namespace fleetwatt;
using sim::Time;

TEST_CASE("a job's record reads its figures, NaN where they do not apply", "[job_record]") {
  sim::Job job;
  job.spec.id = 7;
  job.spec.n_gpus = 2;
  SECTION("a job that never started") {
    const auto r = sim::record_of(job);
    CHECK(r.spec.id == 7);
    CHECK(r.state == sim::JobState::pending);
    CHECK(std::isnan(r.start_s));
    CHECK(std::isnan(r.end_s));
    CHECK(std::isnan(r.step_s));  // drawn by epochs
    CHECK(r.gpus.empty());
    CHECK_FALSE(r.smoothing_J.has_value());
    CHECK(r.failures == nullptr);
  }
  SECTION("a finished job in a run that smooths and has failures") {
    job.state = sim::JobState::finished;
    job.start = Time::from_seconds(10);
    job.end = Time::from_seconds(130);
    job.gpus = {4, 5};
    job.gpu_type.preset = "h100";
    job.epochs_done = 3;
    job.energy_J = 1.5e5;
    job.parts.compute_s = 90.0;
    job.parts.checkpoint_J = 2e3;
    job.parts.comm_group_s[static_cast<std::size_t>(jobs::CommGroup::dp)] = 4.0;
    job.smoothing_on = true;
    job.smoothing_J = 250.0;
    job.failures_on = true;
    job.failures.interruptions = 2;
    const auto r = sim::record_of(job);
    CHECK(r.start_s == 10.0);
    CHECK(r.end_s == 130.0);
    CHECK(r.gpus.size() == 2);
    CHECK(r.gpus[1] == 5);
    CHECK(r.gpu == "h100");
    CHECK(r.epochs_done == 3);
    CHECK(r.energy_J == 1.5e5);
    CHECK(r.parts.compute_s == 90.0);
    CHECK(r.parts.checkpoint_J == 2e3);
    CHECK(r.parts.comm_group_s[static_cast<std::size_t>(jobs::CommGroup::dp)] == 4.0);
    REQUIRE(r.smoothing_J.has_value());
    CHECK(*r.smoothing_J == 250.0);
    REQUIRE(r.failures != nullptr);
    CHECK(r.failures->interruptions == 2);
  }
  SECTION("a running job has started but not ended") {
    job.state = sim::JobState::running;
    job.start = Time::from_seconds(5);
    const auto r = sim::record_of(job);
    CHECK(r.start_s == 5.0);
    CHECK(std::isnan(r.end_s));
  }
}
