// Handing the members of a sweep to the processes that run them: in order on one process, or over MPI ranks
// with dynamic load balancing (sweep_mpi.cpp, built when Open MPI is found: FLEETWATT_MPI). Members differ
// in cost (a bigger fleet, a longer horizon), so ranks ask for the next member when they finish one instead
// of taking a fixed share.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace fleetwatt::tools {

/// What became of one member.
struct MemberOutcome {
  std::size_t index = 0;
  std::string status;  ///< "done" or "failed"
  std::string error;   ///< why it failed
  int rank = 0;        ///< the MPI rank that ran it (0 serially)
  double wall_s = 0.0;
};

/// Runs member `index` on rank `rank`; throws sim::Interrupted when stopped.
using RunMember = std::function<MemberOutcome(std::size_t index, int rank)>;
/// Told of every member's outcome as it arrives, on rank 0 only, one call at a time.
using RecordOutcome = std::function<void(const MemberOutcome&)>;

/// Runs the members `todo` in order on this process. sim::Interrupted propagates.
void run_members_serially(const std::vector<std::size_t>& todo, const RunMember& run,
                          const RecordOutcome& record);

/// The process's place in an MPI job started by mpirun, or rank 0 of 1 without one.
struct MpiPlace {
  int rank = 0;
  int ranks = 1;
};

/// True when this process was started by mpirun/mpiexec (Open MPI's or a PMI launcher's environment).
[[nodiscard]] bool launched_by_mpirun();

#ifdef FLEETWATT_MPI
/// MPI_Init (threads: serialized) for the life of the object; MPI_Finalize at its end.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  [[nodiscard]] MpiPlace place() const noexcept { return place_; }
  /// Whether rank 0 may run members while a second thread answers the other ranks.
  [[nodiscard]] bool threads() const noexcept { return threads_; }

 private:
  MpiPlace place_;
  bool threads_ = false;
};

/// Runs `todo` over every rank: rank 0 hands out member indices one at a time, in order, to whichever rank
/// asks (from a second thread, while its main thread runs members too when `session.threads()`); the other
/// ranks run the members they are given and report each outcome back. `record` is called on rank 0.
/// Returns false when a rank was interrupted (the members not started are left; sim::Interrupted is not
/// thrown, so that every rank leaves MPI cleanly).
bool run_members_over_mpi(const MpiSession& session, const std::vector<std::size_t>& todo,
                          const RunMember& run, const RecordOutcome& record);
/// Whether every rank's value is true (a collective: all ranks call it).
[[nodiscard]] bool all_ranks(bool value);
#endif

}  // namespace fleetwatt::tools
