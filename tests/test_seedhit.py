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


def _edited(stretch, subs, dels, ins, rng):
    """``stretch`` with substitutions, deletions and insertions at the given stretch positions."""
    out = []
    for i, c in enumerate(stretch.tolist()):
        if i in ins:
            out.append(int(rng.integers(0, 4)))
        if i in dels:
            continue
        out.append((c + 1) % 4 if i in subs else c)
    return np.array(out, dtype=np.uint8)


@pytest.mark.parametrize("min_identity", [90.0, 92.0, 95.0, 97.0])
def test_window_edge_keeps_the_bound(min_identity):
    """A query window at the cutoff whose target stretch runs past the target window still passes.

    The stretch starts at the worst offset (``W - 1``): with ``d`` deletions it
    overhangs the target window ``[0, 2W)`` by up to ``d - 1`` letters. The
    differences are spaced ``L`` apart, each breaking as many b-mers as it can.
    """
    W, bits, L = 256, 16, 8
    e = int((100 - min_identity) * W / 100)
    need = int(seedhit.threshold(W, bits, min_identity))
    rng = np.random.default_rng(int(min_identity))
    worst = W
    for trial in range(60):
        t = rng.integers(0, 4, 4 * W).astype(np.uint8)
        d = e if trial % 3 == 0 else int(rng.integers(1, e + 1))
        kinds = ["d"] * d + ["s" if trial % 2 else "i"] * (e - d)
        rng.shuffle(kinds)
        first = int(rng.integers(0, L))
        pos = {k: {first + L * j for j, x in enumerate(kinds) if x == k} for k in "sdi"}
        a = W - 1
        stretch = t[a:a + W + d + L]
        q = _edited(stretch, pos["s"], pos["d"], pos["i"], rng)[:W]
        got = int(seedhit.best_window_counts(t, q, bits, W)[0])
        assert got >= need, (trial, kinds, got, need)
        worst = min(worst, got)
    assert worst < need + 2 * L   # the bound is nearly tight here


def test_default_cutoff_rejects_random_sequence():
    """At the documented cutoff the bound is positive and random AT-rich sequence is skipped."""
    assert seedhit.DEFAULT_SCREEN_IDENTITY == 92.0
    assert seedhit.threshold(256, 16, seedhit.DEFAULT_SCREEN_IDENTITY) == 89
    rng = np.random.default_rng(11)
    p = [0.34, 0.16, 0.16, 0.34]
    t = rng.choice(4, size=200_000, p=p).astype(np.uint8)
    q = rng.choice(4, size=100_000, p=p).astype(np.uint8)
    v = seedhit.screen_verdict(t, q, seedhit.DEFAULT_SCREEN_IDENTITY)
    assert not v.passes and v.verdict == "skip" and 0 <= v.count < v.need == 89
    assert v.window is None and str(v) == v.reason
    assert v.reason == f"best query window has {v.count} b-mer hits < 89 needed for 92% identity"
    q[50_176:50_432] = t[1000:1256]         # query window 196
    v = seedhit.screen_verdict(t, q, 92)
    assert v.passes and v.count == 249 and v.window == 196 and v.strand == "+"
    assert seedhit.screen_verdict(t, q, 80).reason.startswith("bound ")      # vacuous below 87.5%


def test_align_cli_screen(tmp_path, caplog):
    """``ava align --screen`` skips an unrelated pair (empty output, logged reason); bad cutoffs stop."""
    import logging
    import pathlib

    from gpukernels.cli import main
    data = pathlib.Path(__file__).parent / "data"
    rng = np.random.default_rng(3)
    rand = tmp_path / "rand.fa"
    rand.write_text(">r\n" + "".join("ACGT"[c] for c in rng.integers(0, 4, 30_000)) + "\n")
    out = tmp_path / "o.paf"
    with caplog.at_level(logging.INFO, logger="gpukernels"):
        assert main(["align", str(data / "hpylori_g27_40k.fa.gz"), str(rand), "-o", str(out),
                     "--backend", "cpu", "--screen"]) == 0
    assert out.read_text() == ""
    assert "pair screen: skip (best query window has" in caplog.text and "92% identity" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="gpukernels"):
        assert main(["align", str(data / "hpylori_g27_40k.fa.gz"), str(rand), "-o", str(out),
                     "--backend", "cpu", "--screen-min-identity", "80"]) == 0
    assert "pair screen: pass (bound " in caplog.text
    assert main(["-q", "align", str(rand), str(rand), "--screen-min-identity", "101"]) == 2
