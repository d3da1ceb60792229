// The heartbeat's thread and its line (see heartbeat.hpp).
#include "heartbeat.hpp"

#include <pthread.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>

#include "cli_support.hpp"

namespace fleetwatt::tools {

namespace {

// A span for a person: "45 s", "3 min 5 s", "3 h 10 min", "2 d 4 h" (a sub-second span keeps its digits).
std::string span_text(double s) {
  if (!std::isfinite(s)) return "?";
  const char* sign = s < 0 ? "-" : "";
  s = std::fabs(s);
  if (s < 60) return fmt::format("{}{:.3g} s", sign, s);
  const auto whole = static_cast<long long>(s);
  if (s < 3600) return fmt::format("{}{} min {} s", sign, whole / 60, whole % 60);
  if (s < 172800) return fmt::format("{}{} h {} min", sign, whole / 3600, whole / 60 % 60);
  return fmt::format("{}{} d {} h", sign, whole / 86400, whole / 3600 % 24);
}

}  // namespace

std::chrono::milliseconds heartbeat_period() {
  if (const char* text = std::getenv("FLEETWATT_HEARTBEAT_S"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const double s = std::strtod(text, &end);
    if (end != text && *end == '\0' && s > 0 && s <= 3600)
      return std::chrono::milliseconds(static_cast<long long>(std::ceil(s * 1000)));
  }
  return std::chrono::seconds(30);
}

std::string heartbeat_line(const std::string& phase, const std::optional<sim::Progress>& progress,
                           double elapsed_s) {
  const std::string elapsed = fmt::format("{:.0f} s elapsed", elapsed_s);
  if (!progress) return fmt::format("fleetwatt: {}, {}", phase, elapsed);
  const sim::Progress& p = *progress;
  // Spans from where the run began (a warm-up starts before 0), as the terminal's line counts them.
  const double span = static_cast<double>((p.horizon - p.start).ns()) / 1e9;
  const double done = static_cast<double>((p.now - p.start).ns()) / 1e9;
  const double percent = span > 0 ? 100.0 * std::min(1.0, done / span) : 100.0;
  return fmt::format("fleetwatt: {}: {:.1f} % ({} of {} simulated, jobs done {}/{}), {}", phase, percent,
                     span_text(done), span_text(span), p.jobs_finished, p.jobs_total, elapsed);
}

Heartbeat::Heartbeat(std::chrono::milliseconds period) : Heartbeat(period, !stderr_is_terminal()) {}

Heartbeat::Heartbeat(std::chrono::milliseconds period, bool active)
    : period_(period), start_(std::chrono::steady_clock::now()), last_said_(start_) {
  if (!active) return;
  // The thread takes no signal: Ctrl-C goes to the command's own thread, whose blocking calls it interrupts
  // (the handler only raises the stop flag or ends the process, from whichever thread).
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (...) {
    // No thread (the system refused one): the command runs without a heartbeat.
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

Heartbeat::~Heartbeat() {
  stop();
}

void Heartbeat::phase(const std::string& name) {
  if (!active()) return;
  const std::lock_guard lock(mutex_);
  phase_ = name;
  progress_.reset();
}

void Heartbeat::progress(const sim::Progress& p) {
  const std::lock_guard lock(mutex_);
  if (p.now >= p.horizon) {
    phase_ = "writing";
    progress_.reset();
  } else {
    progress_ = p;
  }
}

void Heartbeat::spoke() {
  if (!active()) return;
  const std::lock_guard lock(mutex_);
  last_said_ = std::chrono::steady_clock::now();
}

void Heartbeat::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::function<void(const sim::Progress&)> Heartbeat::callback(
    std::function<void(const sim::Progress&)> terminal) {
  if (!active()) return terminal;
  return [this](const sim::Progress& p) { progress(p); };
}

void Heartbeat::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    const auto due = last_said_ + period_;
    if (wake_.wait_until(lock, due, [&] { return stopping_; })) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < last_said_ + period_) continue;  // the command spoke meanwhile
    last_said_ = now;
    try {
      const std::string line = heartbeat_line(phase_.empty() ? "working" : phase_, progress_,
                                              std::chrono::duration<double>(now - start_).count()) +
                               "\n";
      // One write for the whole line (under the lock, so that stop() waits for it): lines of other
      // threads are not cut into it, and none follows stop().
      for (std::size_t at = 0; at < line.size();) {
        const ssize_t n = ::write(STDERR_FILENO, line.data() + at, line.size() - at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // stderr closed or full: the heartbeat is best effort
        at += static_cast<std::size_t>(n);
      }
    } catch (...) {
      // Out of memory formatting a line: skip this beat.
    }
  }
}

}  // namespace fleetwatt::tools
