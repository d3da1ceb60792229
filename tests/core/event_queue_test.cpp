// The event queue: total order (time, priority, insertion), lazy cancellation, run_until semantics.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/core/event_queue.hpp"
#include "fleetwatt/core/random.hpp"

using namespace fleetwatt::core;

TEST_CASE("events at the same time run in insertion order", "[queue]") {
  EventQueue q;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) q.schedule_at(Time::from_seconds(5), [&order, i] { order.push_back(i); });
  q.run_until(Time::from_seconds(10));
  REQUIRE(order.size() == 100);
  for (int i = 0; i < 100; ++i) CHECK(order[i] == i);
}

TEST_CASE("events run in time order, then priority, then insertion", "[queue]") {
  EventQueue q;
  std::vector<std::string> order;
  q.schedule_at(Time::from_seconds(2), [&] { order.push_back("t2"); });
  q.schedule_at(
      Time::from_seconds(1), [&] { order.push_back("t1-late"); }, 5);
  q.schedule_at(
      Time::from_seconds(1), [&] { order.push_back("t1-early"); }, -5);
  q.schedule_at(Time::from_seconds(1), [&] { order.push_back("t1-mid"); });
  while (q.step()) {
  }
  CHECK(order == std::vector<std::string>{"t1-early", "t1-mid", "t1-late", "t2"});
}

TEST_CASE("a cancelled event never fires", "[queue]") {
  EventQueue q;
  int fired = 0;
  EventId a = q.schedule_at(Time::from_seconds(1), [&] { fired += 1; });
  EventId b = q.schedule_at(Time::from_seconds(2), [&] { fired += 10; });
  q.schedule_at(Time::from_seconds(3), [&] { fired += 100; });
  CHECK(q.cancel(b));
  CHECK_FALSE(q.cancel(b));  // twice is a no-op
  CHECK(q.pending() == 2);
  q.run_until(Time::from_seconds(100));
  CHECK(fired == 101);
  CHECK_FALSE(q.cancel(a));  // already ran
  CHECK(q.events_run() == 2);
}

TEST_CASE("an event can cancel another due at the same instant", "[queue]") {
  EventQueue q;
  bool second = false;
  EventId id2 = 0;
  q.schedule_at(Time::from_seconds(1), [&] { q.cancel(id2); });
  id2 = q.schedule_at(Time::from_seconds(1), [&] { second = true; });
  q.run_until(Time::from_seconds(2));
  CHECK_FALSE(second);
}

TEST_CASE("run_until runs events strictly before the stop time and sets the clock to it", "[queue]") {
  EventQueue q;
  int n = 0;
  q.schedule_at(Time::from_seconds(1), [&] { ++n; });
  q.schedule_at(Time::from_seconds(5), [&] { ++n; });
  CHECK(q.run_until(Time::from_seconds(5)) == 1);
  CHECK(q.now() == Time::from_seconds(5));
  CHECK(n == 1);
  CHECK(q.next_time() == Time::from_seconds(5));
}

TEST_CASE("events scheduled from events keep the clock monotone", "[queue]") {
  EventQueue q;
  std::vector<Time> seen;
  std::function<void()> chain = [&] {
    seen.push_back(q.now());
    if (seen.size() < 50) q.schedule_in(Duration::from_ns(static_cast<std::int64_t>(seen.size() % 3)), chain);
  };
  q.schedule_at(Time::zero(), chain);
  while (q.step()) {
  }
  REQUIRE(seen.size() == 50);
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] >= seen[i - 1]);
}

TEST_CASE("scheduling in the past or with a negative delay is refused", "[queue]") {
  EventQueue q;
  q.schedule_at(Time::from_seconds(10), [] {});
  q.step();
  CHECK_THROWS_AS(q.schedule_at(Time::from_seconds(9), [] {}), fleetwatt::InvariantError);
  CHECK_THROWS_AS(q.schedule_in(Duration::from_ns(-1), [] {}), fleetwatt::InvariantError);
}

