"""Gapped y-drop extension against a full affine DP with the same scoring."""

import numpy as np
import pytest

from gpukernels.cpu import gapped as G
from gpukernels.scoring import NEG_INF, lastz_scoring


def full_affine_best(t, q, m, go, ge):
    """Best substitution-ending score of an alignment anchored at (0, 0) (Gotoh)."""
    n, k = len(q), len(t)
    goe = go + ge
    H = np.full((n + 1, k + 1), NEG_INF, dtype=np.int64)
    E = np.full((n + 1, k + 1), NEG_INF, dtype=np.int64)
    F = np.full((n + 1, k + 1), NEG_INF, dtype=np.int64)
    H[0, 0] = 0
    best = 0
    for i in range(n + 1):
        for j in range(k + 1):
            if i == 0 and j == 0:
                continue
            d = H[i - 1, j - 1] + m[t[j - 1], q[i - 1]] if i and j else NEG_INF
            if j:
                E[i, j] = max(H[i, j - 1] - goe, E[i, j - 1] - ge)
            if i:
                F[i, j] = max(H[i - 1, j] - goe, F[i - 1, j] - ge)
            H[i, j] = max(d, E[i, j], F[i, j])
            best = max(best, d)
    return best


def one_side(t, q, sc, ydrop, walls=None):
    work = np.empty((8, len(q) + 2), dtype=np.int32)
    tb = np.empty(16, np.uint8)
    off = np.empty(4, np.int64)
    lo = np.empty(4, np.int64)
    if walls is None:
        walls = np.zeros((len(t) + 2, 1, 2), dtype=np.int32)
    # right-piece orientation: the target reversed, the query forward
    return G.ydrop_one_side(t[::-1].copy(), len(t), len(t), q, -1, len(q), sc.matrix, sc.gap_open,
                            sc.gap_extend, ydrop, 1 << 40, walls, 0, 0, 1, work, tb, off, lo)


def mutate(rng, s, rate):
    out = []
    for c in s:
        r = rng.random()
        if r < rate / 3:
            continue                         # deletion
        if r < 2 * rate / 3:
            out.append(rng.integers(0, 4))   # insertion
        if r < rate:
            out.append((c + rng.integers(1, 4)) % 4)
        else:
            out.append(c)
    return np.array(out, dtype=np.uint8)


@pytest.mark.parametrize("seed", range(8))
def test_unpruned_extension_is_optimal(seed):
    rng = np.random.default_rng(seed)
    sc = lastz_scoring()
    n = int(rng.integers(1, 300))
    t = rng.integers(0, 4, n).astype(np.uint8)
    q = mutate(rng, t, rng.choice([0.02, 0.1, 0.3]))
    if len(q) == 0:
        q = np.array([0], dtype=np.uint8)
    best, bi, bj, cells, ops, *_ = one_side(t, q, sc, 1 << 26)
    assert best == full_affine_best(t, q, sc.matrix, sc.gap_open, sc.gap_extend)
    # the traceback spells both prefixes and re-scores to the best score
    assert (ops != G.OP_I).sum() == bj and (ops != G.OP_D).sum() == bi
    assert G.rescore(ops, t, 0, q, 0, sc.matrix, sc.gap_open, sc.gap_extend) == best


@pytest.mark.parametrize("seed", range(4))
def test_pruned_extension_is_a_valid_path(seed):
    rng = np.random.default_rng(100 + seed)
    sc = lastz_scoring()
    t = rng.integers(0, 4, 300).astype(np.uint8)
    q = mutate(rng, t, 0.15)
    best, bi, bj, cells, ops, *_ = one_side(t, q, sc, 2000)
    assert best <= full_affine_best(t, q, sc.matrix, sc.gap_open, sc.gap_extend)
    assert G.rescore(ops, t, 0, q, 0, sc.matrix, sc.gap_open, sc.gap_extend) == best
    assert cells < (len(t) + 1) * (len(q) + 1)


def test_walls_stop_an_extension():
    sc = lastz_scoring()
    rng = np.random.default_rng(9)
    t = rng.integers(0, 4, 200).astype(np.uint8)
    walls = np.zeros((len(t) + 2, 1, 2), dtype=np.int32)
    walls[100, 0] = (0, 300)  # a wall across every query position at target lattice 100
    best, bi, bj, *_ = one_side(t, t.copy(), sc, 9400, walls)
    assert bj < 100


def test_extend_anchors_finds_one_alignment_per_region():
    sc = lastz_scoring()
    rng = np.random.default_rng(11)
    t = rng.integers(0, 4, 3000).astype(np.uint8)
    q = mutate(rng, t, 0.03)
    anchors_q = np.array([500, 1500, 2500], dtype=np.int64)
    # the anchors lie on the same alignment: the first one's path covers the others
    ops_len = len(q)
    res = G.extend_anchors(t, q, anchors_q[:1], anchors_q[:1], np.array([0]), np.array([len(t)]),
                           np.array([0]), np.array([ops_len]), sc.matrix, 400, 30, 9400, 3000, False, 4)
    assert len(res[0]) == 1
    assert res[1][0] - res[0][0] > 2500


