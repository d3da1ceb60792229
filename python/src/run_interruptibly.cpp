// The engine on a worker thread, the caller watching for Ctrl-C (see run_interruptibly.hpp). Python runs
// its signal handlers only on the main thread, and only when asked while the GIL is held: the waiting
// thread asks every 50 ms. The engine sees the stop flag after every event, but a Python policy busy in
// one long call (a loop, a sleep in steps) would hold it until it returns: the KeyboardInterrupt is also
// raised inside the worker's Python code, which Python checks between bytecodes.
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
    std::atomic<unsigned long> worker_ident{0};
    std::thread worker([&] {
      worker_ident.store(PyThread_get_thread_ident());
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
          // Nothing happens when the worker is not in Python code now (it has no thread state then).
          if (const unsigned long ident = worker_ident.load())
            (void)PyThreadState_SetAsyncExc(ident, PyExc_KeyboardInterrupt);
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
