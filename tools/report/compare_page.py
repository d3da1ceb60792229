"""The figures of a `fleetwatt compare` file's page (fleetwatt_report.py): a bar panel per /comparison metric
that has a value (the others listed with the reason), each policy's facility power, and the table."""
import html
import re

import matplotlib.pyplot as plt
import numpy as np

from report_common import (bar_panels, figure, number, plot_series, png, scale_for, shown, text, time_axis,
                           units_of)


def policies_of(f):
    return [text(p) for p in f["comparison/policy"][:]]


def stated_nan(group, name):
    """The "NaN: ..." text of a policy's figure `name` in /power_quality or /summary, following a reference
    to another figure's text ("as the share", "as ramp up"); None when not said."""
    stem = re.sub(r"_W2?$", lambda m: "_M" + m.group(0)[1:], name)
    for path in (f"power_quality/{stem}", f"power_quality/{name}", f"summary/{name}"):
        if path in group:
            m = re.search(r"NaN: ([^)]*)", units_of(group[path]))
            if not m:
                return None
            said = m.group(1)
            if said == "as the share":
                return stated_nan(group, re.sub(r"band_energy_(.*)_MW2$", r"band_share_\1", stem))
            if said == "as ramp up":
                return stated_nan(group, stem.replace("ramp_down", "ramp_up"))
            if said == "none":
                return "no periodogram value between 0.01 Hz and Nyquist"
            return said
    return None


def nan_reason(f, name):
    """Why a /comparison metric is NaN for every policy, from the units text of the same figure in the first
    policy's group, with the facility interval and its Nyquist frequency; None when not said."""
    if "policies" not in f or not len(f["policies"]):
        return None
    group = next(iter(f["policies"].values()))
    said = stated_nan(group, name)
    if said is None:
        return None
    interval = group["facility"].attrs.get("interval_s") if "facility" in group else None
    at = f"; facility interval {number(float(interval))} s" if interval else ""
    if interval and ("band_" in name or "frequency" in name):
        at += f", Nyquist {number(0.5 / float(interval))} Hz"
    return f"NaN for every policy: {said}{at}"


def comparison_figure(f):
    table = f["comparison"]
    policies = policies_of(f)
    columns = [(k, table[k][:].astype(float), units_of(table[k])) for k in table if k != "policy"]
    drawn, left_out = bar_panels(policies, columns, "policy")
    left_out = [(name, nan_reason(f, name) or why if why.startswith("no value") else why)
                for name, why in left_out]
    omitted = [(f"metric-{name}", name, why) for name, why in left_out]
    if drawn is None:
        return "", omitted
    return figure("policies", "Policies compared", drawn,
                  f"One panel per metric of /comparison across the {len(policies)} policies "
                  f"({', '.join(policies)}); {len(columns) - len(left_out)} of {len(columns)} metrics drawn, "
                  "the others listed below with the reason."), omitted


def comparison_power_figure(f):
    # Compare files name their series as run files do (time_s, facility_power_W); files written before
    # that used t_s and facility_W. With batteries each policy keeps grid_import_W, what the utility's
    # meter reads: the panel draws that, as a run's power panel does.
    def series(fac):
        t = fac["time_s"] if "time_s" in fac else fac["t_s"]
        if "grid_import_W" in fac:
            return t[:], fac["grid_import_W"][:]
        w = fac["facility_power_W"] if "facility_power_W" in fac else fac["facility_W"]
        return t[:], w[:]
    facilities = [(name, g["facility"]) for name, g in f["policies"].items() if "facility" in g]
    on_import = any("grid_import_W" in fac for _, fac in facilities)
    what = "grid import (the meter, after the batteries)" if on_import else "facility power"
    groups = [(name, series(fac)) for name, fac in facilities]
    end = max((float(t[-1]) for _, (t, _w) in groups if len(t)), default=0.0)
    tdiv, tlabel = time_axis(end)
    ydiv, yunit = scale_for([float(np.max(w, initial=0.0)) for _, (_t, w) in groups], "W")
    fig, ax = plt.subplots(figsize=(12, 4))
    for name, (t, w) in groups:
        plot_series(ax, t, w, name, tdiv, ydiv)
    ax.set_xlabel(tlabel)
    ax.set_ylabel(f"{'grid import' if on_import else 'facility power'} ({yunit})")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    peaks = ", ".join(f"{name} {number(np.max(w, initial=0.0) / ydiv)} {yunit}" for name, (_t, w) in groups)
    title = "Grid import by policy" if on_import else "Facility power by policy"
    return figure("policy-power", title, png(fig),
                  f"{what[0].upper() + what[1:]} over time under each policy. Peak interval means: {peaks}.")


def comparison_table(f):
    table = f["comparison"]
    policies = policies_of(f)
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
