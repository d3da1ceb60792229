"""fleetwatt from Python: run scenarios, read results as pandas DataFrames, predict a job's power, compare
policies, and write scheduling policies in Python.

The engine is fleetwatt's C++ one (the _fleetwatt extension): a run from here writes the very result file
`fleetwatt run` writes, and results are read back through the C++ result reader. See docs/python.md.

    import fleetwatt
    r = fleetwatt.run(fleetwatt.load_scenario("examples/scenarios/day-fleet.toml"))
    r.facility["facility_power_W"].max(), r.jobs.shape, r.summary["facility_energy_J"]
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
from typing import Any, Iterable, Optional

import numpy as np
import pandas as pd

from . import _fleetwatt
from ._fleetwatt import ConfigError, InterruptedError, Job, ResultError, Scenario, SchedulerContext  # noqa: A004

__version__ = _fleetwatt.__version__
__all__ = [
    "ConfigError",
    "Env",
    "FleetwattWarning",
    "InterruptedError",
    "Job",
    "Result",
    "ResultError",
    "Scenario",
    "Scheduler",
    "SchedulerContext",
    "compare",
    "load_scenario",
    "open",
    "predict",
    "run",
    "serve",
    "Served",
]

_open = open  # the builtin, before fleetwatt.open shadows it here


def _config_error(message: str, file: str = "", key: str = "") -> ConfigError:
    """A ConfigError raised on the Python side, with the attributes the C++ ones carry."""
    err = ConfigError(f"{file}: {key}: {message}" if file and key else message)
    err.file, err.line, err.column, err.key, err.message = file, 0, 0, key, message
    return err


def _toml_value(value: Any, key: str) -> str:
    """A Python value as TOML value text (the override mechanism's input)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _config_error(f"{value!r} is not a finite number", "override", key)
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, key) for v in value) + "]"
    raise _config_error(f"a {type(value).__name__} cannot be a scenario value", "override", key)


class FleetwattWarning(UserWarning):
    """A warning about a scenario or a run (a deprecated key, a questionable value): what the command
    line prints as "fleetwatt: warning: ..." on stderr."""


def _warn_from(scenario: Scenario) -> None:
    import warnings

    for message in scenario.take_warnings():
        warnings.warn(message, FleetwattWarning, stacklevel=3)


def load_scenario(path: str | os.PathLike, overrides: Optional[dict] = None, **kw_overrides) -> Scenario:
    """Loads a scenario TOML file, with keys overridden by dotted name.

    load_scenario("day.toml", **{"fleet.nodes": 200}) or load_scenario("day.toml", {"fleet.nodes": 200}).
    Overridden keys are checked as if the file held them, by the command line's `--set` mechanism: an
    unknown key, a wrong type or a bad value raises ConfigError (with .file, .line, .column, .key), whose
    place names the assignment ("load_scenario fleet.nodes=0") rather than a line of the file.
    """
    merged = dict(overrides or {})
    merged.update(kw_overrides)
    pairs = [(str(k), _toml_value(v, str(k))) for k, v in merged.items()]
    s = _fleetwatt.load_scenario(os.fspath(path), pairs)
    _warn_from(s)
    return s


def _as_scenario(scenario) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    return load_scenario(scenario)


class Scheduler:
    """Base class of scheduling policies written in Python.

    Subclass it and implement schedule(self, ctx); the engine calls it whenever the queue or the free
    resources change (and at times asked for with ctx.wake_at). ctx is a SchedulerContext, valid only during
    the call: ctx.queue (queued job indices, arrival order), ctx.job(i) (a Job: n_gpus, predicted_runtime_s,
    peak_w, valley_w, deadline_s, ...), ctx.place(i) (GPUs the scenario's placement would give it, or None),
    ctx.start(i, gpus), ctx.pause / resume / set_power_cap / sleep_node / wake_node, ctx.free_gpus,
    ctx.free_gpus_per_node(), ctx.free_gpus_per_group(), ctx.facility_power_w, ctx.fleet_power,
    ctx.carbon_intensity and ctx.price at ctx.now. Optionally metrics(self) -> {name: value} (the policy's
    own figures of the run). `name` names it in the result's summary.
    """

    name = "python"

    def schedule(self, ctx: SchedulerContext) -> None:  # pragma: no cover - abstract
        raise NotImplementedError("a fleetwatt.Scheduler implements schedule(self, ctx)")


