"""The pages of files that gather several runs (fleetwatt_report.py): a region (`fleetwatt run` on a region
file: each site's facility power and their coincident total on a common UTC base) and a sweep index
(`fleetwatt sweep -o`: one row per member with its grid values and summary figures)."""
import datetime
import html

import matplotlib.pyplot as plt
import numpy as np

from report_common import bar_panels, figure, number, png, scale_for, shown, text, time_axis, units_of

# Columns of a member table that say how a member ran, not what it gave: not drawn across members.
BOOKKEEPING = {"member", "seed", "rank", "wall_s"}


def field_units(ds):
    """{field: units} of a table whose units attribute reads "name: unit; name: unit"."""
    out = {}
    for part in units_of(ds).split("; "):
        name, _, unit = part.partition(": ")
        out[name.strip()] = unit.strip()
    return out


def grid_values(overrides):
    """The KEY=VALUE overrides of a member or site, as a dict (separated by "; ")."""
    out = {}
    for part in overrides.split(";"):
        key, sep, value = part.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def member_table(ds, grid_keys):
    """Every row of a member table: the grid values as columns of their own, then each field in readable
    units (text fields as they are)."""
    rows = ds[:]
    units = field_units(ds)
    fields = [n for n in ds.dtype.names if n != "overrides"]
    numeric = [n for n in fields if ds.dtype[n].kind in "iuf"]
    scales = {n: scale_for(rows[n].astype(float), units.get(n, "")) for n in numeric}
    head = "".join(f"<th>{html.escape(k)}</th>" for k in grid_keys)
    head += "".join(f"<th>{html.escape(n)}" + (f"<br>({html.escape(scales[n][1])})" if n in scales and
                                               scales[n][1] else "") + "</th>" for n in fields)
    body = ""
    for row in rows:
        grid = grid_values(text(row["overrides"])) if "overrides" in ds.dtype.names else {}
        cells = "".join(f"<td>{html.escape(grid.get(k, ''))}</td>" for k in grid_keys)
        for n in fields:
            cells += (f"<td class=n>{shown(float(row[n]), *scales[n])}</td>" if n in scales
                      else f"<td>{html.escape(text(row[n]))}</td>")
        body += f"<tr>{cells}</tr>"
    return f'<div class="wide"><table class="metrics members"><tr>{head}</tr>{body}</table></div>'


def across_members(ds, labels, what, fid, title):
    """A bar panel per summary figure of a member table across its rows; the figures with no value listed."""
    rows = ds[:]
    units = field_units(ds)
    columns = [(n, rows[n].astype(float), units.get(n, "")) for n in ds.dtype.names
               if ds.dtype[n].kind in "iuf" and n not in BOOKKEEPING]
    drawn, left_out = bar_panels(labels, columns, what)
    omitted = [(f"{fid}-{name}", f"{title}: {name}", why) for name, why in left_out]
    if drawn is None:
        return "", omitted
    return figure(fid, title, drawn,
                  f"Each summary figure of the {len(labels)} {what}s ({', '.join(labels)}); "
                  f"{len(columns) - len(left_out)} of {len(columns)} figures drawn."), omitted


