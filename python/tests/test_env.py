# fleetwatt.Env: the Gym-style loop. A random policy runs a day; observations keep their size; the
# episode's figures agree with its result file; a closed episode leaves nothing behind.
import numpy as np
import pytest

import fleetwatt

from conftest import ROOT

DAY = str(ROOT / "examples/scenarios/day-fleet.toml")
# The default day at a tenth of its size (100 servers, a tenth of the arrivals): a day in a few seconds.
SMALL_DAY = {"fleet.nodes": 100, "workload.generator.rate_per_hour": 15.2}


def test_random_policy_for_a_day():
    env = fleetwatt.Env(fleetwatt.load_scenario(DAY, **SMALL_DAY), reward="energy", slots=4)
    rng = np.random.default_rng(1)
    obs, info = env.reset()
    assert obs.shape == (7 + 5 * 4,) and obs.dtype == np.float64
    steps, total, done, starts = 0, 0.0, False, 0
    while not done:
        # At a decision point some slot could start: its last figure says which.
        assert any(obs[7 + 5 * k + 4] == 1.0 for k in range(4))
        obs, reward, done, truncated, info = env.step(int(rng.integers(0, env.n_actions)))
        assert obs.shape == (27,) and not truncated
        total += reward
        starts += info["started"]
        steps += 1
    assert steps > 100 and starts > 50
    r = env.result
    assert info["now_s"] == 86400.0 and r.summary["horizon_s"] == 86400.0
    # The rewards add up to minus the run's IT energy (kWh), which the result file holds.
    assert total == pytest.approx(-r.summary["it_energy_J"] / 3.6e6, rel=1e-9)
    assert info["jobs_finished"] == r.summary["jobs_finished"] > 0
    assert set(r.jobs["state"]) <= {"finished", "running", "queued", "pending"}


def test_always_start_the_head_is_fifo():
    # Action 1 at every decision point starts the queue head whenever it fits... and otherwise a later job:
    # the loop only stops where some slot fits. With slots=1 that is exactly FIFO.
    scenario = fleetwatt.load_scenario(ROOT / "examples/scenarios/pai-preset-policies.toml")
    env = fleetwatt.Env(scenario, slots=1, reward="jobs")
    env.reset()
    done = False
    while not done:
        _, _, done, _, _ = env.step(1)
    fifo = fleetwatt.run(scenario)
    assert env.result.summary["facility_energy_J"] == fifo.summary["facility_energy_J"]
    assert env.result.jobs["start_s"].equals(fifo.jobs["start_s"])


def test_reset_stops_an_episode_and_custom_rewards():
    seen = []

    def reward(prev, info):
        seen.append((prev["now_s"], info["now_s"]))
        return info["queued"]

    env = fleetwatt.Env(DAY, reward=reward)
    env.reset()
    _, r, _, _, info = env.step(0)
    assert r == info["queued"] and seen[0][0] <= seen[0][1]
    obs, info = env.reset()  # the first episode is stopped, mid-run
    assert obs.shape == (47,)
    env.close()
    with pytest.raises(RuntimeError):
        env.step(0)
    with pytest.raises(ValueError):
        fleetwatt.Env(DAY, reward="nope")
