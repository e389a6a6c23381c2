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
        keys = (-self.score, self.strand, self.q_end, self.q_start, q_rank, self.t_end, self.t_start, t_rank)
        order = np.lexsort(keys)
        ranked = np.stack([k[order] for k in keys])
        tied = np.flatnonzero((ranked[:, 1:] == ranked[:, :-1]).all(axis=0))
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
        out[new_off[x]:new_off[x + 1]] = ops[op_off[k]:op_off[k + 1]]
    return out


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
