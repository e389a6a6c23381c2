"""Ungapped x-drop stage against a plain Python loop of the same rules."""

import numpy as np
import pytest

from gpukernels.cpu.ungapped import anchors, extend_hits
from gpukernels.scoring import lastz_scoring
from gpukernels.ungapped import entropy_adjust, masked_matrix


def plain_extend(t, q, hits, span, m, xdrop):
    diag_end = {}
    out = []
    for qi, ti in hits:
        d = ti - qi
        ext = diag_end.get(d, -1)
        if ext > qi:
            continue
        pos = qi + span
        stop = max(ext, 0, -d)
        run = best = 0
        start = s = pos
        while s > stop and run >= best - xdrop:
            s -= 1
            run += m[t[s + d], q[s]]
            if run > best:
                best, start = run, s
        left = best
        limit = min(len(q), len(t) - d)
        run = best = 0
        end = s = pos
        while s < limit and run >= best - xdrop:
            run += m[t[s + d], q[s]]
            s += 1
            if run > best:
                best, end = run, s
        diag_end[d] = max(diag_end.get(d, -1), s)
        if end > start:
            out.append((start, end, start + d, left + best))
    return out


def test_extension_equals_plain_loop():
    rng = np.random.default_rng(7)
    m = masked_matrix(lastz_scoring().matrix)
    for trial in range(20):
        t = rng.integers(0, 4, 600).astype(np.uint8)
        q = np.where(rng.random(600) < 0.1, rng.integers(0, 4, 600), t).astype(np.uint8)
        q[rng.integers(0, 600, 3)] = 4
        hits = sorted({(int(a), int(a + rng.integers(-3, 4))) for a in rng.integers(0, 560, 60)})
        hits = [(a, b) for a, b in hits if 0 <= b <= 600 - 19]
        hq = np.array([h[0] for h in hits], dtype=np.int64)
        ht = np.array([h[1] for h in hits], dtype=np.int64)
        de = np.full(1201, -1, dtype=np.int64)
        q0, q1, t0, sc, counts = extend_hits(t, q, hq, ht, 19, m, 910, de)
        got = list(zip(q0.tolist(), q1.tolist(), t0.tolist(), sc.tolist()))
        assert got == plain_extend(t, q, hits, 19, m, 910)
        for k in range(len(q0)):
            a, b, d = q0[k], q1[k], t0[k] - q0[k]
            same = (q[a:b] == t[a + d:b + d]) & (q[a:b] < 4)
            assert counts[k].sum() == same.sum()


def test_entropy_adjustment():
    # a low-complexity HSP loses score; a balanced one keeps most of it
    low = entropy_adjust([4000], [[100, 0, 0, 0]], [100], 3000)
    balanced = entropy_adjust([4000], [[25, 25, 25, 25]], [100], 3000)
    outside = entropy_adjust([10000], [[100, 0, 0, 0]], [100], 3000)
    assert low[0] == 0 and balanced[0] == 4000 and outside[0] == 10000
    few = entropy_adjust([4000], [[10, 0, 0, 0]], [10], 3000)
    assert few[0] == 4000


def test_anchor_is_middle_of_best_window():
    m = lastz_scoring().matrix
    t = np.zeros(100, dtype=np.uint8) + 1
    q = t.copy()
    q[:40] = 2  # mismatches in the first 40 columns
    aq, at = anchors(t, q, np.array([0]), np.array([100]), np.array([0]), m, 31)
    assert aq[0] == 40 + 15 and at[0] == aq[0]
    aq, at = anchors(t, q, np.array([10]), np.array([30]), np.array([10]), m, 31)
    assert aq[0] == 20


def test_alignments_do_not_depend_on_the_query_batches(monkeypatch):
    """The seed hits are looked up and extended in batches of query positions, the later ones sized
    from the hits seen so far (engine.QUERY_HITS): any batching gives the same alignments, since the
    extensions of one diagonal go in query order and the covered extent of each diagonal carries over."""
    from conftest import DATA
    from gpukernels import engine
    from gpukernels.genome import read_fasta
    t = read_fasta(DATA / "hpylori_g27_40k.fa.gz")
    q = read_fasta(DATA / "hpylori_sjm180_40k.fa.gz")
    ref = engine.align(t, q, backend="cpu")
    monkeypatch.setattr(engine, "QUERY_BATCH", 3000)
    monkeypatch.setattr(engine, "QUERY_BATCH_MAX", 9000)
    monkeypatch.setattr(engine, "QUERY_HITS", 20000)
    small = engine.align(t, q, backend="cpu")
    monkeypatch.setattr(engine, "QUERY_HITS", 0)
    fixed = engine.align(t, q, backend="cpu")
    assert len(ref) > 0
    for got in (small, fixed):
        assert len(got) == len(ref)
        for name in ("t_rec", "t_start", "t_end", "q_rec", "q_start", "q_end", "strand", "score", "op_off", "ops"):
            assert np.array_equal(getattr(got, name), getattr(ref, name)), name


def test_scoring_limits_named():
    """Scores and x-drops beyond what the kernels sum in 32 bits are refused with a message, at the
    limits accepted."""
    from gpukernels.errors import InputError
    from gpukernels.scoring import MAX_SCORE, MAX_XDROP, lastz_scoring, uniform_matrix
    assert lastz_scoring(xdrop=MAX_XDROP).xdrop == MAX_XDROP
    assert lastz_scoring(xdrop=0).xdrop == 0
    lastz_scoring(matrix=uniform_matrix(MAX_SCORE, MAX_SCORE))
    for bad in (MAX_XDROP + 1, -1):
        with pytest.raises(InputError, match="x-drop must be from 0"):
            lastz_scoring(xdrop=bad)
    with pytest.raises(InputError, match="substitution scores"):
        lastz_scoring(matrix=uniform_matrix(MAX_SCORE + 1, 1))
