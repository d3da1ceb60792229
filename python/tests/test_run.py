# fleetwatt.load_scenario, run, open, Result, predict and compare against the fleetwatt command and against
# figures worked out by hand.
import math
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

import fleetwatt


def same(a: dict, b: dict) -> bool:
    """Dicts equal value for value, NaN equal to NaN (summaries hold NaN for figures a run lacks)."""
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k])) for k in a)


def test_two_jobs_by_hand(two_jobs):
    # FIFO on 2 servers x 1 GPU (base 100 W each, GPU idle 50 W, PUE 1.5). Job 1 (1 GPU, 2 epochs of 300 W
    # x 10 s then 100 W x 10 s) runs 0-40 on GPU 0; job 2 (2 GPUs, 200 W x 20 s then 100 W x 10 s) arrives
    # at 5 but needs both GPUs, so it runs 40-70. IT power: 0-10 550 W, 10-20 350, 20-30 550, 30-40 350,
    # 40-60 200+2x200 = 600, 60-70 400, 70-100 300 -> IT energy 5500+3500+5500+3500+12000+4000+9000 =
    # 43000 J; facility 1.5 x 43000 = 64500 J. GPU energy: 3500+1500+3500+1500+8000+2000+3000 = 23000 J.
    r = fleetwatt.run(fleetwatt.load_scenario(two_jobs))
    s = r.summary
    assert s["it_energy_J"] == pytest.approx(43000, rel=1e-12)
    assert s["facility_energy_J"] == pytest.approx(64500, rel=1e-12)
    assert s["gpu_energy_J"] == pytest.approx(23000, rel=1e-12)
    assert isinstance(s["jobs_finished"], int) and s["jobs_finished"] == 2
    f = r.facility
    assert f.index.name == "time_s" and len(f) == 100
    assert f.loc[45.0, "it_power_W"] == pytest.approx(600)
    assert f.loc[45.0, "facility_power_W"] == pytest.approx(900)
    assert f["facility_power_W"].sum() * 1.0 == pytest.approx(64500, rel=1e-12)
    j = r.jobs.set_index("id")
    assert list(j.index) == [1, 2]
    assert j.loc[1, "start_s"] == 0 and j.loc[1, "end_s"] == 40
    assert j.loc[2, "start_s"] == 40 and j.loc[2, "end_s"] == 70
    assert j.loc[1, "energy_J"] == pytest.approx(300 * 20 + 100 * 20)
    assert j.loc[2, "energy_J"] == pytest.approx(2 * (200 * 20 + 100 * 10))
    assert all(isinstance(v, str) for v in r.jobs["state"]) and set(r.jobs["state"]) == {"finished"}
    # Nodes: 10 s means; node 1 (GPU 1) over 40-50 draws 100 + 200 W.
    assert r.nodes.shape == (2, 10)
    assert r.nodes[1, 4] == pytest.approx(300)
    assert r.node_times[4] == 40


def test_default_day_matches_the_command(day_cli, root):
    cli_path, cli_text = day_cli
    cli = fleetwatt.open(cli_path)
    r = fleetwatt.run(fleetwatt.load_scenario(root / "examples/scenarios/day-fleet.toml"))
    assert r.summary["facility_energy_J"] == cli.summary["facility_energy_J"]
    assert same(r.summary, cli.summary) and len(r.summary) > 40
    pd.testing.assert_frame_equal(r.jobs, cli.jobs)
    pd.testing.assert_frame_equal(r.facility, cli.facility)
    assert np.array_equal(r.nodes, cli.nodes) and r.nodes.shape == (1000, 8640)
    # The printed summary is the command's (its wall time aside).
    assert r.text.splitlines()[1:] == cli_text.splitlines()[1:-1]
    # Facility energy is the sum of the 1 s interval means (each 1 s long).
    assert r.facility["facility_power_W"].sum() == pytest.approx(r.summary["facility_energy_J"], rel=1e-9)
    # String columns are str, as the issue asks.
    for col in ("class", "nodes", "state"):
        assert r.jobs[col].dtype == object and all(isinstance(v, str) for v in r.jobs[col])
    assert "[workload" in cli.attrs["scenario"] and cli.attrs["seed"] == 20261122


