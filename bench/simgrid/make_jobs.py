#!/usr/bin/env python3
"""Job files of the fleetwatt / SimGrid side-by-side (bench/simgrid/README.md).

Writes a fleetwatt jobs CSV (docs/scenario.md, `jobs_csv`: job_id,submit_s,n_gpus,epochs,peak_s,peak_W,
valley_s,valley_W; powers per GPU) for a fleet of N GPUs: square-wave jobs (each epoch a peak, then a valley)
arriving as a Poisson process over one day, at a rate proportional to the fleet (125 jobs per hour per 4,000
GPUs: about 3,000 jobs on 4,000 GPUs, about 30,000 on 40,000).

Every number written is a whole number (seconds and watts), so both simulators hold every time and power
exactly in a double and their energies can agree to rounding. Powers come in a few steps (peaks in 25 W
steps, valleys in 10 W steps) so that SimGrid's hosts need few power states. Deterministic from the seed on
any Python 3: only random.Random(seed).random() is used (the one method whose sequence Python guarantees
across versions), with the draws' transforms written out here.

Standard library only. Usage:
    make_jobs.py --gpus 4000 --seed 4000 -o fleet-4k-jobs.csv
"""

import argparse
import math
import random
import sys

HORIZON_S = 86400  # the scenarios' horizon_s: arrivals fall in [0, horizon)
JOBS_PER_HOUR_PER_4K_GPUS = 125.0  # 3,000 a day on 4,000 GPUs
GPUS_PER_NODE = 8  # the scenarios' gpus_per_node
GPU_IDLE_W = 70  # the scenarios' gpu_idle_w (H100 SXM preset); valleys are at or above it
GPU_TDP_W = 700  # the scenarios' gpu_tdp_w: peaks are at most this (fleetwatt refuses more)

# Job sizes: powers of two up to 64 GPUs (64 = 8 whole servers), and a share of sizes that are not a
# multiple of a server (whole free servers plus a remainder: first_fit's mixed path).
SIZES = [(1, 0.25), (2, 0.15), (4, 0.15), (8, 0.15), (16, 0.10), (32, 0.08), (64, 0.05)]
ODD_SIZE_SHARE = 0.07  # uniform in [9, 63], skipping multiples of 8
EPOCHS = (2, 15)  # uniform integer, inclusive
PEAK_S = (300, 1200)  # uniform integer seconds
VALLEY_S = (10, 120)
PEAK_W = (350, 700, 25)  # uniform over range(lo, hi + 1, step)
VALLEY_W = (80, 250, 10)


class Draws:
    """Draws built only on random.random(), whose sequence Python keeps stable across versions."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def uniform01(self):
        return self.rng.random()

    def integer(self, lo, hi):
        """Uniform integer in [lo, hi]."""
        return lo + min(hi - lo, int(self.rng.random() * (hi - lo + 1)))

    def step(self, lo, hi, step):
        return lo + step * self.integer(0, (hi - lo) // step)

    def exponential(self, rate):
        return -math.log(1.0 - self.rng.random()) / rate

    def size(self):
        u = self.rng.random()
        if u < ODD_SIZE_SHARE:
            while True:
                n = self.integer(9, 63)
                if n % GPUS_PER_NODE:
                    return n
        u = (u - ODD_SIZE_SHARE) / (1.0 - ODD_SIZE_SHARE)
        acc = 0.0
        for n, w in SIZES:
            acc += w
            if u < acc:
                return n
        return SIZES[-1][0]


def make_jobs(gpus, seed):
    """The job rows (tuples in column order) for a fleet of `gpus` GPUs."""
    if gpus <= 0 or gpus % GPUS_PER_NODE:
        raise ValueError(f"--gpus must be a positive multiple of {GPUS_PER_NODE}")
    rate_per_s = JOBS_PER_HOUR_PER_4K_GPUS * gpus / 4000.0 / 3600.0
    d = Draws(seed)
    rows = []
    t = 0.0
    while True:
        t += d.exponential(rate_per_s)
        submit = math.floor(t)  # whole seconds; ties keep file order (fleetwatt's and the FIFO's)
        if submit >= HORIZON_S:
            break
        n = min(d.size(), gpus)
        epochs = d.integer(*EPOCHS)
        peak_s = d.integer(*PEAK_S)
        valley_s = d.integer(*VALLEY_S)
        peak_w = d.step(*PEAK_W)
        valley_w = min(d.step(*VALLEY_W), peak_w)
        rows.append((len(rows) + 1, submit, n, epochs, peak_s, peak_w, valley_s, valley_w))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpus", type=int, required=True, help="GPUs of the fleet (a multiple of 8)")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("-o", "--output", required=True, help="the CSV to write")
    a = p.parse_args(argv)
    try:
        rows = make_jobs(a.gpus, a.seed)
    except ValueError as e:
        p.error(str(e))
    with open(a.output, "w", newline="\n") as f:
        f.write("job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W\n")
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")
    gpu_s = sum(r[2] * r[3] * (r[4] + r[6]) for r in rows)
    print(f"{a.output}: {len(rows)} jobs for {a.gpus} GPUs; offered load {gpu_s / (a.gpus * HORIZON_S):.1%} "
          f"of the fleet's GPU-time over {HORIZON_S} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
