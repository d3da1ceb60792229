#!/usr/bin/env python3
"""One self-contained HTML page from a fleetwatt result file: figures (matplotlib, inline PNG), the
/summary metrics in readable units, and the scenario text. A `fleetwatt compare` file gets one panel per
metric across its policies instead.

Called by `fleetwatt report` (tools/cmd_report.cpp), which checks the inputs first and renames the page into
place; alone: python3 fleetwatt_report.py RESULT.h5 OUT.html. Exit status 0, or 1 (a missing package: one
line on stderr; anything unforeseen: Python's traceback).
"""
import base64
import datetime
import html
import io
import math
import os
import re
import sys

try:
    import h5py
    import matplotlib

    matplotlib.use("Agg")  # no display: figures are drawn to PNG in memory
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    import numpy as np
except ImportError as e:
    sys.exit(f"fleetwatt: error: report needs matplotlib, numpy and h5py in {sys.executable} ({e}); "
             "install python3-matplotlib python3-numpy python3-h5py (tools/install-deps.sh)")

# Readable units: for each stored unit, the display units from largest to smallest with their size in
# the stored unit; a value takes the largest display unit it reaches 1 in.
SCALES = {
    "J": [(3.6e9, "MWh"), (3.6e6, "kWh"), (3.6e3, "Wh"), (1.0, "J")],
    "W": [(1e6, "MW"), (1e3, "kW"), (1.0, "W")],
    "W/s": [(1e6, "MW/s"), (1e3, "kW/s"), (1.0, "W/s")],
    "s": [(86400.0, "d"), (3600.0, "h"), (60.0, "min"), (1.0, "s")],
    "kg": [(1e3, "t"), (1.0, "kg")],
    "kW": [(1e3, "MW"), (1.0, "kW")],
    "kWh": [(1e3, "MWh"), (1.0, "kWh")],
}
DPI = 90


def scale_for(values, units):
    """(divisor, display unit) for an array of values stored in `units`, chosen by its largest magnitude."""
    unit = short_unit(units)
    steps = SCALES.get(unit)
    if not steps:
        return 1.0, unit
    magnitude = np.abs(np.asarray(values, dtype=float))
    top = float(np.max(magnitude[np.isfinite(magnitude)], initial=0.0))
    for size, name in steps:
        if top >= size:
            return size, name
    return steps[-1]


def shown(value, size, unit):
    """A value in its display unit: a whole count (unit 1) as an integer, anything else by number()."""
    if unit == "1" and math.isfinite(value) and value == int(value):
        return f"{int(value)}"
    return number(value / size)


def short_unit(units):
    """The unit itself, without the explanation some units attributes add ("s (NaN: never started)")."""
    m = re.match(r"[^\s:(]+", units)
    return m.group(0) if m else ""


def number(x):
    """Four significant digits without an exponent (2491.8 -> 2492, 50.216 -> 50.22, 99 -> 99.00); NaN (a
    metric the run cannot give, such as a ramp of a run shorter than two windows) as n/a."""
    if math.isnan(x):
        return "n/a"
    if not math.isfinite(x):
        return str(x)
    digits = 0 if x == 0 else max(0, 3 - math.floor(math.log10(abs(x))))
    return f"{x:.{digits}f}"


def units_of(obj):
    u = obj.attrs.get("units", "")
    return u.decode() if isinstance(u, bytes) else str(u)


def text_attr(f, name):
    v = f.attrs.get(name, "")
    return v.decode() if isinstance(v, bytes) else str(v)


