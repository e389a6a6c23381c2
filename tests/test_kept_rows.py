"""The host's store of rows at the best: packed dumps appended, decided anchors' rows compacted away."""

import numpy as np

from gpukernels.gpu.kept_rows import KeptRows, append_rows, compact_rows, kept_on_host
from gpukernels.gpu.runner import DUMP_HEAD, KEEP_W, _keep_stride, _pack_dumps


def random_dumps(rng, count):
    """Dumps as the kernel writes them: a header (d, ..., width at [11]) and four rows of KEEP_W + 2."""
    dumps = rng.integers(-1000, 1000, size=(count, _keep_stride())).astype(np.int32)
    dumps[:, 0] = rng.integers(-1, 50, size=count)
    dumps[:, 11] = rng.integers(0, KEEP_W + 1, size=count)
    return dumps


def expected(dump):
    n, stride = dump[11], KEEP_W + 2
    rows = [dump[DUMP_HEAD + r * stride:DUMP_HEAD + r * stride + n] for r in range(4)]
    return np.concatenate([dump[:DUMP_HEAD]] + rows)


def test_packed_rows_read_back_as_the_dumps_held():
    rng = np.random.default_rng(3)
    host, used = np.empty(0, dtype=np.int32), 0
    host_at = np.full(200, -1, dtype=np.int64)
    held = {}
    for batch in range(4):
        rows = rng.choice(200, size=30, replace=False)
        dumps = random_dumps(rng, 30)
        flat, at = _pack_dumps(dumps)
        host_at[rows] = -1
        host, used = append_rows(host, used, host_at, rows, flat, at)
        for row, dump in zip(rows, dumps):
            held.pop(row, None)
            if dump[0] >= 1:
                held[row] = expected(dump)
    for row in range(200):
        got = kept_on_host(host[:used], host_at, row)
        assert np.array_equal(got, held.get(row, got[:0])), row


def test_compaction_keeps_the_rows_of_undecided_anchors():
    rng = np.random.default_rng(5)
    dumps = random_dumps(rng, 80)
    dumps[:, 0] = 1
    rows = rng.permutation(80)
    flat, at = _pack_dumps(dumps)
    host_at = np.full(80, -1, dtype=np.int64)
    host, used = append_rows(np.empty(4, dtype=np.int32), 0, host_at, rows, flat, at)
    status = rng.choice([1, 2, 4], size=40).astype(np.int8)
    want = {row: expected(dump) for row, dump in zip(rows, dumps) if status[row // 2] != 4}
    host, used = compact_rows(host, host_at, status)
    assert used == sum(len(v) for v in want.values())
    for row in range(80):
        if row in want:
            assert np.array_equal(kept_on_host(host, host_at, row), want[row])
        else:
            assert host_at[row] == -1


def test_slots_taken_freed_and_reclaimed_keep_their_owners():
    """The arena's slot bookkeeping (``KeptRows``): a fresh slot is the last one freed, a side's former
    slot is freed when it takes another, a decided anchor's slots are reclaimed when none is free, and
    every slot is either free or held by the one side that points at it."""
    rng = np.random.default_rng(5)
    kept = KeptRows(24, 40)
    status = np.zeros(20, dtype=np.int8)
    first = kept.fresh(3, status)
    assert first.tolist() == [0, 1, 2]
    kept.release(first)
    for _ in range(300):
        want = int(rng.integers(0, 12))
        free_before = list(kept.free)
        got = kept.fresh(want, status)
        if len(free_before) >= want:
            assert got.tolist() == free_before[::-1][:want]
        rows = rng.choice(40, size=min(want, 40), replace=False)
        kept.assign(rows[:want // 2], got[:want // 2])
        kept.release(got[want // 2:])
        if rng.random() < 0.2:
            status[rng.integers(0, 20)] = 4
        if rng.random() < 0.2:
            kept.assign(rng.choice(40, size=3, replace=False), -1)
        held = np.flatnonzero(kept.owner >= 0)
        assert (kept.slot_of[kept.owner[held]] == held).all()
        assert sorted(kept.free + held.tolist()) == list(range(24))