def test_done_when_one_liner(day_cli, root):
    # The line, from the repository root with the documented PYTHONPATH (ctest sets it).
    line = ("import fleetwatt; r = fleetwatt.run(fleetwatt.load_scenario('examples/scenarios/day-fleet.toml'));"
            " print(r.jobs.shape, r.summary['facility_energy_J'])")
    p = subprocess.run([sys.executable, "-c", line], cwd=root, capture_output=True, text=True, check=True)
    cli = fleetwatt.open(day_cli[0])
    assert p.stdout.strip() == f"{cli.jobs.shape} {cli.summary['facility_energy_J']}"


def test_to_hdf5_and_open(two_jobs, tmp_path):
    r = fleetwatt.run(two_jobs, seed=5)
    out = r.to_hdf5(tmp_path / "copy.h5")
    back = fleetwatt.open(out)
    assert same(back.summary, r.summary) and back.attrs["seed"] == 5
    pd.testing.assert_frame_equal(back.jobs, r.jobs)
    assert os.listdir(tmp_path) == ["copy.h5"]
    kept = fleetwatt.run(two_jobs, output=tmp_path / "kept.h5")
    assert kept.path == str(tmp_path / "kept.h5") and os.path.isfile(kept.path)
    with pytest.raises(fleetwatt.ConfigError):
        fleetwatt.open(tmp_path / "missing.h5")


def _line_of(path, text):
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith(text):
                return n
    raise AssertionError(text)


def test_overrides(two_jobs):
    s = fleetwatt.load_scenario(two_jobs, **{"fleet.nodes": 3, "facility.pue": 2.0})
    r = fleetwatt.run(s)
    # 3 servers now: job 2 starts at 5 on GPUs 1 and 2. IT: 3 x 100 base; 0-5 300+50+50 = 400 + 300 ...
    # simpler: the facility/IT ratio is the overridden PUE, and the node table has 3 rows.
    assert r.nodes.shape[0] == 3
    assert r.summary["facility_energy_J"] == pytest.approx(2.0 * r.summary["it_energy_J"], rel=1e-12)
    assert r.jobs.set_index("id").loc[2, "start_s"] == 5
    # The file's text, then the overrides as a comment naming where they came from.
    assert "# Overrides given to load_scenario" in r.attrs["scenario"] and "fleet.nodes=3" in r.attrs["scenario"]
    # The overridden document reproduces the run when written out and loaded again.
    assert fleetwatt.load_scenario(two_jobs, {"scheduler.policy": "sjf"}).scheduler == "sjf"


def test_bad_override_key(two_jobs):
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.load_scenario(two_jobs, **{"fleet.nodez": 3})
    err = e.value
    # The error names the assignment, as made by load_scenario (not the command line's --set), and the key.
    assert err.key == "fleet.nodez" and err.file == "load_scenario fleet.nodez=3"
    assert "unknown key" in str(err) and "--set" not in str(err)
    # A key the file has, with a bad value: named by the assignment too.
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.load_scenario(two_jobs, **{"fleet.nodes": "many"})
    assert e.value.key == "fleet.nodes" and "fleet.nodes=" in str(e.value)
    assert "expected an integer" in str(e.value)


def test_bad_key_in_the_file(two_jobs, tmp_path):
    bad = tmp_path / "bad.toml"
    text = open(two_jobs).read().replace("gpus_per_node = 1", "gpus_per_node = 1\ngpuz = 3")
    bad.write_text(text)
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.load_scenario(bad)
    assert e.value.key == "fleet.gpuz" and e.value.file == str(bad)
    assert e.value.line == _line_of(bad, "gpuz") and e.value.column == 1


def test_predict_is_the_commands_json(binary):
    import json

    args = dict(model="resnet50", gpu="a800", gpus=8, batch=256, samples=100000, epochs=3)
    p = subprocess.run([binary, "predict", "--json", "--model", "resnet50", "--gpu", "a800", "--gpus", "8",
                        "--batch", "256", "--samples", "100000", "--epochs", "3"], capture_output=True, text=True, check=True)
    assert fleetwatt.predict(**args) == json.loads(p.stdout)
    with pytest.raises(fleetwatt.ConfigError):
        fleetwatt.predict(model="resnet50", gpu="no-such-gpu", batch=256, samples=1000)


