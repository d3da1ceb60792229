# Shared fixtures of the Python package's tests: paths of the repository, the built fleetwatt command, and
# the small hand-calculated scenario.
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def two_jobs():
    return str(DATA / "two-jobs.toml")


@pytest.fixture(scope="session")
def binary():
    from fleetwatt import _paths

    return os.environ.get("FLEETWATT_BINARY") or _paths.FLEETWATT_BINARY


@pytest.fixture(scope="session")
def day_cli(tmp_path_factory, binary):
    """The default day run by the fleetwatt command: (result path, printed summary)."""
    out = tmp_path_factory.mktemp("cli") / "day.h5"
    p = subprocess.run([binary, "run", str(ROOT / "examples/scenarios/day-fleet.toml"), "-o", str(out)],
                       capture_output=True, text=True, check=True)
    return str(out), p.stdout
