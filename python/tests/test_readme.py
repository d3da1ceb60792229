# The documentation's Python examples run as written: the README's own block, and every ```python block of
# docs/python.md, in order, in one namespace. Each runs from a scratch folder that sees the repository's
# scenarios (the blocks use relative paths and write day.h5 where they run).
import os
import re

import pandas as pd

import fleetwatt

from conftest import ROOT


def python_blocks(page):
    return re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), flags=re.S)


def run_in_scratch(page, blocks, tmp_path, monkeypatch):
    for d in ("examples",):
        os.symlink(ROOT / d, tmp_path / d)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in blocks:
        exec(compile(block, page, "exec"), namespace)
    return namespace


def test_readme_python_block_runs(tmp_path, monkeypatch, capsys):
    blocks = python_blocks("README.md")
    assert len(blocks) == 1  # the README's fifteen lines or so
    assert len([line for line in blocks[0].splitlines() if line.strip()]) <= 20
    namespace = run_in_scratch("README.md", blocks, tmp_path, monkeypatch)
    # What the block says it does: the default day at a tenth of its size, its summary printed.
    r = namespace["r"]
    assert r.nodes.shape[0] == 100
    assert r.summary["facility_energy_J"] > 0
    assert "fleetwatt run: 24.00 h simulated" in capsys.readouterr().out


def test_python_page_blocks_run(tmp_path, monkeypatch):
    blocks = python_blocks("docs/python.md")
    assert len(blocks) >= 2  # reading and running, policies
    namespace = run_in_scratch("docs/python.md", blocks, tmp_path, monkeypatch)
    # What the blocks left behind is what they say: the day of 200 servers written to day.h5 and read back.
    old = namespace["old"]
    assert old.nodes.shape[0] == 200
    again = fleetwatt.open(tmp_path / "day.h5").summary
    assert pd.Series(old.summary, dtype=object).equals(pd.Series(again, dtype=object))  # NaN equals NaN
    assert old.summary["facility_energy_J"] == again["facility_energy_J"] > 0
    # The served minute: its 60 requests, their energy the power series'.
    sv = namespace["sv"]
    assert sv.summary["requests"] == len(sv.requests) == 60