def test_predict_with_a_site_is_the_commands_json(binary, tmp_path):
    import json

    site = tmp_path / "lab.toml"
    site.write_text('name = "lab"\n[[run]]\ngpu_type = "a40"\nmodel = "resnet50"\nbatch_size = 64\n'
                    'data_size = 50000\nepoch_s = 150.0\npower_w = 250.0\n')
    p = subprocess.run([binary, "predict", "--json", "--model", "resnet50", "--gpu", "a40", "--batch", "64",
                        "--samples", "50000", "--site", str(site)], capture_output=True, text=True, check=True)
    got = fleetwatt.predict(model="resnet50", gpu="a40", batch=64, samples=50000, site=site)
    assert got == json.loads(p.stdout)
    assert got["site_runs"] == 1 and got["site_time_factor"] < 1.0


def test_predict_llm_job_and_scenario_job_are_the_commands_json(binary, root):
    import json

    # A 3D-parallel LLM job (the step breakdown and memory keys) and a job of a scenario file.
    flags = ["--model", "llama3_70b", "--gpu", "h100-sxm", "--gpus", "1024", "--tp", "8", "--pp", "4",
             "--vp", "2", "--last-stage-layers", "17", "--zero", "1", "--micro-batch", "1", "--recompute",
             "selective", "--precision", "bf16", "--stack", "optimized", "--seq", "2048", "--batch", "1024",
             "--samples", "1024000"]
    p = subprocess.run([binary, "predict", "--json", *flags], capture_output=True, text=True, check=True)
    got = fleetwatt.predict(model="llama3_70b", gpu="h100-sxm", gpus=1024, tp=8, pp=4, vp=2, last_stage_layers=17,
                            zero=1, micro_batch=1, recompute="selective", precision="bf16", stack="optimized",
                            seq=2048, batch=1024, samples=1024000)
    assert got == json.loads(p.stdout)
    assert got["tp"] == 8 and got["dp"] == 32 and got["step_s"] > 0
    assert got["vp"] == 2 and got["last_stage_layers"] == 17 and got["first_stage_layers"] == 0
    scenario = root / "examples/scenarios/llm-campus.toml"
    p = subprocess.run([binary, "predict", "--json", "--scenario", str(scenario), "--job", "1"],
                       capture_output=True, text=True, check=True)
    assert fleetwatt.predict(scenario=scenario, job=1) == json.loads(p.stdout)


def test_predict_context_parallel_sharded_shape_keywords_are_the_commands_json(binary):
    import json

    # Llama 3 70B by its shape, context-parallel with hybrid-sharded ZeRO-3, an asynchronous checkpoint,
    # the other rank order and tensor-parallel overlap off: every new keyword against its flag.
    shape = dict(layers=80, hidden=8192, heads=64, kv_heads=8, ffn_hidden=28672, vocab=128256)
    shape_flag = ",".join(f"{k}={v}" for k, v in shape.items())
    flags = ["--model", "shape70b", "--model-shape", shape_flag, "--gpu", "h100-sxm", "--gpus", "128", "--tp", "8",
             "--cp", "2", "--zero", "3", "--fsdp-shard-size", "4", "--attention", "flash2", "--checkpoint",
             "async", "--rank-order", "tp-cp-pp-dp", "--tp-comm-overlap", "false", "--precision", "bf16",
             "--stack", "optimized", "--seq", "16384", "--batch", "64", "--samples", "640", "--micro-batch", "1"]
    p = subprocess.run([binary, "predict", "--json", *flags], capture_output=True, text=True, check=True)
    want = json.loads(p.stdout)
    kw = dict(gpu="h100-sxm", gpus=128, tp=8, cp=2, zero=3, fsdp_shard_size=4, attention="flash2",
              checkpoint="async", rank_order="tp-cp-pp-dp", tp_comm_overlap=False, precision="bf16",
              stack="optimized", seq=16384, batch=64, samples=640, micro_batch=1)
    assert fleetwatt.predict(model="shape70b", model_shape=shape_flag, **kw) == want
    assert fleetwatt.predict(model="shape70b", model_shape=shape, **kw) == want
    assert want["cp"] == 2 and want["dp"] == 8 and want["fsdp_shard_size"] == 4
    assert want["attention"] == "flash2" and want["checkpoint"] == "async" and want["rank_order"] == "tp-cp-pp-dp"
    # 128 GPUs over tp 8 x cp 2 leave 8 replicas; the 70.55e9 parameters' 12 bytes each are written by all.
    assert want["checkpoint_writers"] == 128
    assert want["checkpoint_bytes"] == pytest.approx(12 * want["params"])
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="shape70b", model_shape=dict(shape, heads=60), **kw)
    assert e.value.key == "model_shape" and "60 heads do not divide hidden 8192" in e.value.message
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="shape70b", model_shape=shape, **dict(kw, cp=3, gpus=96))
    assert e.value.key == "cp" and "does not divide the 16384-token sequence" in e.value.message
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="shape70b", model_shape=shape, **dict(kw, fsdp_shard_size=3))
    assert e.value.key == "fsdp_shard_size"
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="shape70b", model_shape=shape, **dict(kw, attention="sparse"))
    assert e.value.key == "attention"


