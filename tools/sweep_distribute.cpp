// Serial distribution of sweep members, and how a process tells it was started by mpirun.
#include "sweep_distribute.hpp"

#include <cstdlib>

namespace fleetwatt::tools {

void run_members_serially(const std::vector<std::size_t>& todo, const RunMember& run,
                          const RecordOutcome& record) {
  for (std::size_t i : todo) record(run(i, 0));
}

bool launched_by_mpirun() {
  // Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; MPICH/Hydra and slurm's PMI set PMI_SIZE; PMIx launchers
  // PMIX_RANK.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace fleetwatt::tools
