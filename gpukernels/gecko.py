"""Preset ``gecko``: exact k-mer seeds and GECKO's ungapped fragments (GPUGECKO's mode).

``ava align --preset gecko [--kmer K] [--min-identity P]``: exact k-mers
(``K`` ≤ 32, default 32) shared by target and query seed, redundant hits on
a diagonal within ``2K`` of an earlier kept one are dropped, the others are
extended without gaps with match +1 / mismatch -1 until the score drops
below zero (GECKO's "x-drop to zero", see ``cpu/gecko.py``), and fragments of
at least ``K`` bases and ``P`` % identity (default 80, true identity: matches
over length) are reported as ungapped alignments. No gapped stage runs.
The score of an alignment is its +1/-1 score.

Stages run in ``cpu/gecko.py`` (numba) or ``cuda/gecko.cu``; both give the
same fragments.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from .alignments import Alignments
from .errors import InputError

log = logging.getLogger("gpukernels")

DEFAULT_KMER = 32
DEFAULT_MIN_IDENTITY = 80.0


def check_params(kmer, min_identity):
    """Raise :class:`InputError` for a k-mer size outside 4-32 or an identity outside 0-100."""
    if not 4 <= int(kmer) <= 32:
        raise InputError(f"--kmer must be 4 to 32, not {kmer}")
    if not 0.0 <= float(min_identity) <= 100.0:
        raise InputError(f"--min-identity must be 0 to 100, not {min_identity}")


def find_hits(t_seed, q_seed, k, self_mode=0, backend="cpu"):
    """Exact k-mer hits, sorted by diagonal then query position.

    Parameters
    ----------
    t_seed, q_seed : ndarray of uint8
        Seed codes (masked bases as N) of the target and of the query strand.
    k : int
    self_mode : {0, 1, 2}
        As in :func:`gpukernels.seeds.find_hits`.

    Returns
    -------
    hit_q, hit_t : ndarray of int64
    seg : ndarray of int64
        ``hit_*[seg[g]:seg[g + 1]]`` are the hits of one diagonal.
    """
    if backend == "gpu":
        from .gpu import gecko as gpu_gecko
        hq, ht = gpu_gecko.find_hits(t_seed, q_seed, int(k))
    else:
        from .cpu import gecko as cpu_gecko
        tk, tv = cpu_gecko.kmer_keys(np.ascontiguousarray(t_seed, dtype=np.uint8), int(k))
        qk, qv = cpu_gecko.kmer_keys(np.ascontiguousarray(q_seed, dtype=np.uint8), int(k))
        t_pos = np.flatnonzero(tv)
        order = np.argsort(tk[t_pos], kind="stable")
        sorted_t = t_pos[order].astype(np.int64)
        sorted_k = tk[sorted_t]
        q_pos = np.flatnonzero(qv).astype(np.int64)
        first = np.searchsorted(sorted_k, qk[q_pos], side="left").astype(np.int64)
        counts = np.searchsorted(sorted_k, qk[q_pos], side="right").astype(np.int64) - first
        starts = np.cumsum(counts) - counts
        total = int(counts.sum())
        hq = np.empty(total, dtype=np.int64)
        ht = np.empty(total, dtype=np.int64)
        cpu_gecko.fill_hits(q_pos, first, counts, starts, sorted_t, hq, ht)
    if self_mode == 1:
        keep = ht < hq
        hq, ht = hq[keep], ht[keep]
    elif self_mode == 2:
        keep = ht <= len(q_seed) - hq - int(k)
        hq, ht = hq[keep], ht[keep]
    diag = ht - hq
    order = np.lexsort((hq, diag))
    hq, ht, diag = hq[order], ht[order], diag[order]
    cut = np.flatnonzero(diag[1:] != diag[:-1]) + 1
    seg = np.concatenate(([0], cut, [len(hq)])).astype(np.int64) if len(hq) else np.zeros(1, np.int64)
    return hq, ht, seg


def fragments(t_codes, q_codes, hit_q, hit_t, seg, k, min_identity=DEFAULT_MIN_IDENTITY, backend="cpu"):
    """GECKO fragments of the hits, filtered by length ≥ k and identity ≥ ``min_identity``.

    Returns
    -------
    dict
        ``q0, q1, t0, t1, score, ident`` (int64 arrays, strand coordinates),
        ``op_off, ops`` (columns), ``extended`` (hits extended).
    """
    from .cpu import gecko as cpu_gecko
    if backend == "gpu":
        from .gpu import gecko as gpu_gecko
        q0, q1, score = gpu_gecko.fragments(t_codes, q_codes, hit_q, hit_t, seg, int(k))
    else:
        q0, q1, score = cpu_gecko.fragments(t_codes, q_codes, hit_q, hit_t, seg, int(k))
    made = q0 >= 0
    extended = int(made.sum())
    q0, q1, score = q0[made], q1[made], score[made]
    t0 = q0 + (hit_t[made] - hit_q[made])
    op_off, ops, ident = cpu_gecko.columns(t_codes, q_codes, q0, q1, t0)
    length = q1 - q0
    keep = (length >= k) & (ident * 100.0 >= min_identity * length - 1e-9)
    idx = np.flatnonzero(keep)
    lengths = length[idx]
    new_off = np.zeros(len(idx) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_off[1:])
    sel = np.zeros(len(ops), dtype=bool)
    if len(idx):
        owner = np.repeat(np.arange(len(q0)), length)
        sel = keep[owner]
    return dict(q0=q0[idx], q1=q1[idx], t0=t0[idx], t1=t0[idx] + lengths, score=score[idx],
                ident=ident[idx], op_off=new_off, ops=ops[sel], extended=extended)


def align(target, query, options, backend="cpu", stats=None):
    """The gecko preset on both strands (or one): canonical :class:`Alignments`."""
    from .engine import _to_records
    check_params(options.kmer, options.min_identity)
    k = int(options.kmer)
    parts = []
    t_seed = target.seed_codes(options.unmask)
    for reverse in (False, True):
        if options.strand == ("minus" if not reverse else "plus"):
            continue
        clock = time.perf_counter()
        if reverse:
            q_codes = query.reverse_complement()
            q_seed = query.seed_codes_rc(options.unmask)
        else:
            q_codes, q_seed = query.codes, query.seed_codes(options.unmask)
        self_mode = (2 if reverse else 1) if options.self_mode else 0
        hq, ht, seg = find_hits(t_seed, q_seed, k, self_mode, backend)
        t1 = time.perf_counter()
        fr = fragments(target.codes, q_codes, hq, ht, seg, k, options.min_identity, backend)
        t2 = time.perf_counter()
        if stats is not None:
            stats.seed_hits += len(hq)
            stats.hsps += len(fr["q0"])
            stats.alignments += len(fr["q0"])
            stats.seconds["seed"] += t1 - clock
            stats.seconds["ungapped"] += t2 - t1
        parts.append(_to_records(fr, target, query, reverse))
        log.info("gecko strand %s: %d hits, %d extended, %d fragments (%.1f s)", "-" if reverse else "+",
                 len(hq), fr["extended"], len(fr["q0"]), t2 - clock)
    return Alignments.concat(parts).canonical(target.names, query.names)
