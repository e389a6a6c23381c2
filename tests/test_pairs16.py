"""The inspector in 16-bit pairs (``ydrop16``): when the host launches it, and its wall grid's shape.

The kernel itself is checked against ``ydrop`` on the device
(``tests/test_gpu_parity.py::test_inspector_in_16_bit_pairs_equals_ydrop``).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpukernels.gpu.runner import GRID_BITS, GRID_SHIFT, fits16, grid_shape
from gpukernels.scoring import lastz_scoring


def test_lastz_defaults_fit_16_bit_pairs():
    sc = lastz_scoring()
    assert fits16(sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop)


@pytest.mark.parametrize("change", [dict(ydrop=300000), dict(ydrop=15001), dict(gap_open=1000, ydrop=9400),
                                   dict(gap_extend=800, ydrop=9400), dict(match=701)])
def test_scores_that_could_wrap_a_half_keep_ydrop(change):
    sc = lastz_scoring(**{k: v for k, v in change.items() if k != "match"})
    matrix = np.array(sc.matrix)
    if "match" in change:
        matrix[0, 0] = change["match"]
    assert not fits16(matrix, sc.gap_open, sc.gap_extend, sc.ydrop)


def test_separator_scores_far_below_zero_still_fit():
    sc = lastz_scoring()
    assert np.array(sc.matrix).min() < -(sc.ydrop + 1)   # the separator's sentinel
    assert fits16(sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop)


@pytest.mark.parametrize("nt, nq", [(1, 1), (4_600_001, 4_700_001), (3_000_000_000, 3_000_000_000)])
def test_wall_grid_covers_both_genomes_within_its_bits(nt, nq):
    shift, cols, words = grid_shape(nt, nq)
    assert shift >= GRID_SHIFT
    assert cols << shift >= nq
    rows = (nt >> shift) + 1
    assert rows * cols <= max(GRID_BITS, 1) and words * 32 >= rows * cols
