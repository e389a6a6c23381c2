"""FM-index seeding with mismatches (``--seeding fmindex``).

The target's seed codes (soft-masked bases and N already as N) are indexed
with a BWT, an Occ table sampled every ``q = 128`` rows and an SA sampled at
every text position divisible by ``p = 32`` (Liu & Schmidt's layout). Every
query word of ``seed_length`` letters on the strand being aligned (the engine
passes the reverse-complemented query for the minus strand) is searched
exactly or within Hamming distance ``mismatches`` (≤ 2) by backtracking
backward search; a word whose occurrences exceed ``occ_cap`` (default 128)
is dropped as a repeat. Located occurrences are returned as seed hits in
the same form as :func:`gpukernels.seeds.find_hits`, so they feed the same
ungapped and gapped stages.

The suffix array is built on the CPU (prefix doubling in NumPy; a few
seconds for a bacterium, about a minute for 40 Mb) and can be saved beside
the prepared genome (:meth:`FMIndex.save`, :func:`load`). Searching runs in
``cpu/fmindex.py`` (numba) or ``cuda/fmindex.cu``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

import numpy as np

from .errors import InputError

OCC_STEP = 128
SA_STEP = 32
DEFAULT_SEED_LENGTH = 20
DEFAULT_CAP = 128
MAX_MISMATCHES = 2
MAX_SEED_LENGTH = 64

_FIELDS = ("blocks", "occ5", "C", "mark_words", "mark_rank", "ssa")


@dataclass
class FMIndex:
    """BWT, sampled Occ and sampled SA of one code array.

    Attributes
    ----------
    blocks : ndarray of uint64, shape (n // 128 + 1, 8)
        Per 128 BWT rows: counts of A-T before them, the rows' symbols at 2
        bits each and a bit per row whose symbol is not A-T (see
        ``cpu/fmindex.py``); 4 bits per base.
    occ5 : ndarray of uint32
        Count of symbol 5 (N, masked, separator) before each block.
    C : ndarray of int64, 7 entries
        Rows whose first symbol is smaller than each symbol (0 ``$``, 1-4
        A-T, 5 anything else).
    mark_words, mark_rank : ndarray
        Bit vector of sampled rows and its per-64-row prefix counts.
    ssa : ndarray of int64
        SA values of the sampled rows, in row order.
    dollar, p, n : int
        Row of ``$``, SA step, rows (text length + 1). The Occ step q is 128.
    digest : str
        SHA-1 of the indexed codes (checks a saved index against its genome).
    """

    blocks: np.ndarray
    occ5: np.ndarray
    C: np.ndarray
    mark_words: np.ndarray
    mark_rank: np.ndarray
    ssa: np.ndarray
    dollar: int
    p: int
    n: int
    digest: str = ""

    def arrays(self):
        """The arrays and steps as the kernels take them."""
        out = {f: getattr(self, f) for f in _FIELDS}
        out.update(dollar=self.dollar, p=self.p, n=self.n)
        return out

    def bwt(self):
        """The BWT, one symbol (0-5) per row."""
        from .cpu import fmindex as cpu_fm
        return cpu_fm.bwt_symbols(self.blocks, self.dollar, self.n)

    def nbytes(self):
        """Bytes held by the index arrays."""
        return sum(getattr(self, f).nbytes for f in _FIELDS)

    def save(self, path):
        """Write the index to ``path`` (``.npz``), atomically."""
        tmp = f"{path}.tmp{os.getpid()}.npz"
        np.savez(tmp, dollar=self.dollar, p=self.p, n=self.n, digest=np.array(self.digest),
                 **{f: getattr(self, f) for f in _FIELDS})
        os.replace(tmp, path)


def codes_digest(codes):
    """SHA-1 of a code array."""
    return hashlib.sha1(np.ascontiguousarray(codes, dtype=np.uint8).tobytes()).hexdigest()


def load(path):
    """Read an index written by :meth:`FMIndex.save`."""
    with np.load(path) as z:
        return FMIndex(*(z[f] for f in _FIELDS), dollar=int(z["dollar"]), p=int(z["p"]), n=int(z["n"]),
                       digest=str(z["digest"]))


def build_index(codes, p=SA_STEP, keep_sa=False):
    """Index ``codes`` (engine codes; pass seed codes so masked bases never match).

    Returns
    -------
    FMIndex, or (FMIndex, ndarray) with ``keep_sa``
        The full suffix array as well (for tests).
    """
    if p < 1:
        raise InputError("the SA sampling step must be positive")
    from .cpu import fmindex as cpu_fm
    arrays, sa = cpu_fm.build(np.ascontiguousarray(codes, dtype=np.uint8), p)
    ix = FMIndex(**arrays, digest=codes_digest(codes))
    return (ix, sa) if keep_sa else ix


def index_for(codes, path=None, p=SA_STEP):
    """The index of ``codes``: read from ``path`` when it holds this very text, else built (and saved there)."""
    digest = codes_digest(codes)
    if path is not None and os.path.exists(path):
        ix = load(path)
        if ix.digest == digest and ix.p == p:
            return ix
    ix = build_index(codes, p)
    if path is not None:
        ix.save(path)
    return ix


def check_params(seed_length, mismatches, cap):
    """Raise :class:`InputError` for unusable seed length, mismatch count or cap."""
    if not 4 <= int(seed_length) <= MAX_SEED_LENGTH:
        raise InputError(f"--seed-length must be 4 to {MAX_SEED_LENGTH}, not {seed_length}")
    if not 0 <= int(mismatches) <= MAX_MISMATCHES:
        raise InputError(f"--mismatches must be 0 to {MAX_MISMATCHES}, not {mismatches}")
    if int(mismatches) >= int(seed_length):
        raise InputError("--mismatches must be smaller than --seed-length")
    if int(cap) < 1:
        raise InputError("the occurrence cap must be at least 1")


def intervals(index: FMIndex, word, mismatches=0, limit=1 << 40):
    """SA intervals ``[lo, hi)`` of every string within Hamming ``mismatches`` of ``word`` (codes 0-3)."""
    from .cpu import fmindex as cpu_fm
    pattern = np.asarray(word, dtype=np.uint8) + 1
    lo, hi, _ = cpu_fm.intervals(index.blocks, index.C, index.n, pattern,
                                 int(mismatches), int(min(limit, index.n)))
    return lo, hi


def locate(index: FMIndex, rows):
    """Text positions of SA rows (from the sampled SA)."""
    from .cpu import fmindex as cpu_fm
    return np.array([cpu_fm.locate_row(index.blocks, index.occ5, index.dollar, index.C, index.mark_words,
                                       index.mark_rank, index.ssa, int(j)) for j in rows], dtype=np.int64)


def find_hits(index: FMIndex, q_codes, q_lo, q_hi, seed_length=DEFAULT_SEED_LENGTH, mismatches=0,
              cap=DEFAULT_CAP, self_mode=0, backend="cpu"):
    """Seed hits of query words starting in ``[q_lo, q_hi)``, as :func:`gpukernels.seeds.find_hits` gives them.

    Parameters
    ----------
    index : FMIndex
        Of the target's seed codes.
    q_codes : ndarray of uint8
        The query strand's seed codes (words holding a code above 3 never seed).
    seed_length, mismatches, cap : int
    self_mode : {0, 1, 2}
        As in :func:`gpukernels.seeds.find_hits`.

    Returns
    -------
    hit_q, hit_t : ndarray of int64
        Word starts, ordered by query position then target position (host arrays).
    """
    check_params(seed_length, mismatches, cap)
    q_lo, q_hi = int(q_lo), int(q_hi)
    if backend == "gpu":
        from .gpu import fmindex as gpu_fm
        hq, ht = gpu_fm.find_hits(index, q_codes, q_lo, q_hi, int(seed_length), int(mismatches), int(cap))
    else:
        from .cpu import fmindex as cpu_fm
        hq, ht = cpu_fm.find_hits(index.arrays(), np.ascontiguousarray(q_codes, dtype=np.uint8), q_lo,
                                  q_hi, int(seed_length), int(mismatches), int(cap))
    if self_mode == 1:
        keep = ht < hq
        hq, ht = hq[keep], ht[keep]
    elif self_mode == 2:
        keep = ht <= len(q_codes) - hq - int(seed_length)
        hq, ht = hq[keep], ht[keep]
    order = np.lexsort((ht, hq))
    return hq[order], ht[order]
