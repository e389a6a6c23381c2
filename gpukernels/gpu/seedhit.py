"""CuPy twin of ``cpu/seedhit.py``: b-mer hit counts with shared-memory bit tables, candidate filter."""

from __future__ import annotations

import numpy as np

from . import to_device

_THREADS = 256


def _k(name):
    from ..cuda import get_kernel
    return get_kernel("seedhit", name)


def _smem(bits):
    return max(4, ((1 << bits) >> 5) * 4)


def count_pairs(t_codes, t_off, q_codes, q_off, bits):
    """b-mer hit count of each pair (host array), as ``cpu/seedhit.count_pairs``."""
    import cupy as cp
    n = len(t_off) - 1
    out = cp.zeros(max(n, 0), dtype=cp.int64)
    if n > 0:
        grid = (int(min(n, 65535 * 16)),)
        _k("count_pairs")(grid, (_THREADS,), (to_device(t_codes, np.uint8), to_device(t_off, np.int64),
                                              to_device(q_codes, np.uint8), to_device(q_off, np.int64),
                                              np.int64(n), np.int32(bits), out), shared_mem=_smem(bits))
    return cp.asnumpy(out)


def best_window_counts(t_codes, q_codes, bits, window):
    """Best count per query window (host array), as ``cpu/seedhit.best_window_counts``."""
    import cupy as cp
    nt, nq = len(t_codes), len(q_codes)
    nqw = (nq + window - 1) // window
    ntw = max(1, (nt + window - 1) // window)
    best = cp.zeros(nqw, dtype=cp.int64)
    if nqw:
        _k("window_counts")((int(min(ntw, 65535)),), (_THREADS,),
                            (to_device(t_codes, np.uint8), np.int64(nt), to_device(q_codes, np.uint8),
                             np.int64(nq), np.int32(bits), np.int32(window), np.int64(ntw), best),
                            shared_mem=_smem(bits))
    return cp.asnumpy(best)


def filter_candidates(hit_q, hit_t):
    """Keep hits with ≥ 2 hits in their 3 × 3 cells (device arrays in and out, order kept)."""
    import cupy as cp
    from ..seedhit import BAND_SHIFT, MIN_NEIGHBOURHOOD, WIN_SHIFT
    on_host = isinstance(hit_q, np.ndarray)
    hq = cp.asarray(hit_q, dtype=cp.int64)
    ht = cp.asarray(hit_t, dtype=cp.int64)
    band = (ht - hq) >> BAND_SHIFT
    win = hq >> WIN_SHIFT
    order = cp.lexsort(cp.stack((win, band)))
    sb, sw = band[order], win[order]
    head = cp.ones(len(sb), dtype=cp.bool_)
    head[1:] = (sb[1:] != sb[:-1]) | (sw[1:] != sw[:-1])
    starts = cp.flatnonzero(head)
    counts = cp.diff(cp.concatenate((starts, cp.asarray([len(sb)], dtype=starts.dtype))))
    n = len(hq)
    near = cp.empty(n, dtype=cp.int64)
    _k("neighbour_counts")(((n + _THREADS - 1) // _THREADS,), (_THREADS,),
                           (band, win, np.int64(n), cp.ascontiguousarray(sb[starts]),
                            cp.ascontiguousarray(sw[starts]), counts.astype(cp.int64),
                            np.int64(len(starts)), near))
    keep = near >= MIN_NEIGHBOURHOOD
    hq, ht = hq[keep], ht[keep]
    if on_host:
        return cp.asnumpy(hq), cp.asnumpy(ht)
    return hq, ht
