"""The figures of one run's page (fleetwatt_report.py): power over time on the meter (grid import when the run
has batteries), the batteries, PUE, a step-waveform zoom of the largest 1-s ramp, the load-duration curve, the
daily (or, for a run shorter than a day, hourly) profile, job occupancy, the LLM services and the power-quality
bands."""
import datetime
import math
import re

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np

from report_common import (figure, number, plot_series, png, scale_for, shown, text_attr, time_axis)


class Run:
    """The facility series, job table and meter of one run result."""

    def __init__(self, f, prefix=""):
        fac = f[prefix + "facility"]
        self.t = fac["time_s"][:]
        self.facility_W = fac["facility_power_W"][:]
        self.it_W = fac["it_power_W"][:] if "it_power_W" in fac else None
        self.carbon_kg = fac["carbon_kg"][:] if "carbon_kg" in fac else None
        self.cost = fac["cost"][:] if "cost" in fac else None
        self.interval = float(fac.attrs["interval_s"]) if "interval_s" in fac.attrs else None
        # What the utility's meter reads: grid import when the run has batteries (carbon and cost are
        # charged on it), else the facility's own power.
        self.import_W = fac["grid_import_W"][:] if "grid_import_W" in fac else None
        self.meter_W = self.import_W if self.import_W is not None else self.facility_W
        self.meter = "grid import" if self.import_W is not None else "facility power"
        self.battery_W = fac["battery_W"][:] if "battery_W" in fac else None
        self.soc = fac["battery_soc"][:] if "battery_soc" in fac else None
        self.import_limit_W = import_limit(f)
        if "summary/horizon_s" in f:
            horizon = float(f["summary/horizon_s"][()])
        else:  # the last interval is a whole one
            step = self.t[-1] - self.t[-2] if len(self.t) > 1 else 1.0
            horizon = self.t[-1] + (self.interval or step)
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


def import_limit(f):
    """The grid import limit in W, or None: /summary/import_limit_W (0: none), else `import_limit_kw` in the
    scenario's [grid] table."""
    if "summary/import_limit_W" in f:
        limit = float(f["summary/import_limit_W"][()])
        return limit if limit > 0 else None
    m = re.search(r"^\s*import_limit_kw\s*=\s*([0-9.eE+]+)", text_attr(f, "scenario"), re.MULTILINE)
    return float(m.group(1)) * 1e3 if m and float(m.group(1)) > 0 else None


def mean_of(run, w):
    return np.sum(w * run.dt) / np.sum(run.dt)


def intensity(per_interval, run):
    """A quantity charged per interval over the meter's energy in it (per kWh)."""
    energy_kWh = run.meter_W * run.dt / 3.6e6
    return np.divide(per_interval, energy_kWh, out=np.full_like(energy_kWh, np.nan), where=energy_kWh > 0)


