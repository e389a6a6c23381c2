"""CuPy twin of ``cpu/ungapped.extend_hits``: x-drop extension of seed hits.

Hits are grouped by diagonal (a stable sort keeps query order within each
diagonal). ``cuda/ungapped.cu`` runs one thread per diagonal, the CPU's loop
with each pass capped, then one warp per diagonal for the hits left where a
pass ran past the cap. The rule of the CPU twin only orders hits within a
diagonal, so the extensions are the same; they are returned in hit order, as
the CPU returns them.
"""

from __future__ import annotations

import numpy as np

from . import budget, settle, to_device

#: threads a block (``extend_diagonals_lanes`` is built for blocks of 256: its ``__launch_bounds__``)
_THREADS = 256
#: nvcc options of the extension's kernels (the tests add ``-DLANE_PASS_CAP=...``: a cap of a few letters
#: hands nearly every diagonal on to the warp kernel)
KERNEL_OPTIONS = ("-std=c++17",)
#: blocks per SM of the warp kernel, which takes the handed-on diagonals in turn until none is left
_WARP_BLOCKS_PER_SM = 8
#: device bytes per hit in one launch (inputs, sort, outputs, and per diagonal at most one a hit: its
#: first hit, diagonal and extent gathered, and where it is handed on)
_BYTES_PER_HIT = 200


