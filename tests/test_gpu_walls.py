"""The host's walls in pinned memory kept between calls, and their uploads (GPU only, ``gpu`` mark)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu]


def _runner(n):
    from gpukernels.gpu import runner as gr
    from gpukernels.scoring import lastz_scoring
    sc = lastz_scoring()
    t = np.random.default_rng(1).integers(0, 4, n).astype(np.uint8)
    return gr.DeviceRunner(t, t, sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop, 4, 1 << 28)


def _write(rng, walls, spans):
    for a, b in spans:
        walls[a:b] = rng.integers(1, 1000, (b - a,) + walls.shape[1:])


@pytest.mark.parametrize("dense", [True, False])
def test_uploads_equal_host_walls_and_walls_come_back_zero(dense):
    from gpukernels.gpu import runner as gr
    rng = np.random.default_rng(5 if dense else 6)
    runner = _runner(20000)
    walls = runner.host_walls()
    assert gr._WALLS.owns(walls) and not walls.any()
    spans = np.array([[100, 9000], [9500, 15000]] if dense else [[10, 40], [700, 760], [12000, 12003]],
                     dtype=np.int64)
    _write(rng, walls, spans)
    runner.set_walls(walls, spans)
    assert np.array_equal(runner.walls.get(), walls)
    # a second upload on top of the first (the walk uploads only what it kept since)
    more = np.array([[15000, 15100]], dtype=np.int64)
    _write(rng, walls, more)
    runner.set_walls(walls, more)
    assert np.array_equal(runner.walls.get(), walls)
    runner.give_walls(walls, np.concatenate([spans, more]))
    again = runner.host_walls()
    assert again.ctypes.data == walls.ctypes.data and not again.any()
    runner.give_walls(again, np.zeros((0, 2), np.int64))


def test_walls_from_ordinary_memory_upload_the_same():
    rng = np.random.default_rng(7)
    runner = _runner(5000)
    walls = np.zeros(runner.walls.shape, np.int32)
    for spans in ([[0, 4000]], [[10, 20], [3000, 3010]]):
        spans = np.array(spans, dtype=np.int64)
        _write(rng, walls, spans)
        runner.set_walls(walls, spans)
        assert np.array_equal(runner.walls.get(), walls)
    runner.give_walls(walls, np.zeros((0, 2), np.int64))      # not the pool's: left alone
