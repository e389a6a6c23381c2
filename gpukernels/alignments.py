"""The Alignments record array: record coordinates, canonical order, columns.

Coordinates are 0-based half-open on the forward strand of each source
record (a work unit's piece offsets already added). ``ops`` hold one code per
alignment column, along the target's forward strand; on the minus strand the
query is read reverse-complemented, as in PAF's ``cg:Z``.
"""

from __future__ import annotations

from dataclasses import dataclass

import zlib

import numpy as np
from numba import njit

from .cpu.buffers import move_items

OP_EQ, OP_X, OP_I, OP_D = 0, 1, 2, 3
OP_CHARS = np.frombuffer(b"=XID", dtype=np.uint8)


@dataclass
class Alignments:
    """Alignments of one query genome against one target genome.

    Attributes
    ----------
    t_rec, q_rec : ndarray of int64
        Record (piece) index in the target and query genomes.
    t_start, t_end, q_start, q_end : ndarray of int64
        Bounds in source-record coordinates, forward strand.
    strand : ndarray of int8
        0 for ``+``, 1 for ``-``.
    score : ndarray of int64
    op_off : ndarray of int64
        ``ops[op_off[k]:op_off[k + 1]]`` are alignment k's columns.
    ops : ndarray of uint8
        ``OP_EQ``, ``OP_X``, ``OP_I`` (query base against a gap) or ``OP_D``.
    """

    t_rec: np.ndarray
    t_start: np.ndarray
    t_end: np.ndarray
    q_rec: np.ndarray
    q_start: np.ndarray
    q_end: np.ndarray
    strand: np.ndarray
    score: np.ndarray
    op_off: np.ndarray
    ops: np.ndarray

    def __len__(self):
        return int(self.t_rec.shape[0])

    @classmethod
    def empty(cls):
        """No alignments."""
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z, z, z, z, np.zeros(0, dtype=np.int8), z, np.zeros(1, dtype=np.int64),
                   np.zeros(0, dtype=np.uint8))

    def columns(self, k):
        """Column codes of alignment ``k``."""
        return self.ops[self.op_off[k]:self.op_off[k + 1]]

    def counts(self):
        """Per alignment: matches, mismatches, inserted and deleted bases, gap opens.

        Returns
        -------
        ndarray of int64, shape (n, 5)
        """
        n = len(self)
        out = np.zeros((n, 5), dtype=np.int64)
        if n == 0:
            return out
        lengths = np.diff(self.op_off)
        owner = np.repeat(np.arange(n), lengths)
        for code in range(4):
            out[:, code] = np.bincount(owner[self.ops == code], minlength=n)
        is_gap = self.ops >= OP_I
        starts = np.ones(len(self.ops), dtype=bool)
        starts[1:] = self.ops[1:] != self.ops[:-1]
        starts[self.op_off[:-1][lengths > 0]] = True
        out[:, 4] = np.bincount(owner[is_gap & starts], minlength=n)
        return out

    def take(self, index):
        """A new Alignments holding the alignments ``index`` in that order."""
        index = np.ascontiguousarray(index, dtype=np.int64)
        lengths = np.diff(self.op_off)[index]
        op_off = np.zeros(len(index) + 1, dtype=np.int64)
        np.cumsum(lengths, out=op_off[1:])
        ops = _gather_columns(np.ascontiguousarray(self.ops, dtype=np.uint8),
                              np.ascontiguousarray(self.op_off, dtype=np.int64), index, op_off)
        return Alignments(self.t_rec[index], self.t_start[index], self.t_end[index], self.q_rec[index],
                          self.q_start[index], self.q_end[index], self.strand[index], self.score[index],
                          op_off, ops)

    @classmethod
    def concat(cls, parts):
        """Join several Alignments of the same genome pair."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        ops = np.concatenate([p.ops for p in parts])
        offs = [parts[0].op_off]
        base = parts[0].op_off[-1]
        for p in parts[1:]:
            offs.append(p.op_off[1:] + base)
            base += p.op_off[-1]
        fields = ("t_rec", "t_start", "t_end", "q_rec", "q_start", "q_end", "strand", "score")
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in fields),
                   np.concatenate(offs), ops)

    def canonical(self, t_names, q_names):
        """Sorted canonically, exact duplicates removed.

        The order is target name, target start, target end, query name, query
        start, query end, strand, score descending, then the columns (by
        their CRC-32, then first found); it does not depend on the order in
        which the alignments were found.

        Only alignments that tie on every field need their columns: they are
        digested and compared within each run of ties (a pair has tens of
        thousands of alignments and few ties, and the columns of all of them
        took a Python loop of ~0.1 s).
        """
        n = len(self)
        if n == 0:
            return self
        t_rank = _name_rank(t_names)[self.t_rec]
        q_rank = _name_rank(q_names)[self.q_rec]
        keys = np.stack((t_rank, self.t_start, self.t_end, q_rank, self.q_start, self.q_end,
                         self.strand.astype(np.int64), -self.score))
        order = lex_order(keys)
        tied = _tied(keys, order)
        keep = np.ones(n, dtype=bool)
        # runs of ties: positions x..y of order with every field equal
        run_starts = tied[np.r_[True, tied[1:] != tied[:-1] + 1]] if len(tied) else tied
        run_ends = tied[np.r_[tied[1:] != tied[:-1] + 1, True]] + 1 if len(tied) else tied
        for x, y in zip(run_starts, run_ends):
            run = order[x:y + 1]
            digest = np.array([zlib.crc32(self.columns(k).tobytes()) for k in run], dtype=np.int64)
            run = run[np.argsort(digest, kind="stable")]
            order[x:y + 1] = run
            for a, b in zip(run[:-1], run[1:]):
                if np.array_equal(self.columns(a), self.columns(b)):
                    keep[b] = False
        return self.take(order[keep[order]])


@njit(cache=True, nogil=True)
def _gather_columns(ops, op_off, index, new_off):
    """The columns of alignments ``index``, one after another (``new_off``: where each goes)."""
    out = np.empty(new_off[-1], dtype=np.uint8)
    for x in range(index.shape[0]):
        k = index[x]
        move_items(out, new_off[x], ops, op_off[k], new_off[x + 1] - new_off[x])
    return out


@njit(cache=True, nogil=True)
def _tied(keys, order):
    """Positions x of ``order`` whose alignment ties with the next one on every key (``keys``: a row per key)."""
    out = np.empty(max(order.shape[0] - 1, 0), dtype=np.int64)
    m = 0
    for x in range(order.shape[0] - 1):
        a, b = order[x], order[x + 1]
        same = True
        for r in range(keys.shape[0]):
            if keys[r, a] != keys[r, b]:
                same = False
                break
        if same:
            out[m] = x
            m += 1
    return out[:m]


def lex_order(keys):
    """The stable lexicographic order of the columns of ``keys`` (row 0 first), as ``np.lexsort(keys[::-1])``.

    NumPy's lexsort sorts once per key: eight keys of a pair's 30,000
    alignments took it 10 ms. Here the first two rows, packed into one
    int64 where they fit (the record's rank and a start, as in
    :meth:`Alignments.canonical`), are sorted by one quicksort, and only
    the runs that tie on them are ordered by the other rows and then by
    index (which makes the order the stable one); otherwise a merge sort
    of the indices compares whole columns.
    """
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    n = keys.shape[1]
    if n and keys.shape[0] >= 2:
        first, second = keys[0], keys[1]
        if first.min() >= 0 and first.max() < 1 << 23 and second.min() >= 0 and second.max() < 1 << 40:
            primary = (first << 40) | second
            order = np.argsort(primary, kind="quicksort")
            _order_ties(order, primary, np.ascontiguousarray(keys[2:].T))
            return order
    return _merge_order(keys)


@njit(cache=True, nogil=True)
def _before(rows, x, y):
    """Whether index x goes before index y: by the rows' keys, then by index."""
    for r in range(rows.shape[1]):
        if rows[x, r] != rows[y, r]:
            return rows[x, r] < rows[y, r]
    return x < y


