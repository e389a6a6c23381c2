"""Long sides' relay chunks on the GPU (kernel ``ydrop_chunk``) give the sequential sweep's result.

Each chunk is a block of one launch, started from a seed cell as an
extension's origin; its states at the check and at the end come back in
``cpu/relay.snapshot``'s form, so the relay checks every hand-over exactly.
GPU only (``gpu`` mark).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from gpukernels.cpu import gapped as G
from gpukernels.cpu import relay
from gpukernels.scoring import lastz_scoring

from test_gapped import mutate

pytestmark = [pytest.mark.gpu]


@pytest.mark.parametrize("one_wait", [True, False])
@pytest.mark.parametrize("pack", ["table", "copies", "none"])
@pytest.mark.parametrize("right", [1, 0])
@pytest.mark.parametrize("seed", range(4))
def test_gpu_relay_chunks_equal_sequential_sweep(seed, right, pack, one_wait, monkeypatch):
    """Best cell, score, cells, columns and region of a 30-60 kb side equal ydrop_one_side's, with walls.

    Warm-ups of 2,000 anti-diagonals let most chunks take over; seed 3 has a stretch of noise, so
    the side may end inside a round, and its warm-ups of 20 make every check fail (the relay then
    goes on from the true state). ``pack``: the launches' bytes packed before the traceback
    (``runner.RELAY_PACK``) by the table's kernel (``runner.RELAY_PACK_IN_TABLE``) or by a copy per
    chunk, or traced where the kernel wrote them. ``one_wait``: the region comes back
    with the traceback (``runner.RELAY_ONE_WAIT``) or on its own."""
    from gpukernels.gpu import gapped as gg
    from gpukernels.gpu import runner as gr
    monkeypatch.setattr(gr, "RELAY_PACK", pack != "none")
    monkeypatch.setattr(gr, "RELAY_PACK_IN_TABLE", pack == "table")
    monkeypatch.setattr(gr, "RELAY_ONE_WAIT", one_wait)
    rng = np.random.default_rng(300 + seed)
    sc = lastz_scoring()
    n = int(rng.integers(30000, 60000))
    t = rng.integers(0, 4, n).astype(np.uint8)
    if seed == 3:
        t[n // 2:n // 2 + 4000] = rng.integers(0, 4, 4000)
    q = np.asarray(mutate(rng, t, [0.01, 0.03, 0.06, 0.01][seed]), dtype=np.uint8)
    if seed == 3:
        q = q.copy()
        q[len(q) // 2:len(q) // 2 + 4000] = rng.integers(0, 4, 4000)
    walls = np.zeros((n + 1, 4, 2), dtype=np.int32)
    for x in np.flatnonzero(rng.random(n) < [0.0, 0.002, 0.0, 0.001][seed]):
        a = int(rng.integers(0, len(q)))
        walls[x, 0] = (a, a + int(rng.integers(1, 4)))
    aq, at = (0, 0) if right else (len(q) - 1, n - 1)
    one = np.array([0])
    bounds = [np.array([0]), np.array([n]), np.array([0]), np.array([len(q)])]
    frame = G.side_frame(bool(right), t, q, t[::-1].copy(), q[::-1].copy(), aq, at, 0, n, 0, len(q), False)
    tA, T0, tn, qA, Q0, qn, bar, wq0, wt0, wdir = frame
    dp = (tA, T0, tn, qA, Q0, qn, sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop, bar, walls, wq0, wt0, wdir)
    width = qn + 3
    ref = G.ydrop_one_side(*dp, np.empty((8, width), np.int32), np.empty(16, np.uint8), np.empty(4, np.int64),
                           np.empty(4, np.int64))
    runner = gg.DeviceRunner(t, q, sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop, 4, 1 << 30)
    runner.set_walls(walls, np.array([[0, n + 1]]))
    task = gg._tasks_of(one, np.array([aq]), np.array([at]), *bounds, False)[right]
    stats = {}
    with ThreadPoolExecutor(2) as pool:
        got = relay.relay_side(*dp, pool, [np.empty((8, width), np.int32)], chunk=4000,
                               warm=20 if seed == 3 else 2000, stats=stats, chunks=runner.relay_launcher(task, 64, 1 << 30),
                               per_round=4)
    print(seed, right, stats, ref[:4])
    assert tuple(got[:4]) == tuple(ref[:4])
    assert np.array_equal(got[4], ref[4])
    assert np.array_equal(got[5], relay.side_region(ref[6], ref[7], ref[3], ref[1] + ref[2]))
    assert ref[3] > 4000 * 50        # long enough for several rounds
    assert (stats["relay_missed"] if seed == 3 else stats["relay_taken"]) > 0


def test_packed_bytes_keep_each_run():
    """``DeviceRunner._packed_bytes`` puts each run end to end at 16-byte starts, skipping empty ones."""
    import cupy as cp
    from gpukernels.gpu import gapped as gg
    sc = lastz_scoring()
    t = np.zeros(100, np.uint8)
    runner = gg.DeviceRunner(t, t, sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop, 4, 1 << 30)
    rng = np.random.default_rng(5)
    host = rng.integers(0, 256, 1000).astype(np.uint8)
    start = np.array([10, 300, 0, 517], dtype=np.int64)
    nbytes = np.array([33, 0, 7, 200], dtype=np.int64)
    out, at = runner._packed_bytes(cp.asarray(host), start, nbytes)
    assert list(at) == [0, 48, 48, 64]
    got = cp.asnumpy(out)
    for a, s, n in zip(at, start, nbytes):
        assert np.array_equal(got[a:a + n], host[s:s + n])