def png(fig):
    """The figure as an <img> with its PNG inline (a data: URI, so the page needs no network)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return '<img alt="" src="data:image/png;base64,' + base64.b64encode(buf.getvalue()).decode() + '">'


def figure(title, img, caption):
    return (f"<figure><h2>{html.escape(title)}</h2>{img}"
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def envelope(t, y, buckets=2000):
    """At most `buckets` points to draw: bucket means with their min/max (None when no reduction needed)."""
    if len(y) <= 2 * buckets:
        return t, y, None
    edges = np.linspace(0, len(y), buckets + 1).astype(int)
    mean = np.add.reduceat(y, edges[:-1]) / np.diff(edges)
    return t[edges[:-1]], mean, (np.minimum.reduceat(y, edges[:-1]), np.maximum.reduceat(y, edges[:-1]))


def time_axis(t_end):
    """Divisor and label for a time axis: hours up to three days, days beyond."""
    return (3600.0, "time (h)") if t_end <= 3 * 86400 else (86400.0, "time (days)")


def plot_series(ax, t, y, label, tdiv, ydiv):
    tt, yy, band = envelope(t, y)
    (line,) = ax.plot(tt / tdiv, yy / ydiv, label=label, drawstyle="steps-post", lw=1)
    if band is not None:
        ax.fill_between(tt / tdiv, band[0] / ydiv, band[1] / ydiv, step="post", alpha=0.25,
                        color=line.get_color(), lw=0)


class Run:
    """The facility series and job table of one run result."""

    def __init__(self, f):
        fac = f["facility"]
        self.t = fac["time_s"][:]
        self.facility_W = fac["facility_power_W"][:]
        self.it_W = fac["it_power_W"][:] if "it_power_W" in fac else None
        self.carbon_kg = fac["carbon_kg"][:] if "carbon_kg" in fac else None
        # What the utility's meter reads: grid import when the run has batteries (carbon and cost are
        # charged on it), else the facility's own power.
        self.import_W = fac["grid_import_W"][:] if "grid_import_W" in fac else None
        self.meter_W = self.import_W if self.import_W is not None else self.facility_W
        if "summary/horizon_s" in f:
            horizon = float(f["summary/horizon_s"][()])
        else:  # the last interval is a whole one
            step = self.t[-1] - self.t[-2] if len(self.t) > 1 else 1.0
            horizon = self.t[-1] + float(fac.attrs.get("interval_s", step))
        # Each interval's length: the last one ends at the horizon.
        self.dt = np.diff(np.append(self.t, max(horizon, self.t[-1]))) if len(self.t) else self.t
        self.end = self.t[-1] + self.dt[-1] if len(self.t) else 0.0
        # The run's wall clock: (local reading of time 0 in s since the local epoch, its description).
        self.clock = None
        if "start_unix_s" in f.attrs:
            offset = int(f.attrs.get("start_utc_offset_s", 0))
            a, sign = abs(offset), "-" if offset < 0 else "+"
            label = f"UTC{sign}{a // 3600:02d}:{a % 3600 // 60:02d}" if offset else "UTC"
            self.clock = (int(f.attrs["start_unix_s"]) + offset,
                          f"clock {label}, start {text_attr(f, 'start')}")
        self.gpus = int(f["gpus"].attrs["count"]) if "gpus" in f and "count" in f["gpus"].attrs else None
        jobs = f["jobs"] if "jobs" in f else None
        self.jobs = None
        if jobs is not None and "start_s" in jobs and len(jobs["start_s"]) and "n_gpus" in jobs:
            self.jobs = (jobs["start_s"][:], jobs["end_s"][:], jobs["n_gpus"][:].astype(float))


def power_figure(run):
    tdiv, tlabel = time_axis(run.end)
    ydiv, yunit = scale_for(run.facility_W, "W")
    with_carbon = run.carbon_kg is not None and np.any(run.carbon_kg > 0)
    panels = 3 if with_carbon else 1
    fig, axes = plt.subplots(panels, 1, figsize=(12, 2.8 * panels + 0.8), sharex=True, squeeze=False)
    ax = axes[0][0]
    plot_series(ax, run.t, run.facility_W, "facility demand" if run.import_W is not None else "facility",
                tdiv, ydiv)
    if run.import_W is not None:
        plot_series(ax, run.t, run.import_W, "grid import (the meter)", tdiv, ydiv)
    if run.it_W is not None:
        plot_series(ax, run.t, run.it_W, "IT", tdiv, ydiv)
    ax.set_ylabel(f"power ({yunit})")
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower right")
    if with_carbon:
        plot_series(axes[1][0], run.t, run.carbon_kg, "CO2 per interval", tdiv, 1.0)
        axes[1][0].set_ylabel("CO2 per interval (kg)")
        # Intensity: the interval's CO2 over the energy it was charged on (kWh): the meter's.
        energy_kWh = run.meter_W * run.dt / 3.6e6
        intensity = np.divide(run.carbon_kg, energy_kWh, out=np.full_like(energy_kWh, np.nan),
                              where=energy_kWh > 0)
        plot_series(axes[2][0], run.t, intensity, "intensity", tdiv, 1.0)
        axes[2][0].set_ylabel("CO2 intensity (kg/kWh)")
    for a in axes.flat:
        a.grid(alpha=0.3)
    axes[-1][0].set_xlabel(tlabel)
    mean = np.sum(run.facility_W * run.dt) / np.sum(run.dt)
    caption = (f"Facility and IT power, interval means. Peak facility power "
               f"{number(run.facility_W.max() / ydiv)} {yunit}, mean {number(mean / ydiv)} {yunit}.")
    if run.import_W is not None:
        mean_import = np.sum(run.import_W * run.dt) / np.sum(run.dt)
        caption = (f"Facility demand, grid import (what the meter reads, after the batteries) and IT power, "
                   f"interval means. Peak grid import {number(run.import_W.max() / ydiv)} {yunit}, mean "
                   f"{number(mean_import / ydiv)} {yunit}; peak facility demand "
                   f"{number(run.facility_W.max() / ydiv)} {yunit}. CO2 is charged on import.")
    if len(run.t) > 4000:
        caption += " Long series are drawn as bucket means with their min-max band."
    if with_carbon:
        size, unit = scale_for([run.carbon_kg.sum()], "kg")
        caption += f" CO2: {number(run.carbon_kg.sum() / size)} {unit} in all."
    return figure("Facility power over time", png(fig), caption)


def load_duration(run, f):
    """(share of time in %, power in W, source) of the load-duration curve: power[k] is drawn during at least
    share[k] % of the time. From /grid/load_duration_kW when present (k = 0..100 %), else from the meter's
    series (grid import with batteries, else facility power) sorted descending, each interval weighted by its length (share: the time down to that value)."""
    if "grid/load_duration_kW" in f:
        kW = f["grid/load_duration_kW"][:]
        share = f["grid/load_duration_percent"][:] if "grid/load_duration_percent" in f else \
            np.linspace(0.0, 100.0, len(kW))
        return share, kW * 1e3, "/grid/load_duration_kW"
    w, dt = run.meter_W, run.dt
    if len(w) > 1 and np.all(dt[:-1] == dt[0]):
        # One interval length, the last interval cut by the horizon (the usual file): a plain sort, then the
        # last interval's shorter length counted from its place in the order on.
        power = np.sort(w)[::-1]
        cum = np.arange(1, len(w) + 1) * dt[0]
        cum[np.searchsorted(-power, -w[-1], side="left"):] += dt[-1] - dt[0]
    else:
        order = np.argsort(-w, kind="stable")
        power, cum = w[order], np.cumsum(dt[order])
    # A step curve starting at (0 %, peak): value k holds from share k-1 to share k.
    share = np.concatenate(([0.0], cum / cum[-1] * 100.0))
    return share, np.concatenate((power[:1], power)), (
        "the grid import series, sorted" if run.import_W is not None else "the facility series, sorted")


def exceeded(share, power, p):
    """The highest power drawn during at least p % of the time (p = 0: the peak), read off the curve; p may
    be an array."""
    return power[np.minimum(np.searchsorted(share, np.asarray(p) * (1 - 1e-12), side="left"), len(power) - 1)]


def load_duration_figure(run, f):
    share, power, source = load_duration(run, f)
    ydiv, yunit = scale_for(power, "W")
    fig, ax = plt.subplots(figsize=(12, 3.6))
    if source.startswith("the") and len(power) > 4000:
        # A long series: the curve read at 2001 shares of time is enough to draw.
        share, power = np.linspace(0.0, 100.0, 2001), exceeded(share, power, np.linspace(0.0, 100.0, 2001))
    ax.plot(share, power / ydiv, drawstyle="steps-pre" if source.startswith("the") else "default")
    ax.set_xlim(0, 100)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("share of time at or above this power (%)")
    ax.set_ylabel(f"facility power ({yunit})")
    ax.grid(alpha=0.3)
    marks = ", ".join(f"{p} %: {number(exceeded(share, power, p) / ydiv)} {yunit}" for p in (1, 10, 50))
    return figure("Load-duration curve", png(fig),
                  f"Facility power exceeded during a share of the time (from {source}). Exceeded {marks}.")


def daily_profile_figure(run):
    # Hour of day and day number of each interval's start, on the run's clock (else time 0 is midnight).
    local = run.t + (run.clock[0] if run.clock else 0)
    # Time-weighted means of each (day, hour) cell and of each hour over all days, by summing energy and time
    # per clock hour since the first clock day's midnight.
    first_midnight = np.floor(local[0] / 86400.0) * 86400.0
    cell = ((local - first_midnight) // 3600.0).astype(np.int64)
    size = (cell[-1] // 24 + 1) * 24
    energy = np.bincount(cell, weights=run.facility_W * run.dt, minlength=size).reshape(-1, 24)
    time = np.bincount(cell, weights=run.dt, minlength=size).reshape(-1, 24)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = energy.sum(axis=0) / time.sum(axis=0)
        cells = np.where(time > 0, energy / time, np.nan)
    days = int(np.sum(time.sum(axis=1) > 0))
    ydiv, yunit = scale_for(run.facility_W, "W")
    fig, ax = plt.subplots(figsize=(12, 3.6))
    hours = np.arange(24)
    ax.plot(hours, mean / ydiv, marker="o", label="mean")
    longer_than_a_day = run.end > 86400.0
    if longer_than_a_day:
        ax.fill_between(hours, np.nanmin(cells, axis=0) / ydiv, np.nanmax(cells, axis=0) / ydiv, alpha=0.25,
                        label=f"min-max over {days} days")
        ax.legend(loc="lower right")
    ax.set_xticks(range(0, 24, 2))
    ax.set_xlim(-0.5, 23.5)
    ax.set_ylim(bottom=0)
    ax.set_xlabel(f"hour of day ({run.clock[1]})" if run.clock else "hour of day (simulated time 0 is 00:00)")
    ax.set_ylabel(f"facility power ({yunit})")
    ax.grid(alpha=0.3)
    hi, lo = int(np.nanargmax(mean)), int(np.nanargmin(mean))
    caption = (f"Mean facility power by hour of day. Highest hourly mean {number(mean[hi] / ydiv)} {yunit} "
               f"at {hi:02d}:00, lowest {number(mean[lo] / ydiv)} {yunit} at {lo:02d}:00.")
    if longer_than_a_day:
        caption += f" The band spans the hourly means of the {days} days."
    return figure("Daily profile", png(fig), caption)


def occupancy_figure(run):
    start, end, n = run.jobs
    ran = np.isfinite(start)
    done = ran & np.isfinite(end)
    # Jobs started before the series (a warm-up) count from its start; unfinished ones (end NaN) still run
    # at its end.
    t0 = min(run.t[0], 0.0) if len(run.t) else 0.0
    s, e = np.maximum(start[ran], t0), end[done]
    times = np.concatenate((s, e))
    # At one instant, ends before starts, so a GPU handed on is not counted twice.
    order = np.lexsort((np.concatenate((np.ones_like(s), np.zeros_like(e))), times))
    jobs_step = np.concatenate((np.ones_like(s), -np.ones_like(e)))[order]
    gpus_step = np.concatenate((n[ran], -n[done]))[order]
    # Steps: each count holds from its time to the next; the last one holds to the end.
    t = np.concatenate(([t0], times[order], [run.end]))
    running = np.concatenate(([0.0], np.cumsum(jobs_step)))
    gpus = np.concatenate(([0.0], np.cumsum(gpus_step)))
    running, gpus = np.append(running, running[-1]), np.append(gpus, gpus[-1])
    tdiv, tlabel = time_axis(run.end)
    fig, ax = plt.subplots(figsize=(12, 3.6))
    ax.plot(t / tdiv, gpus, drawstyle="steps-post", label="allocated GPUs")
    if run.gpus:
        ax.axhline(run.gpus, color="grey", ls="--", lw=1, label=f"fleet ({run.gpus} GPUs)")
    ax.set_ylabel("GPUs")
    ax.set_ylim(bottom=0)
    ax.set_xlabel(tlabel)
    ax.grid(alpha=0.3)
    jx = ax.twinx()
    jx.plot(t / tdiv, running, drawstyle="steps-post", color="tab:orange", lw=1, label="running jobs")
    jx.set_ylabel("running jobs", color="tab:orange")
    jx.set_ylim(bottom=0)
    jx.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    # Below the axes: both axes' curves fill the plot.
    ax.legend(handles=ax.get_lines() + jx.get_lines(), loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3,
              frameon=False)
    of = f" of {run.gpus}" if run.gpus else ""
    return figure("Job occupancy", png(fig),
                  f"Jobs running and GPUs allocated (from /jobs start_s, end_s, n_gpus). At most "
                  f"{int(running.max())} jobs running and {shown(gpus.max(), 1.0, '1')} GPUs allocated{of}; "
                  f"{int(ran.sum())} of {len(start)} jobs started, {int(ran.sum() - done.sum())} still "
                  "running at the end.")


def clock_time(t, clock):
    """A time in s after the start as a reading of the run's clock, else as h:mm:ss after the start."""
    if not math.isfinite(t):
        return number(t), ""
    if clock:
        stamp = datetime.datetime.fromtimestamp(clock[0] + t, tz=datetime.timezone.utc)
        return stamp.strftime("%Y-%m-%d %H:%M:%S"), clock[1]
    whole = int(round(t))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}", "h:mm:ss after the start"