def test_predict_refuses_too_large_a_size_with_its_limit():
    # samples=1e308 was reported as "is not a positive number".
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="resnet50", batch=256, samples=1e308)
    assert e.value.key == "samples" and e.value.message == "1e+308 is too large (at most 1e+15)"
    # 2^63 passed the int64 range check (int64's largest value is 2^63 as a double) and was cast.
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="resnet50", batch=256, samples=1000, job=2**63)
    assert e.value.key == "job" and "expects a whole number from" in e.value.message


def test_predict_errors_name_the_keyword():
    # The command line says --micro-batch; predict() names its keyword, and where the request came from.
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="resnet50", batch=256, samples=1000, batchsize=3)
    assert e.value.key == "batchsize" and e.value.file == "predict()" and "unknown keyword" in e.value.message
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="llama3_70b", gpus=8, tp=3, seq=2048, batch=8, samples=8)
    assert e.value.key == "tp" and "gpus 8 is not a multiple of tp x cp x pp = 3 x 1 x 1" in e.value.message
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="resnet50", batch=256)
    assert e.value.key == "samples" and "or give scenario" in e.value.message
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="resnet50", batch=256, samples=1000, gpus=-1)
    assert e.value.key == "gpus"
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="resnet50", batch=256, samples=1000, micro_batch=3, gpus=2)
    assert e.value.key == "micro_batch"
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="llama3_70b", gpus=16, tp=8, vp=2, seq=2048, batch=16, samples=16)
    assert e.value.key == "vp" and "needs pp of at least 2" in e.value.message
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.predict(model="llama3_70b", gpus=16, tp=8, last_stage_layers=3, seq=2048, batch=16, samples=16)
    assert e.value.key == "last_stage_layers" and "needs pp of at least 2" in e.value.message


def test_compare_is_the_commands_table(binary, root, tmp_path):
    scenario = root / "examples/scenarios/pai-preset-policies.toml"
    df = fleetwatt.compare(scenario, policies=["fifo", "sjf"])
    assert list(df.index) == ["fifo", "sjf"]
    csv = tmp_path / "cmp.csv"
    subprocess.run([binary, "compare", str(scenario), "--policies", "fifo,sjf", "--csv", str(csv), "-q"],
                   check=True)
    cli = pd.read_csv(csv).set_index("policy")
    wall = [c for c in cli.columns if c.startswith("wall")]
    pd.testing.assert_frame_equal(df.drop(columns=wall), cli.drop(columns=wall))
    with pytest.raises(fleetwatt.ConfigError):
        fleetwatt.compare(scenario, policies=["nope"])


def test_gil_is_released_while_the_engine_runs(root):
    # Another Python thread keeps running while the engine simulates the default day.
    ticks = 0
    done = threading.Event()

    def simulate():
        fleetwatt.run(root / "examples/scenarios/day-fleet.toml")
        done.set()

    t = threading.Thread(target=simulate)
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    assert ticks > 100  # a second or more of simulation at 1 ms per tick; with the GIL held: about none


def test_ctrl_c_stops_a_run_cleanly(root, tmp_path):
    out = tmp_path / "day.h5"
    # Ten days of the default fleet: seconds of simulation, so the signal at 0.5 s always falls inside the
    # run (the one default day once ended before it on a fast build, and the interrupt hit the test).
    scenario = fleetwatt.load_scenario(root / "examples/scenarios/day-fleet.toml",
                                       **{"workload.horizon_s": 864000})
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    # fleetwatt.InterruptedError, a KeyboardInterrupt: `except KeyboardInterrupt` still catches it.
    with pytest.raises(fleetwatt.InterruptedError, match="no result file was written") as caught:
        fleetwatt.run(scenario, output=out)
    assert isinstance(caught.value, KeyboardInterrupt)
    timer.cancel()
    assert time.monotonic() - started < 20
    assert os.listdir(tmp_path) == []  # no result file, no temporary file


