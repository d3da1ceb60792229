"""Prints two numbers about a screenshot (PNG), for tests/tools/cli_report_test.cpp: the share of pixels
that are not white, and how many distinct colours it has. A blank page gives 0 and 1."""
import sys

import matplotlib.image
import numpy as np

rgb = (matplotlib.image.imread(sys.argv[1])[..., :3] * 255).round().astype(np.uint8).reshape(-1, 3)
non_white = np.mean(np.any(rgb < 250, axis=1))
print(f"{non_white:.6f} {len(np.unique(rgb, axis=0))}")