def summary_table(group, clock):
    """Every scalar dataset of /summary with its units, in readable units and as stored; a time of an event
    (NAME_time_s) as a clock reading."""
    rows = []
    for name, ds in group.items():
        if not isinstance(ds, h5py.Dataset) or ds.shape != () or ds.dtype.kind not in "iuf":
            continue
        stored, units = ds[()].item(), units_of(ds)
        value = float(stored)
        size, unit = scale_for([value], units)
        text = shown(value, size, unit)
        if name.endswith("_time_s"):
            text, unit = clock_time(value, clock)
        rows.append(f"<tr><td>{html.escape(name)}</td><td class=n>{text}</td>"
                    f"<td>{html.escape(unit)}</td><td class=n>{stored!r}</td>"
                    f"<td>{html.escape(units)}</td></tr>")
    head = "<tr><th>metric</th><th>value</th><th>unit</th><th>as stored</th><th>stored unit</th></tr>"
    return f'<table class="metrics">{head}{"".join(rows)}</table>'


def comparison_figure(f):
    table = f["comparison"]
    policies = [p.decode() if isinstance(p, bytes) else str(p) for p in table["policy"][:]]
    metrics = [k for k in table if k != "policy"]
    cols = 3
    rows = math.ceil(len(metrics) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(12, 2.6 * rows), squeeze=False)
    for ax, name in zip(axes.flat, metrics):
        values = table[name][:].astype(float)
        size, unit = scale_for(values, units_of(table[name]))
        ax.bar(policies, values / size, color=plt.cm.tab10(np.arange(len(policies)) % 10))
        ax.set_title(f"{name} ({unit})", fontsize=10)
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes.flat[len(metrics):]:
        ax.set_visible(False)
    fig.tight_layout()
    return figure("Policies compared", png(fig),
                  f"One panel per metric of /comparison across the {len(policies)} policies "
                  f"({', '.join(policies)}).")


