"""The counts of ``bench/wasted_inspections.py`` (the run itself needs a GPU)."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from wasted_inspections import wasted_table  # noqa: E402


def test_skipped_anchors_are_told_by_the_wave_of_the_path_through_them():
    """Anchor 0's path passes through anchor 1 (its own wave) and anchor 3 (the next wave); anchor 5 lies on
    no path; anchor 6 was in a wave but a long batch took it (no inspection)."""
    from gpukernels.cpu.gapped import OP_EQ
    aq = np.array([100, 150, 900, 180, 400, 700, 50])
    at = np.array([100, 150, 5, 180, 420, 300, 60])
    waves = [np.array([0, 1, 2, 6]), np.array([3, 4, 5])]
    first_cells = np.array([10, 20, 30, 40, 50, 60, 0])
    cells = np.array([100, -1, 50, -1, 70, -1, 80])
    # the alignments of anchors 0, 2, 4 and 6, gapless: 200, 10, 10 and 10 columns
    t0, q0 = np.array([90, 0, 415, 55]), np.array([90, 895, 395, 45])
    op_off = np.array([0, 200, 210, 220, 230])
    ops = np.full(230, OP_EQ, dtype=np.uint8)
    out = (t0, t0 + np.diff(op_off), q0, q0 + np.diff(op_off), np.zeros(4), op_off, ops, cells)
    got = wasted_table(aq, at, waves, first_cells, out)
    assert got == dict(waves=2, inspected=6, wasted=3, same=1, previous=1, older=0, inspected_cells=210,
                       wasted_cells=120)
