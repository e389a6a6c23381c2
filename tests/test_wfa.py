"""WFA (issue 5) on the CPU: optimality against plain DP, CIGAR checks, CLI.

The reference DPs and the CIGAR checker here are also used by
``test_wfa_gpu.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit, prange

from gpukernels import cli
from gpukernels.errors import InputError
from gpukernels.wfa import (Sequences, WFAResult, encode_sequences, parse_penalties, run_length,
                            simulate_pairs, wfa)

PENALTY_SETS = [(4, 6, 2), (3, 0, 2), (6, 5, 3)]
N_PAIRS = 10_000


# ---------------------------------------------------------------- references

@njit(cache=True)
def _gotoh(p, t, x, o, e):
    """Minimal gap-affine penalty of p against t (O(nm) DP, gap L costs o+e*L)."""
    n, m = p.shape[0], t.shape[0]
    inf = 1 << 40
    H = np.empty(m + 1, np.int64)  # best, row i
    F = np.empty(m + 1, np.int64)  # ends in a deletion (pattern base vs gap)
    H[0] = 0
    F[0] = inf
    for j in range(1, m + 1):
        H[j] = o + e * j
        F[j] = inf
    for i in range(1, n + 1):
        diag = H[0]
        H[0] = o + e * i
        E = inf  # ends in an insertion (text base vs gap), row i
        for j in range(1, m + 1):
            F[j] = min(F[j] + e, H[j] + o + e)
            E = min(E + e, H[j - 1] + o + e)
            best = diag + (0 if p[i - 1] == t[j - 1] else x)
            diag = H[j]
            H[j] = min(best, min(F[j], E))
    return H[m]


@njit(cache=True)
def _levenshtein(p, t):
    """Edit distance of p and t (O(nm) DP)."""
    n, m = p.shape[0], t.shape[0]
    row = np.arange(m + 1).astype(np.int64)
    for i in range(1, n + 1):
        diag = row[0]
        row[0] = i
        for j in range(1, m + 1):
            best = min(row[j] + 1, row[j - 1] + 1, diag + (0 if p[i - 1] == t[j - 1] else 1))
            diag = row[j]
            row[j] = best
    return row[m]


@njit(cache=True, parallel=True)
def _reference_batch(pc, po, tc, to, x, o, e, edit, out):
    for i in prange(po.shape[0] - 1):
        p = pc[po[i]:po[i + 1]]
        t = tc[to[i]:to[i + 1]]
        out[i] = _levenshtein(p, t) if edit else _gotoh(p, t, x, o, e)


def reference_scores(P, T, penalties=None):
    """Plain-DP scores: Gotoh for ``penalties=(x, o, e)``, Levenshtein for None."""
    out = np.empty(len(P), np.int64)
    x, o, e = penalties or (1, 0, 1)
    _reference_batch(P.codes, P.offsets, T.codes, T.offsets, x, o, e, penalties is None, out)
    return out


def cigar_costs(P, T, result, penalties=None):
    """Check every CIGAR spells both sides; return the penalty each re-scores to.

    ``penalties=None`` scores edit distance. Raises AssertionError on a CIGAR
    that does not spell its pair (wrong lengths, ``=`` on unequal bases, ``X``
    on equal ones).
    """
    ops, off = result.ops, result.op_offsets
    n = len(P)
    lengths = np.diff(off)
    pid = np.repeat(np.arange(n), lengths)
    cons_p = ops != ord("I")
    cons_t = ops != ord("D")
    assert np.array_equal(np.bincount(pid, weights=cons_p, minlength=n), P.lengths)
    assert np.array_equal(np.bincount(pid, weights=cons_t, minlength=n), T.lengths)
    assert np.isin(ops, np.frombuffer(b"=XID", np.uint8)).all()
    first = off[:-1][pid]
    ex_p = np.cumsum(cons_p) - cons_p
    ex_t = np.cumsum(cons_t) - cons_t
    ppos = ex_p - np.concatenate([ex_p, [0]])[first]
    tpos = ex_t - np.concatenate([ex_t, [0]])[first]
    both = cons_p & cons_t
    pcode = P.codes[P.offsets[:-1][pid[both]] + ppos[both]]
    tcode = T.codes[T.offsets[:-1][pid[both]] + tpos[both]]
    same = pcode == tcode
    assert np.array_equal(same, ops[both] == ord("="))
    x, o, e = penalties or (1, 0, 1)
    is_x = ops == ord("X")
    gap = ~both
    prev = np.concatenate([[0], ops[:-1]])
    start = np.arange(ops.size) == first
    opens = gap & ((prev != ops) | start)
    w = x * is_x + e * gap + o * opens
    return np.bincount(pid, weights=w, minlength=n).astype(np.int64)


# ---------------------------------------------------------------- data

def _mutate(rng, seq, error):
    """Copy of seq with round(error*len) uniform mismatches/insertions/deletions."""
    out = list(seq)
    for _ in range(int(round(error * len(seq)))):
        kind = rng.integers(3)
        if kind == 1 or not out:
            out.insert(int(rng.integers(len(out) + 1)), int(rng.integers(4)))
        elif kind == 0:
            j = int(rng.integers(len(out)))
            out[j] = (out[j] + 1 + int(rng.integers(3))) % 4
        else:
            del out[int(rng.integers(len(out)))]
    return out


def _from_lists(seqs):
    lengths = np.array([len(s) for s in seqs], np.int64)
    off = np.zeros(len(seqs) + 1, np.int64)
    np.cumsum(lengths, out=off[1:])
    codes = np.fromiter((c for s in seqs for c in s), np.uint8, count=int(off[-1]))
    return Sequences(codes, off)


def make_pairs(n=N_PAIRS, seed=5):
    """Random pairs: lengths 0-2000 (most short), error 0-30 %, some unrelated, edge cases."""
    rng = np.random.default_rng(seed)
    pats, txts = [[], [], [0, 1, 2], [], [3]], [[], [1], [], [0, 1, 2], [3]]
    while len(pats) < n:
        u = rng.random()
        length = int(rng.integers(0, 2001)) if u < 0.004 else (
            int(rng.integers(150, 700)) if u < 0.03 else int(rng.integers(0, 150)))
        p = rng.integers(0, 4, length).tolist()
        if rng.random() < 0.02:
            t = rng.integers(0, 4, int(rng.integers(0, length + 5))).tolist()
        else:
            t = _mutate(rng, p, rng.random() * 0.3)
        pats.append(p)
        txts.append(t)
    return _from_lists(pats[:n]), _from_lists(txts[:n])


@pytest.fixture(scope="module")
def pairs():
    return make_pairs()


# ---------------------------------------------------------------- optimality

@pytest.mark.parametrize("pen", PENALTY_SETS)
def test_affine_scores_and_cigars_are_optimal(pairs, pen):
    P, T = pairs
    ref = reference_scores(P, T, pen)
    res = wfa(P, T, penalties=pen, backend="cpu")
    assert np.array_equal(res.scores, ref)
    assert np.array_equal(cigar_costs(P, T, res, pen), ref)
    only = wfa(P, T, penalties=pen, backend="cpu", score_only=True)
    assert only.ops is None
    assert np.array_equal(only.scores, ref)


def test_edit_distance_is_levenshtein(pairs):
    P, T = pairs
    ref = reference_scores(P, T, None)
    res = wfa(P, T, edit=True, backend="cpu")
    assert np.array_equal(res.scores, ref)
    assert np.array_equal(cigar_costs(P, T, res, None), ref)
    assert np.array_equal(wfa(P, T, edit=True, score_only=True, backend="cpu").scores, ref)


def _head(S, n):
    return Sequences(S.codes, S.offsets[:n + 1])


def test_cheap_gap_extension(pairs):
    """A fourth set, e=1 with a dear open: wide wavefronts, so fewer pairs."""
    P, T = _head(pairs[0], 1500), _head(pairs[1], 1500)
    pen = (5, 11, 1)
    ref = reference_scores(P, T, pen)
    res = wfa(P, T, penalties=pen, backend="cpu")
    assert np.array_equal(res.scores, ref)
    assert np.array_equal(cigar_costs(P, T, res, pen), ref)


def test_long_noisy_pairs():
    P, T = simulate_pairs(6, 2000, 0.3, seed=3)
    for pen in PENALTY_SETS[:1]:
        ref = reference_scores(P, T, pen)
        res = wfa(P, T, penalties=pen, backend="cpu")
        assert np.array_equal(res.scores, ref)
        assert np.array_equal(cigar_costs(P, T, res, pen), ref)


def test_scaled_penalties_scale_scores(pairs):
    P, T = pairs
    sub_p, sub_t = _head(P, 300), _head(T, 300)
    a = wfa(sub_p, sub_t, penalties=(4, 6, 2), backend="cpu")
    b = wfa(sub_p, sub_t, penalties=(2, 3, 1), backend="cpu")
    assert np.array_equal(a.scores, 2 * b.scores)
    assert np.array_equal(a.ops, b.ops)


@njit(cache=True)
def _gotoh_max(p, t, match, mismatch, go, ge):
    """Maximal global score: +match, -mismatch, gap of length L costs go + ge*L."""
    n, m = p.shape[0], t.shape[0]
    ninf = -(1 << 40)
    H = np.empty(m + 1, np.int64)
    F = np.full(m + 1, ninf, np.int64)
    H[0] = 0
    for j in range(1, m + 1):
        H[j] = -(go + ge * j)
    for i in range(1, n + 1):
        diag = H[0]
        H[0] = -(go + ge * i)
        E = ninf
        for j in range(1, m + 1):
            F[j] = max(F[j] - ge, H[j] - go - ge)
            E = max(E - ge, H[j - 1] - go - ge)
            best = diag + (match if p[i - 1] == t[j - 1] else -mismatch)
            diag = H[j]
            H[j] = max(best, max(F[j], E))
    return H[m]


def test_uniform_scores_convert_to_penalties(pairs):
    """Part 3 groundwork: a match/mismatch/affine score scheme maps onto WFA penalties."""
    from gpukernels.wfa import penalties_from_scores, score_from_penalty
    P, T = _head(pairs[0], 400), _head(pairs[1], 400)
    for scheme in [(1, 1, 2, 1), (100, 100, 400, 30), (2, 3, 0, 1)]:
        res = wfa(P, T, penalties=penalties_from_scores(*scheme), backend="cpu")
        got = score_from_penalty(res.scores, P.lengths, T.lengths, scheme[0])
        want = [_gotoh_max(P.codes[P.offsets[i]:P.offsets[i + 1]],
                           T.codes[T.offsets[i]:T.offsets[i + 1]], *scheme) for i in range(len(P))]
        assert got.tolist() == want


# ---------------------------------------------------------------- small cases

def test_small_cases_by_hand():
    res = wfa(["ACGT", "", "ACGTTT", "", "AAAA", "GATTACA"],
              ["ACGA", "", "ACT", "GG", "", "GATTACA"], backend="cpu")
    assert res.scores.tolist() == [4, 0, 12, 10, 14, 0]
    assert res.cigars() == ["3=1X", "", "2=3D1=", "2I", "4D", "7="]


def test_lowercase_and_bytes_accepted():
    res = wfa([b"acgt"], ["ACGT"], backend="cpu")
    assert res.scores.tolist() == [0]


def test_run_length():
    assert run_length(np.frombuffer(b"==XII=", np.uint8)) == "2=1X2I1="
    assert run_length(np.zeros(0, np.uint8)) == ""


def test_empty_batch():
    res = wfa([], [], backend="cpu")
    assert len(res) == 0 and res.cigars() == []


def test_bad_inputs():
    with pytest.raises(InputError, match="sequence 2"):
        encode_sequences(["ACGT", "ACNT"])
    with pytest.raises(InputError):
        wfa(["A"], ["A", "C"], backend="cpu")
    with pytest.raises(InputError):
        parse_penalties("4,6")
    with pytest.raises(InputError):
        parse_penalties("0,6,2")
    with pytest.raises(InputError):
        wfa(["A"], ["A"], penalties=(4, 6, 0), backend="cpu")


def test_simulate_pairs_shape():
    P, T = simulate_pairs(50, 100, 0.1, seed=1)
    assert len(P) == len(T) == 50
    assert (P.lengths == 100).all()
    assert ((T.lengths >= 90) & (T.lengths <= 110)).all()
    ed = reference_scores(P, T, None)
    assert (ed <= 10).all() and ed.mean() > 5


def test_result_type():
    res = wfa(["AC"], ["AG"], backend="cpu")
    assert isinstance(res, WFAResult)
    assert res.scores.dtype == np.int64


# ---------------------------------------------------------------- CLI

def _run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_tsv(tmp_path, capsys):
    f = tmp_path / "pairs.tsv"
    f.write_text("ACGT\tACGA\nGATTACA\tGATTACA\n\tAC\n")
    code, out, _ = _run(["wfa", str(f), "--backend", "cpu"], capsys)
    assert code == 0
    assert out.splitlines() == ["4\t3=1X", "0\t7=", "10\t2I"]


def test_cli_seq_edit_score_only_and_output(tmp_path, capsys):
    f = tmp_path / "pairs.seq"
    f.write_text(">ACGT\n<ACGA\n>GATTACA\n<GATACA\n")
    out_file = tmp_path / "out.txt"
    code, out, _ = _run(["wfa", str(f), "--edit", "--score-only", "--backend", "cpu",
                         "-o", str(out_file)], capsys)
    assert code == 0 and out == ""
    assert out_file.read_text().splitlines() == ["1", "1"]
    code, out, _ = _run(["wfa", str(f), "--penalties", "2,3,1", "--backend", "cpu"], capsys)
    assert out.splitlines()[0] == "2\t3=1X"


@pytest.mark.parametrize("name, text, line, what", [
    ("odd.seq", ">ACGT\n<ACGT\n>AC\n", 3, "odd"),
    ("bad.seq", ">ACGT\n<ACXT\n", 2, "character"),
    ("order.seq", "<ACGT\n>ACGT\n", 1, ">"),
    ("bad.tsv", "ACGT\tACGT\nACGT\tAC GT\n", 2, "character"),
    ("cols.tsv", "ACGT\tACGT\nACGT\n", 2, "two"),
    ("empty.tsv", "", None, "empty"),
])
def test_cli_bad_input(tmp_path, capsys, name, text, line, what):
    f = tmp_path / name
    f.write_text(text)
    code, out, err = _run(["wfa", str(f), "--backend", "cpu"], capsys)
    assert code == 2
    assert str(f) in err and what in err
    if line is not None:
        assert f"line {line}" in err


def test_cli_bad_penalties(tmp_path, capsys):
    f = tmp_path / "p.tsv"
    f.write_text("A\tA\n")
    code, _, err = _run(["wfa", str(f), "--penalties", "4,x,2", "--backend", "cpu"], capsys)
    assert code == 2 and "penalties" in err


def test_cli_missing_file(tmp_path, capsys):
    code, _, err = _run(["wfa", str(tmp_path / "nope.tsv"), "--backend", "cpu"], capsys)
    assert code == 2 and "nope.tsv" in err
