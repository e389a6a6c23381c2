"""The walk's test of an anchor on a kept path: the walls' shortcut gives _on_kept's answer."""
import numpy as np

from gpukernels.cpu.gapped import OP_D, OP_EQ, OP_I, OP_X
from gpukernels.gpu import gapped as gg


def _kept(rng, n, count):
    """``count`` random paths kept on a target of ``n`` rows, many through the same rows (slots overflow)."""
    K = np.zeros((count, 5), np.int64)
    op_off = np.zeros(count + 2, np.int64)
    run_off = np.zeros(count + 2, np.int64)
    ops_all = np.empty(1 << 10, np.uint8)
    runs = np.empty((16, 4), np.int64)
    head = np.full((n >> gg._BSHIFT) + 2, -1, np.int64)
    ents = np.empty((16, 2), np.int64)
    cnt = np.zeros(2, np.int64)
    walls = np.zeros((n + 2, 4, 2), np.int32)
    for _ in range(count):
        m = int(rng.integers(1, 400))
        path = rng.choice(np.array([OP_EQ, OP_X, OP_I, OP_D], np.uint8), m, p=[0.8, 0.1, 0.05, 0.05])
        t0, q0 = int(rng.integers(0, n - m - 1)), int(rng.integers(0, 3000))
        t1 = t0 + int((path != OP_I).sum())
        q1 = q0 + int((path != OP_D).sum())
        ops_all, runs, ents = gg._keep(path, t0, q0, t1, q1, 100, K, cnt, op_off, ops_all, run_off, runs, head, ents,
                                       walls)
    return K, run_off, runs, head, ents, walls, ops_all, op_off


def test_walls_answer_as_the_bucket_lists():
    rng = np.random.default_rng(3)
    n = 6000
    K, run_off, runs, head, ents, walls, ops_all, op_off = _kept(rng, n, 300)
    assert (walls[:, 3, 1] != 0).any()          # some rows full: their answer comes from the lists
    points = [(int(rng.integers(0, 3500)), int(rng.integers(0, n))) for _ in range(20000)]
    # and every substitution cell of the kept paths, and its neighbours
    for k in range(0, 300, 7):
        for r in range(run_off[k], run_off[k + 1]):
            t, q = runs[r, 0], runs[r, 1]
            for d in (0, runs[r, 2] - 1, runs[r, 2]):
                points += [(q + d, t + d), (q + d + 1, t + d), (q + d, t + d + 1)]
    hits = 0
    for aq, at in points:
        want = gg._on_kept(aq, at, 0, K, run_off, runs, head, ents)
        assert gg._kept_here(aq, at, walls, K, run_off, runs, head, ents) == want
        hits += want
    assert hits > 100
