#!/usr/bin/env python3
"""One self-contained HTML page from a fleetwatt result file: figures (matplotlib, inline PNG), the metrics in
readable units, and the scenario text. The page depends on what the file holds:

- a run (run_page.py): power over time on the meter, batteries, PUE, a 1-s ramp zoom, load-duration curve,
  daily or hourly profile, job occupancy, power-quality bands, the /summary metrics;
- a `fleetwatt compare` file (compare_page.py): a panel per metric across the policies, their power, a table;
- a region or a sweep index (collection_pages.py): each site's power and the coincident total, or the member
  table and each summary figure across members.
Panels a file cannot fill are listed with the reason instead of drawn empty.

Called by `fleetwatt report` (tools/cmd_report.cpp), which checks the inputs first and renames the page into
place; alone: python3 fleetwatt_report.py RESULT.h5 OUT.html [SHOWN_NAME]. Exit status 0; 3 when the page
cannot be written or the result read (one line on stderr naming SHOWN_NAME, else OUT.html); 1 for a missing
package (one line) or anything unforeseen (Python's traceback).
"""
import signal

# Ctrl-C ends the module at once and quietly (fleetwatt report removes the page and says it was
# interrupted): a KeyboardInterrupt would print a traceback, and only once the C code drawing a figure
# returns.
signal.signal(signal.SIGINT, signal.SIG_DFL)

import html  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

try:
    import h5py
    import matplotlib

    matplotlib.use("Agg")  # no display: figures are drawn to PNG in memory
    import numpy as np
except ImportError as e:
    sys.exit(f"fleetwatt: error: report needs matplotlib, numpy and h5py in {sys.executable} ({e}); "
             "install python3-matplotlib python3-numpy python3-h5py (tools/install-deps.sh)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the page modules beside this script
import collection_pages  # noqa: E402
import compare_page  # noqa: E402
import run_page  # noqa: E402
from report_common import STYLE, omitted, scale_for, shown, text_attr, units_of  # noqa: E402


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
            text, unit = run_page.clock_time(value, clock)
        rows.append(f"<tr><td>{html.escape(name)}</td><td class=n>{text}</td>"
                    f"<td>{html.escape(unit)}</td><td class=n>{stored!r}</td>"
                    f"<td>{html.escape(units)}</td></tr>")
    head = "<tr><th>metric</th><th>value</th><th>unit</th><th>as stored</th><th>stored unit</th></tr>"
    return f'<table class="metrics">{head}{"".join(rows)}</table>'


def progress(step):
    """One line per step on a terminal (a year of 1 s samples takes half a minute); nothing otherwise."""
    if sys.stderr.isatty():
        print(f"  {step} ...", file=sys.stderr, flush=True)


def run_parts(f):
    """The run page's figures in order, and the panels left out with their reason."""
    progress("reading the series")
    run = run_page.Run(f)
    parts, left_out = [], []
    progress("power over time")
    parts.append(run_page.power_figure(run))
    if run.import_W is not None and run.battery_W is not None and run.soc is not None:
        progress("batteries")
        parts.append(run_page.battery_figure(run))
    if run.it_W is not None and np.any(run.it_W > 0):
        progress("PUE")
        parts.append(run_page.pue_figure(run))
    if run_page.one_second_means(run) is not None and len(run_page.one_second_means(run)[1]) > 1:
        progress("1-s ramp zoom")
        parts.append(run_page.zoom_figure(run))
    else:
        interval = "unknown" if run.interval is None else f"{run_page.number(run.interval)} s"
        left_out.append(("zoom", "Step waveform around the largest 1-s ramp",
                         f"the stored facility interval ({interval}) is longer than 1 s"))
    progress("load-duration curve")
    parts.append(run_page.load_duration_figure(run, f))
    progress("profile")
    parts.append(run_page.profile_figure(run))
    if run.jobs is not None:
        progress("job occupancy")
        parts.append(run_page.occupancy_figure(run))
    if "services" in f:
        progress("LLM services")
        parts.append(run_page.services_figure(f, run))
    if "power_quality" in f:
        progress("power quality")
        fig, why = run_page.power_quality_figure(f, run)
        if fig:
            parts.append(fig)
        else:
            left_out.append(("power-quality", "Power-quality bands", why))
    parts.append(omitted(left_out))
    if "summary" in f:
        parts.append("<h2>Grid metrics</h2>" + summary_table(f["summary"], run.clock))
    return parts


def comparison_parts(f):
    fig, left_out = compare_page.comparison_figure(f)
    parts = [fig]
    if "policies" in f:
        parts.append(compare_page.comparison_power_figure(f))
    parts.append(omitted(left_out))
    parts.append("<h2>Comparison table</h2>" + compare_page.comparison_table(f))
    return parts


def kind_of(f):
    """What the file holds: a comparison, a region, a sweep index or a run."""
    if "comparison" in f:
        return "compare"
    if "region/facility_power_W" in f:
        return "region"
    if "sweep/members" in f:
        return "sweep"
    return "run"


def page(path, f):
    name = os.path.basename(path)
    meta = ", ".join(f"{k} {text_attr(f, k)}" for k in ("fleetwatt_version", "git_commit", "created", "seed")
                     if k in f.attrs)
    kind = kind_of(f)
    parts = [f"<!DOCTYPE html><html><head><meta charset=utf-8><title>fleetwatt report: {html.escape(name)}"
             f"</title><style>{STYLE}</style></head><body data-kind=\"{kind}\">"
             f"<h1>fleetwatt report: {html.escape(name)}</h1><p>{html.escape(meta)}</p>"]
    if kind == "compare":
        parts += comparison_parts(f)
    elif kind in ("region", "sweep"):
        parts_of = collection_pages.region_parts if kind == "region" else collection_pages.sweep_parts
        drawn, left_out = parts_of(f)
        parts += drawn + [omitted(left_out)]
    else:
        parts += run_parts(f)
    parts.append("<h2>Scenario</h2><pre>" + html.escape(text_attr(f, "scenario")) + "</pre></body></html>\n")
    return "".join(parts)


SAID_WHY = 3  # the status of a failure explained in one line (tools/cmd_report.cpp adds nothing)


def fail(message):
    print(f"fleetwatt: error: report: {message}; no page was written", file=sys.stderr)
    sys.exit(SAID_WHY)


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit("usage: fleetwatt_report.py RESULT.h5 OUT.html [SHOWN_NAME]")
    shown = argv[3] if len(argv) == 4 else argv[2]
    try:
        with h5py.File(argv[1], "r") as f:
            text = page(argv[1], f)
    except OSError as e:  # h5py's errors reading a damaged file are OSError
        fail(f"cannot read {argv[1]} ({e})")
    except MemoryError:
        fail(f"{argv[1]} is too large to draw in the memory available")
    try:
        with open(argv[2], "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as e:  # a full disk, a file-size limit
        fail(f"cannot write {shown} ({e.strerror or e})")


if __name__ == "__main__":
    main(sys.argv)