def power_figure(run):
    tdiv, tlabel = time_axis(run.end)
    ydiv, yunit = scale_for(np.concatenate((run.facility_W, run.meter_W)), "W")
    with_carbon = run.carbon_kg is not None and np.any(run.carbon_kg > 0)
    with_cost = run.cost is not None and np.any(run.cost != 0)
    panels = 1 + 2 * with_carbon + with_cost
    fig, axes = plt.subplots(panels, 1, figsize=(12, 2.8 * panels + 0.8), sharex=True, squeeze=False)
    axes = [a[0] for a in axes]
    ax = axes[0]
    if run.import_W is not None:
        plot_series(ax, run.t, run.import_W, "grid import (the meter)", tdiv, ydiv, zorder=3)
        plot_series(ax, run.t, run.facility_W, "facility demand", tdiv, ydiv)
    else:
        plot_series(ax, run.t, run.facility_W, "facility", tdiv, ydiv)
    if run.it_W is not None:
        plot_series(ax, run.t, run.it_W, "IT", tdiv, ydiv)
    ax.set_ylabel(f"power ({yunit})")
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower right")
    on = "grid import" if run.import_W is not None else "facility energy"
    row = 1
    if with_carbon:
        plot_series(axes[row], run.t, run.carbon_kg, "CO2 per interval", tdiv, 1.0)
        axes[row].set_ylabel("CO2 per interval (kg)")
        plot_series(axes[row + 1], run.t, intensity(run.carbon_kg, run), "intensity", tdiv, 1.0)
        axes[row + 1].set_ylabel(f"CO2 / kWh of {on}\n(kg/kWh)")
        row += 2
    if with_cost:
        plot_series(axes[row], run.t, intensity(run.cost, run), "price", tdiv, 1.0)
        axes[row].set_ylabel(f"cost / kWh of {on}")
    for a in axes:
        a.grid(alpha=0.3)
    axes[-1].set_xlabel(tlabel)
    caption = (f"Facility and IT power, interval means. Peak facility power "
               f"{number(run.facility_W.max() / ydiv)} {yunit}, "
               f"mean {number(mean_of(run, run.facility_W) / ydiv)} {yunit}.")
    if run.import_W is not None:
        caption = (f"Grid import (what the meter reads, after the batteries), facility demand and IT power, "
                   f"interval means. Peak grid import {number(run.import_W.max() / ydiv)} {yunit}, mean "
                   f"{number(mean_of(run, run.import_W) / ydiv)} {yunit}; peak facility demand "
                   f"{number(run.facility_W.max() / ydiv)} {yunit}. CO2 and cost are charged on grid import.")
    if len(run.t) > 4000:
        caption += " Long series are drawn as bucket means with their min-max band."
    if with_carbon:
        size, unit = scale_for([run.carbon_kg.sum()], "kg")
        caption += f" CO2: {number(run.carbon_kg.sum() / size)} {unit} in all."
    return figure("power", "Power over time" if run.import_W is not None else "Facility power over time",
                  png(fig), caption)


def battery_figure(run):
    """Grid import against demand with the import limit, the batteries' power and their state of charge."""
    tdiv, tlabel = time_axis(run.end)
    ydiv, yunit = scale_for(np.concatenate((run.facility_W, run.import_W)), "W")
    fig, axes = plt.subplots(3, 1, figsize=(12, 8), sharex=True)
    # The colours of the power panel: import first (on top), demand second.
    plot_series(axes[0], run.t, run.import_W, "grid import", tdiv, ydiv, zorder=3)
    plot_series(axes[0], run.t, run.facility_W, "facility demand", tdiv, ydiv)
    if run.import_limit_W is not None:
        axes[0].axhline(run.import_limit_W / ydiv, color="tab:red", ls="--", lw=1,
                        label=f"import limit {number(run.import_limit_W / ydiv)} {yunit}")
    axes[0].set_ylabel(f"power ({yunit})")
    axes[0].set_ylim(bottom=0)
    axes[0].legend(loc="lower right", fontsize=8)
    bdiv, bunit = scale_for(run.battery_W, "W")
    plot_series(axes[1], run.t, run.battery_W, "battery", tdiv, bdiv)
    axes[1].axhline(0, color="grey", lw=0.8)
    axes[1].set_ylabel(f"battery ({bunit})\n+ discharge, - charge")
    plot_series(axes[2], run.t, run.soc * 100.0, "state of charge", tdiv, 1.0)
    axes[2].set_ylim(0, 100)
    axes[2].set_ylabel("state of charge (%)")
    for a in axes:
        a.grid(alpha=0.3)
    axes[-1].set_xlabel(tlabel)
    over = np.sum(run.dt[run.import_W > run.import_limit_W * (1 + 1e-9)]) if run.import_limit_W else 0.0
    limit = (f"import limit {number(run.import_limit_W / ydiv)} {yunit}, exceeded during "
             f"{number(over / 60.0)} min" if run.import_limit_W is not None else "no import limit")
    return figure("battery", "Grid import, batteries and state of charge", png(fig),
                  f"Facility demand and grid import (demand less battery power) with the {limit}; battery "
                  f"power (positive: discharging to the site); state of charge, from "
                  f"{number(run.soc.min() * 100)} % to {number(run.soc.max() * 100)} %.")