def test_scenario_warnings_are_python_warnings(two_jobs):
    # A PUE above 3 is allowed with a warning (docs/cli.md, "Bad input"); the command line prints it on stderr.
    with pytest.warns(fleetwatt.FleetwattWarning, match="pue"):
        s = fleetwatt.load_scenario(two_jobs, **{"facility.pue": 3.5})
    assert s.take_warnings() == []  # each warning once


def test_serve_is_the_commands_json_with_its_requests_and_power(binary, tmp_path):
    import json

    trace = tmp_path / "requests.csv"
    trace.write_text("time_s,input_tokens,output_tokens\n" +
                     "".join(f"{0.5 * i},{200 + 50 * i},{20 + 5 * i}\n" for i in range(30)))
    series = tmp_path / "power.csv"
    p = subprocess.run([binary, "serve", str(trace), "--model", "llama3_8b", "--gpu", "h100-sxm", "--replicas", "2",
                        "--max-batch", "8", "--json", "--series", str(series)],
                       capture_output=True, text=True, check=True)
    got = fleetwatt.serve(trace, model="llama3_8b", gpu="h100-sxm", replicas=2, max_batch=8)
    assert got.summary == json.loads(p.stdout)
    assert len(got.requests) == 30
    assert list(got.requests.columns) == ["record", "replica", "arrival_s", "input_tokens", "output_tokens",
                                          "first_token_s", "end_s"]
    assert (got.requests.end_s >= got.requests.first_token_s).all()
    assert (got.requests.first_token_s > got.requests.arrival_s).all()
    # The power series equals the command's file, and its energy the summary's.
    import pandas as pd

    cmd = pd.read_csv(series, float_precision="round_trip")
    assert cmd.power_W.tolist() == got.power.power_W.tolist()
    widths = (got.summary["end_s"] - got.power.time_s).clip(upper=1.0)
    assert abs((got.power.power_W * widths).sum() / got.summary["energy_J"] - 1) < 1e-9
    with pytest.raises(fleetwatt.ConfigError, match="max_batch"):
        fleetwatt.serve(trace, model="llama3_8b", max_batch=0)
    # Pipeline stages by keyword, as the command's --pp: two stages of one GPU, the same GPUs as two replicas.
    staged = fleetwatt.serve(trace, model="llama3_8b", gpu="h100-sxm", pp=2, max_batch=8)
    p2 = subprocess.run([binary, "serve", str(trace), "--model", "llama3_8b", "--gpu", "h100-sxm", "--pp", "2",
                         "--max-batch", "8", "--json"], capture_output=True, text=True, check=True)
    assert staged.summary == json.loads(p2.stdout)
    assert staged.summary["gpus"] == 2
    with pytest.raises(fleetwatt.ConfigError, match="pp"):
        fleetwatt.serve(trace, model="llama3_8b", pp=0)
    with pytest.raises(fleetwatt.ConfigError, match="replica_count"):
        fleetwatt.serve(trace, model="llama3_8b", replica_count=2)
    # The scheduler by name, as the command's --scheduler (arrivals 50 ms apart, so that prompts meet running
    # decodes); an unknown one names the keyword and the known ones.
    dense = tmp_path / "dense.csv"
    dense.write_text("time_s,input_tokens,output_tokens\n" +
                     "".join(f"{0.05 * i},{200 + 50 * i},{20 + 5 * i}\n" for i in range(30)))
    p = subprocess.run([binary, "serve", str(dense), "--model", "llama3_8b", "--gpu", "h100-sxm", "--replicas", "2",
                        "--max-batch", "8", "--scheduler", "prefill_priority", "--json"],
                       capture_output=True, text=True, check=True)
    first = fleetwatt.serve(dense, model="llama3_8b", gpu="h100-sxm", replicas=2, max_batch=8,
                            scheduler="prefill_priority")
    fcfs = fleetwatt.serve(dense, model="llama3_8b", gpu="h100-sxm", replicas=2, max_batch=8)
    assert first.summary == json.loads(p.stdout)
    assert first.summary["ttft_p50_s"] < fcfs.summary["ttft_p50_s"]
    assert first.summary["tpot_p50_s"] > fcfs.summary["tpot_p50_s"]
    with pytest.raises(fleetwatt.ConfigError, match="scheduler.*fcfs, prefill_priority, disaggregated"):
        fleetwatt.serve(trace, model="llama3_8b", scheduler="lifo")
    # Disaggregated pools with their keywords, as the command's flags.
    p = subprocess.run([binary, "serve", str(dense), "--model", "llama3_8b", "--gpu", "h100-sxm", "--replicas", "3",
                        "--scheduler", "disaggregated", "--prefill-replicas", "1", "--kv-link-gbytes-per-s", "25",
                        "--json"], capture_output=True, text=True, check=True)
    pools = fleetwatt.serve(dense, model="llama3_8b", gpu="h100-sxm", replicas=3, scheduler="disaggregated",
                            prefill_replicas=1, kv_link_gbytes_per_s=25)
    assert pools.summary == json.loads(p.stdout)
    assert set(pools.requests.replica) == {1, 2}  # every request decodes on the decode pool
    with pytest.raises(fleetwatt.ConfigError, match="prefill_replicas"):
        fleetwatt.serve(dense, model="llama3_8b", replicas=3, prefill_replicas=1)


