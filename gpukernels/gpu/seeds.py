"""CuPy twin of ``cpu/seeds.py``: spaced-seed keys, index and query lookup.

Keys and lookup run in ``cuda/seeds.cu``; the index is a stable sort by key
(CuPy's sort is stable, so positions stay ascending within a key) and a
bucket table from a bincount, as the CPU builds it.
"""

from __future__ import annotations

import numpy as np

from . import budget, settle, to_device

_THREADS = 256


def _k(name):
    from ..cuda import get_kernel
    return get_kernel("seeds", name)


def _grid(n):
    return (int((n + _THREADS - 1) // _THREADS),)


def seed_keys(codes, seed):
    """Key of the word at each position (-1: no valid word), as a device array.

    Parameters
    ----------
    codes : ndarray of uint8
        Seed codes (host or device).
    seed : SeedPattern

    Returns
    -------
    cupy.ndarray of int64
    """
    import cupy as cp
    d_codes = to_device(codes, np.uint8)
    n = int(d_codes.shape[0])
    keys = cp.empty(n, dtype=cp.int64)
    if n:
        care = cp.asarray(seed.care, dtype=cp.int32)
        _k("seed_keys")(_grid(n), (_THREADS,), (d_codes, np.int64(n), care, np.int32(seed.weight),
                                                 np.int32(seed.span), keys))
    return keys


def build_index(keys, seed, prefix_bits):
    """Index every valid word: a :class:`~gpukernels.seeds.SeedIndex` whose arrays are on the device.

    Parameters
    ----------
    keys : ndarray or cupy.ndarray of int64
        From :func:`seed_keys`.
    seed : SeedPattern
    prefix_bits : int
        Bits of a key that index the bucket table.
    """
    import cupy as cp
    from ..seeds import SeedIndex
    keys = to_device(keys, np.int64)
    shift = seed.key_bits - prefix_bits
    pos = cp.flatnonzero(keys >= 0).astype(cp.int64)
    k = keys[pos]
    order = cp.argsort(k)                    # stable: positions stay ascending within a key
    sorted_keys = k[order]
    sorted_pos = pos[order]
    nb = 1 << prefix_bits
    counts = cp.bincount(sorted_keys >> shift, minlength=nb) if len(sorted_keys) else \
        cp.zeros(nb, dtype=cp.int64)
    bucket = cp.zeros(nb + 1, dtype=cp.int64)
    cp.cumsum(counts, out=bucket[1:])
    return SeedIndex(sorted_keys, sorted_pos, bucket, shift, seed)


def find_hits(index, qkeys, q_lo, q_hi, transition=True, self_mode=0, on_device=False, gpu_mem=None):
    """Seed hits of query positions ``[q_lo, q_hi)``, in the CPU twin's order.

    Parameters
    ----------
    index : SeedIndex
        From :func:`build_index` (device arrays).
    qkeys : ndarray or cupy.ndarray of int64
    q_lo, q_hi : int
    transition : bool
    self_mode : {0, 1, 2}
    on_device : bool
        Return device arrays when the hits fit the memory budget (the
        engine passes them straight to the ungapped stage); otherwise, and
        always when they do not fit, host arrays.
    gpu_mem : int, optional
        Memory budget in bytes (default: :func:`gpukernels.gpu.budget`).

    Returns
    -------
    hit_q, hit_t : arrays of int64
        Ordered by query position, then lookup (exact key first), then target.
    """
    import cupy as cp
    qkeys = to_device(qkeys, np.int64)
    q_total = int(qkeys.shape[0])
    nvar = index.seed.weight + 1 if transition else 1
    mem = budget(gpu_mem)
    k = _k("find_hits")
    fixed = (index.sorted_keys, index.sorted_pos, index.bucket, np.int32(index.shift), np.int32(self_mode),
             np.int64(q_total), np.int32(index.seed.span))
    # query positions per counting step: a count and a start (16 bytes) per item
    step = max(1, min(q_hi - q_lo, mem // (4 * 16 * nvar)))
    cap = max(1, (mem // 2) // 16)          # hits written per fill launch
    out_q, out_t, on_host = [], [], False
    for lo in range(q_lo, q_hi, step):
        items = min(step, q_hi - lo) * nvar
        counts = cp.empty(items, dtype=cp.int64)
        k(_grid(items), (_THREADS,), (qkeys, np.int64(lo), np.int32(nvar), np.int64(0), np.int64(items))
          + fixed + (counts, counts, np.int64(0), counts, counts, np.int32(0)))
        ends = cp.cumsum(counts)
        starts = ends - counts
        settle()
        total = int(ends[-1])
        if total <= cap:
            cuts = [0, items]
        else:
            on_host = True
            marks = cp.arange(cap, total, cap, dtype=cp.int64)
            inner = cp.asnumpy(cp.searchsorted(ends, marks, side="left")).tolist()
            cuts = sorted(set([0, items] + [c for c in inner if 0 < c < items]))
        for a, b in zip(cuts[:-1], cuts[1:]):
            base = int(starts[a])
            n = int(ends[b - 1]) - base
            hq = cp.empty(n, dtype=cp.int64)
            ht = cp.empty(n, dtype=cp.int64)
            if n:
                k(_grid(b - a), (_THREADS,), (qkeys, np.int64(lo), np.int32(nvar), np.int64(a), np.int64(b))
                  + fixed + (counts, starts, np.int64(base), hq, ht, np.int32(1)))
            if on_host:
                settle()
                out_q.append(cp.asnumpy(hq))
                out_t.append(cp.asnumpy(ht))
            else:
                out_q.append(hq)
                out_t.append(ht)
    if not out_q:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy()
    settle()
    if on_host or not on_device:
        return (np.concatenate([cp.asnumpy(a) for a in out_q]),
                np.concatenate([cp.asnumpy(a) for a in out_t]))
    if len(out_q) == 1:
        return out_q[0], out_t[0]
    return cp.concatenate(out_q), cp.concatenate(out_t)
