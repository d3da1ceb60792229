#!/usr/bin/python3
"""Collects the seed corpus of every fuzz target into OUT/<target>/ (nothing is copied into the repository).

Seeds come from three places: files in the repository (shipped scenarios, model data, test inputs, the
small hand-written seeds in fuzz/seeds/<target>/), the inputs the tests write inline as C++ string literals
(adjacent literals concatenated, escapes decoded), and the public measurements in ../shared/data, cut to
their first lines so that a seed stays small (libFuzzer's -max_len bounds what it mutates anyway).

Usage: fuzz/collect_corpus.py OUT [TARGET...]
"""
import ast
import glob
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")
MAX_LINES = 60  # lines kept of a shared data file
MAX_BYTES = 16384

# target: (repository globs, test sources whose string literals are seeds, shared-data globs)
SOURCES = {
    "scenario_toml": (["examples/scenarios/*.toml"], ["tests/runs/*.cpp", "tests/tools/cli_*.cpp"], []),
    "region_toml": (["examples/region-*.toml"], ["tests/tools/cli_region_test.cpp"], []),
    "scenario_override": ([], [], []),
    "jobs_csv": ([], ["tests/jobs/jobs_csv_test.cpp"], []),
    "trace_philly": (["tests/jobs/traces/philly_sample.json"], ["tests/jobs/trace_philly_test.cpp"], []),
    "trace_pai2020": ([], [], []),  # joined below from the job and task tables
    "trace_pai2020_sim": (["tests/jobs/traces/pai_sim_sample.csv"], ["tests/jobs/trace_formats_test.cpp"], []),
    "trace_alibaba2023": ([], ["tests/jobs/trace_alibaba2023_test.cpp"], ["alibaba-gpu-v2023/openb_pod_list_*.csv"]),
    "trace_helios": (["tests/jobs/traces/helios_sample.csv"], ["tests/jobs/trace_formats_test.cpp"], []),
    "trace_swf": (["tests/jobs/traces/sample.swf"], ["tests/jobs/trace_formats_test.cpp"], []),
    "trace_fleetwatt_csv": ([], ["tests/jobs/job_table_csv_test.cpp", "tests/jobs/trace_reader_test.cpp"], []),
    "request_trace": ([], ["tests/jobs/request_trace_test.cpp", "tests/tools/cli_serve_test.cpp"],
                      ["azure-llm-inference-2023/*.csv", "mooncake-fast25/*.jsonl"]),
    "grid_signal_csv": ([], ["tests/sim/grid_signal_test.cpp"], ["grid-carbon-*/*.csv"]),
    "weather_csv": (["examples/weather/*.csv"], ["tests/sim/weather_csv_test.cpp"], []),
    "power_log": ([], ["tests/fit/telemetry_test.cpp"], ["zeus-nsdi23/profile_data/*.csv"]),
    "records_csv": ([], ["tests/fit/records_test.cpp", "tests/fit/dataset_test.cpp"],
                    ["gaissa-seaa2023/*.csv"]),
    "sr_model_toml": ([], ["tests/fit/sr_model_test.cpp"], []),
    "formula": ([], ["tests/fit/program_test.cpp"], []),
    "predictor_fit_toml": (["models/data/predictor_fit.toml"], [], []),
    "gpu_presets_toml": (["models/data/gpu_presets.toml"], ["tests/models/gpu_hardware_test.cpp"], []),
    "site_toml": (["fuzz/seeds/site_toml/*"], ["tests/tools/cli_site_test.cpp"], []),
    "splitwise_perf": ([], ["tests/models/serving_iteration_test.cpp", "tests/tools/cli_validate_test.cpp"],
                       ["splitwise-sim/perf_model.csv"]),
    "vidur_profile": ([], ["tests/models/vidur_layers_test.cpp"], ["vidur-mlsys24/compute/*/*/*/mlp.csv"]),
    "energy_leaderboard": ([], ["tests/models/energy_leaderboard_test.cpp"],
                           ["ml-energy-leaderboard-v2/data/llm_text_generation/chat/H100 80GB HBM3/meta-llama/"
                            "Meta-Llama-3.1-8B-Instruct/*.json"]),
    "telemetry_windows": (["examples/telemetry/*/*/windows.csv"], ["tests/runs/telemetry_check_test.cpp"], []),
    "graphml": ([], ["tests/topologies/graph_io_test.cpp"], []),
    "dot": ([], ["tests/topologies/graph_io_test.cpp"], []),
    # Bytes are decisions, not text: the seeds are a few hand-made decision strings (fuzz/seeds/).
    "scenario_generated": ([], [], []),
}

LITERAL = re.compile(r'R"\((.*?)\)"|((?:"(?:[^"\\\n]|\\.)*"\s*)+)', re.S)


def literals(path):
    """The string literals of a C++ source: raw strings as written, adjacent plain ones joined."""
    text = open(path, encoding="utf-8").read()
    for m in LITERAL.finditer(text):
        if m.group(1) is not None:
            yield m.group(1)
            continue
        parts = re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(2))
        try:
            yield "".join(ast.literal_eval('"' + p + '"') for p in parts)
        except (SyntaxError, ValueError):
            continue


def head(path):
    with open(path, "rb") as f:
        lines = []
        for _ in range(MAX_LINES):
            line = f.readline()
            if not line:
                break
            lines.append(line)
    return b"".join(lines)[:MAX_BYTES]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    targets = sys.argv[2:] or sorted(SOURCES)
    for target in targets:
        if target not in SOURCES:
            sys.exit(f"collect_corpus: unknown target {target}")
        seeds = []
        repo_globs, test_sources, shared_globs = SOURCES[target]
        for g in repo_globs + [f"fuzz/seeds/{target}/*"]:
            seeds += [open(p, "rb").read()[:MAX_BYTES] for p in sorted(glob.glob(os.path.join(ROOT, g)))]
        for g in test_sources:
            for p in sorted(glob.glob(os.path.join(ROOT, g))):
                # A file's worth of text: several lines, or a formula (a short line with an operator).
                for s in literals(p):
                    if s.count("\n") >= 1 or (target == "formula" and re.search(r"[-+*/(]", s)):
                        seeds.append(s.encode("utf-8")[:MAX_BYTES])
        for g in shared_globs:
            seeds += [head(p) for p in sorted(glob.glob(os.path.join(SHARED, g)))]
        if target == "trace_pai2020":
            jobs = open(os.path.join(ROOT, "tests/jobs/traces/pai_job_table.csv"), "rb").read()
            tasks = open(os.path.join(ROOT, "tests/jobs/traces/pai_task_table.csv"), "rb").read()
            seeds.append(jobs + b"\0" + tasks)
        folder = os.path.join(out, target)
        os.makedirs(folder, exist_ok=True)
        for s in seeds:
            name = hashlib.sha1(s).hexdigest()
            with open(os.path.join(folder, name), "wb") as f:
                f.write(s)
        print(f"{target}: {len(set(seeds))} seeds", file=sys.stderr)


if __name__ == "__main__":
    main()
