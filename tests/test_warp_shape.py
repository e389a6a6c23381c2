"""The warp kernels' launches: warps per block that fit the most warps on a multiprocessor, the executor's queue order."""

import numpy as np

from gpukernels.gpu import runner
from gpukernels.gpu.runner import _exec_order, _exec_steps, _warp_shape

H100 = {"MaxSharedMemoryPerMultiprocessor": 233472, "MaxSharedMemoryPerBlockOptin": 232448,
        "ReservedSharedMemoryPerBlock": 1024, "MaxRegistersPerMultiprocessor": 65536, "MultiProcessorCount": 132}


class Kernel:
    def __init__(self, num_regs):
        self.num_regs = num_regs


def rows(band, pairs16=False):
    """A warp's bytes of rows at ``band``: 7 rows of band ints, or (ydrop16) of band / 2 words."""
    return 7 * (2 if pairs16 else 4) * band


def test_band_512_fits_16_warps_in_two_blocks_of_8():
    # blocks of 4 warps (57,344 bytes) leave a kilobyte short of a fourth block: 12 warps
    assert _warp_shape(Kernel(93), rows(512), H100) == (8, 2 * 132)


def test_pairs_at_band_512_fit_the_warps_their_registers_allow():
    # ydrop16's rows of half the bytes: 108 registers allow 18 warps (3 blocks of 6), which the
    # rows of 32-bit ints (16 warps at most by shared memory) did not
    tpb, grid = _warp_shape(Kernel(108), rows(512, True), H100)
    assert tpb * grid // 132 == 18


def test_registers_limit_the_warps():
    tpb, grid = _warp_shape(Kernel(255), rows(512), H100)
    assert tpb * grid // 132 <= 65536 // (255 * 32)


def test_band_2048():
    tpb, grid = _warp_shape(Kernel(93), rows(2048), H100)
    assert tpb * rows(2048) <= H100["MaxSharedMemoryPerBlockOptin"]
    assert (tpb, grid) == (2, 2 * 132)


def test_executor_steps_count_anti_diagonals_and_warp_steps():
    # three tasks' traceback bases: 100, 64,000 and 320 cells
    steps = _exec_steps([10, 2000, 5], [0, 100, 64100], 64420)
    assert steps.tolist() == [10 + 3, 2000 + 2000, 5 + 10]
    # the queue takes the long chain first
    assert np.argsort(-steps, kind="stable").tolist() == [1, 2, 0]


def test_executor_order_puts_long_wide_chains_apart_first(monkeypatch):
    monkeypatch.setattr(runner, "EXEC_WIDE_STEPS", 1000)
    monkeypatch.setattr(runner, "EXEC_WIDE_WIDTH", 64)
    # anti-diagonals and cells: short; long and wide (100 cells an anti-diagonal); long and narrow
    # (10 cells: a warp sweeps it in one step); wide in the second band
    dstop = np.array([10, 500, 3000, 600])
    cells = np.array([100, 50_000, 30_000, 60_000])
    tbb = np.concatenate([[0], np.cumsum(cells)[:-1]])
    band = np.array([512, 512, 512, 2048])
    order, lone = _exec_order(band, dstop, tbb, int(cells.sum()), False)
    assert lone.tolist() == [False, True, False, True]
    assert order.tolist() == [1, 2, 0, 3]
    # a round's tasks already run in blocks
    order, lone = _exec_order(band, dstop, tbb, int(cells.sum()), True)
    assert not lone.any() and order.tolist() == [2, 1, 0, 3]


def test_a_quota_gives_blocks_for_every_task_and_none_fills_the_device_once():
    """With a quota each warp takes at most that many tasks, so the blocks cover them all (and end as
    they go); without one the warps drain the queue, so the blocks only fill the device once."""
    from gpukernels.gpu.runner import warp_blocks
    assert warp_blocks(8192, 1, 2112, 0) == 2112
    assert warp_blocks(100, 1, 2112, 0) == 100
    assert warp_blocks(8192, 1, 2112, 1) == 8192
    assert warp_blocks(8191, 2, 2112, 4) == 1024
    for n, tpb, quota in ((1, 1, 1), (4097, 8, 1), (8192, 4, 3), (5, 2, 2)):
        blocks = warp_blocks(n, tpb, 16, quota)
        assert blocks * tpb * quota >= n > (blocks - 1) * tpb * quota
    assert runner.INSPECT_QUOTA > 0
