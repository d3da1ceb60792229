// Binary-heap event queue with a total (time, priority, id) order and lazy cancellation.
#include "fleetwatt/sim/event_queue.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace fleetwatt::sim {

bool EventQueue::later(const Entry& a, const Entry& b) {
  if (a.time != b.time) return a.time > b.time;
  if (a.priority != b.priority) return a.priority > b.priority;
  return a.id > b.id;  // ids grow with insertion, so equal (time, priority) keeps insertion order
}

EventId EventQueue::schedule_at(Time t, Callback cb, int priority) {
  if (t < now_)
    throw std::logic_error(
        fmt::format("event scheduled in the past: at {} but now is {}", format_time(t), format_time(now_)));
  const EventId id = next_id_++;
  heap_.push_back(Entry{t, priority, id, std::move(cb)});
  std::push_heap(heap_.begin(), heap_.end(), later);
  live_.insert(id);
  return id;
}

EventId EventQueue::schedule_in(Duration d, Callback cb, int priority) {
  if (d < Duration::zero()) throw std::logic_error(fmt::format("negative delay of {} ns", d.ns()));
  return schedule_at(now_ + d, std::move(cb), priority);
}

bool EventQueue::cancel(EventId id) {
  if (live_.erase(id) == 0) return false;
  cancelled_.insert(id);
  return true;
}

void EventQueue::drop_cancelled_top() {
  while (!heap_.empty()) {
    auto it = cancelled_.find(heap_.front().id);
    if (it == cancelled_.end()) return;
    cancelled_.erase(it);
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.pop_back();
  }
}

std::optional<Time> EventQueue::next_time() {
  drop_cancelled_top();
  if (heap_.empty()) return std::nullopt;
  return heap_.front().time;
}

bool EventQueue::step() {
  drop_cancelled_top();
  if (heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  Entry e = std::move(heap_.back());
  heap_.pop_back();
  live_.erase(e.id);
  if (e.time < now_) throw std::logic_error("event queue order violated");
  now_ = e.time;
  ++events_run_;
  e.callback();
  return true;
}

std::uint64_t EventQueue::run_until(Time t) {
  if (t < now_) throw std::logic_error("run_until a time in the past");
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

}  // namespace fleetwatt::sim
