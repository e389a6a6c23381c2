"""The wave's host bookkeeping in numba (gpu/gapped: _side_tasks, _note_inspection) against plain numpy forms.

CPU only: these run on every inspection and execution of the GPU's gapped
stage, and the device tests would only show a difference as different PAF.
"""

import numpy as np
import pytest

from gpukernels.gpu import gapped as gg
from gpukernels.gpu.kernel_twin import _FAR
from gpukernels.gpu.runner import R_CELLS, R_DIAGS, R_N, R_STATUS, R_STOPPED


def _anchors(rng, n):
    aq = rng.integers(100, 10 ** 6, n)
    at = rng.integers(100, 10 ** 6, n)
    return aq, at, at - rng.integers(0, 90, n), at + rng.integers(2, 500, n), aq - rng.integers(0, 90, n), \
        aq + rng.integers(2, 400, n)


def _task_rows(idx, aq, at, t_lo, t_hi, q_lo, q_hi, self_barrier):
    """The task rows as the numpy form wrote them (left, right per anchor)."""
    a, q = at[idx], aq[idx]
    m = len(idx)
    bl, br = (a - q, q - a) if self_barrier else (np.full(m, _FAR), np.full(m, _FAR))
    tasks = np.empty((2 * m, 9), dtype=np.int64)
    tasks[0::2] = np.stack([a, np.full(m, -1), a - t_lo[idx] + 1, q, np.full(m, -1), q - q_lo[idx] + 1, bl, q + 1,
                            a + 1], axis=1)
    tasks[1::2] = np.stack([a + 1, np.full(m, 1), t_hi[idx] - a - 1, q + 1, np.full(m, 1), q_hi[idx] - q - 1, br,
                            q + 1, a + 1], axis=1)
    return tasks


@pytest.mark.parametrize("self_barrier", [False, True])
def test_task_rows_equal_the_numpy_form(self_barrier):
    rng = np.random.default_rng(3)
    bounds = _anchors(rng, 400)
    idx = rng.permutation(400)[:150]
    assert np.array_equal(gg._tasks_of(idx, *bounds, self_barrier), _task_rows(idx, *bounds, self_barrier))
    sides = np.sort(rng.choice(800, 120, replace=False))
    want = _task_rows(sides // 2, *bounds, self_barrier)[np.arange(len(sides)) * 2 + sides % 2]
    assert np.array_equal(gg._side_tasks(sides, *bounds, self_barrier), want)


def _noted(idx, r, b, at, res_all, band_all, stamp, status):
    """An inspection's results written as the numpy form wrote them; returns its four counts."""
    rows = gg._side_rows(idx)
    stopped = r[:, R_STOPPED] != 0
    res_all[rows, :gg.R_CHECKED] = r
    res_all[rows, gg.R_CHECKED] = 0
    full = rows[~stopped]
    res_all[full, gg.R_FULL_CELLS] = r[~stopped, R_CELLS]
    res_all[full, gg.R_FULL_DIAGS] = r[~stopped, R_DIAGS]
    band_all[rows] = b
    stamp[idx] = at
    failed = (b == 0).reshape(-1, 2)
    gave_up = (r[:, R_STATUS] == 2).reshape(-1, 2) & failed
    status[idx] = 1
    status[idx[failed.any(axis=1)]] = 3
    status[idx[gave_up.any(axis=1) & ~(failed & ~gave_up).any(axis=1)]] = 5
    return (int(stopped.sum()), int((status[idx] == 5).sum()), int(r[r[:, R_STATUS] == 2, R_CELLS].sum()),
            int(r[:, R_CELLS].max()))


def test_inspection_noted_as_the_numpy_form():
    rng = np.random.default_rng(5)
    n = 300
    for _ in range(10):
        idx = rng.permutation(n)[:rng.integers(1, 200)]
        r = rng.integers(0, 3, (2 * len(idx), R_N)).astype(np.int64)
        r[:, R_CELLS] = rng.integers(0, 10 ** 6, len(r))
        b = rng.choice([0, 512, 2048], len(r)).astype(np.int64)
        tables = [np.full((2 * n, gg.R_FULL_DIAGS + 1), -7, np.int64), np.full(2 * n, -3, np.int64),
                  np.zeros(n, np.int64), np.zeros(n, np.int8)]
        want = [x.copy() for x in tables]
        counts = _noted(idx, r, b, 9, *want)
        got = gg._note_inspection(idx, r, b, 9, *tables)
        assert tuple(int(v) for v in got) == counts
        for x, y in zip(tables, want):
            assert np.array_equal(x, y)
