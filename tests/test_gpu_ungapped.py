"""The GPU's ungapped x-drop against the CPU twin on sequences built to end passes anywhere (GPU only)."""

from __future__ import annotations

import numpy as np
import pytest

from gpukernels import seeds, ungapped
from gpukernels.scoring import lastz_scoring

pytestmark = [pytest.mark.gpu]


def mosaic(rng, n):
    """A target and a query that copies it with stretches of every kind: identical (up to 20 kb),
    sparse and dense mismatches, N runs (scored -1000) and unrelated sequence, so that passes run
    long, stop at every offset within a step of the kernel, and meet masked letters."""
    t = rng.integers(0, 4, n).astype(np.uint8)
    q = t.copy()
    at = 0
    while at < n:
        size = int(rng.choice([7, 31, 128, 129, 500, 4000, 20000]))
        kind = rng.integers(0, 5)
        stop = min(n, at + size)
        if kind == 1:
            flip = rng.random(stop - at) < 0.02
        elif kind == 2:
            flip = rng.random(stop - at) < 0.3
        elif kind == 3:
            q[at:stop] = rng.integers(0, 4, stop - at)
            flip = np.zeros(stop - at, bool)
        elif kind == 4:
            q[at:min(stop, at + 3)] = 4
            flip = np.zeros(stop - at, bool)
        else:
            flip = np.zeros(stop - at, bool)
        q[at:stop][flip] = (q[at:stop][flip] + 1) % 4
        at = stop
    return t, q


@pytest.mark.parametrize("seed_value", range(3))
@pytest.mark.parametrize("xdrop", [None, 150, 5000])
@pytest.mark.parametrize("cap", [None, 3])
def test_ungapped_passes_equal_cpu(seed_value, xdrop, cap, monkeypatch):
    """Every pass against the CPU's, with the lane kernel's default cap and with a cap of 3 letters,
    which hands nearly every diagonal on to the warp kernel at one hit or another."""
    from gpukernels.cpu import ungapped as cu
    from gpukernels.gpu import ungapped as gu
    if cap is not None:
        monkeypatch.setattr(gu, "KERNEL_OPTIONS", gu.KERNEL_OPTIONS + (f"-DLANE_PASS_CAP={cap}",))
    rng = np.random.default_rng(seed_value)
    t, q = mosaic(rng, 300_000)
    sc = lastz_scoring()
    xd = sc.xdrop if xdrop is None else xdrop
    seed = seeds.parse_seed()
    mm = ungapped.masked_matrix(sc.matrix)
    index = seeds.build_index(t, seed, "cpu")
    qk = seeds.seed_keys(q, seed, "cpu")
    de_c = np.full(len(t) + len(q) + 1, -1, dtype=np.int64)
    de_g = de_c.copy()
    for lo in range(0, len(q), 100_000):
        hq, ht = seeds.find_hits(index, qk, lo, min(lo + 100_000, len(q)), True, 0, "cpu")
        c = cu.extend_hits(t, q, hq, ht, seed.span, mm, xd, de_c, 1)
        g = gu.extend_hits(t, q, hq, ht, seed.span, mm, xd, de_g, 1)
        for a, b in zip(g, c):
            assert np.array_equal(a, b)
        assert np.array_equal(de_g, de_c)
    assert len(c[0]) > 10


@pytest.mark.parametrize("seed_value", range(3))
def test_anchors_equal_cpu(seed_value):
    """The device's anchors equal the CPU twin's: HSPs of every length (a window's and shorter, runs
    longer than the kernel's threads, 20 kb stretches) on the mosaic, and bounds cut to end anywhere."""
    from gpukernels.cpu import ungapped as cu
    from gpukernels.gpu import ungapped as gu
    rng = np.random.default_rng(seed_value)
    t, q = mosaic(rng, 300_000)
    sc = lastz_scoring()
    seed = seeds.parse_seed()
    mm = ungapped.masked_matrix(sc.matrix)
    index = seeds.build_index(t, seed, "cpu")
    hq, ht = seeds.find_hits(index, seeds.seed_keys(q, seed, "cpu"), 0, len(q), True, 0, "cpu")
    q0, q1, t0, _, _ = cu.extend_hits(t, q, hq, ht, seed.span, mm, sc.xdrop,
                                      np.full(len(t) + len(q) + 1, -1, dtype=np.int64), 1)
    # and every length from 1 to 300 at random places, ties included (identical stretches score alike)
    n = 3000
    lens = np.concatenate([np.arange(1, 301), rng.integers(1, 40_000, n - 300)])
    s0 = rng.integers(0, len(q) - 40_000, n)
    q0 = np.concatenate([q0, s0])
    q1 = np.concatenate([q1, s0 + lens])
    t0 = np.concatenate([t0, s0])
    assert (q1 - q0).max() > 20_000
    for window in (31, 5):
        want = cu.anchors(t, q, q0, q1, t0, sc.matrix, window)
        got = gu.anchors(t, q, q0, q1, t0, sc.matrix, window)
        for a, b in zip(got, want):
            assert np.array_equal(a, b)