def _read_column(f, path: str):
    kind = f.kind(path)
    if kind == "text":
        return np.array(f.strings(path), dtype=object)
    if kind == "integer":
        return f.integers(path)
    return f.doubles(path)


class Result:
    """A run's result file read through the C++ result reader.

    .facility  DataFrame indexed by time_s: it_power_W, facility_power_W, pue, energy_J, carbon_kg, cost
               (and the battery columns when the run has batteries)
    .jobs      DataFrame, one row per job (/jobs; text columns as str)
    .summary   dict of /summary (and /power_quality) scalars; .units has every dataset's unit
    .services  dict by service name ([[workload.service]]) of DataFrames indexed by time_s: power_W,
               arrivals, completions, output_tokens_per_s, replicas_active, admitted, queued, running,
               batch_occupancy, prefill_tokens_per_s, decode_tokens_per_s, ttft_p50_s ... (/services/<name>);
               .service_totals(name) its scalars (energy_J, requests_served, ...);
               .service_requests(name) an exact-mode service's requests, one row each
    .nodes     numpy array nodes x node samples of mean server power, W (.node_times: their starts, s)
    .attrs     the root attributes (scenario text, seed, version, start, ...)
    .to_hdf5(path) copies the result file.
    """

    # The root attributes a run's file has (docs/results.md, "Result file (HDF5)"): integers, the rest text.
    _INTEGER_ATTRIBUTES = ("seed", "start_unix_s", "start_utc_offset_s")
    _TEXT_ATTRIBUTES = ("scenario", "scenario_file", "fleetwatt_version", "git_commit", "created", "hdf5_version",
                        "start")

    def __init__(self, path: str | os.PathLike, *, text: str = "", _tempdir=None):
        self.path = os.fspath(path)
        self._file = _fleetwatt.ResultFile(self.path)
        self._tempdir = _tempdir  # a run without output= keeps its file here, for the Result's lifetime
        self.text = text  #: the printed summary of a run (as `fleetwatt run` prints it); "" when opened
        self._cache: dict = {}
        if not self._file.has("/summary/facility_energy_J") and not self._file.has("/comparison"):
            raise _config_error("not a fleetwatt result file", self.path, "file")

    def __repr__(self) -> str:
        return f"<fleetwatt.Result {self.path}>"

    def __str__(self) -> str:
        return self.text or repr(self)

    def _group(self, group: str) -> list[str]:
        prefix = f"/{group}/"
        return [d for d in self._file.datasets() if d.startswith(prefix) and "/" not in d[len(prefix):]]

    @property
    def facility(self) -> pd.DataFrame:
        if "facility" not in self._cache:
            f = self._file
            t = f.doubles("/facility/time_s")
            cols = {}
            for d in self._group("facility"):
                name = d.rsplit("/", 1)[1]
                if name != "time_s" and f.length(d) == len(t):
                    cols[name] = _read_column(f, d)
            self._cache["facility"] = pd.DataFrame(cols, index=pd.Index(t, name="time_s"))
        return self._cache["facility"]

    @property
    def jobs(self) -> pd.DataFrame:
        if "jobs" not in self._cache:
            cols = {d.rsplit("/", 1)[1]: _read_column(self._file, d) for d in self._group("jobs")}
            order = ["id"] + [c for c in cols if c != "id"] if "id" in cols else list(cols)
            self._cache["jobs"] = pd.DataFrame({c: cols[c] for c in order})
        return self._cache["jobs"]

    @property
    def summary(self) -> dict:
        if "summary" not in self._cache:
            out: dict = {}
            for group in ("summary", "power_quality"):
                for d in self._group(group):
                    if self._file.length(d) != 0:
                        continue  # scalars only; series of the group stay in the file
                    v = _read_column(self._file, d)
                    out[d.rsplit("/", 1)[1]] = v[0] if isinstance(v[0], str) else v[0].item()
            self._cache["summary"] = out
        return self._cache["summary"]

    @property
    def services(self) -> dict:
        if "services" not in self._cache:
            f = self._file
            names = sorted({d.split("/")[2] for d in f.datasets() if d.startswith("/services/")})
            out = {}
            for name in names:
                series = {}
                for d in self._group(f"services/{name}"):
                    if f.length(d) != 0:
                        series[d.rsplit("/", 1)[1]] = _read_column(f, d)
                n = len(series["power_W"])
                interval = f.double_attribute(f"/services/{name}", "interval_s")
                out[name] = pd.DataFrame(series, index=pd.Index(np.arange(n) * interval, name="time_s"))
            self._cache["services"] = out
        return self._cache["services"]

    def service_totals(self, name: str) -> dict:
        """A service's totals over the window: its scalars (energy_J, requests_served, output_tokens, the
        window's latency percentiles) and attributes (model, gpu, mode, tp, pp, replicas, gpus, ...)."""
        f = self._file
        out: dict = {}
        for d in self._group(f"services/{name}"):
            if f.length(d) == 0:
                out[d.rsplit("/", 1)[1]] = _read_column(f, d)[0].item()
        if not out:
            raise KeyError(f"no service '{name}' in {self.path}")
        group = f"/services/{name}"
        for a in ("model", "gpu", "mode", "trace"):
            out[a] = f.string_attribute(group, a)
        if f.has_attribute(group, "scheduler"):  # an older file has none
            out["scheduler"] = f.string_attribute(group, "scheduler")
        for a in ("tp", "replicas", "gpus", "max_batch"):
            out[a] = f.integer_attribute(group, a)
        out["pp"] = f.integer_attribute(group, "pp") if f.has_attribute(group, "pp") else 1
        out["interval_s"] = f.double_attribute(group, "interval_s")
        return out

    def service_requests(self, name: str) -> pd.DataFrame:
        """An exact-mode service's requests, one row each in arrival order (/services/<name>/requests):
        arrival_s, first_token_s, end_s, input_tokens, output_tokens, replica. Every request the run played;
        one ending at or after the horizon was not served in the window. KeyError for a fleet-mode service
        (it streams its requests and keeps none) or an unknown one."""
        cols = {d.rsplit("/", 1)[1]: _read_column(self._file, d) for d in self._group(f"services/{name}/requests")}
        if not cols:
            raise KeyError(f"no request rows for service '{name}' in {self.path} (exact mode keeps them)")
        order = ["arrival_s", "first_token_s", "end_s", "input_tokens", "output_tokens", "replica"]
        return pd.DataFrame({c: cols[c] for c in order})

    @property
    def nodes(self) -> np.ndarray:
        if "nodes" not in self._cache:
            self._cache["nodes"] = self._file.matrix("/nodes/power_W")
        return self._cache["nodes"]

    @property
    def node_times(self) -> np.ndarray:
        return self._file.doubles("/nodes/time_s")

    @property
    def attrs(self) -> dict:
        if "attrs" not in self._cache:
            out = {}
            for names, read in ((self._TEXT_ATTRIBUTES, self._file.string_attribute),
                                (self._INTEGER_ATTRIBUTES, self._file.integer_attribute)):
                for name in names:
                    if self._file.has_attribute("/", name):
                        out[name] = read("/", name)
            self._cache["attrs"] = out
        return self._cache["attrs"]

    @property
    def units(self) -> dict:
        """Every dataset's `units` attribute, by path."""
        return {d: self._file.string_attribute(d, "units") for d in self._file.datasets()
                if self._file.has_attribute(d, "units")}

    def dataset(self, path: str):
        """Any dataset of the file, as numpy (text as an object array of str)."""
        return _read_column(self._file, path)

    def to_hdf5(self, path: str | os.PathLike) -> str:
        """Writes the result file to `path` (a copy of the run's file, written beside it and renamed)."""
        target = os.fspath(path)
        if os.path.abspath(target) == os.path.abspath(self.path):
            return target
        tmp = f"{target}.tmp-{os.getpid()}"
        try:
            shutil.copyfile(self.path, tmp)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return target


