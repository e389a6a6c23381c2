"""``bench/host_dp_lanes.py``: the probe's loop computes the same cells in either lane width."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from host_dp_lanes import cell_loop, main  # noqa: E402


def test_both_widths_write_the_same_cells_and_bytes():
    rng = np.random.default_rng(5)
    n, W = 40, 48
    rows = rng.integers(-2000, 2000, 8 * W)
    rows[7 * W:] = rng.choice([91, -114, -31, -125], W)
    out = []
    for dtype in (np.int32, np.int16):
        wk, tb = rows.astype(dtype), np.zeros(W, np.uint8)
        best = cell_loop(dtype)(wk, W, tb, 1, n, dtype(430), dtype(30), dtype(-1500))
        live = wk[2 * W:7 * W].astype(np.int64)
        out.append((best, np.where(live >= -1500, live, 0), tb.copy()))
    assert out[0][0] == out[1][0]
    assert np.array_equal(out[0][1], out[1][1]) and np.array_equal(out[0][2], out[1][2])


def test_it_prints_a_row_per_width(capsys):
    main(["--cells", "64", "--total", "20000"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| cells an anti-diagonal") and lines[2].startswith("| 64 |")
