"""The gecko preset against a plain Python loop, and the GECKO CSV."""

import numpy as np
import pytest

from gpukernels import gecko
from gpukernels.engine import AlignOptions, align
from gpukernels.errors import InputError
from gpukernels.formats import gecko as gecko_csv
from gpukernels.genome import _assemble


def plain_fragments(t, q, k, min_identity):
    """GECKO's rules written out with dicts and loops (one strand)."""
    words = {}
    for i in range(len(t) - k + 1):
        w = t[i:i + k]
        if (w < 4).all():
            words.setdefault(w.tobytes(), []).append(i)
    hits = []
    for j in range(len(q) - k + 1):
        w = q[j:j + k]
        if (w < 4).all():
            hits += [(i - j, j, i) for i in words.get(w.tobytes(), [])]
    hits.sort()
    out = []
    last_diag, kept, covered = None, None, -1
    for d, j, i in hits:
        if d != last_diag:
            last_diag, kept, covered = d, None, -1
        if kept is not None and j < kept + 2 * k:
            continue
        kept = j
        if j < covered:
            continue
        score = best = k
        end = j + k
        s = j + k
        while s < len(q) and s + d < len(t):
            a, b = t[s + d], q[s]
            if a == 5 or b == 5:
                break
            score += 1 if (a == b and a < 4) else -1
            s += 1
            if score > best:
                best, end = score, s
            if score < 0:
                break
        score, start, s = best, j, j - 1
        while s >= 0 and s + d >= 0:
            a, b = t[s + d], q[s]
            if a == 5 or b == 5:
                break
            score += 1 if (a == b and a < 4) else -1
            if score > best:
                best, start = score, s
            s -= 1
            if score < 0:
                break
        covered = max(covered, end)
        ident = sum(1 for s in range(start, end) if t[s + d] == q[s] and q[s] < 4)
        if end - start >= k and 100 * ident >= min_identity * (end - start):
            out.append((start, end, start + d, best, ident))
    return sorted(out)


def _pair(seed, n=3000):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 4, n).astype(np.uint8)
    q = t.copy()
    q[rng.random(n) < 0.06] = rng.integers(0, 4, 1)[0]
    q = np.concatenate([rng.integers(0, 4, 200).astype(np.uint8), q[:1500], q[1700:]])
    t[1000:1040] = 4
    t[2000] = 5
    q[900:1100] = t[2100:2300]          # a second diagonal
    q[2400:2500] = q[2300:2400]         # a tandem copy: several hits per diagonal
    return t, q


@pytest.mark.parametrize("k", [12, 20, 32])
@pytest.mark.parametrize("seed", [1, 2])
def test_fragments_equal_plain_loop(k, seed):
    t, q = _pair(seed)
    hq, ht, seg = gecko.find_hits(t, q, k)
    fr = gecko.fragments(t, q, hq, ht, seg, k, 80.0)
    got = sorted(zip(fr["q0"].tolist(), fr["q1"].tolist(), fr["t0"].tolist(), fr["score"].tolist(),
                     fr["ident"].tolist()))
    assert got == plain_fragments(t, q, k, 80.0)
    assert len(got) > 0


def _genome(name, codes, rec="r"):
    return _assemble(name, [rec], [len(codes)], [0], [codes], [np.zeros(len(codes), dtype=bool)])


def test_preset_both_strands_and_csv(tmp_path):
    t, q = _pair(3, 4000)
    rc = np.array([3, 2, 1, 0, 4, 5], dtype=np.uint8)
    q = np.concatenate([q, rc[t[500:900][::-1]]])       # an inverted copy
    T, Q = _genome("t", t, "chrT"), _genome("q", q, "chrQ")
    opts = AlignOptions(preset="gecko", kmer=16)
    alns = align(T, Q, opts, backend="cpu")
    assert (alns.strand == 1).any() and (alns.strand == 0).any()
    assert np.isin(alns.ops, [0, 1]).all()               # ungapped
    path = tmp_path / "out.csv"
    from gpukernels.formats import write_alignments
    write_alignments(alns, T, Q, str(path), fmt="gecko")
    text = path.read_text().splitlines()
    assert text[16] == gecko_csv.COLUMNS
    rows = gecko_csv.read(path)
    assert len(rows) == len(alns)
    for r in rows:
        assert r["pct_ident"] >= 80.0 and r["length"] >= 16
        assert r["ident"] <= r["length"]
    minus = [r for r in rows if r["strand"] == "-"]
    assert any(400 <= r["t0"] and r["t1"] <= 900 for r in minus)
    line = [x for x in text if x.startswith("Frag") and ",r," in x][0].split(",")
    assert int(line[2]) > int(line[4])                   # yStart > yEnd on the r strand


def test_params_checked():
    with pytest.raises(InputError):
        gecko.check_params(33, 80)
    with pytest.raises(InputError):
        gecko.check_params(32, 101)
