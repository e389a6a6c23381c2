"""CuPy twin of ``cpu/fmindex.py``: FM-index search with mismatches on the GPU.

One thread per query word runs the same depth-first backtracking search as
the CPU (``cuda/fmindex.cu``): a counting launch, a prefix sum, then a fill
launch that locates every row through the sampled SA. The index arrays are
uploaded once per index object (the weak-reference cache of
:func:`gpukernels.gpu.to_device`).
"""

from __future__ import annotations

import numpy as np

from . import budget, to_device

_THREADS = 128


def _k(name):
    from ..cuda import get_kernel
    return get_kernel("fmindex", name)


def find_hits(index, q_codes, q_lo, q_hi, L, m, cap, gpu_mem=None):
    """Hits of query words ``[q_lo, q_hi)``, in the CPU twin's order (host arrays).

    Parameters
    ----------
    index : FMIndex
    q_codes : ndarray or cupy.ndarray of uint8
    q_lo, q_hi, L, m, cap : int
    gpu_mem : int, optional
        Memory budget in bytes; bounds the words per launch.
    """
    import cupy as cp
    kern = _k("fm_search")
    arrs = (to_device(index.blocks, np.uint64), to_device(index.occ5, np.uint32), np.int64(index.dollar),
            to_device(index.C, np.int64), np.int64(index.n), to_device(index.mark_words, np.uint64),
            to_device(index.mark_rank, np.int64), to_device(index.ssa, np.int64))
    d_q = to_device(q_codes, np.uint8)
    q_len = int(d_q.shape[0])
    mem = budget(gpu_mem)
    step = max(1, min(q_hi - q_lo, mem // (8 * 16 * (cap + 2))))
    out_q, out_t = [], []
    for lo in range(q_lo, q_hi, step):
        hi = min(lo + step, q_hi)
        nw = hi - lo
        grid = ((nw + _THREADS - 1) // _THREADS,)
        counts = cp.zeros(nw, dtype=cp.int64)
        common = arrs + (d_q, np.int64(q_len), np.int64(lo), np.int64(hi), np.int32(L), np.int32(m),
                         np.int64(cap), counts)
        kern(grid, (_THREADS,), common + (counts, counts, counts, np.int32(0)))
        ends = cp.cumsum(counts)
        total = int(ends[-1]) if nw else 0
        if total == 0:
            continue
        starts = ends - counts
        hq = cp.empty(total, dtype=cp.int64)
        ht = cp.empty(total, dtype=cp.int64)
        kern(grid, (_THREADS,), common + (starts, hq, ht, np.int32(1)))
        out_q.append(cp.asnumpy(hq))
        out_t.append(cp.asnumpy(ht))
    if not out_q:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy()
    return np.concatenate(out_q), np.concatenate(out_t)
