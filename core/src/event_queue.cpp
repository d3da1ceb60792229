// Binary-heap event queue with a total (time, priority, sequence) order and lazy cancellation.
#include "fleetwatt/core/event_queue.hpp"

#include "fleetwatt/core/assert.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace fleetwatt::core {

namespace {
constexpr EventId make_id(std::uint32_t generation, std::uint32_t slot) {
  return (static_cast<EventId>(generation) << 32) | slot;
}
}  // namespace

namespace {
// The heap's order as a function object, so that the heap algorithms inline it (a function pointer is
// called through at every level of every sift); std::push_heap and std::pop_heap keep the latest on top.
struct Later {
  template <class E>
  bool operator()(const E& a, const E& b) const noexcept {
    return a.time_ns > b.time_ns || (a.time_ns == b.time_ns && a.order > b.order);
  }
};
}  // namespace

EventId EventQueue::schedule_at(Time t, Callback cb, int priority) {
  FLEETWATT_ASSERT(t >= now_, fmt::format("event scheduled in the past: at {} but now is {}", format_time(t),
                                          format_time(now_)));
  FLEETWATT_ASSERT(priority >= -kPriorityBias && priority < kPriorityBias,
                   fmt::format("event priority {} outside [-2^23, 2^23)", priority));
  FLEETWATT_ASSERT(next_sequence_ < (std::uint64_t{1} << kSequenceBits), "more than 2^40 events scheduled");
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& s = slots_[slot];
  s.pending = true;
  s.callback = std::move(cb);
  const auto biased = static_cast<std::uint64_t>(static_cast<std::int64_t>(priority) + kPriorityBias);
  heap_.push_back(Entry{t.ns(), (biased << kSequenceBits) | next_sequence_++, slot});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  return make_id(s.generation, slot);
}

EventId EventQueue::schedule_in(Duration d, Callback cb, int priority) {
  FLEETWATT_ASSERT(d >= Duration::zero(), fmt::format("negative delay of {} ns", d.ns()));
  return schedule_at(now_ + d, std::move(cb), priority);
}

bool EventQueue::cancel(EventId id) {
  const auto slot = static_cast<std::uint32_t>(id & 0xffffffffu);
  const auto generation = static_cast<std::uint32_t>(id >> 32);
  if (slot >= slots_.size()) return false;
  Slot& s = slots_[slot];
  if (!s.pending || s.generation != generation) return false;
  s.pending = false;
  ++s.generation;        // the heap entry is now stale; its slot is freed when it surfaces
  s.callback = nullptr;  // what it captured goes now, not when the entry surfaces
  ++cancelled_;
  return true;
}

void EventQueue::free_slot(std::uint32_t slot) {
  free_slots_.push_back(slot);
}

EventQueue::Entry EventQueue::pop_top() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  const Entry e = heap_.back();
  heap_.pop_back();
  return e;
}

void EventQueue::drop_cancelled_top() {
  // A slot stays taken while its entry is in the heap, so a slot that is not pending marks a cancelled entry.
  while (!heap_.empty()) {
    const Entry& top = heap_.front();
    if (slots_[top.slot].pending) return;
    const std::uint32_t slot = top.slot;
    pop_top();
    --cancelled_;
    free_slot(slot);
  }
}

std::optional<Time> EventQueue::next_time() {
  drop_cancelled_top();
  if (heap_.empty()) return std::nullopt;
  return Time::from_ns(heap_.front().time_ns);
}

bool EventQueue::step() {
  drop_cancelled_top();
  if (heap_.empty()) return false;
  const Entry e = pop_top();
  Slot& s = slots_[e.slot];
  s.pending = false;
  ++s.generation;
  // Out of the slot before it runs: the callback may schedule events, which may reuse the slot or grow the
  // table under it.
  const Callback callback = std::move(s.callback);
  s.callback = nullptr;
  free_slot(e.slot);
  FLEETWATT_ASSERT(e.time_ns >= now_.ns(), "event queue order violated");
  now_ = Time::from_ns(e.time_ns);
  ++events_run_;
  callback();
  return true;
}

std::uint64_t EventQueue::run_until(Time t) {
  FLEETWATT_ASSERT(t >= now_, "run_until a time in the past");
  std::uint64_t n = 0;
  for (;;) {
    auto next = next_time();
    if (!next || *next >= t) break;
    step();
    ++n;
  }
  now_ = t;
  return n;
}

}  // namespace fleetwatt::core