def _resident_blocks(kernel, attributes):
    """Blocks of ``_THREADS`` that a multiprocessor holds at once, as the kernel's registers allow.

    The lane kernel's threads each take diagonals one grid's width apart, so its grid is the blocks
    that run at once: a second wave of blocks would start late and end last.
    """
    regs = -(-max(int(getattr(kernel, "num_regs", 0)), 1) // 8) * 8      # allocated 8 at a time
    warps = attributes["MaxRegistersPerMultiprocessor"] // (regs * 32)
    return max(1, min(warps // (_THREADS // 32), attributes["MaxThreadsPerMultiProcessor"] // _THREADS))


def extend_hits(t_codes, q_codes, hit_q, hit_t, span, matrix, xdrop, diag_end, min_score=1, gpu_mem=None):
    """Extend hits; return the extensions scoring at least ``min_score``, as :func:`gpukernels.cpu.ungapped.extend_hits`.

    Parameters
    ----------
    t_codes, q_codes : ndarray of uint8
        Seed codes (host or device).
    hit_q, hit_t : arrays of int64
        Word starts of the hits, ordered by query position (host or device).
    span : int
    matrix : ndarray of int32, shape (6, 6)
        Gap-free scores.
    xdrop : int
    diag_end : ndarray or cupy.ndarray of int64
        Per-diagonal extent; updated in place (a host array is copied to the
        device and back).
    min_score : int
        Extensions scoring less stay on the device (the default 1 returns
        every non-empty one).
    gpu_mem : int, optional
        Memory budget in bytes; hits are taken in batches that fit it.

    Returns
    -------
    out_q0, out_q1, out_t0, out_score : ndarray of int64
    counts : ndarray of int32, shape (n, 4)
    """
    import cupy as cp
    from ..cuda import get_kernel
    lanes = get_kernel("ungapped", "extend_diagonals_lanes", KERNEL_OPTIONS)
    warps = get_kernel("ungapped", "extend_diagonals", KERNEL_OPTIONS)
    attributes = cp.cuda.Device().attributes
    sms = attributes["MultiProcessorCount"]
    warp_grid = (sms * _WARP_BLOCKS_PER_SM,)
    lane_blocks = sms * _resident_blocks(lanes, attributes)
    d_t = to_device(t_codes, np.uint8)
    d_q = to_device(q_codes, np.uint8)
    tn, qn = int(d_t.shape[0]), int(d_q.shape[0])
    host_diag = not isinstance(diag_end, cp.ndarray)
    d_diag = cp.asarray(diag_end) if host_diag else diag_end
    mat = cp.asarray(np.ascontiguousarray(matrix, dtype=np.int32))
    n = int(hit_q.shape[0])
    batch = max(1, budget(gpu_mem) // _BYTES_PER_HIT)
    parts = []
    for lo in range(0, n, batch):
        hi = min(n, lo + batch)
        hq = hit_q[lo:hi] if isinstance(hit_q, cp.ndarray) else cp.asarray(np.asarray(hit_q[lo:hi], np.int64))
        ht = hit_t[lo:hi] if isinstance(hit_t, cp.ndarray) else cp.asarray(np.asarray(hit_t[lo:hi], np.int64))
        m = hi - lo
        if m == 0:
            continue
        dkey = ht - hq
        if tn + qn < 2 ** 31:
            dkey = dkey.astype(cp.int32)            # half the radix sort's passes
        perm = cp.argsort(dkey)                     # stable: query order kept per diagonal
        sk = dkey[perm]
        sq = hq[perm]
        st = ht[perm]
        bounds = cp.flatnonzero(sk[1:] != sk[:-1]) + 1
        seg = cp.concatenate([cp.zeros(1, cp.int64), bounds.astype(cp.int64), cp.full(1, m, cp.int64)])
        nseg = int(seg.shape[0]) - 1
        out_q0 = cp.empty(m, dtype=cp.int64)
        out_q1 = cp.empty(m, dtype=cp.int64)
        out_sc = cp.empty(m, dtype=cp.int64)
        out_cn = cp.empty((m, 4), dtype=cp.int32)
        ok = cp.zeros(m, dtype=cp.uint8)
        rest_lo = cp.empty(nseg, dtype=cp.int64)
        rest_hi = cp.empty(nseg, dtype=cp.int64)
        counters = cp.zeros(2, dtype=cp.uint64)          # diagonals handed on, diagonals taken
        scalars = (np.int32(span), np.int64(xdrop), np.int64(min_score))
        outputs = (out_q0, out_q1, out_sc, out_cn, ok)
        first = seg[:-1]
        seg_diag = sk[first].astype(cp.int64)
        lanes((min((nseg + _THREADS - 1) // _THREADS, lane_blocks),), (_THREADS,), (
            d_t, np.int64(tn), d_q, np.int64(qn), sq, perm, seg, sq[first], seg_diag, d_diag[seg_diag + qn],
            np.int64(nseg), d_diag, mat, *scalars, *outputs, rest_lo, rest_hi, counters[:1]))
        warps(warp_grid, (_THREADS,), (d_t, np.int64(tn), d_q, np.int64(qn), sq, st, perm, rest_lo, rest_hi,
                                       counters[:1], counters[1:], d_diag, mat, *scalars, *outputs))
        settle()
        keep = cp.flatnonzero(ok)
        q0 = out_q0[keep]
        q1 = out_q1[keep]
        parts.append((q0, q1, q0 + (ht[keep] - hq[keep]), out_sc[keep], out_cn[keep]))
    settle()
    if host_diag:
        diag_end[...] = cp.asnumpy(d_diag)
    if not parts:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy(), z.copy(), z.copy(), np.zeros((0, 4), dtype=np.int32)
    return tuple(np.concatenate([cp.asnumpy(p[k]) for p in parts]) for k in range(5))


#: threads per HSP in the anchors' kernel (a megabase HSP's window starts, cut into one run each)
_ANCHOR_THREADS = 128


def anchors(t_codes, q_codes, q0, q1, t0, matrix, window):
    """Anchor of each HSP, as :func:`gpukernels.cpu.ungapped.anchors` (same arguments, same result).

    Kernel ``hsp_anchors``: one block per HSP, each thread sliding the
    window over a run of its starts. The codes go through :func:`to_device`
    (uploaded once per array); the HSPs' bounds are host arrays.

    Returns
    -------
    anchor_q, anchor_t : ndarray of int64
    """
    import cupy as cp
    from ..cuda import get_kernel
    n = int(np.asarray(q0).shape[0])
    if n == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy()
    d_t = to_device(t_codes, np.uint8)
    d_q = to_device(q_codes, np.uint8)
    bounds = cp.asarray(np.concatenate([np.asarray(x, dtype=np.int64) for x in (q0, q1, t0)]))
    mat = cp.asarray(np.ascontiguousarray(matrix, dtype=np.int32))
    out = cp.empty(2 * n, dtype=cp.int64)
    get_kernel("ungapped", "hsp_anchors")((n,), (_ANCHOR_THREADS,), (
        d_t, d_q, bounds[:n], bounds[n:2 * n], bounds[2 * n:], mat, np.int32(window), out[:n], out[n:]))
    settle()
    host = cp.asnumpy(out)
    return host[:n], host[n:]
