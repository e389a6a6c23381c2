"""The executor's segments of long sides from the inspector's checkpoints (``runner.split_sides``,
``runner._exec_segments``): every anti-diagonal of every side run once, in order, each segment from the
checkpoint where the one before it ends (CPU only)."""

from __future__ import annotations

import numpy as np

from gpukernels.gpu import runner as gr


def test_split_sides_cover_each_side_once():
    every = 100
    dstop = np.array([50, 100, 101, 350, 1000, 2000])
    bits = np.array([0b1, 0b1, 0b1, 0b101, 0b11111111, 0])
    side, start, end = gr.split_sides(dstop, bits, every)
    assert side.tolist() == [0, 1, 2, 2, 3, 3, 3, 4] + [4] * 8 + [5]
    # side 3: checkpoints after 100 and 300 (bit 1, 200, is missing)
    assert start[side == 3].tolist() == [0, 1, 3] and end[side == 3].tolist() == [100, 300, 350]
    # a checkpoint at the stop itself starts nothing
    assert start[side == 1].tolist() == [0] and end[side == 1].tolist() == [100]
    for x, d in enumerate(dstop):
        s, e = start[side == x] * every, end[side == x]
        assert s[0] == 0 and e[-1] == d and (s[1:] == e[:-1]).all() and (e > s).all()


class _Marks:
    def __init__(self, bits, every, band):
        self.bits, self.every, self.band = np.asarray(bits), every, band


def test_exec_segments_rows():
    every = gr.CK_EVERY
    n = 4
    table = np.zeros((n, 19), dtype=np.int64)
    table[:, 11] = [3 * every + 5, 500, 5 * every, 2 * every + 1]        # stops
    table[:, 15] = [7, 8, -1, 9]                                       # keep slots
    table[:, 16] = -1
    table[:, 17] = -1
    table[:, 18] = [512, 512, 512, 2048]                               # band
    cab = table[:, 11] * 300
    tbb = np.concatenate([[0], np.cumsum(cab)[:-1]])
    # inspection tasks 10..13 of the marks; the last side ran in another band, so its checkpoints are not used
    marks = _Marks(np.zeros(20, dtype=np.int64), every, 512)
    marks.bits[10:14] = [0b111, 0b1, 0b1111, 0b1]
    rows, order, lone = gr._exec_segments(table, tbb, int(cab.sum()), False, marks, np.arange(10, 14))
    assert sorted(order.tolist()) == list(range(len(rows)))
    side0 = rows[:4]
    assert side0[:, 11].tolist() == [every, 2 * every, 3 * every, 3 * every + 5]
    assert side0[:, 15].tolist() == [-1, -1, -1, 7]       # only the last segment keeps the rows at the best
    assert side0[:, 17].tolist() == [-1, 10 * gr.CK_MAX, 10 * gr.CK_MAX + 1, 10 * gr.CK_MAX + 2]
    assert rows[4, 11] == 500 and rows[4, 17] == -1
    # side 2 stops at its fifth checkpoint's anti-diagonal: 5 segments, from the origin and checkpoints 1..4
    side2 = rows[5:10]
    assert side2[:, 17].tolist() == [-1] + [12 * gr.CK_MAX + k for k in range(4)]
    assert side2[-1, 11] == 5 * every and side2[-1, 15] == -1
    assert rows[10, 11] == 2 * every + 1 and rows[10, 17] == -1 and len(rows) == 11
    # a segment from a checkpoint never runs in a block of its own
    assert not lone[rows[:, 17] >= 0].any()


def test_exec_segments_without_marks():
    table = np.zeros((3, 19), dtype=np.int64)
    table[:, 11] = [10, 5000, 20]
    table[:, 18] = 512
    tbb = np.array([0, 100, 100 + 5000 * 300])
    rows, order, lone = gr._exec_segments(table, tbb, int(tbb[-1] + 200), False, None, None)
    assert rows is table
    want_order, want_lone = gr._exec_order(table[:, 18], table[:, 11], tbb, int(tbb[-1] + 200), False)
    assert order.tolist() == want_order.tolist() and lone.tolist() == want_lone.tolist()