def random_walls(rng, n, nq, slots, densities, lengths):
    """Walls for target rows 0 to n + 1: in a share of the rows (one of ``densities``) an interval of
    one of ``lengths`` query positions, and in 30 % of those a one-cell wall after it."""
    walls = np.zeros((n + 2, slots, 2), dtype=np.int32)
    for x in np.flatnonzero(rng.random(n + 2) < rng.choice(densities)):
        a = int(rng.integers(0, nq + 1))
        walls[x, 0] = (a, a + int(rng.choice(lengths)))
        if rng.random() < 0.3:
            b = walls[x, 0, 1] + int(rng.integers(5, 50))
            walls[x, 1] = (b, b + 1)
    return walls


@pytest.mark.parametrize("seed", range(6))
def test_walls_as_the_kernel_model_sees_them(seed):
    """Random walls: the DP (walls found by its scan ahead) matches the GPU kernel's cell-by-cell model."""
    from gpukernels.gpu.kernel_twin import side_dp
    rng = np.random.default_rng(100 + seed)
    sc = lastz_scoring()
    n = int(rng.integers(200, 700))
    t = rng.integers(0, 4, n).astype(np.uint8)
    q = mutate(rng, t, 0.08)
    walls = random_walls(rng, n, len(q), 2, [0.01, 0.05, 0.3], [1, 2, 3])
    best, bi, bj, cells, *_ = one_side(t, q, sc, 9400, walls)
    task = np.array([0, 1, n, 0, 1, len(q), 1 << 40, 0, 0], dtype=np.int64)
    z8, z32, z64 = np.zeros(1, np.uint8), np.zeros(1, np.int32), np.zeros(1, np.int64)
    ref = side_dp(t, q, task, sc.matrix.astype(np.int64), sc.gap_open, sc.gap_extend, 9400, walls, 1 << 20, 0, 0,
                  z8, 0, z32, z64, 0)
    assert (best, bi, bj, cells) == tuple(ref[:4])


@pytest.mark.parametrize("seed", range(6))
def test_walls_on_both_sides_and_in_a_resumed_sweep(seed):
    """Random walls, gaps' long ones among them: each side as the kernel's cell-by-cell model sees it.

    The sweep files each wall interval as the anti-diagonals it crosses
    (``cpu/wall_events.py``); a sweep stopped at an anti-diagonal and resumed
    (as the host's redo and the relay do) reads the rows of its range again.
    """
    from gpukernels.cpu.gapped import ST_BEST, ST_BI, ST_BJ, ST_CELLS, ST_DONE, _flat_matrix, origin_state, side_frame, \
        ydrop_sweep
    from gpukernels.gpu.gapped import _tasks_of
    from gpukernels.gpu.kernel_twin import side_dp
    rng = np.random.default_rng(200 + seed)
    sc = lastz_scoring()
    n = int(rng.integers(300, 800))
    t = rng.integers(0, 4, n).astype(np.uint8)
    q = mutate(rng, t, 0.08)
    walls = random_walls(rng, n, len(q), 3, [0.02, 0.1, 0.4], [1, 2, 3, 40, 150])
    aq = at = min(n, len(q)) // 2
    walls[at + 1] = 0       # (an anchor is never on a kept path)
    one = np.array([0])
    tasks = _tasks_of(one, np.array([aq]), np.array([at]), one, np.array([n]), one, np.array([len(q)]), False)
    z8, z32, z64 = np.zeros(1, np.uint8), np.zeros(1, np.int32), np.zeros(1, np.int64)
    t_rev, q_rev = t[::-1].copy(), q[::-1].copy()
    for right in (0, 1):
        ref = side_dp(t, q, tasks[right], sc.matrix.astype(np.int64), sc.gap_open, sc.gap_extend, 9400, walls,
                      1 << 20, 0, 0, z8, 0, z32, z64, 0)
        frame = side_frame(bool(right), t, q, t_rev, q_rev, aq, at, 0, n, 0, len(q), False)
        dp = frame[:6] + (_flat_matrix(sc.matrix), np.int32(sc.gap_open + sc.gap_extend), np.int32(sc.gap_extend),
                          9400, frame[6], walls) + frame[7:]
        got = []
        for cut in (1 << 62, int(rng.integers(2, 200))):
            work = np.empty((8, len(q) + 2), dtype=np.int32)
            st, tb, off, lo = origin_state(work, np.empty(16, np.uint8), np.empty(4, np.int64), np.empty(4, np.int64))
            tb, off, lo = ydrop_sweep(*dp, work, tb, off, lo, True, st, cut)
            if st[ST_DONE] == 0:
                tb, off, lo = ydrop_sweep(*dp, work, tb, off, lo, True, st, 1 << 62)
            got.append((st[ST_BEST], st[ST_BI], st[ST_BJ], st[ST_CELLS]))
        assert got[0] == got[1] == tuple(ref[:4])