@njit(cache=True, nogil=True)
def _order_ties(order, primary, rows):
    """Each run of ``order`` with one ``primary`` value sorted by ``rows`` (index by row) and then by index."""
    n = order.shape[0]
    lo = 0
    while lo < n:
        hi = lo + 1
        while hi < n and primary[order[hi]] == primary[order[lo]]:
            hi += 1
        if hi - lo > 1:
            # insertion sort: runs of ties are short
            for x in range(lo + 1, hi):
                v = order[x]
                y = x
                while y > lo and _before(rows, v, order[y - 1]):
                    order[y] = order[y - 1]
                    y -= 1
                order[y] = v
        lo = hi


@njit(cache=True, nogil=True)
def _merge_order(keys):
    """:func:`lex_order` by a bottom-up merge sort of the indices, comparing whole columns."""
    nk, n = keys.shape
    rows = np.ascontiguousarray(keys.T)     # an index's keys side by side: a compare reads one cache line
    order = np.arange(n)
    tmp = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            a, b, o = lo, mid, lo
            while a < mid and b < hi:
                x, y = order[a], order[b]
                r = 0
                while r < nk and rows[x, r] == rows[y, r]:
                    r += 1
                if r < nk and rows[y, r] < rows[x, r]:
                    tmp[o] = y
                    b += 1
                else:
                    tmp[o] = x
                    a += 1
                o += 1
            while a < mid:
                tmp[o] = order[a]
                a += 1
                o += 1
            while b < hi:
                tmp[o] = order[b]
                b += 1
                o += 1
        order, tmp = tmp, order
        width *= 2
    return order


def _name_rank(names):
    """Rank of each name in sorted order (ties impossible: names are unique)."""
    order = sorted(range(len(names)), key=lambda k: names[k])
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return rank


def cigar_string(ops, eqx=False):
    """Run-length CIGAR of columns: ``M``/``I``/``D``, or ``=``/``X``/``I``/``D`` with ``eqx``."""
    if len(ops) == 0:
        return ""
    codes = ops.copy()
    if not eqx:
        codes[codes == OP_X] = OP_EQ
    change = np.flatnonzero(np.diff(codes)) + 1
    starts = np.concatenate(([0], change))
    lengths = np.diff(np.concatenate((starts, [len(codes)])))
    letters = (b"MMID" if not eqx else b"=XID")
    return "".join(f"{n}{chr(letters[c])}" for n, c in zip(lengths.tolist(), codes[starts].tolist()))
