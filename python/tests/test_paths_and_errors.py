# Where fleetwatt.run may write and which exceptions the C++ side raises: the output is checked before the
# run as `fleetwatt run -o` checks it (never a file the run reads, never a folder), and every C++ failure is
# a typed Python exception (ConfigError, ResultError, InterruptedError), never "unknown exception".
import os
import time

import pytest

import fleetwatt
from conftest import DATA


def _copy(two_jobs, tmp_path, text_after=""):
    scenario = tmp_path / "s.toml"
    scenario.write_text(open(two_jobs).read() + text_after)
    return scenario


def test_output_over_the_scenario_is_refused_and_the_scenario_kept(two_jobs, tmp_path):
    scenario = _copy(two_jobs, tmp_path)
    before = scenario.read_bytes()
    with pytest.raises(fleetwatt.ConfigError, match="is the scenario file") as caught:
        fleetwatt.run(str(scenario), output=scenario)
    assert caught.value.key == "output"
    assert scenario.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["s.toml"]


def test_output_over_a_file_the_run_reads_is_refused(two_jobs, tmp_path):
    # A jobs CSV the scenario names: replacing it with HDF5 would destroy the workload.
    jobs = tmp_path / "jobs.csv"
    jobs.write_text("job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W\n1,0,1,1,10,300,10,100\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text('[fleet]\nnodes = 1\ngpus_per_node = 1\n[workload]\nhorizon_s = 100\n'
                        'jobs_csv = "jobs.csv"\n')
    before = jobs.read_bytes()
    with pytest.raises(fleetwatt.ConfigError, match="jobs.csv, which the run reads"):
        fleetwatt.run(str(scenario), output=jobs)
    assert jobs.read_bytes() == before


def test_output_folder_is_refused_before_the_run(root, tmp_path):
    # Ten days of the default fleet take seconds to simulate; the refusal comes before any of it.
    scenario = fleetwatt.load_scenario(root / "examples/scenarios/day-fleet.toml",
                                       **{"workload.horizon_s": 864000})
    started = time.monotonic()
    with pytest.raises(fleetwatt.ConfigError, match="is a folder; give a file name"):
        fleetwatt.run(scenario, output=tmp_path)
    assert time.monotonic() - started < 1.0
    assert os.listdir(tmp_path) == []


def test_damaged_result_file_is_a_result_error(two_jobs, tmp_path):
    good = tmp_path / "good.h5"
    fleetwatt.run(two_jobs, output=good)
    damaged = tmp_path / "damaged.h5"
    data = good.read_bytes()
    damaged.write_bytes(data[: len(data) // 3])  # truncated: the superblock says more than is there
    with pytest.raises(fleetwatt.ResultError, match="damaged.h5") as caught:
        fleetwatt.open(damaged).facility
    assert "unknown exception" not in str(caught.value)
    assert isinstance(caught.value, OSError)
    text = tmp_path / "text.h5"
    text.write_text("not HDF5 at all\n")
    with pytest.raises(fleetwatt.ResultError, match="text.h5: cannot read it: not an HDF5 file or damaged"):
        fleetwatt.open(text)


def test_exception_types_are_exported():
    assert issubclass(fleetwatt.InterruptedError, KeyboardInterrupt)
    assert issubclass(fleetwatt.ResultError, OSError)
    assert issubclass(fleetwatt.ConfigError, ValueError)
    for name in ("ConfigError", "ResultError", "InterruptedError"):
        assert name in fleetwatt.__all__


def test_a_failed_write_is_a_result_error_naming_the_file_and_reason(tmp_path):
    # A file-size limit stands in for a full disk (SIGXFSZ ignored, so the write fails with EFBIG); in a
    # process of its own, which must also end cleanly (HDF5's exit handler once crashed on a failed file).
    import subprocess
    import sys
    import textwrap

    out = tmp_path / "r.h5"
    code = textwrap.dedent(f"""
        import resource, signal, sys
        import fleetwatt
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            fleetwatt.run({str(DATA / "two-jobs.toml")!r}, output={str(out)!r})
        except fleetwatt.ResultError as e:
            print("ResultError:", e)
            sys.exit(7)
        """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 7, p.stderr
    assert p.stdout == f"ResultError: {out}: cannot write: File too large; nothing was written\n"
    assert p.stderr == ""
    assert os.listdir(tmp_path) == []
