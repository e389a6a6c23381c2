"""FM-index: the paper's worked example, search against a scan, sampled SA against the full SA."""

import numpy as np
import pytest
from numba import njit

from gpukernels import fmindex
from gpukernels.errors import InputError

_CODE = {"A": 0, "C": 1, "G": 2, "T": 3, "N": 4}


def enc(text):
    return np.array([_CODE[c] for c in text.upper()], dtype=np.uint8)


def test_worked_example():
    ix, sa = fmindex.build_index(enc("cattattagga"), p=2, keep_sa=True)
    assert "".join("$acgtn"[s] for s in ix.bwt()) == "agttc$gattaa"
    assert sa.tolist() == [11, 10, 7, 4, 1, 0, 9, 8, 6, 3, 5, 2]
    lo, hi = fmindex.intervals(ix, enc("tta"))
    assert (lo.tolist(), (hi - 1).tolist()) == ([10], [11])      # the paper's closed interval [10, 11]
    assert sorted(fmindex.locate(ix, range(10, 12)).tolist()) == [2, 5]
    assert fmindex.locate(ix, [10, 11]).tolist() == [5, 2]


@njit(cache=True)
def _scan(g, word, m):
    """Start positions where ``word`` matches ``g`` with at most ``m`` mismatches (N never matches)."""
    L = word.shape[0]
    out = []
    for i in range(g.shape[0] - L + 1):
        mm = 0
        for s in range(L):
            if g[i + s] != word[s]:
                mm += 1
                if mm > m:
                    break
        if mm <= m:
            out.append(i)
    return out


_RC = np.array([3, 2, 1, 0, 4, 5], dtype=np.uint8)


@pytest.fixture(scope="module")
def genome_1mb():
    rng = np.random.default_rng(11)
    g = rng.integers(0, 4, 1_000_000).astype(np.uint8)
    g[400_000:400_500] = 4                      # an N run
    g[600_000:602_000] = np.tile(g[100:120], 100)  # a tandem repeat
    g[700_000] = 5                              # a record separator
    return g, fmindex.build_index(g, keep_sa=True)


@pytest.mark.parametrize("m", [0, 1, 2])
def test_search_equals_scan_both_strands(genome_1mb, m):
    g, (ix, _) = genome_1mb
    rng = np.random.default_rng(m)
    L = 14
    nq = 24 if m < 2 else 10
    for k in range(nq):
        start = int(rng.integers(0, len(g) - L))
        word = g[start:start + L].copy()
        if (word > 3).any():
            word[:] = rng.integers(0, 4, L)
        # mutate some words so that only mismatched copies occur
        if k % 3 == 1:
            word[int(rng.integers(0, L))] ^= 1
        for strand_word in (word, _RC[word[::-1]]):
            lo, hi = fmindex.intervals(ix, strand_word, m)
            got = np.sort(fmindex.locate(ix, [j for a, b in zip(lo, hi) for j in range(a, b)]))
            want = np.array(_scan(g, strand_word, m), dtype=np.int64)
            assert got.tolist() == want.tolist()


def test_find_hits_equals_scan(genome_1mb):
    """The engine's entry: every query word, the cap, the order by (query, target)."""
    g, (ix, _) = genome_1mb
    rng = np.random.default_rng(5)
    q = g[10_000:10_400].copy()
    q[rng.random(len(q)) < 0.05] = rng.integers(0, 4, 1)[0]
    q[200] = 4
    L, m, cap = 16, 1, 128
    hq, ht = fmindex.find_hits(ix, q, 0, len(q), L, m, cap)
    want = []
    for i in range(len(q) - L + 1):
        if (q[i:i + L] > 3).any():
            continue
        pos = _scan(g, q[i:i + L], m)
        if len(pos) <= cap:
            want += [(i, p) for p in pos]
    assert list(zip(hq.tolist(), ht.tolist())) == want
    # a cap of 1 drops the repeated words only
    hq1, ht1 = fmindex.find_hits(ix, q, 0, len(q), L, m, 1)
    counts = np.bincount(hq, minlength=len(q))
    assert sorted(set(hq1.tolist())) == np.flatnonzero(counts == 1).tolist()


@pytest.mark.parametrize("p", [1, 3, 32, 100])
def test_sampled_sa_equals_full_sa(p):
    rng = np.random.default_rng(p)
    g = rng.integers(0, 4, 20_000).astype(np.uint8)
    g[5000:5100] = 4
    g[9000:9400] = np.tile(g[:8], 50)
    ix, sa = fmindex.build_index(g, p=p, keep_sa=True)
    rows = np.arange(0, len(sa), 7)
    assert fmindex.locate(ix, rows).tolist() == sa[rows].tolist()
    assert len(ix.ssa) == int(np.count_nonzero(sa % p == 0))


def test_suffix_array_against_sorting():
    rng = np.random.default_rng(2)
    for n in (1, 2, 50, 3000):
        g = rng.integers(0, 3, n).astype(np.uint8)   # a small alphabet: long repeats
        ix, sa = fmindex.build_index(g, keep_sa=True)
        sym = "".join("ABCDEF"[c + 1] for c in g) + "!"
        assert sa.tolist() == sorted(range(n + 1), key=lambda i: sym[i:])


def test_save_load_and_reuse(tmp_path):
    rng = np.random.default_rng(9)
    g = rng.integers(0, 4, 5000).astype(np.uint8)
    path = tmp_path / "t.fmi.npz"
    ix = fmindex.index_for(g, path)
    again = fmindex.index_for(g, path)
    assert again.digest == ix.digest and np.array_equal(again.blocks, ix.blocks)
    other = fmindex.index_for(g[::-1].copy(), path)       # another text: rebuilt
    assert other.digest != ix.digest


def test_params_checked():
    with pytest.raises(InputError):
        fmindex.check_params(20, 3, 128)
    with pytest.raises(InputError):
        fmindex.check_params(2, 0, 128)
