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


def _cuda_define(name):
    """An integer ``#define`` of ``cuda/gapped.cu``."""
    import re
    from gpukernels.cuda import source_path
    text = open(source_path("gapped")).read()
    return int(re.search(rf"#define {name} (\d+)", text).group(1))


def test_an_antidiagonals_pairs_take_distinct_words_of_half_band_rows():
    """ydrop16 keeps its rows in band / 2 words: an anti-diagonal of up to band - WARP_SLACK cells
    (lo .. hi - 1) writes pairs k0 .. k1 in steps of 32 lanes, all in distinct words of a row."""
    from gpukernels.gpu import runner
    slack = _cuda_define("WARP_SLACK")
    assert slack == runner.WARP_SLACK
    for band in runner.BANDS:
        words = band // 2
        for lo in range(6):
            for width in range(1, band - slack + 1):
                k0, k1 = (lo - 1) >> 1, (lo + width) >> 1
                steps = -(-(k1 - k0 + 1) // 32)
                assert 32 * steps <= words, (band, lo, width)
        # two cells more would not fit where the anti-diagonal starts at cell 0
        k0, k1 = (0 - 1) >> 1, (0 + band - slack + 2) >> 1
        assert k1 - k0 + 1 > words


def _antidiagonal_cells(d, lo1, hi1, lo2, hi2, tn, qn):
    """``antidiagonal_cells`` of ``cuda/gapped.cu``: the cells of anti-diagonal d."""
    lo = min(lo1, lo2 + 1)
    hi = max(hi1 + 1, hi2 + 1)
    lo = max(lo, d - tn, 0)
    hi = min(hi, qn + 1, d + 1)
    return lo, hi


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("full", [0.0, 0.6, 1.0])
def test_wall_stretch_box_holds_every_cell_of_its_stretch(seed, full):
    """``walls_ahead``'s box (the kernel tests the wall grid once a stretch over it) holds every cell
    the stretch's anti-diagonals compute, whatever live ranges the anti-diagonals before leave."""
    S = _cuda_define("WALL_STRETCH")
    rng = np.random.default_rng(seed)
    tn, qn = int(rng.integers(3 * S, 8 * S)), int(rng.integers(3 * S, 8 * S))
    lo1, hi1, lo2, hi2 = 0, 1, 0, 0
    box, until, d = None, 0, 0
    while True:
        d += 1
        if d > qn + tn:
            break
        if d > until:
            m, M = min(lo1, lo2), max(hi1, hi2)
            box = (max(m, 0), min(M + S - 1, qn), max(d - M - S + 1, 0), min(d + S - 1 - m, tn))
            until = d + S - 1
        lo, hi = _antidiagonal_cells(d, lo1, hi1, lo2, hi2, tn, qn)
        if lo >= hi:
            break
        i0, i1, j0, j1 = box
        assert i0 <= lo and hi - 1 <= i1, (d, lo, hi, box)
        assert j0 <= d - (hi - 1) and d - lo <= j1, (d, lo, hi, box)
        # a live range inside the cells: all of them (the fastest growth), nearly all, or at times a
        # narrow piece anywhere
        if rng.random() < full:
            nlo, nhi = lo, hi
        elif rng.random() < 0.9:
            nlo, nhi = lo + int(rng.integers(0, 2)), hi - int(rng.integers(0, 2))
        else:
            nlo = int(rng.integers(lo, hi))
            nhi = int(rng.integers(nlo, hi)) + 1
        if nlo >= nhi:
            nlo, nhi = lo, hi
        lo2, hi2, lo1, hi1 = lo1, hi1, nlo, nhi