def test_serve_generated_arrivals_are_the_commands(binary, root):
    import json

    trace = root / "examples" / "requests" / "chat-minute.csv"
    hourly = [1, 2] * 12
    p = subprocess.run([binary, "serve", str(trace), "--model", "llama3_8b", "--generate-rate", "0.5", "--horizon-s",
                        "900", "--hourly", ",".join(map(str, hourly)), "--burstiness", "0.5", "--seed", "3", "--json"],
                       capture_output=True, text=True, check=True)
    got = fleetwatt.serve(trace, model="llama3_8b", generate_rate=0.5, horizon_s=900, hourly=hourly,
                          burstiness=0.5, seed=3)
    assert got.summary == json.loads(p.stdout)
    assert got.requests.arrival_s.max() < 900


def test_serve_model_shape_is_the_zoo_model_of_that_shape(tmp_path):
    # Llama 3 8B's shape from the Llama 3 report (table 3), written out: served as model="llama3_8b" is,
    # as a dict or as --model-shape's text.
    trace = tmp_path / "requests.csv"
    trace.write_text("time_s,input_tokens,output_tokens\n" +
                     "".join(f"{0.5 * i},{200 + 50 * i},{20 + 5 * i}\n" for i in range(30)))
    shape = dict(layers=32, hidden=4096, heads=32, kv_heads=8, ffn_hidden=14336, vocab=128256, gated_mlp=True)
    kw = dict(gpu="h100-sxm", replicas=2, max_batch=8)
    zoo = fleetwatt.serve(trace, model="llama3_8b", **kw)
    shaped = fleetwatt.serve(trace, model_shape=shape, **kw)
    assert shaped.summary == zoo.summary
    assert shaped.requests.equals(zoo.requests)
    assert shaped.power.equals(zoo.power)
    text = ",".join(f"{k}={v}" for k, v in shape.items() if k != "gated_mlp")
    assert fleetwatt.serve(trace, model="my8b", model_shape=text, **kw).summary == zoo.summary
    # Errors name the keyword: an unknown key, a zoo name beside a shape, weights that do not fit one H100.
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.serve(trace, model_shape=dict(shape, depth=3), **kw)
    assert e.value.key == "model_shape" and "unknown key 'depth'" in e.value.message
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.serve(trace, model="llama3_8b", model_shape=shape, **kw)
    assert e.value.key == "model" and "is a zoo model" in e.value.message
    with pytest.raises(fleetwatt.ConfigError) as e:
        fleetwatt.serve(trace, model_shape=dict(shape, layers=80, hidden=8192, heads=64, ffn_hidden=28672), **kw)
    assert e.value.key == "model_shape" and "do not fit 1 x h100-sxm" in e.value.message


