// `mpirun -np 2 fleetwatt sweep`: the same index table and, bit for bit, the same member files as the serial
// sweep, with members spread over both ranks. Skipped (exit status 77, which ctest reports as skipped) where
// fleetwatt was built without MPI.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>
#include <set>

#include "result_files_equal.hpp"
#include "sweep_table.hpp"
#include "sweep_test_support.hpp"

using namespace fleetwatt::test;

TEST_CASE("a sweep under mpirun -np 2 equals the serial sweep bit for bit", "[cli][sweep][mpi]") {
#ifndef FLEETWATT_MPIEXEC
  std::cout << "skipped: fleetwatt was built without MPI (install libopenmpi-dev openmpi-bin and rebuild)\n";
  std::exit(77);
#else
  TempDir dir;
  const auto s = dir.write("s.toml", kSweepScenario);
  const std::string grid = " --grid 'fleet.nodes=[4, 5]' --grid seed=1..3 --band low,high -q -o ";
  auto serial =
      run_command(fleetwatt_command() + " sweep " + s.string() + grid + (dir / "serial.h5").string());
  REQUIRE(serial.exit_code == 0);
  // As root, Open MPI's mpirun needs to be told that is meant.
  auto mpi = run_command("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                         std::string(FLEETWATT_MPIEXEC) + " -np 2 --oversubscribe " + fleetwatt_command() +
                         " sweep " + s.string() + grid + (dir / "mpi.h5").string());
  INFO(mpi.out << mpi.err);
  REQUIRE(mpi.exit_code == 0);
  const auto a = dir / "serial.h5", b = dir / "mpi.h5";
  for (const char* column : {"name", "overrides", "band", "status", "file"})
    CHECK(sweep_text_column(a, column) == [&] {
      auto v = sweep_text_column(b, column);
      // The same relative member paths, under each index's own folder of members.
      if (std::string(column) == "file")
        for (auto& f : v) f.replace(0, std::string("mpi.h5").size(), "serial.h5");
      return v;
    }());
  for (const char* column : {"member", "seed", "jobs_finished", "gpu_energy_J", "facility_energy_J",
                             "peak_facility_W", "peak_15min_W", "carbon_kg"})
    CHECK(sweep_number_column(a, column) == sweep_number_column(b, column));
  const auto names = sweep_text_column(a, "name");
  REQUIRE(names.size() == 12);
  for (const auto& n : names) {
    INFO(n);
    CHECK(
        result_files_difference(dir / "serial.h5.members" / (n + ".h5"), dir / "mpi.h5.members" / (n + ".h5"))
            .empty());
  }
  // Dynamic hand-out: both ranks ran members.
  const auto ranks = sweep_number_column(b, "rank");
  CHECK(std::set<double>(ranks.begin(), ranks.end()) == std::set<double>{0, 1});
#endif
}
