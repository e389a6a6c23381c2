"""The walk's check that a dirty side's stale result holds without a DP (``gpu/path_holds.path_holds``).

Wherever the check says a side holds with the walls of now, the CPU twin's
extension with those walls must end at the same best cell, with the same
score and the same columns. Here on random diverged pairs with indels, walls
dropped at random lattice points around each side's region, some of them
on the stale path or next to it.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpukernels.cpu import gapped as cg
from gpukernels.gpu import gapped as gg, path_holds
from gpukernels.gpu.kernel_twin import side_dp
from gpukernels.gpu.runner import _keep_stride
from gpukernels.scoring import Scoring

SC = Scoring()
MATRIX = np.ascontiguousarray(SC.matrix, dtype=np.int32)


def _pair(rng, n, indels=0.002):
    """A random target, a copy with 8 % substitutions and short indels (``indels`` per letter, half
    of them insertions), and where each target letter went in the copy (-1: deleted)."""
    t = rng.integers(0, 4, n).astype(np.uint8)
    q = []
    to_q = np.full(n, -1, dtype=np.int64)
    x = 0
    while x < n:
        u = rng.random()
        if u < indels / 2:
            x += int(rng.integers(1, 6))            # deletion from the copy
        elif u < indels:
            q.extend(rng.integers(0, 4, int(rng.integers(1, 6))).tolist())
        else:
            to_q[x] = len(q)
            q.append(int(t[x]) if rng.random() > 0.08 else int(rng.integers(0, 4)))
            x += 1
    return t, np.array(q, dtype=np.uint8), to_q


def _anchor(rng, t, q, to_q):
    """A base of the copy's alignment, inside the middle of the pair: (aq, at)."""
    while True:
        at = int(rng.integers(200, len(t) - 200))
        aq = int(to_q[at])
        if 0 < aq < len(q) - 1:
            return aq, at


def _extend(t, q, right, aq, at, walls, barrier):
    work = np.empty((8, len(q) + 2), dtype=np.int32)
    tb, off, lo = np.empty(1 << 16, np.uint8), np.empty(1024, np.int64), np.empty(1024, np.int64)
    out = cg.extend_side(right, t, q, t[::-1].copy(), q[::-1].copy(), aq, at, 0, len(t), 0, len(q), MATRIX,
                         SC.gap_open, SC.gap_extend, SC.ydrop, barrier, walls, work, tb, off, lo)
    return out[0], out[1], out[2], out[4]


def _kept_rows(t, q, right, aq, at, walls, barrier, d_best):
    """The rows the executor keeps at the best (side_dp, the kernel's twin, mode 1 up to ``d_best``)."""
    tk = gg._tasks_of(np.array([0]), np.array([aq]), np.array([at]), np.array([0]), np.array([len(t)]),
                      np.array([0]), np.array([len(q)]), barrier)[int(right)]
    keep = np.zeros(_keep_stride(), dtype=np.int32)
    tb = np.zeros(1 << 22, dtype=np.uint8)
    tb_lo = np.zeros(d_best + 2, dtype=np.int64)
    tb_off = np.zeros(d_best + 2, dtype=np.int64)
    side_dp(t, q, tk, MATRIX.astype(np.int64), SC.gap_open, SC.gap_extend, SC.ydrop, walls, 1 << 20, 1, d_best,
               tb, 0, tb_lo, tb_off, 0, keep=keep)
    return keep


def _holds(t, q, right, aq, at, walls, barrier, ops, keep):
    side = int(right)
    n = len(ops)
    store = np.zeros(max(n, 1), dtype=np.uint8)
    store[:n] = ops
    ops_idx = np.array([[0, 0, n]] if side else [[0, n, n]], dtype=np.int64)
    rows_at = np.full(2, -1, dtype=np.int64)
    rows_at[side] = 0
    return path_holds.path_holds(0, side, True, np.array([2], np.int8), np.array([aq]), np.array([at]), keep,
                                 rows_at, store, ops_idx, walls, t, q, t[::-1].copy(), q[::-1].copy(), np.array([0]),
                                 np.array([len(t)]), np.array([0]), np.array([len(q)]), barrier, MATRIX,
                                 SC.gap_open, SC.gap_extend, SC.ydrop, np.zeros(11, np.int64))


@pytest.mark.parametrize("seed, indels", [(s, 0.002) for s in range(6)] + [(s, 0.01) for s in range(6, 9)])
def test_a_held_side_is_the_redo(seed, indels):
    rng = np.random.default_rng(seed)
    t, q, to_q = _pair(rng, 3000, indels)
    held = changed = 0
    for _ in range(40):
        right = bool(rng.integers(2))
        aq, at = _anchor(rng, t, q, to_q)
        barrier = bool(rng.integers(4) == 0)
        walls = np.zeros((len(t) + 1, 4, 2), dtype=np.int32)
        best, bi, bj, ops = _extend(t, q, right, aq, at, walls, barrier)
        if bi + bj == 0:
            continue
        keep = _kept_rows(t, q, right, aq, at, walls, barrier, bi + bj)
        assert keep[0] == bi + bj and keep[5] == best
        # new walls: single lattice points in and around the side's box, a few on the path's diagonals
        step = 1 if right else -1
        for _ in range(int(rng.integers(1, 30))):
            i = int(rng.integers(0, bi + 40))
            j = i + int(rng.integers(-6, 7)) if rng.random() < 0.5 else int(rng.integers(0, bj + 40))
            lt, lq = at + 1 + step * j, aq + 1 + step * i
            if not (0 <= lt <= len(t) and 0 <= lq < len(q)) or (i == 0 and j == 0):
                continue
            k = int(np.argmax(walls[lt, :, 1] == 0)) if (walls[lt, :, 1] == 0).any() else -1
            if k >= 0:
                walls[lt, k] = (lq, lq + 1)
        now = _extend(t, q, right, aq, at, walls, barrier)
        same = now[0] == best and now[1] == bi and now[2] == bj and np.array_equal(now[3], ops)
        if _holds(t, q, right, aq, at, walls, barrier, ops, keep):
            assert same, (seed, right, aq, at)
            held += 1
        changed += not same
    print(seed, held, changed)
    assert held > 0


def test_no_walls_hold_when_the_best_is_on_the_path():
    """Without new walls the check holds wherever S's best before each anti-diagonal was on its path
    (test 2), and then only: on one side with an off-path record it fails."""
    rng = np.random.default_rng(11)
    t, q, to_q = _pair(rng, 4000)
    walls = np.zeros((len(t) + 1, 4, 2), dtype=np.int32)
    results = []
    for x in range(60):
        aq, at = _anchor(rng, t, q, to_q)
        best, bi, bj, ops = _extend(t, q, True, aq, at, walls, False)
        if bi + bj == 0:
            continue
        keep = _kept_rows(t, q, True, aq, at, walls, False, bi + bj)
        results.append(_holds(t, q, True, aq, at, walls, False, ops, keep))
    print(sum(results), len(results))
    assert sum(results) > 0


def test_by_antidiagonal_is_the_stable_sort_cut_at_its_end():
    """The counting sort gives a stable sort's order of the witnesses up to ``dmax``, and drops the rest."""
    rng = np.random.default_rng(5)
    for n, dmax in ((0, 0), (1, 0), (50, 10), (400, 300), (400, 1000)):
        cd = rng.integers(0, 400, n + 7).astype(np.int64)
        want = np.argsort(cd[:n], kind="stable")
        want = want[cd[want] <= dmax]
        assert np.array_equal(path_holds.by_antidiagonal(cd, n, dmax), want)