def test_services_as_dataframes(tmp_path):
    # An LLM service beside nothing else: its series per 1-s interval and its totals, against the summary's
    # GPU energy (every GPU is the service's) and the series' own sums.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    trace = os.path.join(root, "examples", "requests", "chat-minute.csv")
    path = tmp_path / "chat.toml"
    path.write_text(f"""[fleet]
nodes = 1
gpus_per_node = 8
gpu = "h100-sxm"
[workload]
horizon_s = 300
[[workload.service]]
name = "chat"
model = "llama3_8b"
trace = "{trace}"
arrival_rate_per_s = 10
""")
    r = fleetwatt.run(fleetwatt.load_scenario(path))
    chat = r.services["chat"]
    assert chat.index.name == "time_s" and len(chat) == 300
    assert {"power_W", "arrivals", "completions", "replicas_active", "ttft_p50_s"} <= set(chat.columns)
    totals = r.service_totals("chat")
    assert totals["gpus"] == 8 and totals["model"] == "llama3_8b" and totals["mode"] == "fleet"
    assert chat["power_W"].sum() == pytest.approx(totals["energy_J"], rel=1e-12)
    assert r.summary["gpu_energy_J"] == pytest.approx(totals["energy_J"], rel=1e-9)
    assert chat["completions"].sum() == totals["requests_served"]
    assert (chat["replicas_active"] == 8).all()
    with pytest.raises(KeyError):
        r.service_totals("nope")
    with pytest.raises(KeyError):
        r.service_requests("chat")  # fleet mode keeps no request rows


def test_exact_service_requests_recount_its_series(tmp_path):
    # Exact mode keeps each request: its rows, binned by end time, give the completions series and the
    # requests served; their output tokens the tokens; every row's times in order.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    trace = os.path.join(root, "examples", "requests", "chat-minute.csv")
    path = tmp_path / "chat.toml"
    path.write_text(f"""[fleet]
nodes = 1
gpus_per_node = 8
gpu = "h100-sxm"
[workload]
horizon_s = 120
[[workload.service]]
name = "chat"
model = "llama3_8b"
mode = "exact"
replicas = 2
trace = "{trace}"
arrival_rate_per_s = 5
""")
    r = fleetwatt.run(fleetwatt.load_scenario(path))
    rows = r.service_requests("chat")
    chat = r.services["chat"]
    totals = r.service_totals("chat")
    assert list(rows.columns) == ["arrival_s", "first_token_s", "end_s", "input_tokens", "output_tokens", "replica"]
    assert (rows.arrival_s.diff().dropna() >= 0).all()
    assert ((rows.arrival_s < rows.first_token_s) & (rows.first_token_s <= rows.end_s)).all()
    assert set(rows.replica) <= {0, 1}
    served = rows[rows.end_s < 120]
    assert len(served) == totals["requests_served"]
    assert served.output_tokens.sum() == totals["output_tokens"]
    per_interval = np.bincount(np.floor(served.end_s).astype(int), minlength=len(chat))
    assert (per_interval == chat["completions"].to_numpy()).all()
    arrived = np.bincount(np.floor(rows.arrival_s).astype(int), minlength=len(chat))[: len(chat)]
    assert (arrived == chat["arrivals"].to_numpy()).all()
    # The load series over the window: a request waits from its arrival and is in a batch from its admission to
    # its end, so together they are its latency's part before the horizon; a request with its first token
    # before the horizon was admitted and its prompt run there; one served, its later tokens too.
    assert (chat["queued"] + chat["running"]).sum() == pytest.approx(
        (np.minimum(rows.end_s, 120.0) - rows.arrival_s).sum(), rel=1e-9)
    started = rows[rows.first_token_s < 120]
    assert len(started) <= chat["admitted"].sum() <= len(rows)
    assert started.input_tokens.sum() <= chat["prefill_tokens_per_s"].sum() + 1e-6
    assert chat["prefill_tokens_per_s"].sum() <= rows.input_tokens.sum() + 1e-6
    assert (served.output_tokens - 1).sum() <= chat["decode_tokens_per_s"].sum() + 1e-6
    assert chat["decode_tokens_per_s"].sum() <= (rows.output_tokens - 1).sum() + 1e-6
    slots = chat["replicas_active"] * totals["max_batch"]
    assert np.allclose(chat["batch_occupancy"], chat["running"] / slots, rtol=1e-12, atol=0)
