"""fleetwatt.Env: a Gym-style loop over a scenario's run, for learning scheduling policies.

The engine runs a scenario as fleetwatt.run does, but its scheduler is the agent: at every decision point
(a scheduling pass where at least one of the first `slots` queued jobs could start now) the run stops and
step(action) decides. action 0 waits (simulated time goes on to the next event); action k (1..slots)
starts the k-th queued job where the scenario's placement puts it, and the same instant is offered again.
An action naming an empty slot or a job that cannot start is a wait.

Observation: a float64 array of 7 + 5 x slots figures:
    [0] simulated time / horizon (negative in the warm-up)   [1] queued jobs     [2] running jobs
    [3] free GPUs / GPUs   [4] facility power / facility power with every server and GPU at full power
    [5] carbon intensity at now (g/kWh; 0 without [grid.carbon])   [6] price at now (0 without [grid.price])
    then per slot k (the k-th queued job; zeros when empty): GPUs, predicted run time (h), peak power per
    GPU (W), time waited so far (h), 1 if it could start now.
Reward of a step (reward=): "energy" (default) -IT kWh used since the last step; "jobs" jobs finished since
the last step; or a callable reward(previous_info, info) -> float. info: now_s, it_energy_J (from time 0),
jobs_finished, queued, started (whether the action started a job).
"""

from __future__ import annotations

import operator
import os
import tempfile
from typing import Callable, Optional, Union

import numpy as np

from . import _fleetwatt

Reward = Union[str, Callable[[dict, dict], float]]


def _energy_reward(prev: dict, info: dict) -> float:
    return -(info["it_energy_J"] - prev["it_energy_J"]) / 3.6e6


def _jobs_reward(prev: dict, info: dict) -> float:
    return float(info["jobs_finished"] - prev["jobs_finished"])


class Env:
    """Gym-style environment: obs, info = env.reset(); obs, reward, done, truncated, info = env.step(a)."""

    def __init__(self, scenario, reward: Reward = "energy", slots: int = 8, seed: Optional[int] = None):
        from . import _as_scenario

        self.scenario = _as_scenario(scenario)
        if callable(reward):
            self._reward = reward
        elif reward == "energy":
            self._reward = _energy_reward
        elif reward == "jobs":
            self._reward = _jobs_reward
        else:
            raise ValueError(f"reward {reward!r}: 'energy', 'jobs' or a callable(previous_info, info)")
        limit = _fleetwatt.GymRun.max_slots
        try:
            whole = None if isinstance(slots, bool) else operator.index(slots)
        except TypeError:
            whole = None
        if whole is None or not 1 <= whole <= limit:
            from . import _config_error

            raise _config_error(f"slots={slots!r} is not a whole number in 1..{limit} (queue slots an "
                                "observation shows)", key="slots")
        self.slots = whole
        self.seed = seed
        self.n_actions = slots + 1  #: actions are 0 (wait) .. slots
        self.observation_size = 7 + 5 * slots
        self._run = None
        self._tempdir = None
        self._info: Optional[dict] = None
        self.result = None  #: the episode's fleetwatt.Result once it is done

    def reset(self, seed: Optional[int] = None):
        """Starts a new episode (stopping one still going); returns (observation, info)."""
        self.close()
        self._tempdir = tempfile.TemporaryDirectory(prefix="fleetwatt-env-")
        out = os.path.join(self._tempdir.name, "episode.h5")
        self._run = _fleetwatt.GymRun(self.scenario, seed if seed is not None else self.seed, out, self.slots)
        self.result = None
        state = self._run.start()
        return self._observe(state, out)

    def step(self, action: int):
        """Applies the action; returns (observation, reward, terminated, truncated, info)."""
        if self._run is None or self._info is None:
            raise RuntimeError("call reset() before step()")
        if self._info["done"]:
            raise RuntimeError("the episode is over: call reset()")
        prev = self._info
        state = self._run.step(int(action))
        obs, info = self._observe(state, os.path.join(self._tempdir.name, "episode.h5"))
        return obs, float(self._reward(prev, info)), bool(info["done"]), False, info

    def _observe(self, state: dict, out: str):
        obs = np.asarray(state.pop("observation"), dtype=np.float64)
        if state["done"]:
            from . import Result

            obs = np.zeros(self.observation_size)
            self.result = Result(out, text=self._run.summary_text, _tempdir=self._tempdir)
        self._info = state
        return obs, dict(state)

    def close(self) -> None:
        if self._run is not None:
            self._run.close()
            self._run = None
        self._info = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
