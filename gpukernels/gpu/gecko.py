"""CuPy twin of ``cpu/gecko.py``: k-mer hits and GECKO fragments on the GPU (``cuda/gecko.cu``)."""

from __future__ import annotations

import numpy as np

from . import to_device

_THREADS = 256


def _k(name):
    from ..cuda import get_kernel
    return get_kernel("gecko", name)


def _grid(n):
    return (max(1, int((n + _THREADS - 1) // _THREADS)),)


def kmer_keys(codes, k):
    """Device keys and validity of every k-mer (as ``cpu/gecko.kmer_keys``)."""
    import cupy as cp
    d = to_device(codes, np.uint8)
    n = int(d.shape[0])
    keys = cp.zeros(n, dtype=cp.uint64)
    valid = cp.zeros(n, dtype=cp.uint8)
    if n:
        _k("kmer_keys")(_grid(n), (_THREADS,), (d, np.int64(n), np.int32(k), keys, valid))
    return keys, valid.astype(cp.bool_)


def find_hits(t_seed, q_seed, k):
    """Exact k-mer hits (host arrays; the caller orders them by diagonal)."""
    import cupy as cp
    tk, tv = kmer_keys(t_seed, k)
    qk, qv = kmer_keys(q_seed, k)
    t_pos = cp.flatnonzero(tv).astype(cp.int64)
    order = cp.argsort(tk[t_pos])                   # stable: positions ascend within a key
    sorted_t = t_pos[order]
    sorted_k = tk[sorted_t]
    q_pos = cp.flatnonzero(qv).astype(cp.int64)
    first = cp.searchsorted(sorted_k, qk[q_pos], side="left").astype(cp.int64)
    counts = cp.searchsorted(sorted_k, qk[q_pos], side="right").astype(cp.int64) - first
    ends = cp.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    hq = cp.empty(total, dtype=cp.int64)
    ht = cp.empty(total, dtype=cp.int64)
    if total:
        _k("fill_hits")(_grid(len(q_pos)), (_THREADS,), (q_pos, first, counts, ends - counts, sorted_t,
                                                          np.int64(len(q_pos)), hq, ht))
    return cp.asnumpy(hq), cp.asnumpy(ht)


def fragments(t_codes, q_codes, hit_q, hit_t, seg, k):
    """Per-hit fragment slots ``q0, q1, score`` (host arrays), as ``cpu/gecko.fragments``."""
    import cupy as cp
    t = to_device(t_codes, np.uint8)
    q = to_device(q_codes, np.uint8)
    n = len(hit_q)
    q0 = cp.full(n, -1, dtype=cp.int64)
    q1 = cp.zeros(n, dtype=cp.int64)
    sc = cp.zeros(n, dtype=cp.int64)
    nseg = len(seg) - 1
    if n and nseg > 0:
        _k("fragments")(_grid(nseg), (_THREADS,), (t, np.int64(t.shape[0]), q, np.int64(q.shape[0]),
                                                    cp.asarray(hit_q, dtype=cp.int64),
                                                    cp.asarray(hit_t, dtype=cp.int64),
                                                    cp.asarray(seg, dtype=cp.int64), np.int64(nseg),
                                                    np.int32(k), q0, q1, sc))
    return cp.asnumpy(q0), cp.asnumpy(q1), cp.asnumpy(sc)
