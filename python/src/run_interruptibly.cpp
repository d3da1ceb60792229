// The engine on a worker thread, the caller watching for Ctrl-C (see run_interruptibly.hpp). Python runs
// its signal handlers only on the main thread, and only when asked while the GIL is held: the waiting
// thread asks every 50 ms.
#include "run_interruptibly.hpp"

#include <pybind11/pybind11.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "fleetwatt/sim/engine/engine.hpp"

namespace py = pybind11;

namespace fleetwatt::python {

void run_interruptibly(const std::function<void(const std::atomic<bool>& stop)>& body) {
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::optional<py::error_already_set> interrupt;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        body(stop);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(mutex);
      done = true;
      finished.notify_all();
    });
    std::unique_lock lock(mutex);
    while (!done) {
      if (finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) break;
      lock.unlock();
      {
        py::gil_scoped_acquire acquire;
        if (!interrupt && PyErr_CheckSignals() != 0) {
          interrupt.emplace();  // takes the pending KeyboardInterrupt (or a handler's own exception)
          stop.store(true);
        }
      }
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (interrupt) {
    // Ctrl-C is raised as fleetwatt.InterruptedError (a KeyboardInterrupt); a signal handler's own
    // exception goes on as it is.
    if (interrupt->matches(PyExc_KeyboardInterrupt)) throw sim::Interrupted();
    throw std::move(*interrupt);
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace fleetwatt::python
