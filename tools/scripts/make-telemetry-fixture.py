#!/usr/bin/env python3
"""Turns what tools/scripts/record-gpu-telemetry.py wrote (nvidia-smi.csv, phases.json) into a fixture that
`fleetwatt validate DIR --telemetry` and the tests read: the nvidia-smi log copied unedited, and windows.csv,
one row per timed window with its times in seconds from the log's first sample, what ran in it, and its
mean power from NVML's energy counter.

    python3 tools/scripts/make-telemetry-fixture.py RECORDED_DIR examples/telemetry/h200-sxm/ctx1024 \\
        --gpu h200-sxm
"""
import argparse
import datetime
import json
import os
import shutil


def first_sample_unix(csv_path):
    with open(csv_path) as f:
        f.readline()
        stamp = f.readline().split(",")[0].strip()
    # nvidia-smi writes local time; the recording script noted the zone.
    return datetime.datetime.strptime(stamp, "%Y/%m/%d %H:%M:%S.%f")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recorded")
    p.add_argument("dest")
    p.add_argument("--gpu", required=True, help="fleetwatt's GPU preset id of the recorded GPU")
    p.add_argument("--serving-model", default="llama3_8b")
    p.add_argument("--training-model", default="gpt3_xl")
    p.add_argument("--trace", help="the request trace a replay served, to keep its served part as trace.csv")
    a = p.parse_args()
    phases = json.load(open(os.path.join(a.recorded, "phases.json")))
    tz = phases["meta"]["tz"]
    zone = datetime.timezone(datetime.timedelta(hours=int(tz[:3]), minutes=int(tz[0] + tz[3:])))
    t0 = first_sample_unix(os.path.join(a.recorded, "nvidia-smi.csv")).replace(tzinfo=zone).timestamp()
    os.makedirs(a.dest, exist_ok=True)
    shutil.copyfile(os.path.join(a.recorded, "nvidia-smi.csv"), os.path.join(a.dest, "nvidia-smi.csv"))
    columns = ["name", "kind", "model", "gpu", "start_s", "end_s", "batch", "context_tokens", "prompt_tokens",
               "seq", "iterations", "time_per_iteration_s", "energy_J", "mean_power_W"]
    rows = []
    replay = None
    for w in phases["windows"]:
        kind = w["kind"]
        if kind == "idle" and w["name"] != "idle-no-context":
            kind = "resident"  # a process holds the GPU (its CUDA context, its memory) but runs nothing
        model = {"decode": a.serving_model, "prefill": a.serving_model, "replay": a.serving_model,
                 "train": a.training_model, "eval": a.training_model, "save": a.training_model}.get(kind, "")
        if kind == "train":
            batch, seq = w["samples_per_step"], w["seq"]
        elif kind in ("eval", "save"):
            batch, seq = phases["meta"]["training_model"]["batch"], phases["meta"]["training_model"]["seq"]
        elif kind == "replay":
            batch, seq = w["max_batch"], 0
            replay = w
        else:
            batch, seq = w.get("batch", 1 if kind == "prefill" else 0), 0
        row = {"name": w["name"], "kind": kind, "model": model, "gpu": a.gpu,
               "start_s": f"{w['start_unix'] - t0:.3f}", "end_s": f"{w['end_unix'] - t0:.3f}",
               "batch": batch, "context_tokens": w.get("context_tokens", 0),
               "prompt_tokens": w.get("prompt_tokens", 0), "seq": seq, "iterations": w.get("iterations", 0),
               "time_per_iteration_s": f"{w.get('time_per_iteration_s', 0.0):.6g}",
               "energy_J": f"{w['nvml_energy_J']:.3f}", "mean_power_W": f"{w['nvml_mean_power_W']:.2f}"}
        rows.append(row)
    with open(os.path.join(a.dest, "windows.csv"), "w") as f:
        f.write(",".join(columns) + "\n")
        for row in rows:
            f.write(",".join(str(row[c]) for c in columns) + "\n")
    if replay is not None:
        # The requests as served (times in seconds from the replay's start) and the part of the trace served.
        shutil.copyfile(os.path.join(a.recorded, "requests.csv"), os.path.join(a.dest, "requests.csv"))
        if not a.trace:
            raise SystemExit("the recording served a trace: name it with --trace")
        with open(a.trace) as f, open(os.path.join(a.dest, "trace.csv"), "w") as out:
            out.write(f.readline())
            for line in f:
                if float(line.split(",")[0]) > replay["trace_s"]:
                    break
                out.write(line)
    print(f"wrote {a.dest}: {len(rows)} windows")


if __name__ == "__main__":
    main()
