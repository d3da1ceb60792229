// The discrete-event core: a binary heap ordered by (time, priority, insertion sequence), a total order that
// makes runs deterministic. Cancellation is lazy: a cancelled entry is skipped when it reaches the top.
// Ids are (generation, slot) pairs over a recycled slot table, so bookkeeping is O(1) and bounded by pending
// events. Part of core so that tools and tests can drive a queue without the engine.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "fleetwatt/core/time.hpp"

namespace fleetwatt::core {

/// Identifies a scheduled event, for cancellation. A stale id (the event ran or was cancelled) is harmless.
using EventId = std::uint64_t;

class EventQueue {
 public:
  using Callback = std::function<void()>;

  /// A queue whose clock starts at `start` (before zero: a run that warms up before its window opens).
  explicit EventQueue(Time start = Time::zero()) : now_(start) {}

  /// Schedules `cb` at absolute time t (t >= now()); lower priority values run first at equal times.
  /// Priorities lie in [-2^23, 2^23).
  EventId schedule_at(Time t, Callback cb, int priority = 0);
  /// Schedules `cb` after d (d >= 0) from now().
  EventId schedule_in(Duration d, Callback cb, int priority = 0);
  /// Cancels a pending event; returns false if it already ran, was cancelled, or never existed.
  bool cancel(EventId id);

  [[nodiscard]] Time now() const noexcept { return now_; }
  /// Time of the next live event, if any.
  [[nodiscard]] std::optional<Time> next_time();
  /// Number of live (not cancelled) pending events.
  [[nodiscard]] std::size_t pending() const noexcept { return heap_.size() - cancelled_; }
  [[nodiscard]] std::uint64_t events_run() const noexcept { return events_run_; }

  /// Runs the next live event; returns false when none is left.
  bool step();
  /// Runs every event with time < t, then sets the clock to t (t >= now()). Returns events run.
  std::uint64_t run_until(Time t);

 private:
  // The heap holds small plain entries, so its sifts move 24 bytes and never a callback; the callback
  // waits in its slot until the entry surfaces. Priority and insertion sequence share one word (priority
  // offset to unsigned in the top 24 bits, sequence below), so an entry's order is two integer comparisons.
  struct Entry {
    std::int64_t time_ns;
    std::uint64_t order;  ///< (priority + 2^23) << 40 | sequence
    std::uint32_t slot;
  };
  static constexpr int kSequenceBits = 40;
  static constexpr int kPriorityBias = 1 << 23;
  struct Slot {
    std::uint32_t generation = 1;  ///< bumped when its event runs or is cancelled, so old ids go stale
    bool pending = false;
    Callback callback;
  };
  void drop_cancelled_top();
  Entry pop_top();
  void free_slot(std::uint32_t slot);
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::size_t cancelled_ = 0;  ///< cancelled entries still in the heap
  Time now_ = Time::zero();
  std::uint64_t next_sequence_ = 0;
  std::uint64_t events_run_ = 0;
};

}  // namespace fleetwatt::core