TEST_CASE("a stale id cannot cancel the event that reuses its slot", "[queue]") {
  EventQueue q;
  int fired = 0;
  EventId first = q.schedule_at(Time::from_seconds(1), [&] { fired += 1; });
  q.step();  // first runs; its slot is free
  EventId second = q.schedule_at(Time::from_seconds(2), [&] { fired += 10; });  // reuses the slot
  CHECK(first != second);
  CHECK_FALSE(q.cancel(first));
  q.run_until(Time::from_seconds(3));
  CHECK(fired == 11);
}

TEST_CASE("pending counts only live events through cancels and reuse", "[queue]") {
  EventQueue q;
  std::vector<EventId> ids;
  for (int i = 0; i < 10; ++i) ids.push_back(q.schedule_at(Time::from_seconds(i), [] {}));
  for (int i = 0; i < 10; i += 2) q.cancel(ids[i]);
  CHECK(q.pending() == 5);
  CHECK(q.next_time() == Time::from_seconds(1));
  q.run_until(Time::from_seconds(100));
  CHECK(q.pending() == 0);
  CHECK(q.events_run() == 5);
}

TEST_CASE("thousands of events with cancellations run in the order a full sort gives", "[queue]") {
  // Random times (many equal), priorities across the whole allowed range and cancellations of a third,
  // some scheduled from running events: the queue's order must be the sort by (time, priority, insertion).
  struct Planned {
    std::int64_t t;
    int priority;
    std::uint64_t seq;
    bool operator<(const Planned& o) const {
      return std::tie(t, priority, seq) < std::tie(o.t, o.priority, o.seq);
    }
  };
  EventQueue q;
  Random rng(20261129);
  std::vector<Planned> expected;
  std::vector<std::uint64_t> ran;
  std::vector<EventId> ids;
  std::uint64_t seq = 0;
  const int priorities[] = {-(1 << 23), -5, 0, 1, 2, 10, (1 << 23) - 1};
  const auto plan = [&](std::int64_t t) {
    const int p = priorities[rng.integer(0, 6)];
    const std::uint64_t s = seq++;
    ids.push_back(q.schedule_at(
        Time::from_ns(t), [&ran, s] { ran.push_back(s); }, p));
    expected.push_back({t, p, s});
  };
  for (int i = 0; i < 3000; ++i) plan(static_cast<std::int64_t>(rng.integer(0, 400)));
  std::vector<bool> cancelled(ids.size(), false);
  for (std::size_t i = 0; i < ids.size(); i += 3) cancelled[i] = q.cancel(ids[i]);
  // Events scheduled later, from outside, at or after the clock: they join the same order.
  for (int i = 0; i < 3; ++i) {
    q.run_until(Time::from_ns(100 * (i + 1)));
    for (int k = 0; k < 500; ++k) plan(100 * (i + 1) + static_cast<std::int64_t>(rng.integer(0, 300)));
  }
  while (q.step()) {
  }
  std::vector<std::uint64_t> want;
  std::sort(expected.begin(), expected.end());
  for (const auto& e : expected)
    if (e.seq >= cancelled.size() || !cancelled[e.seq]) want.push_back(e.seq);
  CHECK(ran == want);
  CHECK(ran.size() == 3000 - 1000 + 1500);
}

TEST_CASE("a priority below -2^23 or from 2^23 up is refused", "[queue]") {
  EventQueue q;
  CHECK_NOTHROW(q.schedule_at(
      Time::zero(), [] {}, (1 << 23) - 1));
  CHECK_NOTHROW(q.schedule_at(
      Time::zero(), [] {}, -(1 << 23)));
  CHECK_THROWS_AS(q.schedule_at(
                      Time::zero(), [] {}, 1 << 23),
                  fleetwatt::InvariantError);
  CHECK_THROWS_AS(q.schedule_at(
                      Time::zero(), [] {}, -(1 << 23) - 1),
                  fleetwatt::InvariantError);
  CHECK(q.pending() == 2);
}
