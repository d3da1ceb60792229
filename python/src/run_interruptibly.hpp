// Running the engine from Python: on a worker thread with the GIL released, while the calling thread waits
// and checks for Ctrl-C; a KeyboardInterrupt raises the engine's stop flag, which ends the run cleanly (no
// result file) and is raised in the caller.
#pragma once

#include <atomic>
#include <functional>

namespace fleetwatt::python {

/// Runs `body(stop)` to its end; must be called holding the GIL. An exception of `body` is raised in the
/// caller; a KeyboardInterrupt while it runs raises `stop`, is raised in Python code that `body` is running
/// (a policy's schedule()), waits for `body` to return, and is re-raised.
void run_interruptibly(const std::function<void(const std::atomic<bool>& stop)>& body);

}  // namespace fleetwatt::python
