"""What every page of fleetwatt_report.py shares: readable units and numbers, the figure wrapper (inline PNG,
an id, a caption, and a comment with each axes' limits and offset text that tests read), omitted panels with
their reason, and the page's style."""
import base64
import html
import io
import json
import math
import re

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np

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

STYLE = """body{font-family:sans-serif;max-width:1140px;margin:1em auto;color:#222}
figure{margin:1.5em 0}figure img{max-width:100%}figcaption{color:#444;font-size:.9em}
h2{font-size:1.15em;margin:.2em 0}table.metrics{border-collapse:collapse;font-size:.85em}
table.metrics td,table.metrics th{border:1px solid #ccc;padding:.15em .5em}td.n{text-align:right}
pre{background:#f4f4f4;padding:.6em;overflow-x:auto;font-size:.8em}div.wide{overflow-x:auto}
ul.omitted{color:#555;font-size:.9em}"""


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
    m = re.match(r"[^\s:(;]+", units)
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


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def units_of(obj):
    return text(obj.attrs.get("units", ""))


def text_attr(f, name):
    return text(f.attrs.get(name, ""))


def steady_axes(fig):
    """No offset-noise axes: a series that is constant up to rounding (a constant carbon factor's intensity
    differs by 1e-16 between intervals) gets a y-range from 0 to twice its value instead of one that
    magnifies the rounding, and no axis shows an offset ("1e-13+4e-1")."""
    for ax in fig.axes:
        lo, hi = (float(v) for v in ax.dataLim.intervaly)
        big = max(abs(lo), abs(hi))
        if math.isfinite(big) and big > 0 and hi - lo <= 1e-6 * big:
            mid = (lo + hi) / 2
            ax.set_ylim(*sorted((0.0, 2 * mid)))
        for axis in (ax.xaxis, ax.yaxis):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, matplotlib.ticker.ScalarFormatter):
                formatter.set_useOffset(False)


def axes_facts(fig):
    """For each axes once drawn: its limits, labels and the offset text matplotlib put beside its axes."""
    fig.canvas.draw()
    return [{"xlim": [float(v) for v in ax.get_xlim()], "ylim": [float(v) for v in ax.get_ylim()],
             "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
             "xoffset": ax.xaxis.get_offset_text().get_text(),
             "yoffset": ax.yaxis.get_offset_text().get_text()} for ax in fig.axes if ax.get_visible()]


def png(fig):
    """The figure as an <img> with its PNG inline (a data: URI, so the page needs no network), and the facts
    of its axes."""
    steady_axes(fig)
    facts = axes_facts(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    img = '<img alt="" src="data:image/png;base64,' + base64.b64encode(buf.getvalue()).decode() + '">'
    return img, facts


def figure(fid, title, drawn, caption):
    """A figure with its id, its title, the image and its caption, preceded by a comment holding the axes'
    facts as JSON (for tests: limits, labels, offset texts)."""
    img, facts = drawn
    meta = json.dumps({"id": fid, "axes": facts}).replace("--", "- -")
    return (f'<!-- fleetwatt-figure {meta} --><figure id="{fid}"><h2>{html.escape(title)}</h2>{img}'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def omitted(items):
    """Panels left out, one line each with its reason: [(id, title, reason)]."""
    if not items:
        return ""
    lines = "".join(f'<li id="omitted-{fid}">{html.escape(title)}: omitted ({html.escape(why)})</li>'
                    for fid, title, why in items)
    return f'<h2>Panels not drawn</h2><ul class="omitted">{lines}</ul>'


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


def plot_series(ax, t, y, label, tdiv, ydiv, **style):
    tt, yy, band = envelope(t, y)
    (line,) = ax.plot(tt / tdiv, yy / ydiv, label=label, drawstyle="steps-post", lw=1, **style)
    if band is not None:
        ax.fill_between(tt / tdiv, band[0] / ydiv, band[1] / ydiv, step="post", alpha=0.25,
                        color=line.get_color(), lw=0)
    return line


def bar_panels(labels, columns, what):
    """One bar panel per (name, values, units) column across `labels`; a column that is NaN or 0 for every
    label is left out with its reason. Returns (the drawn figure or None, [(name, reason)])."""
    drawn, left_out = [], []
    for name, values, units in columns:
        values = np.asarray(values, dtype=float)
        if not np.any(np.isfinite(values)):
            left_out.append((name, f"no value (NaN) for any {what}"))
        elif np.all(values[np.isfinite(values)] == 0):
            left_out.append((name, f"0 for every {what}"))
        else:
            drawn.append((name, values, units))
    if not drawn:
        return None, left_out
    cols = 3
    rows = math.ceil(len(drawn) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(12, 2.6 * rows), squeeze=False)
    for ax, (name, values, units) in zip(axes.flat, drawn):
        size, unit = scale_for(values, units)
        ax.bar(labels, np.nan_to_num(values / size), color=plt.cm.tab10(np.arange(len(labels)) % 10))
        ax.set_title(f"{name} ({unit})", fontsize=10)
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes.flat[len(drawn):]:
        ax.set_visible(False)
    fig.tight_layout()
    return png(fig), left_out
