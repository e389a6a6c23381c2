"""The host DP's rows in 16 bits (``cpu/gapped.ydrop_sweep`` where ``fits16`` holds) give the 32-bit sweep's result."""

import numpy as np
import pytest

from gpukernels.cpu import gapped as G
from gpukernels.cpu.relay import snapshot
from gpukernels.scoring import lastz_scoring

from test_gapped import mutate

SC = lastz_scoring()
FLAT = G._flat_matrix(SC.matrix.astype(np.int32))
GOE, GEXT = np.int32(SC.gap_open + SC.gap_extend), np.int32(SC.gap_extend)


def _side(rng, n, rate, wall_rate):
    """A random right side of about ``n`` letters, the query ``rate`` apart, with walls and N letters."""
    t = rng.integers(0, 4, n).astype(np.uint8)
    t[rng.random(n) < 0.01] = 4
    q = np.asarray(mutate(rng, t, rate), dtype=np.uint8)
    walls = np.zeros((n + 1, 4, 2), dtype=np.int32)
    for x in np.flatnonzero(rng.random(n) < wall_rate):
        a = int(rng.integers(0, len(q)))
        walls[x, 0] = (a, a + int(rng.integers(1, 4)))
    frame = G.side_frame(True, t, q, t[::-1].copy(), q[::-1].copy(), 0, 0, 0, n, 0, len(q), False)
    return frame, walls


def _sweep(frame, walls, ydrop, wide, cuts, between=None):
    """Best, cell, cells, last anti-diagonal and columns of a side swept to each of ``cuts``, then to its end.

    ``wide``: the 32-bit sweep itself (``_sweep`` with 32-bit rows), else ``ydrop_sweep``; ``between``
    is called with the rows and state at each cut."""
    tA, T0, tn, qA, Q0, qn, bar, wq0, wt0, wdir = frame
    work = np.empty((8, qn + 3), np.int32)
    st, tb, off, lo = G.origin_state(work, np.empty(16, np.uint8), np.empty(4, np.int64), np.empty(4, np.int64))
    for cut in [*cuts, 1 << 62]:
        if st[G.ST_DONE]:
            break
        if wide:
            tb, off, lo = G._sweep(tA, T0, tn, qA, Q0, qn, FLAT, GOE, GEXT, ydrop, bar, walls, wq0, wt0, wdir,
                                   work.reshape(work.size), work.shape[1], work.shape[1], G.NEG32, G.NEG32, 0,
                                   tb, off, lo, True, st, cut)
        else:
            tb, off, lo = G.ydrop_sweep(tA, T0, tn, qA, Q0, qn, FLAT, GOE, GEXT, ydrop, bar, walls, wq0, wt0, wdir,
                                        work, tb, off, lo, True, st, cut)
        if between is not None and not st[G.ST_DONE]:
            between(work, st)
    d = st[G.ST_D]
    off = G.grow(off, d + 2)
    off[d + 1] = st[G.ST_NTB]
    ops = G.traceback_columns(tb, off, lo, st[G.ST_BI], st[G.ST_BJ], tA, T0, -1, qA, Q0, 1)
    return (int(st[G.ST_BEST]), int(st[G.ST_BI]), int(st[G.ST_BJ]), int(st[G.ST_CELLS]), int(d)), ops.tolist()


@pytest.mark.parametrize("seed", range(6))
def test_sixteen_bit_rows_give_the_32_bit_sweep(seed):
    """Same best cell, score, cells and columns, swept in pieces, with walls, N letters and each y-drop
    of the 16-bit range; the identical side of seed 0 climbs far enough to rebase its rows many times."""
    rng = np.random.default_rng(900 + seed)
    n = 12000 if seed == 0 else int(rng.integers(200, 6000))
    rate = 0.0 if seed == 0 else [0.01, 0.05, 0.15, 0.3, 0.08][seed - 1]
    frame, walls = _side(rng, n, rate, [0.0, 0.002, 0.02, 0.0, 0.002, 0.01][seed])
    ydrop = [9400, 500, 15000, 3000, 9400, 9400][seed]
    cuts = sorted(int(c) for c in rng.integers(1, 2 * n, 3))
    narrow = _sweep(frame, walls, ydrop, False, cuts)
    assert narrow == _sweep(frame, walls, ydrop, True, cuts)
    if seed == 0:
        assert narrow[0][0] > 20 * G.REBASE16


def test_rows_read_between_pieces_keep_the_result():
    """A reader between two pieces (the relay's snapshot, the walk's widened rows) changes nothing."""
    rng = np.random.default_rng(77)
    frame, walls = _side(rng, 5000, 0.03, 0.002)
    cuts = [700, 1900, 4100]
    seen = []

    def read(work, st):
        before = snapshot(work, st)
        G.widen_rows(work, st)
        assert st[G.ST_NARROW] == 0 and st[G.ST_BASE] == 0
        after = snapshot(work, st)
        assert before[0] == after[0] and np.array_equal(before[1], after[1])
        seen.append(after[1].shape[1])
    got = _sweep(frame, walls, 9400, False, cuts, read)
    assert got == _sweep(frame, walls, 9400, True, cuts) and len(seen) == 3 and min(seen) > 0


def test_scores_past_the_16_bit_range_sweep_in_32_bits():
    assert G.fits16(91, 430, 30, 9400) and not G.fits16(91, 430, 30, 20000) and not G.fits16(800, 430, 30, 9400)
    rng = np.random.default_rng(5)
    frame, walls = _side(rng, 800, 0.05, 0.0)
    tA, T0, tn, qA, Q0, qn, bar, wq0, wt0, wdir = frame
    for ydrop, narrow in ((20000, 0), (9400, 1)):
        work = np.empty((8, qn + 3), np.int32)
        st, tb, off, lo = G.origin_state(work, np.empty(16, np.uint8), np.empty(4, np.int64), np.empty(4, np.int64))
        G.ydrop_sweep(tA, T0, tn, qA, Q0, qn, FLAT, GOE, GEXT, ydrop, bar, walls, wq0, wt0, wdir, work, tb, off, lo,
                      True, st, 300)
        assert st[G.ST_NARROW] == narrow and st[G.ST_D] == 300
        h_last = G._state_rows(st)[0]
        i = int(st[G.ST_LO1])
        assert G.row_value(work, st, h_last, i) == snapshot(work, st)[1][0, i - snapshot(work, st)[0]]
