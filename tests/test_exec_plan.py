"""An execution's host tables in one compiled call (``runner._exec_plan``) against their numpy forms: the
launch order and lone tasks of ``_exec_order``, the bases, the routes' room and the launches (CPU only)."""

from __future__ import annotations

import numpy as np
import pytest

from gpukernels.gpu import runner as gr


def _case(seed, n, bands):
    rng = np.random.default_rng(seed)
    tasks = rng.integers(-5, 1 << 40, (n, 9))
    band = rng.choice(bands, n)
    dstop = rng.integers(1, 8000, n)
    width = rng.integers(1, 400, n)
    cab = dstop * width
    cab[rng.random(n) < 0.1] = 0
    tbb = np.concatenate([[0], np.cumsum(cab)[:-1]])
    adb = np.concatenate([[0], np.cumsum(dstop + 1)[:-1]])
    bi = rng.integers(0, 4000, n)
    bj = dstop - bi
    keep = np.where(rng.random(n) < 0.7, rng.integers(0, 100, n), -1)
    return tasks, band, dstop, tbb, adb, bi, bj, keep, int(cab.sum())


@pytest.mark.parametrize("wide, routes, bands", [(False, True, (512,)), (False, False, (512, 2048)),
                                                 (True, True, (8192,))])
def test_exec_plan_equals_numpy(wide, routes, bands):
    n = 700
    tasks, band, dstop, tbb, adb, bi, bj, keep, total = _case(len(bands) + wide, n, bands)
    at, size = gr._exec_layout(n, routes)
    out = np.full(size, 7, dtype=np.int64)
    order, parts = gr._exec_plan(out, tasks, band, dstop, tbb, adb, bi, bj, keep, total, wide, True,
                                 gr.EXEC_WIDE_STEPS, gr.EXEC_WIDE_WIDTH, routes, gr.ROUTE_ROOM_PER_AD,
                                 gr.ROUTE_ROOM_EXTRA)
    want_order, lone = gr._exec_order(band, dstop, tbb, total, wide)
    assert order.tolist() == want_order.tolist()
    assert lone.any() != wide
    obase = np.concatenate([[0], np.cumsum(bi + bj)[:-1]])
    assert np.array_equal(out[:9 * n].reshape(n, 9), tasks)
    for name, want in (("tbb", tbb), ("adb", adb), ("bi", bi), ("bj", bj), ("obase", obase),
                       ("o_tbb", tbb[order]), ("o_adb", adb[order]), ("o_dstop", dstop[order])):
        assert np.array_equal(out[at[name]:at[name] + n], want), name
    assert np.array_equal(out[at["o_tasks"]:at["o_tasks"] + 9 * n].reshape(n, 9), tasks[order])
    slots = out[at["o_slots"]:at["o_slots"] + 2 * n].reshape(n, 2)
    assert np.array_equal(slots[:, 0], keep[order]) and (slots[:, 1] == -1).all()
    if routes:
        rbase = np.concatenate([[0], np.cumsum(gr.route_room(bi, bj))])
        assert np.array_equal(out[at["rbase"]:at["rbase"] + n + 1], rbase)
    assert (out[at["queues"]:] == 0).all() and len(out) == at["queues"] + gr.EXEC_QUEUES
    # the launches: per band its lone tasks first, then the others, covering the order once
    want = []
    sb = band[order]
    for b in np.unique(sb):
        rows = np.flatnonzero(sb == b)
        k = int(lone[order[rows]].sum())
        if k:
            want.append([rows[0], rows[0] + k, b, 1])
        if len(rows) > k:
            want.append([rows[0] + k, rows[-1] + 1, b, 0])
    assert parts.tolist() == want