def utc(unix_s):
    return datetime.datetime.fromtimestamp(unix_s, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def region_power_figure(f):
    reg = f["region"]
    t = reg["time_s"][:]
    total = reg["facility_power_W"][:]
    per_site = reg["site_facility_power_W"][:]
    names = [text(n) for n in reg["sites"]["name"]]
    interval = float(reg["summary/interval_s"][()]) if "summary/interval_s" in reg else (
        t[1] - t[0] if len(t) > 1 else 1.0)
    end = t[-1] + interval if len(t) else 0.0
    tdiv, tlabel = time_axis(end)
    ydiv, yunit = scale_for(total, "W")
    fig, ax = plt.subplots(figsize=(12, 4.2))
    tt = np.append(t, end) / tdiv
    ax.plot(tt, np.append(total, total[-1]) / ydiv, drawstyle="steps-post", lw=2, color="black",
            label="region (coincident total)")
    for i, name in enumerate(names):
        ax.plot(tt, np.append(per_site[:, i], per_site[-1, i]) / ydiv, drawstyle="steps-post", lw=1,
                label=f"site {name}")
    s = reg["summary"] if "summary" in reg else {}
    peak = float(s["coincident_peak_W"][()]) if "coincident_peak_W" in s else float(total.max())
    at = (float(s["coincident_peak_time_s"][()]) if "coincident_peak_time_s" in s
          else float(t[np.argmax(total)]))
    ax.plot([at / tdiv], [peak / ydiv], "o", color="tab:red", label="coincident peak")
    ax.set_ylim(bottom=0)
    start = float(s["start_unix_s"][()]) if "start_unix_s" in s else None
    when = ""
    if start is not None:
        ax.set_xlabel(f"{tlabel} after {utc(start)}")
        when = f" at {utc(start + at)}"
    else:
        ax.set_xlabel(tlabel)
    ax.set_ylabel(f"facility power ({yunit})")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    caption = (f"Each site's facility power and their sum on the region's common {number(interval / 60)} min "
               f"base (UTC). Coincident peak {number(peak / ydiv)} {yunit}{when}")
    if "sum_of_site_peaks_W" in s and "coincidence_factor" in s:
        own = float(s["sum_of_site_peaks_W"][()]) / ydiv
        caption += (f"; sum of the sites' own peaks {number(own)} {yunit}, "
                    f"coincidence factor {number(float(s['coincidence_factor'][()]))}")
    return figure("region-power", "Region: facility power by site", png(fig), caption + ".")


def region_summary(f):
    """Every dataset of /region/summary: scalars as one value, per-site ones with each site's value."""
    reg = f["region"]
    names = [text(n) for n in reg["sites"]["name"]]
    rows = ""
    for key, ds in reg["summary"].items():
        values = np.atleast_1d(ds[()]).astype(float)
        if key == "start_unix_s":
            rows += (f"<tr><td>{key}</td><td class=n>{utc(values[0])}</td><td>UTC</td>"
                     f"<td>{html.escape(units_of(ds))}</td></tr>")
            continue
        size, unit = scale_for(values, units_of(ds))
        shown_values = ", ".join((f"{names[i]} " if len(values) == len(names) and ds.shape else "")
                                 + shown(float(v), size, unit) for i, v in enumerate(values))
        rows += (f"<tr><td>{html.escape(key)}</td><td class=n>{html.escape(shown_values)}</td>"
                 f"<td>{html.escape(unit)}</td><td>{html.escape(units_of(ds))}</td></tr>")
    head = "<tr><th>metric</th><th>value</th><th>unit</th><th>stored unit</th></tr>"
    return f'<table class="metrics">{head}{rows}</table>'


def region_parts(f):
    parts = [region_power_figure(f)]
    sites = f["region/sites"]
    labels = [text(n) for n in sites["name"]]
    fig, omitted = across_members(sites, labels, "site", "sites", "Sites compared")
    parts.append(fig)
    parts.append("<h2>Region summary</h2>" + region_summary(f))
    parts.append("<h2>Sites</h2>" + member_table(sites, []))
    return parts, omitted


def member_labels(rows, overrides):
    """A member's grid values as its label ("nodes=2 seed=1"; the last part of each key), with its seed when
    the members' seeds differ; its name when it has neither."""
    names = rows.dtype.names
    seeds = rows["seed"] if "seed" in names else []
    vary = len(set(int(s) for s in seeds)) > 1
    labels = []
    for i, row in enumerate(rows):
        parts = [f"{k.split('.')[-1]}={v}" for k, v in (overrides[i].items() if overrides else [])]
        if vary:
            parts.append(f"seed={int(seeds[i])}")
        if "band" in names and text(row["band"]):
            parts.append(text(row["band"]))
        labels.append(" ".join(parts) or (text(row["name"]) if "name" in names else str(i)))
    return labels


def sweep_parts(f):
    members = f["sweep/members"]
    rows = members[:]
    overrides = ([grid_values(text(o)) for o in rows["overrides"]] if "overrides" in members.dtype.names
                 else [])
    grid_keys = list(dict.fromkeys(k for o in overrides for k in o))
    labels = member_labels(rows, overrides)
    fig, omitted = across_members(members, labels, "member", "members", "Summary figures across members")
    status = [text(s) for s in rows["status"]] if "status" in members.dtype.names else []
    done = sum(1 for s in status if s == "done")
    spec = text(f.attrs.get("sweep", ""))
    intro = (f"<p>A sweep of {len(rows)} members ({done} done) over {html.escape(spec) or 'its grid'}; each "
             "member's own result file (column file) has a run page of its own (fleetwatt report FILE).</p>")
    return [intro, fig, "<h2>Members</h2>" + member_table(members, grid_keys)], omitted