def comparison_power_figure(f):
    # Compare files name their series as run files do (time_s, facility_power_W); files written before
    # that used t_s and facility_W.
    def series(fac):
        t = fac["time_s"] if "time_s" in fac else fac["t_s"]
        w = fac["facility_power_W"] if "facility_power_W" in fac else fac["facility_W"]
        return t[:], w[:]
    groups = [(name, series(g["facility"])) for name, g in f["policies"].items() if "facility" in g]
    end = max((float(t[-1]) for _, (t, _w) in groups if len(t)), default=0.0)
    tdiv, tlabel = time_axis(end)
    ydiv, yunit = scale_for([float(np.max(w, initial=0.0)) for _, (_t, w) in groups], "W")
    fig, ax = plt.subplots(figsize=(12, 4))
    for name, (t, w) in groups:
        plot_series(ax, t, w, name, tdiv, ydiv)
    ax.set_xlabel(tlabel)
    ax.set_ylabel(f"facility power ({yunit})")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    return figure("Facility power by policy", png(fig), "Facility power over time under each policy.")


def comparison_table(f):
    table = f["comparison"]
    policies = [p.decode() if isinstance(p, bytes) else str(p) for p in table["policy"][:]]
    metrics = [k for k in table if k != "policy"]
    head = "<tr><th>policy</th>"
    scales = {}
    for name in metrics:
        scales[name] = scale_for(table[name][:].astype(float), units_of(table[name]))
        head += f"<th>{html.escape(name)}<br>({html.escape(scales[name][1])})</th>"
    body = ""
    for i, p in enumerate(policies):
        body += f"<tr><td>{html.escape(p)}</td>" + "".join(
            f"<td class=n>{shown(float(table[m][i]), *scales[m])}</td>" for m in metrics) + "</tr>"
    return f'<div class="wide"><table class="metrics">{head}</tr>{body}</table></div>'


