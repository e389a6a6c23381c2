"""The executor from the inspector's checkpoints (``Ck16`` in ``cuda/gapped.cu``, ``runner.CK_EVERY``): long
sides run as segments at once give the same columns, routes and rows at the best as whole sides, and
the emulator's (GPU only, ``gpu`` mark)."""

from __future__ import annotations

import numpy as np
import pytest

from gpukernels.gpu import runner as gr
from gpukernels.gpu.runner import R_BI, R_BJ, R_CAB

from test_gpu_routes import _sides

pytestmark = [pytest.mark.gpu]


@pytest.mark.parametrize("seed", [5, 6])
def test_segments_equal_whole_sides(seed):
    tasks, device, emu = _sides(seed, 30000, 40)
    res, band = device.inspect(tasks)
    res_ck, band_ck, marks = device.inspect(tasks, marks=True)
    # the checkpoints change nothing of the inspection
    assert np.array_equal(res, res_ck) and np.array_equal(band, band_ck)
    assert marks is not None
    run = np.flatnonzero((band > 0) & (res[:, R_BI] + res[:, R_BJ] > 0))
    ds = res[run, R_BI] + res[run, R_BJ]
    segments = gr.split_sides(ds, marks.bits[run], marks.every)[0]
    assert len(segments) > len(run) + 10, "too few sides split to test"
    cab = res[run, R_CAB]
    tbb = np.concatenate([[0], np.cumsum(cab)[:-1]]).astype(np.int64)
    adb = np.concatenate([[0], np.cumsum(ds + 1)[:-1]]).astype(np.int64)
    call = (tasks[run], band[run], ds, tbb, adb, int(cab.sum()), int((ds + 1).sum()), res[run, R_BI], res[run, R_BJ])
    keep = np.arange(len(run), dtype=np.int64)
    whole = device.execute(*call, keep=keep)
    rows_whole = device.kept_rows(keep)
    rows_whole = (rows_whole[0].copy(), rows_whole[1].copy())
    split = device.execute(*call, keep=keep, marks=marks, mark_of=run)
    rows_split = device.kept_rows(keep)
    want = emu.execute(*call)
    for w, a, b in zip(want, whole, split):
        assert np.array_equal(np.asarray(w), np.asarray(a))
        assert np.array_equal(np.asarray(a), np.asarray(b))
    assert np.array_equal(rows_whole[0], rows_split[0]) and np.array_equal(rows_whole[1], rows_split[1])