def pue_figure(run):
    tdiv, tlabel = time_axis(run.end)
    pue = np.divide(run.facility_W, run.it_W, out=np.full_like(run.facility_W, np.nan), where=run.it_W > 0)
    fig, ax = plt.subplots(figsize=(12, 2.8))
    plot_series(ax, run.t, pue, "PUE", tdiv, 1.0)
    ax.set_ylabel("PUE (facility / IT)")
    ax.set_xlabel(tlabel)
    ax.grid(alpha=0.3)
    overall = np.sum(run.facility_W * run.dt) / np.sum(run.it_W * run.dt)
    return figure("pue", "PUE over time", png(fig),
                  f"Facility power over IT power per interval: from {number(np.nanmin(pue))} to "
                  f"{number(np.nanmax(pue))}; facility energy over IT energy {number(overall)}.")


def one_second_means(run):
    """(window start times, means) of the meter's series over whole clock seconds; None above 1-s
    intervals."""
    if run.interval is None or run.interval > 1.0 + 1e-9 or len(run.t) < 2:
        return None
    per = int(round(1.0 / run.interval))
    whole = len(run.meter_W) // per * per
    means = run.meter_W[:whole].reshape(-1, per).mean(axis=1)
    return run.t[:whole:per], means


def zoom_figure(run):
    """The step waveform of two minutes around the largest rise between consecutive 1-s means."""
    t1, means = one_second_means(run)
    rises = np.diff(means)
    k = int(np.argmax(rises)) + 1  # the later window of the largest rise
    at = t1[k]
    lo, hi = max(run.t[0], at - 60.0), min(run.end, at + 60.0)
    inside = (run.t >= lo) & (run.t < hi)
    ydiv, yunit = scale_for(run.meter_W[inside], "W")
    fig, ax = plt.subplots(figsize=(12, 3.6))
    label = "grid import" if run.import_W is not None else "facility power"
    ax.plot(np.append(run.t[inside], hi) - at, np.append(run.meter_W[inside], run.meter_W[inside][-1]) / ydiv,
            drawstyle="steps-post", lw=1, label=f"{label}, {number(run.interval)} s intervals")
    ax.plot([-1.0, 0.0, 1.0], np.array([means[k - 1], means[k - 1], means[k]]) / ydiv, drawstyle="steps-post",
            color="tab:red", lw=2, label="the two 1-s means of the largest rise")
    ax.set_xlim(lo - at, hi - at)
    ax.set_xlabel(f"seconds from the largest 1-s rise (t = {number(at)} s)")
    ax.set_ylabel(f"{label} ({yunit})")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    rdiv, runit = scale_for([rises[k - 1]], "W")
    return figure("zoom", "Step waveform around the largest 1-s ramp", png(fig),
                  f"The {label} series as stored ({number(run.interval)} s intervals), two minutes "
                  f"around the largest rise between consecutive 1-s means: {number(rises[k - 1] / rdiv)} "
                  f"{runit} per 1 s, "
                  f"into the second starting at {number(at)} s.")


def load_duration(run, f):
    """(share of time in %, power in W, source) of the load-duration curve: power[k] is drawn during at least
    share[k] % of the time. From /grid/load_duration_kW when present (k = 0..100 %), else from the meter's
    series (grid import with batteries, else facility power) sorted descending, each interval weighted by
    its length (share: the time down to that value)."""
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
    return share, np.concatenate((power[:1], power)), f"the {run.meter} series, sorted"


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
    ax.set_ylabel(f"{run.meter} ({yunit})")
    ax.grid(alpha=0.3)
    marks = ", ".join(f"{p} %: {number(exceeded(share, power, p) / ydiv)} {yunit}" for p in (1, 10, 50))
    what = "Grid import" if run.import_W is not None else "Facility power"
    return figure("load-duration", "Load-duration curve", png(fig),
                  f"{what} exceeded during a share of the time (from {source}). Exceeded {marks}.")