STYLE = """body{font-family:sans-serif;max-width:1140px;margin:1em auto;color:#222}
figure{margin:1.5em 0}figure img{max-width:100%}figcaption{color:#444;font-size:.9em}
h2{font-size:1.15em;margin:.2em 0}table.metrics{border-collapse:collapse;font-size:.85em}
table.metrics td,table.metrics th{border:1px solid #ccc;padding:.15em .5em}td.n{text-align:right}
pre{background:#f4f4f4;padding:.6em;overflow-x:auto;font-size:.8em}div.wide{overflow-x:auto}"""


def progress(step):
    """One line per step on a terminal (a year of 1 s samples takes half a minute); nothing otherwise."""
    if sys.stderr.isatty():
        print(f"  {step} ...", file=sys.stderr, flush=True)


def page(path, f):
    name = os.path.basename(path)
    meta = ", ".join(f"{k} {text_attr(f, k)}" for k in ("fleetwatt_version", "git_commit", "created", "seed")
                     if k in f.attrs)
    parts = [f"<!DOCTYPE html><html><head><meta charset=utf-8><title>fleetwatt report: {html.escape(name)}"
             f"</title><style>{STYLE}</style></head><body><h1>fleetwatt report: {html.escape(name)}</h1>"
             f"<p>{html.escape(meta)}</p>"]
    if "comparison" in f:
        parts.append(comparison_figure(f))
        if "policies" in f:
            parts.append(comparison_power_figure(f))
        parts.append("<h2>Comparison table</h2>" + comparison_table(f))
    else:
        progress("reading the series")
        run = Run(f)
        progress("facility power")
        parts.append(power_figure(run))
        progress("load-duration curve")
        parts.append(load_duration_figure(run, f))
        progress("daily profile")
        parts.append(daily_profile_figure(run))
        if run.jobs is not None:
            progress("job occupancy")
            parts.append(occupancy_figure(run))
        if "summary" in f:
            parts.append("<h2>Grid metrics</h2>" + summary_table(f["summary"], run.clock))
    parts.append("<h2>Scenario</h2><pre>" + html.escape(text_attr(f, "scenario")) + "</pre></body></html>\n")
    return "".join(parts)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: fleetwatt_report.py RESULT.h5 OUT.html")
    with h5py.File(argv[1], "r") as f:
        text = page(argv[1], f)
    with open(argv[2], "w", encoding="utf-8") as out:
        out.write(text)


if __name__ == "__main__":
    main(sys.argv)
