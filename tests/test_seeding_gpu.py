"""GPU equals CPU for the FM-index search, the SeedHit counts and filter, and the gecko preset."""

import numpy as np
import pytest

from gpukernels import fmindex, gecko, seedhit

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(1)
    t = rng.integers(0, 4, 300_000).astype(np.uint8)
    t[1000:1500] = 4
    t[50_000] = 5
    t[60_000:62_000] = np.tile(t[10:30], 100)
    q = t[20_000:120_000].copy()
    q[rng.random(len(q)) < 0.04] = rng.integers(0, 4, 1)[0]
    q[5000:5100] = 4
    return t, q


@pytest.mark.parametrize("m", [0, 1, 2])
def test_fmindex_gpu_equals_cpu(pair, m):
    t, q = pair
    ix = fmindex.build_index(t)
    hi = 20_000 if m < 2 else 4000
    cpu = fmindex.find_hits(ix, q, 0, hi, 18, m, 128, backend="cpu")
    gpu = fmindex.find_hits(ix, q, 0, hi, 18, m, 128, backend="gpu")
    assert np.array_equal(cpu[0], gpu[0]) and np.array_equal(cpu[1], gpu[1])


@pytest.mark.parametrize("bits", [8, 12, 16])
def test_seedhit_counts_gpu_equal_cpu(pair, bits):
    t, q = pair
    off = np.arange(0, 256 * 300 + 1, 256)
    cpu = seedhit.count_pairs(t, off, q, off, bits, backend="cpu")
    gpu = seedhit.count_pairs(t, off, q, off, bits, backend="gpu")
    assert np.array_equal(cpu, gpu)
    cw = seedhit.best_window_counts(t[:40_000], q[:20_000], bits, 256, backend="cpu")
    gw = seedhit.best_window_counts(t[:40_000], q[:20_000], bits, 256, backend="gpu")
    assert np.array_equal(cw, gw)


@pytest.mark.parametrize("bits", [8, 10, 16])
def test_seedhit_uneven_pairs_gpu_equal_cpu(pair, bits):
    """Pairs of any length: empty, shorter than a b-mer, across N runs, and targets longer than the table."""
    t, q = pair
    rng = np.random.default_rng(bits)
    tl = rng.integers(0, 3000, 2000)
    tl[:4] = [0, bits // 2 - 1, 1, 200_000]
    ql = rng.integers(0, 3000, 2000)
    ql[4:8] = [0, 1, bits // 2, 90_000]
    t_off = np.concatenate(([0], np.cumsum(tl)))
    q_off = np.concatenate(([0], np.cumsum(ql)))
    tt = np.resize(t, t_off[-1])           # cycles through the N run and the separator
    qq = np.resize(q, q_off[-1])
    cpu = seedhit.count_pairs(tt, t_off, qq, q_off, bits, backend="cpu")
    gpu = seedhit.count_pairs(tt, t_off, qq, q_off, bits, backend="gpu")
    assert np.array_equal(cpu, gpu)
    assert cpu[3] > 0 and cpu[0] == 0


def test_candidate_filter_gpu_equals_cpu():
    rng = np.random.default_rng(3)
    hq = np.sort(rng.integers(0, 1_000_000, 200_000))
    ht = rng.integers(0, 1_000_000, 200_000)
    ht[:50_000] = hq[:50_000] + rng.integers(-40, 40, 50_000)
    cpu = seedhit.filter_candidates(hq, ht, backend="cpu")
    gpu = seedhit.filter_candidates(hq, ht, backend="gpu")
    assert np.array_equal(cpu[0], gpu[0]) and np.array_equal(cpu[1], gpu[1])


@pytest.mark.parametrize("k", [16, 32])
def test_gecko_gpu_equals_cpu(pair, k):
    t, q = pair
    res = []
    for backend in ("cpu", "gpu"):
        hq, ht, seg = gecko.find_hits(t, q, k, backend=backend)
        fr = gecko.fragments(t, q, hq, ht, seg, k, 80.0, backend=backend)
        res.append((hq, ht, fr))
    (a, b, fa), (c, d, fb) = res
    assert np.array_equal(a, c) and np.array_equal(b, d)
    for key in ("q0", "q1", "t0", "score", "ident", "ops"):
        assert np.array_equal(fa[key], fb[key]), key
