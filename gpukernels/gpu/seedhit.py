"""CuPy twin of ``cpu/seedhit.py``: b-mer hit counts with shared-memory bit tables, candidate filter."""

from __future__ import annotations

import numpy as np

from . import to_device

_THREADS = 256


def _k(name):
    from ..cuda import get_kernel
    return get_kernel("seedhit", name)


def _smem(bits):
    """Bytes of a bit table of ``2**bits`` bits (``window_counts``)."""
    return max(4, ((1 << bits) >> 5) * 4)


def _pair_smem(bits):
    """Bytes of one ``count_pairs`` table: ``2**bits`` bits in whole banks, then two pads of 32 words."""
    return (_smem(bits) + 127) // 128 * 128 + 256


def _pair_launch(bits):
    """Threads per block and blocks for ``count_pairs``: one warp per pair, its table in shared memory.

    Warps per block are as many as fit 32 KiB of tables, at most 8; the grid
    is exactly the blocks that are resident at once (bounded by shared memory,
    1 KiB of it reserved per block, and 2048 threads per multiprocessor), and
    each warp walks the pairs with a grid stride. So the tables are wiped once
    per warp, and no block waits for a second wave.
    """
    import cupy as cp
    warps = max(1, min(8, (32 * 1024) // _pair_smem(bits)))
    attrs = cp.cuda.Device().attributes
    per_sm = min(2048 // (32 * warps),
                 attrs["MaxSharedMemoryPerMultiprocessor"] // (warps * _pair_smem(bits) + 1024), 32)
    return warps, max(1, per_sm) * attrs["MultiProcessorCount"]


def pack(codes):
    """``codes`` packed 2 bits a letter, with a bit per letter for N and separators (``pack_codes``)."""
    import cupy as cp
    codes = to_device(codes, np.uint8)
    if codes.data.ptr % 16:                    # the kernel reads 16 bytes at a time
        codes = codes.copy()
    n = len(codes)
    nwords = (n + 31) // 32 + 1
    packed = cp.empty(2 * nwords, dtype=cp.uint32)
    invalid = cp.empty(nwords, dtype=cp.uint32)
    _k("pack_codes")(((nwords + _THREADS - 1) // _THREADS,), (_THREADS,),
                     (codes, np.int64(n), packed, invalid, np.int64(nwords)))
    return packed, invalid


def count_packed_device(t_packed, t_off, q_packed, q_off, bits):
    """``count_pairs`` on sequences already packed by :func:`pack`: a CuPy array of counts, no sync."""
    import cupy as cp
    t_off = to_device(t_off, np.int64)
    n = len(t_off) - 1
    out = cp.zeros(max(n, 0), dtype=cp.int64)
    if n > 0:
        warps, blocks = _pair_launch(bits)
        blocks = int(min(blocks, (n + warps - 1) // warps))
        kernel = _k(f"count_pairs_{bits // 2}")             # word length a template parameter
        kernel((blocks,), (32 * warps,), (*t_packed, t_off, *q_packed, to_device(q_off, np.int64),
                                          np.int64(n), np.int32(bits), out),
               shared_mem=warps * _pair_smem(bits))
    return out


def count_pairs_device(t_codes, t_off, q_codes, q_off, bits):
    """``count_pairs`` on the device: CuPy (or host) arrays in, a CuPy array of counts out, no sync.

    Both sequences are packed first (2 bits a letter and an N bit, as
    SeedHit keeps them); that pass is part of the call.
    """
    return count_packed_device(pack(t_codes), t_off, pack(q_codes), q_off, bits)


def count_pairs(t_codes, t_off, q_codes, q_off, bits):
    """b-mer hit count of each pair (host array), as ``cpu/seedhit.count_pairs``."""
    import cupy as cp
    return cp.asnumpy(count_pairs_device(t_codes, t_off, q_codes, q_off, bits))


def best_window_counts(t_codes, q_codes, bits, window):
    """Best count per query window (host array), as ``cpu/seedhit.best_window_counts``.

    The query's b-mer keys are computed once (4 bytes a letter) and read by
    every target window, rather than rolled from the letters each time.
    """
    import cupy as cp
    nt, nq = len(t_codes), len(q_codes)
    nqw = (nq + window - 1) // window
    ntw = max(1, (nt + window - 1) // window)
    best = cp.zeros(nqw, dtype=cp.int64)
    if nqw:
        qkeys = cp.empty(nq, dtype=cp.int32)
        _k("word_keys")(((nq + _THREADS - 1) // _THREADS,), (_THREADS,),
                        (to_device(q_codes, np.uint8), np.int64(nq), np.int32(bits // 2), qkeys))
        _k("window_counts")((int(min(ntw, 65535)),), (_THREADS,),
                            (to_device(t_codes, np.uint8), np.int64(nt), qkeys,
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
