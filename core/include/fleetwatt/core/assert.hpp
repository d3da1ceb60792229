// Invariants: a condition that holds unless fleetwatt, or a scheduling policy driving the engine, has a bug;
// never a statement about input (bad input is an InputError naming its file, line and key). A broken one
// throws InvariantError naming the condition, the file and the line, so a command reports it and exits 1,
// a Python policy sees RuntimeError, and a test can catch it; the message is built only when it fails.
#pragma once

#include <stdexcept>
#include <string>

namespace fleetwatt {

class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Throws InvariantError("WHAT (CONDITION at FILE:LINE)"); out of line so that a check costs a branch.
[[noreturn]] void invariant_failed(const std::string& what, const char* condition, const char* file,
                                   int line);

}  // namespace fleetwatt

/// FLEETWATT_ASSERT(condition, what): `what` (a std::string or a C string, evaluated only on failure) says
/// what went wrong in the domain's words.
#define FLEETWATT_ASSERT(condition, what)                                    \
  do {                                                                       \
    if (!(condition)) [[unlikely]]                                           \
      ::fleetwatt::invariant_failed((what), #condition, __FILE__, __LINE__); \
  } while (false)

/// FLEETWATT_FAIL(what): a place that a correct caller never reaches.
#define FLEETWATT_FAIL(what) ::fleetwatt::invariant_failed((what), "unreachable", __FILE__, __LINE__)
