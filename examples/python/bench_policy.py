"""Speed of a policy written in Python against the C++ one: the default day with the C++ `fifo` and with
the Python Fifo of examples/python/fifo.py (both through fleetwatt.run, result file included), best of
three each; prints the wall times and their ratio (README, "Python").

    PYTHONPATH=build/python python3 examples/python/bench_policy.py [SCENARIO]
"""

import importlib.util
import pathlib
import sys
import time

import fleetwatt

HERE = pathlib.Path(__file__).resolve().parent


def best_of(n, f):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


if __name__ == "__main__":
    scenario = fleetwatt.load_scenario(sys.argv[1] if len(sys.argv) > 1 else "examples/scenarios/day-fleet.toml")
    spec = importlib.util.spec_from_file_location("fifo", HERE / "fifo.py")
    fifo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fifo)
    calls = {"n": 0}

    class CountedFifo(fifo.Fifo):
        def schedule(self, ctx):
            calls["n"] += 1
            super().schedule(ctx)

    cpp = best_of(3, lambda: fleetwatt.run(scenario))
    py = best_of(3, lambda: fleetwatt.run(scenario, scheduler=fifo.Fifo()))
    fleetwatt.run(scenario, scheduler=CountedFifo())
    print(f"C++ fifo     {cpp:.2f} s")
    print(f"Python Fifo  {py:.2f} s  ({calls['n']} scheduling passes)")
    print(f"ratio        {py / cpp:.2f}x")
