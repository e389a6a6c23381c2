"""The counts of ``bench/wasted_inspections.py`` (the run itself needs a GPU)."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from wasted_inspections import wasted_table  # noqa: E402


def test_skipped_anchors_are_told_by_the_wave_of_the_alignment_around_them():
    """Anchor 0's alignment holds anchor 1 (its own wave) and anchor 3 (the next wave); anchor 5 lies in no
    alignment of an anchor inspected before it; anchor 6 was in a wave but never inspected (a long batch's)."""
    aq = np.array([100, 150, 900, 180, 400, 700, 50])
    at = np.array([100, 160, 5, 190, 420, 300, 60])
    waves = [np.array([0, 1, 2, 6]), np.array([3, 4, 5])]
    first_cells = np.array([10, 20, 30, 40, 50, 60, 0])
    anchor_cells = np.array([100, -1, 50, -1, 70, -1, 80])
    kept = (np.array([90, 410, 0]), np.array([200, 430, 100]), np.array([90, 395, 650]), np.array([200, 405, 750]),
            np.array([0, 4, 6]))
    got = wasted_table(aq, at, waves, first_cells, anchor_cells, kept)
    assert got == dict(inspected=6, inspected_cells=210, wasted=3, wasted_cells=120, same=1, earlier=1, previous=1,
                       none=1)
