"""A greedy carbon-aware policy, written in Python: deferrable jobs start only while the grid's carbon
intensity (the scenario's [grid.carbon]) is at or below a threshold (default: the signal's mean), or once
waiting longer would miss their deadline (deadline - predicted run time); every other job starts as soon as
the placement finds it GPUs, in queue order, skipping those that do not fit (greedy: no reservations, so
unlike the C++ `carbon` policy a deadline can slip when the fleet is full). While deferred jobs wait, it
looks again every 15 minutes of simulated time and at the earliest latest start.

    PYTHONPATH=build/python python3 examples/python/carbon_greedy.py [SCENARIO]
"""

import math
import sys

import fleetwatt


class GreedyCarbon(fleetwatt.Scheduler):
    name = "greedy-carbon"
    recheck_s = 900.0

    def __init__(self, threshold=None):
        self.threshold = threshold
        self.deferred_starts = 0  # deferrable jobs started in a low-carbon pass

    def _threshold(self, ctx):
        if self.threshold is None:
            signal = ctx.carbon_signal()
            if signal is None:
                raise ValueError("GreedyCarbon needs a carbon signal: add [grid.carbon] to the scenario")
            times, values = signal
            # Time-weighted mean of the step signal over its samples (each value holds to the next time).
            spans = [b - a for a, b in zip(times, times[1:])]
            total = sum(spans)
            self.threshold = sum(v * s for v, s in zip(values, spans)) / total if total > 0 else values[0]
        return self.threshold

    def is_low(self, ctx):
        return ctx.carbon_intensity <= self._threshold(ctx)

    def schedule(self, ctx):
        low = self.is_low(ctx)
        next_look = math.inf
        for j in ctx.queue:
            job = ctx.job(j)
            if job.deferrable and job.deadline_s is not None and not low:
                latest = job.deadline_s - job.predicted_runtime_s
                # The clock counts whole nanoseconds: a wake-up at `latest` may land a hair before it.
                if latest - ctx.now > 1e-6:
                    next_look = min(next_look, latest)
                    continue
            gpus = ctx.place(j)
            if gpus is not None:
                ctx.start(j, gpus)
                if job.deferrable and low:
                    self.deferred_starts += 1
        if next_look < math.inf:
            ctx.wake_at(min(next_look, ctx.now + self.recheck_s))

    def metrics(self):
        return {"deferred_starts_at_low_carbon": self.deferred_starts}


if __name__ == "__main__":
    scenario = sys.argv[1] if len(sys.argv) > 1 else "examples/scenarios/pai-preset-policies.toml"
    fifo = fleetwatt.run(scenario)
    green = fleetwatt.run(scenario, scheduler=GreedyCarbon())
    print(green)
    print(f"CO2: FIFO {fifo.summary['carbon_kg']:.1f} kg, greedy carbon-aware {green.summary['carbon_kg']:.1f} kg")
