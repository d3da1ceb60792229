#!/usr/bin/env python3
"""Compares a fleetwatt run with simgrid_fleet's on the same scenario (bench/simgrid/README.md).

Reads fleetwatt's result file (h5py) and simgrid_fleet's --series and --jobs CSVs, and prints the facility
energies and their difference, the largest difference between the two facility series (interval means and
cumulative energy), and the jobs whose start or end differ. Exit status 1 when the energies differ by more
than --tolerance-kwh or any job's times differ.

Usage:
    compare.py RUN.h5 SERIES.csv JOBS.csv [--tolerance-kwh 1e-6]
"""

import argparse
import csv
import math
import sys

import h5py


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="fleetwatt run's result file")
    p.add_argument("series", help="simgrid_fleet --series CSV")
    p.add_argument("jobs", help="simgrid_fleet --jobs CSV")
    p.add_argument("--tolerance-kwh", type=float, default=1e-6)
    a = p.parse_args(argv)

    with h5py.File(a.run, "r") as f:
        fw_J = float(f["summary/facility_energy_J"][()])
        fw_t = f["facility/time_s"][()]
        fw_W = f["facility/facility_power_W"][()]
        fw_E = f["facility/energy_J"][()]
        ids = f["jobs/id"][()]
        fw_jobs = {int(i): (float(s), float(e)) for i, s, e in zip(ids, f["jobs/start_s"][()], f["jobs/end_s"][()])}
    with open(a.series) as fh:
        series = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(fh)]
    with open(a.jobs) as fh:
        sg_jobs = {int(r["job_id"]): (float(r["start_s"]), float(r["end_s"])) for r in csv.DictReader(fh)}

    sg_J = series[-1]["energy_J"]
    diff_kwh = (fw_J - sg_J) / 3.6e6
    print(f"facility energy  fleetwatt {fw_J / 3.6e6:.6f} kWh, SimGrid {sg_J / 3.6e6:.6f} kWh, "
          f"difference {diff_kwh:.3g} kWh ({(fw_J - sg_J) / sg_J:.3g} relative)")
    ok = abs(diff_kwh) <= a.tolerance_kwh
    if len(series) != len(fw_t):
        print(f"series: {len(fw_t)} fleetwatt intervals, {len(series)} SimGrid intervals")
        ok = False
    else:
        dt = max(abs(x - r["time_s"]) for x, r in zip(fw_t, series))
        dW = max(abs(x - r["facility_power_W"]) for x, r in zip(fw_W, series))
        dE = max(abs(x - r["energy_J"]) for x, r in zip(fw_E, series))
        print(f"series: {len(series)} intervals; largest difference {dt:.3g} s in time, {dW:.3g} W in interval "
              f"mean facility power, {dE:.3g} J in cumulative energy")
    differ = [i for i in fw_jobs if i not in sg_jobs or not all(map(same, fw_jobs[i], sg_jobs[i]))]
    started = sum(1 for s, _ in fw_jobs.values() if not math.isnan(s))
    print(f"jobs: {len(fw_jobs)} in fleetwatt's run, {len(sg_jobs)} in SimGrid's; {started} started; "
          f"{len(differ)} with different start or end times")
    for i in differ[:10]:
        print(f"  job {i}: fleetwatt {fw_jobs[i]}, SimGrid {sg_jobs.get(i)}")
    ok = ok and not differ and len(fw_jobs) == len(sg_jobs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