def hourly_cells(run):
    """Energy and time of the meter's series per clock hour since the first clock day's midnight (hour of
    day and day number of each interval's start, on the run's clock; else time 0 is midnight)."""
    local = run.t + (run.clock[0] if run.clock else 0)
    first_midnight = np.floor(local[0] / 86400.0) * 86400.0
    cell = ((local - first_midnight) // 3600.0).astype(np.int64)
    size = (cell[-1] // 24 + 1) * 24
    energy = np.bincount(cell, weights=run.meter_W * run.dt, minlength=size)
    time = np.bincount(cell, weights=run.dt, minlength=size)
    return energy, time


def profile_figure(run):
    return daily_profile_figure(run) if run.end >= 86400.0 else hourly_profile_figure(run)


def daily_profile_figure(run):
    energy, time = (a.reshape(-1, 24) for a in hourly_cells(run))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = energy.sum(axis=0) / time.sum(axis=0)
        cells = np.where(time > 0, energy / time, np.nan)
    days = int(np.sum(time.sum(axis=1) > 0))
    ydiv, yunit = scale_for(run.meter_W, "W")
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
    ax.set_ylabel(f"{run.meter} ({yunit})")
    ax.grid(alpha=0.3)
    hi, lo = int(np.nanargmax(mean)), int(np.nanargmin(mean))
    what = "grid import" if run.import_W is not None else "facility power"
    caption = (f"Mean {what} by hour of day. Highest hourly mean {number(mean[hi] / ydiv)} {yunit} "
               f"at {hi:02d}:00, lowest {number(mean[lo] / ydiv)} {yunit} at {lo:02d}:00.")
    if longer_than_a_day:
        caption += f" The band spans the hourly means of the {days} days."
    return figure("daily-profile", "Daily profile", png(fig), caption)


def hourly_profile_figure(run):
    """A run shorter than a day: the mean of each clock hour it spans, in order."""
    energy, time = hourly_cells(run)
    hours = np.nonzero(time > 0)[0]
    first, last = int(hours[0]), int(hours[-1])
    span = np.arange(first, last + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = energy[span] / time[span]
    ydiv, yunit = scale_for(run.meter_W, "W")
    fig, ax = plt.subplots(figsize=(12, 3.6))
    ax.bar(span, np.nan_to_num(mean / ydiv), width=0.9, align="edge")
    ax.set_xlim(first, last + 1)
    step = max(1, math.ceil(len(span) / 12))
    ax.set_xticks(range(first, last + 2, step))
    ax.set_xticklabels([f"{h % 24:02d}:00" for h in range(first, last + 2, step)])
    ax.set_ylim(bottom=0)
    ax.set_xlabel(f"clock hour ({run.clock[1]})" if run.clock else "clock hour (simulated time 0 is 00:00)")
    ax.set_ylabel(f"{run.meter} ({yunit})")
    ax.grid(axis="y", alpha=0.3)
    hi, lo = int(np.nanargmax(mean)), int(np.nanargmin(mean))
    what = "grid import" if run.import_W is not None else "facility power"
    return figure("hourly-profile", "Hourly profile", png(fig),
                  f"The run is shorter than a day ({number(run.end / 3600.0)} h): mean {what} in each of the "
                  f"{len(span)} clock hour{'s' if len(span) != 1 else ''} it spans (the first and last may "
                  f"be partial). Highest "
                  f"{number(mean[hi] / ydiv)} {yunit} at {span[hi] % 24:02d}:00, lowest "
                  f"{number(mean[lo] / ydiv)} {yunit} at {span[lo] % 24:02d}:00.")


def occupancy_figure(run):
    start, end, n = run.jobs
    ran = np.isfinite(start)
    # The panel starts with the series (time 0): jobs of the warm-up that ended by then are left out, those
    # still running count from its start; unfinished ones (end NaN) still run at its end.
    t0 = run.t[0] if len(run.t) else 0.0
    ran &= ~(np.isfinite(end) & (end <= t0))
    done = ran & np.isfinite(end)
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
    ax.set_xlim(t0 / tdiv, run.end / tdiv)
    ax.set_xlabel(tlabel)
    ax.grid(alpha=0.3)
    jx = ax.twinx()
    jx.plot(t / tdiv, running, drawstyle="steps-post", color="tab:orange", lw=1, label="running jobs")
    jx.set_ylabel("running jobs", color="tab:orange")
    jx.set_ylim(bottom=0)
    jx.set_xlim(t0 / tdiv, run.end / tdiv)
    jx.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    # Below the axes: both axes' curves fill the plot.
    ax.legend(handles=ax.get_lines() + jx.get_lines(), loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3,
              frameon=False)
    of = f" of {run.gpus}" if run.gpus else ""
    started = np.isfinite(start)
    still = started & ~np.isfinite(end)
    return figure("occupancy", "Job occupancy", png(fig),
                  f"Jobs running and GPUs allocated from time 0 (from /jobs start_s, end_s, n_gpus). At most "
                  f"{int(running.max())} jobs running and {shown(gpus.max(), 1.0, '1')} GPUs allocated{of}; "
                  f"{int(started.sum())} of {len(start)} jobs started, {int(still.sum())} still "
                  "running at the end.")


def services_figure(f, run):
    """Each LLM service ([[workload.service]], /services/<name>): its GPUs' power with the replicas serving, its
    batches' occupancy with the requests waiting, and its requests' latency percentiles (of those ending in each
    interval)."""
    names = sorted(f["services"].keys())
    tdiv, tlabel = time_axis(run.end)
    rows = 3
    fig, axes = plt.subplots(rows * len(names), 1, figsize=(12, 2.8 * rows * len(names) + 0.8), sharex=True,
                             squeeze=False)
    notes = []
    for i, name in enumerate(names):
        g = f["services"][name]
        power = g["power_W"][:]
        t = np.arange(len(power)) * float(g.attrs["interval_s"])
        scale, unit = scale_for(power, "W")
        ax = axes[rows * i][0]
        plot_series(ax, t, power, f"{name}: GPU power", tdiv, scale)
        ax.set_ylabel(f"{name} GPUs, {unit}")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        rx = ax.twinx()
        rx.plot(t / tdiv, g["replicas_active"][:], color="tab:green", lw=1, label="replicas serving")
        rx.set_ylabel("replicas serving", color="tab:green")
        rx.set_ylim(bottom=0)
        ax.legend(handles=ax.get_lines() + rx.get_lines(), loc="upper left", frameon=False, fontsize=8)
        ox = axes[rows * i + 1][0]
        if "batch_occupancy" in g:
            ox.plot(t / tdiv, g["batch_occupancy"][:], color="tab:blue", lw=0.8, label="batch occupancy")
            qx = ox.twinx()
            qx.plot(t / tdiv, g["queued"][:], color="tab:orange", lw=0.8, label="requests waiting")
            qx.set_ylabel("requests waiting", color="tab:orange")
            qx.set_ylim(bottom=0)
            ox.legend(handles=ox.get_lines() + qx.get_lines(), loc="upper left", frameon=False, fontsize=8)
        ox.set_ylim(0, 1.05)
        ox.set_ylabel(f"{name} batch slots used")
        ox.grid(alpha=0.3)
        lx = axes[rows * i + 2][0]
        for key, label, colour in (("ttft_p99_s", "time to first token, p99", "tab:red"),
                                   ("tpot_p99_s", "time per output token, p99", "tab:purple")):
            lx.plot(t / tdiv, g[key][:], color=colour, lw=0.8, label=label)
        lx.set_yscale("log")
        lx.set_ylabel(f"{name} latency, s")
        lx.grid(alpha=0.3, which="both")
        lx.legend(loc="upper left", frameon=False, fontsize=8)
        served = int(g["requests_served"][()])
        energy = float(g["energy_J"][()])
        tokens = int(g["output_tokens"][()])
        per_1000 = f"{number(1000.0 * energy / tokens / 1e3)} kJ per 1,000 output tokens" if tokens else "no tokens"
        notes.append(f"{name}: {int(g.attrs['gpus'])} {text_attr(g, 'gpu')} GPUs, {served:,} requests served, "
                     f"{number(energy / 3.6e9)} MWh of GPU energy ({per_1000})")
    axes[-1][0].set_xlabel(tlabel)
    return figure("services", "LLM services", png(fig),
                  "Each service's GPUs' power with the replicas serving; the share of the serving replicas' "
                  "batch slots (max_batch each) in use, with the requests waiting to enter a batch, as interval "
                  "means; and the 99th percentiles of its requests' latencies, per interval of those ending in "
                  "it (/services). " + "; ".join(notes) + ".")


BAND = re.compile(r"band_share_(\w+?)_(\w+?)Hz$")


def band_label(name):
    lo, hi = BAND.match(name).groups()
    return f"{lo.replace('p', '.')}-{hi.replace('p', '.')} Hz"


def power_quality_figure(f, run):
    """The power-quality band shares as bars; (None, reason) when no band has a value."""
    pq = f["power_quality"]
    names = [k for k in pq if BAND.match(k)]
    shares = np.array([float(pq[k][()]) for k in names])
    meter = text_attr(pq, "meter") or "/facility/facility_power_W"
    interval = float(pq["interval_s"][()]) if "interval_s" in pq else run.interval
    if not names or not np.any(np.isfinite(shares)):
        nyquist = 0.5 / interval if interval else float("nan")
        why = (f"every band is at or above the Nyquist frequency ({number(nyquist)} Hz) of the "
               f"{number(interval)} s facility interval" if interval and nyquist <= 0.01
               else "no band has a value (no fluctuation)")
        return None, why
    fig, ax = plt.subplots(figsize=(12, 3.2))
    labels = [band_label(k) for k in names]
    ax.bar(labels, np.nan_to_num(shares * 100.0), color="tab:blue")
    ax.set_ylim(0, 100)
    ax.set_ylabel("share of fluctuation energy (%)")
    ax.set_xlabel(f"frequency band (of {meter})")
    ax.grid(axis="y", alpha=0.3)
    parts = ", ".join(f"{lab}: {number(s * 100)} %" if math.isfinite(s)
                      else f"{lab}: n/a (at or above Nyquist)" for lab, s in zip(labels, shares))
    dom = float(pq["dominant_frequency_Hz"][()]) if "dominant_frequency_Hz" in pq else float("nan")
    return figure("power-quality", "Power-quality bands", png(fig),
                  f"Share of the fluctuation energy of {meter} (0.01 Hz to Nyquist, Welch periodogram) in "
                  f"each band: {parts}. Dominant frequency {number(dom)} Hz."), None


def clock_time(t, clock):
    """A time in s after the start as a reading of the run's clock, else as h:mm:ss after the start."""
    if not math.isfinite(t):
        return number(t), ""
    if clock:
        stamp = datetime.datetime.fromtimestamp(clock[0] + t, tz=datetime.timezone.utc)
        return stamp.strftime("%Y-%m-%d %H:%M:%S"), clock[1]
    whole = int(round(t))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}", "h:mm:ss after the start"
