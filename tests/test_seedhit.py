"""SeedHit: the threshold formula, b-mer counts against sets, the candidate filter against loops."""

import numpy as np
import pytest

from gpukernels import seedhit


def bmers(codes, L):
    return [codes[i:i + L].tobytes() for i in range(len(codes) - L + 1) if (codes[i:i + L] < 4).all()]


def brute_count(t, q, L):
    present = set(bmers(t, L))
    return sum(1 for w in bmers(q, L) if w in present)


def test_threshold_worked_examples():
    # q-gram lemma: n - L + 1 - L*e with e = floor((1 - s) n)
    assert seedhit.threshold(256, 8, 90.0) == 256 - 4 + 1 - 4 * 25          # 153
    assert seedhit.threshold(256, 16, 90.0) == 256 - 8 + 1 - 8 * 25         # 49
    assert seedhit.threshold(100, 12, 95.0) == 100 - 6 + 1 - 6 * 5          # 65
    assert seedhit.threshold(256, 16, 80.0) <= 0                             # vacuous: always passes
    assert seedhit.threshold([256, 512], 16, 90.0).tolist() == [49, 505 - 8 * 51]


@pytest.mark.parametrize("bits", [8, 12, 16])
def test_similar_pairs_never_rejected(bits):
    """Pairs at exactly the cutoff (substitutions and indels) always pass; random pairs mostly fail."""
    rng = np.random.default_rng(bits)
    n, s = 256, 95.0
    e = int((100 - s) * n / 100)
    ts, qs = [], []
    for k in range(200):
        t = rng.integers(0, 4, n).astype(np.uint8)
        q = t.copy()
        for _ in range(e):
            p = int(rng.integers(0, len(q)))
            kind = k % 3
            if kind == 0:
                q[p] = (q[p] + 1 + rng.integers(0, 3)) % 4
            elif kind == 1:
                q = np.delete(q, p)
            else:
                q = np.insert(q, p, rng.integers(0, 4))
        ts.append(t)
        qs.append(q[:n] if len(q) >= n else q)
    for k in range(200):
        ts.append(rng.integers(0, 4, n).astype(np.uint8))
        qs.append(rng.integers(0, 4, n).astype(np.uint8))
    t_off = np.cumsum([0] + [len(x) for x in ts])
    q_off = np.cumsum([0] + [len(x) for x in qs])
    ok, counts, need = seedhit.screen_pairs(np.concatenate(ts), t_off, np.concatenate(qs), q_off, s, bits)
    assert counts.tolist() == [brute_count(t, q, bits // 2) for t, q in zip(ts, qs)]
    assert ok[:200].all()
    if bits >= 12:
        assert not ok[200:].any()


def test_window_counts_equal_brute_force():
    rng = np.random.default_rng(4)
    t = rng.integers(0, 4, 3000).astype(np.uint8)
    q = rng.integers(0, 4, 1300).astype(np.uint8)
    q[300:556] = t[1000:1256]
    q[700] = 4
    W, bits = 256, 12
    got = seedhit.best_window_counts(t, q, bits, W)
    want = []
    for w in range(0, len(q), W):
        qw = q[w:w + W]
        want.append(max(brute_count(t[s:s + 2 * W], qw, bits // 2) for s in range(0, len(t), W)))
    assert got.tolist() == want
    ok, why = seedhit.screen_units(t, q, 95.0, bits=16, window=W)
    assert ok, why
    ok, why = seedhit.screen_units(t, rng.integers(0, 4, 1300).astype(np.uint8), 95.0, bits=16, window=W)
    assert not ok, why
    rc = np.array([3, 2, 1, 0, 4, 5], dtype=np.uint8)
    ok, why = seedhit.screen_units(t, rc[q[::-1]], 95.0, bits=16, window=W)    # the other strand
    assert ok and "(-)" in why


def test_candidate_filter_equals_loop():
    rng = np.random.default_rng(7)
    n = 3000
    hq = np.sort(rng.integers(0, 100_000, n))
    ht = rng.integers(0, 100_000, n)
    ht[:300] = hq[:300] + 500 + rng.integers(-3, 3, 300)   # a run of hits near one diagonal
    fq, ft = seedhit.filter_candidates(hq, ht)
    keep = []
    band = (ht - hq) >> seedhit.BAND_SHIFT
    win = hq >> seedhit.WIN_SHIFT
    for i in range(n):
        near = np.count_nonzero((np.abs(band - band[i]) <= 1) & (np.abs(win - win[i]) <= 1))
        keep.append(near >= 2)
    keep = np.array(keep)
    assert fq.tolist() == hq[keep].tolist() and ft.tolist() == ht[keep].tolist()
    assert keep[:300].mean() > 0.95 and keep[300:].mean() < 0.2