def open(path: str | os.PathLike) -> Result:  # noqa: A001 - fleetwatt.open is the API's name
    """Reads an existing result file (from `fleetwatt run` or fleetwatt.run) into a Result."""
    p = os.fspath(path)
    if not os.path.isfile(p):
        raise _config_error("no such result file", p, "file")
    return Result(p)


def run(scenario, seed: Optional[int] = None, output: str | os.PathLike | None = None,
        scheduler: Optional[Scheduler] = None) -> Result:
    """Runs a scenario (a Scenario or a path) and returns its Result.

    seed overrides the scenario's seed (as `fleetwatt run --seed`); output keeps the result file there
    (else it lives in a temporary folder as long as the Result); scheduler, a fleetwatt.Scheduler, replaces
    the scenario's [scheduler] policy (its placement stays). The GIL is released while the engine runs;
    Ctrl-C (KeyboardInterrupt) stops the run and leaves no file.
    """
    s = _as_scenario(scenario)
    tempdir = None
    if output is None:
        tempdir = tempfile.TemporaryDirectory(prefix="fleetwatt-")
        out = os.path.join(tempdir.name, "result.h5")
    else:
        out = os.fspath(output)
    if scheduler is None:
        text = _fleetwatt.run_to_file(s, seed, out)
    else:
        if not callable(getattr(scheduler, "schedule", None)):
            raise TypeError("scheduler must be a fleetwatt.Scheduler (an object with schedule(ctx))")
        text = _fleetwatt.run_policy_to_file(s, scheduler, seed, out)
    _warn_from(s)  # those found while preparing the run
    return Result(out, text=text, _tempdir=tempdir)


