"""numba twin of ``cuda/seedhit.cu``: b-mer hit counting (pair screen) and the candidate filter.

A b-mer is ``b / 2`` letters packed 2 bits each (b = 8-16 bits, 4-8 letters);
words holding N or a separator never count. A pair's count is the number of
query b-mer positions whose b-mer occurs anywhere in the target sequence (a
bit table of ``2**b`` bits per target, as SeedHit keeps in shared memory).
"""

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def _word_end_keys(codes, lo, hi, L):
    """Key of the valid L-letter word of ``codes[lo:hi]`` ending at each position, else -1.

    The one rolling 2-bit packing every counter here reads; a word holding N
    or a separator is never valid.
    """
    keys = np.full(hi - lo, -1, dtype=np.int64)
    key = 0
    run = 0
    mask = (1 << (2 * L)) - 1
    for i in range(lo, hi):
        c = codes[i]
        if c > 3:
            run = 0
            key = 0
            continue
        key = ((key << 2) | c) & mask
        run += 1
        if run >= L:
            keys[i - lo] = key
    return keys


@njit(cache=True, nogil=True, inline="always")
def _set_bits(codes, lo, hi, L, table):
    """Mark every valid L-letter word of codes[lo:hi] in the bit table (uint64 words)."""
    for key in _word_end_keys(codes, lo, hi, L):
        if key >= 0:
            table[key >> 6] |= np.uint64(1) << np.uint64(key & 63)


@njit(cache=True, nogil=True, inline="always")
def _count(codes, lo, hi, L, table):
    cnt = 0
    for key in _word_end_keys(codes, lo, hi, L):
        if key >= 0 and (table[key >> 6] >> np.uint64(key & 63)) & np.uint64(1):
            cnt += 1
    return cnt


@njit(cache=True, nogil=True, parallel=True)
def count_pairs(t_codes, t_off, q_codes, q_off, bits):
    """Per pair i: query b-mer positions of ``q[q_off[i]:q_off[i+1]]`` present in ``t[t_off[i]:t_off[i+1]]``."""
    n = t_off.shape[0] - 1
    L = bits // 2
    words = max(1, (1 << bits) >> 6)
    out = np.zeros(n, dtype=np.int64)
    chunk = 256
    for ch in prange((n + chunk - 1) // chunk):
        table = np.zeros(words, dtype=np.uint64)
        for i in range(ch * chunk, min(n, (ch + 1) * chunk)):
            table[:] = 0
            _set_bits(t_codes, t_off[i], t_off[i + 1], L, table)
            out[i] = _count(q_codes, q_off[i], q_off[i + 1], L, table)
    return out


@njit(cache=True, nogil=True, parallel=True)
def best_window_counts(t_codes, q_codes, bits, window):
    """Per query window (length ``window``, stride ``window``): its best count over target windows.

    Target windows are ``2 * window`` long with stride ``window``, so any
    ``window``-long stretch of the target lies inside one of them. Computed
    by inversion: for each target window, each distinct b-mer in it adds one
    to the query windows of every query position holding that b-mer.
    """
    L = bits // 2
    size = 1 << bits
    nq = q_codes.shape[0]
    nt = t_codes.shape[0]
    nqw = (nq + window - 1) // window
    ntw = max(1, (nt + window - 1) // window)
    # query positions grouped by b-mer (counting sort)
    qkey = np.full(nq, -1, dtype=np.int64)   # by word start
    if nq >= L:
        qkey[:nq - L + 1] = _word_end_keys(q_codes, 0, nq, L)[L - 1:]
    # target words by their last letter, computed once for all (overlapping) windows
    tkey = _word_end_keys(t_codes, 0, nt, L)
    start = np.zeros(size + 1, dtype=np.int64)
    for i in range(nq):
        if qkey[i] >= 0:
            start[qkey[i] + 1] += 1
    for k in range(size):
        start[k + 1] += start[k]
    fill = start[:size].copy()
    qpos = np.empty(start[size], dtype=np.int64)
    for i in range(nq):
        if qkey[i] >= 0:
            qpos[fill[qkey[i]]] = i
            fill[qkey[i]] += 1
    best = np.zeros(nqw, dtype=np.int64)
    nchunks = min(ntw, 64)
    part = np.zeros((nchunks, nqw), dtype=np.int64)
    for ch in prange(nchunks):
        counter = np.zeros(nqw, dtype=np.int64)
        seen = np.zeros(max(1, size >> 6), dtype=np.uint64)
        for tw in range(ch, ntw, nchunks):
            lo = tw * window
            hi = min(nt, lo + 2 * window)
            counter[:] = 0
            seen[:] = 0
            for i in range(lo, hi):
                key = tkey[i]
                if key < 0 or i - L + 1 < lo:   # only words inside the window
                    continue
                bit = np.uint64(1) << np.uint64(key & 63)
                if seen[key >> 6] & bit:
                    continue
                seen[key >> 6] |= bit
                for e in range(start[key], start[key + 1]):
                    p = qpos[e]
                    # count a query word only inside its own window
                    if (p + L - 1) // window == p // window:
                        counter[p // window] += 1
            for w in range(nqw):
                if counter[w] > part[ch, w]:
                    part[ch, w] = counter[w]
    for ch in range(nchunks):
        for w in range(nqw):
            if part[ch, w] > best[w]:
                best[w] = part[ch, w]
    return best


@njit(cache=True, nogil=True, parallel=True)
def neighbour_counts(cell_band, cell_win, uniq_band, uniq_win, uniq_count):
    """For each hit cell: hits in the 3 × 3 cells around it (bands ±1, windows ±1), itself included.

    ``uniq_*`` are the occupied cells sorted by (band, window) with their hit counts.
    """
    n = cell_band.shape[0]
    m = uniq_band.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for i in prange(n):
        tot = 0
        for db in range(-1, 2):
            for dw in range(-1, 2):
                b = cell_band[i] + db
                w = cell_win[i] + dw
                a, z = 0, m
                while a < z:
                    mid = (a + z) >> 1
                    if uniq_band[mid] < b or (uniq_band[mid] == b and uniq_win[mid] < w):
                        a = mid + 1
                    else:
                        z = mid
                if a < m and uniq_band[a] == b and uniq_win[a] == w:
                    tot += uniq_count[a]
        out[i] = tot
    return out
