"""Alignments.canonical: the order and the duplicates a plain full sort gives."""
import zlib

import numpy as np

from gpukernels.alignments import Alignments


def _by_full_sort(alns, t_names, q_names):
    """The definition: every field and the columns' CRC-32 as sort keys, then equal neighbours dropped."""
    n = len(alns)
    t_rank = np.argsort(np.argsort(t_names))[alns.t_rec]
    q_rank = np.argsort(np.argsort(q_names))[alns.q_rec]
    digest = np.array([zlib.crc32(alns.columns(k).tobytes()) for k in range(n)], dtype=np.int64)
    keys = (digest, -alns.score, alns.strand, alns.q_end, alns.q_start, q_rank, alns.t_end, alns.t_start,
            t_rank)
    order = np.lexsort(keys)
    keep = np.ones(n, dtype=bool)
    for a, b in zip(order[:-1], order[1:]):
        if all(k[a] == k[b] for k in keys) and np.array_equal(alns.columns(a), alns.columns(b)):
            keep[b] = False
    return alns.take(order[keep[order]])


def _random_alignments(rng, n):
    """Few distinct values per field, so that many alignments tie and some are exact duplicates."""
    op_off = np.concatenate([[0], np.cumsum(rng.integers(0, 4, n))])
    ops = rng.integers(0, 2, op_off[-1], dtype=np.uint8)

    def field(hi):
        return rng.integers(0, hi, n).astype(np.int64)

    alns = Alignments(field(2), field(3), field(3), field(2), field(2), field(2), field(2).astype(np.int8),
                      field(2), op_off, ops)
    return alns.take(np.concatenate([np.arange(n), rng.integers(0, n, n // 4)]))


def test_canonical_is_the_full_sort():
    rng = np.random.default_rng(7)
    fields = ("t_rec", "t_start", "t_end", "q_rec", "q_start", "q_end", "strand", "score", "op_off", "ops")
    for _ in range(200):
        alns = _random_alignments(rng, int(rng.integers(1, 60)))
        got = alns.canonical(["chr2", "chr1"], ["b", "a"])
        want = _by_full_sort(alns, ["chr2", "chr1"], ["b", "a"])
        for name in fields:
            assert np.array_equal(getattr(got, name), getattr(want, name)), name


def test_canonical_drops_exact_duplicates_only():
    rng = np.random.default_rng(3)
    alns = _random_alignments(rng, 40)
    out = alns.canonical(["chr2", "chr1"], ["b", "a"])
    rows = {(*(int(getattr(out, f)[k]) for f in ("t_rec", "t_start", "t_end", "q_rec", "q_start", "q_end",
                                                  "strand", "score")), out.columns(k).tobytes())
            for k in range(len(out))}
    assert len(rows) == len(out)
    assert len(out) < len(alns)


def test_lex_order_is_numpys_lexsort():
    """Both ways (the first two rows packed into one key, and the merge sort where they do not fit)."""
    from gpukernels.alignments import _merge_order, lex_order
    rng = np.random.default_rng(11)
    for n in (0, 1, 2, 5, 64, 3000):
        for hi in (2, 50, 1 << 41):
            keys = rng.integers(-hi, hi, (8, n)).astype(np.int64)
            keys[:2] = np.abs(keys[:2])
            want = np.lexsort(keys[::-1])
            assert np.array_equal(lex_order(keys), want)
            assert np.array_equal(_merge_order(keys), want)


def test_take_copies_every_alignments_columns():
    rng = np.random.default_rng(5)
    alns = _random_alignments(rng, 200)
    alns.op_off = np.concatenate([[0], np.cumsum(rng.integers(0, 40, len(alns)))])
    alns.ops = rng.integers(0, 4, alns.op_off[-1], dtype=np.uint8)
    index = rng.permutation(len(alns))
    got = alns.take(index)
    for x, k in enumerate(index):
        assert np.array_equal(got.columns(x), alns.columns(k))
