"""The executor's records and ``ydrop_trace``'s routes of them on the device equal the kernel twin's
(``gpu/kernel_twin.side_routes``, which the emulator and the walk's proof use; GPU only, ``gpu`` mark)."""

from __future__ import annotations

import numpy as np
import pytest

from gpukernels.gpu import gapped as gg
from gpukernels.gpu.runner import R_BI, R_BJ, R_CAB
from gpukernels.scoring import Scoring

pytestmark = [pytest.mark.gpu]


def _pair(rng, n, indels):
    """A random target and a copy with 8 % substitutions and short indels (as tests/test_path_holds.py)."""
    t = rng.integers(0, 4, n).astype(np.uint8)
    q = []
    for x in range(n):
        u = rng.random()
        if u < indels / 2:
            continue
        if u < indels:
            q.extend(rng.integers(0, 4, int(rng.integers(1, 6))).tolist())
        q.append(int(t[x]) if rng.random() > 0.08 else int(rng.integers(0, 4)))
    return t, np.array(q, dtype=np.uint8)


def _sides(seed, length, n):
    """Tasks of ``n`` anchors along a random diverged pair of ``length`` letters, and a device runner
    and an emulator on the pair."""
    from gapped_emulator import EmuRunner
    from gpukernels.gpu.runner import DeviceRunner
    sc = Scoring()
    rng = np.random.default_rng(seed)
    t, q = _pair(rng, length, 0.01)
    aq = np.sort(rng.integers(100, len(q) - 100, n))
    at = np.clip(aq * len(t) // len(q), 0, len(t) - 1)
    tasks = gg._tasks_of(np.arange(n), aq, at, np.zeros(n, np.int64), np.full(n, len(t)), np.zeros(n, np.int64),
                         np.full(n, len(q)), False)
    args = (t, q, sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop, 4, 1 << 28)
    return tasks, DeviceRunner(*args), EmuRunner(*args)


@pytest.mark.parametrize("wide", [False, True])
def test_device_routes_equal_the_twins(wide):
    tasks, device, emu = _sides(3, 20000, 48)
    res, band = emu.inspect(tasks)
    run = np.flatnonzero((band > 0) & (res[:, R_BI] + res[:, R_BJ] > 0))
    ds = res[run, R_BI] + res[run, R_BJ]
    cab = res[run, R_CAB]
    tbb = np.concatenate([[0], np.cumsum(cab)[:-1]]).astype(np.int64)
    adb = np.concatenate([[0], np.cumsum(ds + 1)[:-1]]).astype(np.int64)
    call = (tasks[run], band[run], ds, tbb, adb, int(cab.sum()), int((ds + 1).sum()), res[run, R_BI], res[run, R_BJ],
            wide)
    want = emu.execute(*call)
    got = device.execute(*call)
    for w, g in zip(want, got):
        assert np.array_equal(np.asarray(w), np.asarray(g))
    # some sides have routes, and none outgrew its room
    assert (want[3] > 0).sum() > 0 and (want[3] >= 0).all()
    # without routes: the same columns, no routes
    bare = device.execute(*call, routes=False)
    assert np.array_equal(bare[0], want[0]) and (bare[3] == -1).all()


def test_round_records_equal_the_twins():
    """A round's packed records (``ydrop_pack``, mode 2) equal the emulator's, so the host's routes
    of a round's sides (``gapped._traced_columns``) are the twin's."""
    tasks, device, emu = _sides(4, 12000, 16)
    room = (np.full(len(tasks), 1 << 22), np.full(len(tasks), 1 << 14))
    r_emu, _, traced_emu = emu.inspect_traced(tasks, *room)
    r_dev, _, traced_dev = device.inspect_traced(tasks, *room)
    assert np.array_equal(r_emu, r_dev)
    assert (r_dev[:, R_BI] + r_dev[:, R_BJ] > 0).sum() > 0
    names = ("tb_lo", "tb_off", "tbb", "adb", "rec")
    for name, w, g in zip(names, traced_emu[1:], traced_dev[1:]):
        assert np.array_equal(np.asarray(w), np.asarray(g)), name
    assert (traced_dev[5] >= 0).sum() > 0
