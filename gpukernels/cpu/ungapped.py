"""numba twin of ``cuda/ungapped.cu``: x-drop extension of seed hits to HSPs.

Rules (LASTZ's gap-free extension, with an exact per-diagonal table instead
of LASTZ's 16-bit diagonal hash):

* a hit is the word starting at ``(q, t)``; its end is ``q + span``;
* a hit is skipped when the recorded extent of its diagonal is past ``q``;
* the left pass starts at the word's end and walks left (so it scores the
  word), never reading query positions below the diagonal's extent; the right
  pass starts at the word's end and walks right;
* a pass goes on while ``run >= best - xdrop``; its end is the first peak;
* after every extension the diagonal's extent becomes the query position
  where the right pass stopped, if that is further right.

Hits must come ordered by query position within each diagonal; the result
then does not depend on how diagonals are interleaved, which is what lets
the GPU kernel process diagonals in parallel.
"""

import numpy as np
from numba import njit

from .buffers import grow

#: hits whose diagonal extents and target letters are read at once before they are extended
TOUCH_BLOCK = 16


@njit(cache=True, nogil=True)
def extend_hits(t_codes, q_codes, hit_q, hit_t, span, matrix, xdrop, diag_end, min_score=1):
    """Extend hits; return the extensions scoring at least ``min_score``.

    The caller applies the entropy rule and the HSP threshold; passing that
    threshold as ``min_score`` only saves work, since the entropy rule never
    raises a score.

    Parameters
    ----------
    t_codes, q_codes : ndarray of uint8
        Seed codes (masked bases as N) of target and query.
    hit_q, hit_t : ndarray of int64
        Word starts of the hits, ordered by query position.
    span : int
        Word length.
    matrix : ndarray of int32, shape (6, 6)
        Gap-free scores (N and masked bases at -1000).
    xdrop : int
    diag_end : ndarray of int64
        Per-diagonal extent, indexed by ``t - q + len(q_codes)``; updated.
    min_score : int
        Extensions scoring less are not returned (the default 1 returns every
        non-empty one).

    Returns
    -------
    out_q0, out_q1, out_t0, out_score : ndarray of int64
        HSP bounds in query coordinates (half-open), target start, raw score.
    counts : ndarray of int32, shape (n, 4)
        Identical A, C, G, T pairs inside each HSP (for the entropy rule).
    """
    n = hit_q.shape[0]
    qn = q_codes.shape[0]
    tn = t_codes.shape[0]
    cap = 1024
    out_q0 = np.empty(cap, dtype=np.int64)
    out_q1 = np.empty(cap, dtype=np.int64)
    out_t0 = np.empty(cap, dtype=np.int64)
    out_score = np.empty(cap, dtype=np.int64)
    m = 0
    touched = 0
    for h in range(n):
        if h % TOUCH_BLOCK == 0:
            # the next block's diagonal extents and target letters, read at once: each is a cache miss
            # (random hits land anywhere in both), and reads with no work between them overlap
            for g in range(h, min(h + TOUCH_BLOCK, n)):
                touched += diag_end[hit_t[g] - hit_q[g] + qn] + t_codes[min(hit_t[g] + span, tn - 1)]
        q = hit_q[h]
        t = hit_t[h]
        d = t - q + qn
        ext = diag_end[d]
        if ext > q:
            continue
        pos = q + span
        diag = t - q
        # left pass
        stop = 0 if ext < 0 else ext
        if stop < -diag:
            stop = -diag
        run = 0
        best = 0
        start = pos
        s = pos
        while s > stop and run >= best - xdrop:
            s -= 1
            run += matrix[t_codes[s + diag], q_codes[s]]
            if run > best:
                best = run
                start = s
        left = best
        # right pass
        limit = qn
        if tn - diag < limit:
            limit = tn - diag
        run = 0
        best = 0
        end = pos
        s = pos
        while s < limit and run >= best - xdrop:
            run += matrix[t_codes[s + diag], q_codes[s]]
            s += 1
            if run > best:
                best = run
                end = s
        if s > diag_end[d]:
            diag_end[d] = s
        if end > start and left + best >= min_score:
            if m == cap:
                cap *= 2
                out_q0 = grow(out_q0, cap)
                out_q1 = grow(out_q1, cap)
                out_t0 = grow(out_t0, cap)
                out_score = grow(out_score, cap)
            out_q0[m] = start
            out_q1[m] = end
            out_t0[m] = start + diag
            out_score[m] = left + best
            m += 1
    counts = np.zeros((m, 4), dtype=np.int32)
    if touched == -1:
        # the same array either way: the branch only uses the touches' sum, so that the compiler keeps them
        counts = np.zeros((m, 4), dtype=np.int32)
    for k in range(m):
        diag = out_t0[k] - out_q0[k]
        for s in range(out_q0[k], out_q1[k]):
            c = q_codes[s]
            if c < 4 and t_codes[s + diag] == c:
                counts[k, c] += 1
    return out_q0[:m].copy(), out_q1[:m].copy(), out_t0[:m].copy(), out_score[:m].copy(), counts


@njit(cache=True, nogil=True)
def anchors(t_codes, q_codes, q0, q1, t0, matrix, window):
    """Anchor of each HSP: the middle of its first best-scoring ``window``-bp stretch.

    HSPs of ``window`` bp or shorter are anchored at their middle (offset
    ``length // 2``).

    Returns
    -------
    anchor_q, anchor_t : ndarray of int64
    """
    n = q0.shape[0]
    aq = np.empty(n, dtype=np.int64)
    at = np.empty(n, dtype=np.int64)
    half = window // 2
    for k in range(n):
        length = q1[k] - q0[k]
        diag = t0[k] - q0[k]
        if length <= window:
            off = length // 2
        else:
            sc = 0
            for s in range(q0[k], q0[k] + window):
                sc += matrix[t_codes[s + diag], q_codes[s]]
            best = sc
            off = half
            for j in range(1, length - window + 1):
                s_out = q0[k] + j - 1
                s_in = q0[k] + j + window - 1
                sc += matrix[t_codes[s_in + diag], q_codes[s_in]] - matrix[t_codes[s_out + diag], q_codes[s_out]]
                if sc > best:
                    best = sc
                    off = j + half
        aq[k] = q0[k] + off
        at[k] = t0[k] + off
    return aq, at
