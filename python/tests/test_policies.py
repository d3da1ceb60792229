# Policies written in Python: the examples under examples/python/ run here; the Python FIFO and power cap
# reproduce the C++ fifo and powercap bit for bit on the shipped PAI scenario; a policy's own use of
# wake_at and the context is checked against figures worked out by hand.
import importlib.util
import math

import numpy as np
import pytest

import fleetwatt

from conftest import ROOT

PAI = str(ROOT / "examples/scenarios/pai-preset-policies.toml")


def example(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples/python" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_same_files(a, b):
    """Every dataset of two result files equal bit for bit (NaN where NaN)."""
    fa, fb = a._file, b._file
    assert fa.datasets() == fb.datasets()
    for d in fa.datasets():
        va, vb = a.dataset(d), b.dataset(d)
        if va.dtype == object:
            assert list(va) == list(vb), d
        else:
            assert np.array_equal(va, vb, equal_nan=True), d
    return len(fa.datasets())


def test_python_fifo_equals_cpp_fifo_on_pai():
    cpp = fleetwatt.run(PAI)
    assert fleetwatt.load_scenario(PAI).scheduler == "fifo"
    py = fleetwatt.run(PAI, scheduler=example("fifo").Fifo())
    assert assert_same_files(cpp, py) > 50
    assert py.summary["jobs_finished"] > 400  # a real workload, not an empty one


def test_python_powercap_equals_cpp_powercap_on_pai():
    cpp = fleetwatt.run(fleetwatt.load_scenario(PAI, **{"scheduler.policy": "powercap"}))
    policy = example("power_cap").PowerCap(24000.0)  # the scenario's [scheduler.powercap] cap_w
    py = fleetwatt.run(PAI, scheduler=policy)
    assert_same_files(cpp, py)
    # The cap did bind: FIFO's peak is above it (the scenario says FIFO peaks near 14 kW).
    fifo = fleetwatt.run(PAI)
    assert fifo.summary["peak_facility_W"] > 24000.0 >= cpp.summary["peak_facility_W"]


def test_python_powercap_gpu_cap_mode_equals_cpp():
    s = fleetwatt.load_scenario(PAI, **{"scheduler.policy": "powercap", "scheduler.powercap.mode": "gpu_cap"})
    cpp = fleetwatt.run(s)
    policy = example("power_cap").PowerCap(24000.0, gpu_cap=True, min_cap_fraction=0.5)
    py = fleetwatt.run(PAI, scheduler=policy)
    assert policy.capped_starts > 0
    assert_same_files(cpp, py)


def test_greedy_carbon_example_defers_only_within_its_rules():
    module = example("carbon_greedy")
    starts = []

    class Logged(module.GreedyCarbon):
        def schedule(self, ctx):
            low = self.is_low(ctx)
            before = set(ctx.queue)
            super().schedule(ctx)
            for j in before - set(ctx.queue):
                job = ctx.job(j)
                starts.append((ctx.now, low, job.deferrable, job.deadline_s, job.predicted_runtime_s))

    policy = Logged()
    r = fleetwatt.run(PAI, scheduler=policy)
    deferrable = [s for s in starts if s[2]]
    assert len(deferrable) > 50 and policy.deferred_starts > 0
    # A deferrable job started at high intensity only once out of slack (now >= deadline - run time).
    for now, low, _, deadline, runtime in deferrable:
        assert low or now >= deadline - runtime - 1e-6
    fifo = fleetwatt.run(PAI)
    assert r.summary["jobs_finished"] + r.summary["jobs_running"] + r.summary["jobs_queued"] == (
        fifo.summary["jobs_finished"] + fifo.summary["jobs_running"] + fifo.summary["jobs_queued"])
    assert r.summary["carbon_kg"] < fifo.summary["carbon_kg"]


class WaitThenFifo(fleetwatt.Scheduler):
    """Starts nothing before t = 40 s, then FIFO."""

    name = "wait-then-fifo"

    def __init__(self):
        self.passes = []

    def schedule(self, ctx):
        self.passes.append(ctx.now)
        if ctx.now < 40:
            ctx.wake_at(40)
            return
        while ctx.queue:
            gpus = ctx.place(ctx.queue[0])
            if gpus is None:
                return
            ctx.start(ctx.queue[0], gpus)


def test_wake_at_by_hand(two_jobs):
    # Nothing runs before 40: job 1 then runs 40-80 on GPU 0 (300, 100, 300, 100 W per 10 s), job 2 waits
    # for both GPUs and runs 80-100 at 200 W each (cut at the horizon). IT (base 200 W): 0-40 300 W ->
    # 12000 J; 40-80 550, 350, 550, 350 -> 18000 J; 80-100 600 W -> 12000 J; 42000 J, x1.5 = 63000 J.
    policy = WaitThenFifo()
    r = fleetwatt.run(two_jobs, scheduler=policy)
    assert r.summary["it_energy_J"] == pytest.approx(42000, rel=1e-12)
    assert r.summary["facility_energy_J"] == pytest.approx(63000, rel=1e-12)
    assert 40.0 in policy.passes and min(policy.passes) == 0.0
    j = r.jobs.set_index("id")
    assert (j.loc[1, "start_s"], j.loc[1, "end_s"], j.loc[2, "start_s"]) == (40, 80, 80)
    assert math.isnan(j.loc[2, "end_s"])


def test_context_figures_by_hand(two_jobs):
    seen = {}

    class Probe(fleetwatt.Scheduler):
        def schedule(self, ctx):
            if ctx.now == 5.0:  # job 1 running on GPU 0 (peak, 300 W), job 2 just queued
                seen["queue"] = [ctx.job(j).id for j in ctx.queue]
                seen["running"] = [ctx.job(j).id for j in ctx.running]
                seen["free"] = (ctx.free_gpus, list(ctx.free_gpus_per_node()), ctx.free_gpus_per_group())
                seen["facility_w"] = ctx.facility_power_w
                seen["job2"] = ctx.job(ctx.queue[0])
                j2 = ctx.job(ctx.queue[0])
                seen["j2"] = (j2.n_gpus, j2.predicted_runtime_s, j2.peak_w, j2.valley_w, j2.state)
                seen["place"] = ctx.place(ctx.queue[0])
                seen["peak"] = ctx.predicted_peak_facility_w()
                seen["ctx"] = ctx
            while ctx.queue:
                gpus = ctx.place(ctx.queue[0])
                if gpus is None:
                    return
                ctx.start(ctx.queue[0], gpus)

    fleetwatt.run(two_jobs, scheduler=Probe())
    assert seen["queue"] == [2] and seen["running"] == [1]
    assert seen["free"] == (1, [0, 1], [1])
    assert seen["facility_w"] == pytest.approx(1.5 * (200 + 300 + 50))  # 825 W
    assert seen["j2"] == (2, 30.0, 200.0, 100.0, "queued")
    assert seen["place"] is None  # only one GPU is free
    assert seen["peak"] == pytest.approx(825.0)  # job 1 at its 300 W peak
    with pytest.raises(RuntimeError, match="only valid during"):
        seen["ctx"].now
    with pytest.raises(RuntimeError, match="only valid during"):
        seen["job2"].n_gpus


def test_a_policy_error_stops_the_run(two_jobs, tmp_path):
    class Broken(fleetwatt.Scheduler):
        def schedule(self, ctx):
            raise ZeroDivisionError("policy bug")

    with pytest.raises(ZeroDivisionError, match="policy bug"):
        fleetwatt.run(two_jobs, scheduler=Broken(), output=tmp_path / "x.h5")
    assert list(tmp_path.iterdir()) == []


def test_compare_takes_python_policies_beside_built_in_ones():
    # A Python policy's row is computed as a built-in one's: the Python FIFO's row equals the C++ fifo's
    # bit for bit in every figure but the wall time; rows keep the order asked for.
    fifo = example("fifo").Fifo()
    fifo.name = "python-fifo"
    df = fleetwatt.compare(PAI, policies=["fifo", fifo, "sjf"])
    assert list(df.index) == ["fifo", "python-fifo", "sjf"]
    figures = [c for c in df.columns if not c.startswith("wall")]
    cpp, py = df.loc["fifo", figures], df.loc["python-fifo", figures]
    assert np.array_equal(cpp.to_numpy(float), py.to_numpy(float), equal_nan=True)
    assert df.loc["python-fifo", "jobs_done"] > 400
    with pytest.raises(TypeError):
        fleetwatt.compare(PAI, policies=["fifo", 3])


class AsksForNow(fleetwatt.Scheduler):
    name = "asks-for-now"

    def schedule(self, ctx):
        ctx.wake_at(ctx.now)


def test_wake_at_now_is_refused_instead_of_looping(two_jobs):
    # A pass asked for at the current instant would repeat forever at one simulated time.
    with pytest.raises(ValueError, match="later than ctx.now"):
        fleetwatt.run(two_jobs, scheduler=AsksForNow())