def compare(scenario, policies: Iterable = ("fifo", "sjf", "easy", "powercap", "carbon", "consolidate"),
            seed: Optional[int] = None, threads: int = 0) -> pd.DataFrame:
    """Runs several policies on the scenario's identical workload: the `fleetwatt compare` table, one row
    per policy (indexed by policy name), as a DataFrame. A policy is a built-in policy's name or a
    fleetwatt.Scheduler (its row is named by its `name`); built-in ones run in parallel on `threads`
    threads (0: one per core), Python ones one after the other."""
    import io

    s = _as_scenario(scenario)
    csv = _fleetwatt.compare_csv(s, list(policies), seed, threads)
    _warn_from(s)
    return pd.read_csv(io.StringIO(csv)).set_index("policy")


def predict(**options) -> dict:
    """A job's predicted power and time: the dict `fleetwatt predict --json` prints.

    Keywords are the command's options with '_' for '-': predict(model="resnet50", gpu="a800", gpus=8,
    batch=256, image=224, samples=1281167, epochs=90); scenario="s.toml" (and job=ID) predicts a job of a
    scenario. Computed in this process by the same C++ code as the command. A bad keyword or value raises
    ConfigError naming the keyword.
    """
    return json.loads(_fleetwatt.predict_json(options))


class Served:
    """An LLM request trace played on replicas of a model (fleetwatt.serve): the summary `fleetwatt serve
    --json` prints (a dict), each request's times (a DataFrame: record, replica, arrival_s, input_tokens,
    output_tokens, first_token_s, end_s) and the service's GPU power per interval (a DataFrame time_s,
    power_W; the last interval's mean over its part up to the last request's end)."""

    def __init__(self, summary: dict, requests: pd.DataFrame, power: pd.DataFrame):
        self.summary = summary
        self.requests = requests
        self.power = power

    def __repr__(self) -> str:
        s = self.summary
        return (f"<fleetwatt.Served {s['requests']} requests in {s['end_s']:.1f} s, "
                f"{s['mean_power_W'] / 1e3:.2f} kW, {s['energy_per_request_J']:.1f} J per request>")


def serve(trace: str | os.PathLike, **options) -> Served:
    """Plays a request trace (Azure LLM inference 2023, Mooncake JSON lines, or CSV
    time_s,input_tokens,output_tokens) on replicas of a model with continuous batching, as `fleetwatt serve`
    does. Keywords are the command's options with '_' for '-': serve("conv.csv", model="llama2_70b",
    gpu="a100-sxm-80gb", tp=4, pp=1, replicas=2, max_batch=256, max_batched_tokens=8192, memory_fraction=0.9,
    rate_scale=1.0, horizon_s=0.0, interval_s=1.0); a decoder outside the zoo by its shape, model_shape=
    dict(layers=32, hidden=4096, heads=32, kv_heads=8, ffn_hidden=14336, vocab=32000) or the same as
    "layers=32,hidden=4096,..." text, `model` naming it. Computed in this process by the same C++ code as the
    command. A bad keyword or value raises ConfigError naming the keyword; a bad trace record names its line.
    """
    summary, requests, power, interval = _fleetwatt.serve_run(str(trace), options)
    power_df = pd.DataFrame({"time_s": np.arange(len(power)) * interval, "power_W": np.asarray(power)})
    return Served(json.loads(summary), pd.DataFrame(requests), power_df)


from ._env import Env  # noqa: E402  (the Gym-style loop builds on the names above)
