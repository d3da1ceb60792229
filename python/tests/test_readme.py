# The README's Python examples run as written: every ```python block of its "Python" section, in order, in
# one namespace, from a scratch folder that sees the repository's scenarios (the blocks use relative paths
# and write day.h5 where they run).
import os
import re

import pandas as pd

import fleetwatt

from conftest import ROOT


def readme_python_blocks():
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## Python")
    section = text[start:text.index("\n## ", start + 1)]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    blocks = readme_python_blocks()
    assert len(blocks) >= 2  # reading and running, policies
    for d in ("workloads", "examples"):
        os.symlink(ROOT / d, tmp_path / d)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    # What the blocks left behind is what they say: the day of 200 servers written to day.h5 and read back.
    old = namespace["old"]
    assert old.nodes.shape[0] == 200
    again = fleetwatt.open(tmp_path / "day.h5").summary
    assert pd.Series(old.summary, dtype=object).equals(pd.Series(again, dtype=object))  # NaN equals NaN
    assert old.summary["facility_energy_J"] == again["facility_energy_J"] > 0
