# The Python API at its edges: Ctrl-C reaches a policy busy in a long call, the policy context refuses
# numbers that are not finite or out of range and indices past its tables, Env bounds its queue slots,
# and an override key cannot smuggle in a second assignment.
import os
import signal
import threading
import time

import pytest

import fleetwatt
from fleetwatt import _fleetwatt


def interrupt_after(seconds):
    """A timer sending this process SIGINT (as Ctrl-C) after `seconds`; cancel it when done."""
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


class Fifo(fleetwatt.Scheduler):
    name = "fifo-py"

    def schedule(self, ctx):
        for j in list(ctx.queue):
            gpus = ctx.place(j)
            if gpus is not None:
                ctx.start(j, gpus)


class Sleepy(Fifo):
    """0.3 s of sleep at every pass, asking for a pass every simulated second: a run of many minutes."""

    def __init__(self):
        self.calls = 0

    def schedule(self, ctx):
        self.calls += 1
        time.sleep(0.3)
        super().schedule(ctx)
        ctx.wake_at(ctx.now + 1)


def test_ctrl_c_stops_a_policy_that_sleeps_at_every_pass(two_jobs, tmp_path):
    policy = Sleepy()
    scenario = fleetwatt.load_scenario(two_jobs, **{"workload.horizon_s": 3600})
    timer = interrupt_after(0.5)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        fleetwatt.run(scenario, scheduler=policy, output=tmp_path / "out.h5")
    timer.cancel()
    # The pass under way when the signal came ends; no other starts after it (2 s: a loaded machine).
    assert time.monotonic() - started < 2.0
    assert policy.calls <= 3
    assert os.listdir(tmp_path) == []


class Busy(Fifo):
    """One pass of 30 s, in short sleeps (as a policy computing in Python for long): Ctrl-C must not wait
    for it to return."""

    def schedule(self, ctx):
        end = time.monotonic() + 30
        while time.monotonic() < end:
            time.sleep(0.01)
        super().schedule(ctx)


def test_ctrl_c_interrupts_a_policy_inside_its_long_call(two_jobs, tmp_path):
    timer = interrupt_after(0.5)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        fleetwatt.run(two_jobs, scheduler=Busy(), output=tmp_path / "out.h5")
    timer.cancel()
    assert time.monotonic() - started < 2.0  # not the 30 s the call would take
    assert os.listdir(tmp_path) == []


class Probe(Fifo):
    """Tries each bad argument once, at the first pass, and keeps what was raised."""

    def __init__(self, calls):
        self.calls = calls
        self.raised = []

    def schedule(self, ctx):
        if not self.raised:
            for call in self.calls:
                try:
                    call(ctx)
                    self.raised.append(None)
                except (ValueError, IndexError) as e:
                    self.raised.append((type(e).__name__, str(e)))
        super().schedule(ctx)


def test_context_refuses_numbers_that_are_not_finite_or_in_range(two_jobs):
    nan, inf = float("nan"), float("inf")
    probe = Probe([
        lambda ctx: ctx.set_power_cap(0, nan),
        lambda ctx: ctx.set_power_cap(0, -5.0),
        lambda ctx: ctx.set_power_cap(0, inf),
        lambda ctx: ctx.sleep_node(1, nan),
        lambda ctx: ctx.wake_node(1, inf, 0.0),
        lambda ctx: ctx.predicted_peak_facility_w(nan),
        lambda ctx: ctx.peak_increment_per_gpu_w(0, -1.0),
        lambda ctx: ctx.wake_at(1e300),
        lambda ctx: ctx.set_power_cap(0, 250.0),  # a real cap is taken
    ])
    result = fleetwatt.run(two_jobs, scheduler=probe)
    assert probe.raised == [
        ("ValueError", "cap_w=nan is not a finite number in [0, 1e+09]"),
        ("ValueError", "cap_w=-5 is not a finite number in [0, 1e+09]"),
        ("ValueError", "cap_w=inf is not a finite number in [0, 1e+09]"),
        ("ValueError", "sleep_w=nan is not a finite number in [0, 1e+09]"),
        ("ValueError", "latency_s=inf is not a finite number in [0, 1e+09]"),
        ("ValueError", "extra_cap_w=nan is not a finite number in [0, 1e+09]"),
        ("ValueError", "gpu_idle_w=-1 is not a finite number in [0, 1e+09]"),
        ("ValueError", "wake_at(1e+300): t_s is beyond the simulated clock (+-1e+09 s)"),
        None,
    ]
    assert result.summary["jobs_finished"] == 2


def test_context_refuses_indices_past_its_tables(two_jobs):
    probe = Probe([
        lambda ctx: ctx.set_power_cap(10**6, 100.0),
        lambda ctx: ctx.pause(10**6),
        lambda ctx: ctx.place(10**6),
        lambda ctx: ctx.free_gpus_on(2),
        lambda ctx: ctx.node_power(7),
        lambda ctx: ctx.node_of(2),
    ])
    fleetwatt.run(two_jobs, scheduler=probe)
    assert probe.raised == [
        ("IndexError", "index=1000000 is not a job of this run"),
        ("IndexError", "index=1000000 is not a job of this run"),
        ("IndexError", "index=1000000 is not a job of this run"),
        ("IndexError", "node=2 is not a node of this fleet (0..1)"),
        ("IndexError", "node=7 is not a node of this fleet (0..1)"),
        ("IndexError", "gpu=2 is not a GPU of this fleet"),
    ]


@pytest.mark.parametrize("slots", [10**9, 0, 4097, 2.5, True])
def test_env_refuses_slots_out_of_bounds(two_jobs, slots):
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.Env(two_jobs, slots=slots)
    assert str(e.value) == (f"slots={slots!r} is not a whole number in 1..4096 (queue slots an observation "
                            "shows)")
    assert e.value.key == "slots"


def test_env_accepts_its_largest_slots_and_the_engine_side_checks_too(two_jobs, tmp_path):
    env = fleetwatt.Env(two_jobs, slots=4096)
    obs, _ = env.reset()
    assert obs.shape == (7 + 5 * 4096,)
    env.close()
    with pytest.raises(fleetwatt.ConfigError, match=r"^slots: 100000 is not in 1\.\.4096"):
        _fleetwatt.GymRun(fleetwatt.load_scenario(two_jobs), None, str(tmp_path / "e.h5"), 100000)


@pytest.mark.parametrize("key", ["workload.horizon_s=60\nfleet.nodes", "fleet.nodes\nworkload.horizon_s",
                                 "fleet.nodes = 1", "fleet..nodes"])
def test_override_keys_are_dotted_paths_only(two_jobs, key):
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.load_scenario(two_jobs, {key: 5})
    assert "\n" not in str(e.value)
    assert str(e.value).startswith("load_scenario " + key.split("\n")[0])


def test_an_override_value_holds_one_value(two_jobs):
    with pytest.raises(fleetwatt.ConfigError) as e:
        _fleetwatt.load_scenario(two_jobs, [("workload.horizon_s", "60\nfleet.nodes = 5")])
    assert e.value.key == "workload.horizon_s"
    assert e.value.message == "the value is more than one TOML value (a newline and another key?)"
    # An array over several lines is one value.
    s = _fleetwatt.load_scenario(two_jobs, [("grid.system_peak_hours", "[17,\n18]")])
    assert "system_peak_hours" in s.text
