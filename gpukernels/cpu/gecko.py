"""numba twin of ``cuda/gecko.cu``: exact k-mer hits and GECKO's ungapped fragments.

Rules (GECKO's, with +1/-1 scores):

* a hit is an exact k-mer (k ≤ 32) shared by target and query, all k letters
  unmasked A, C, G or T (seed codes);
* hits are taken per diagonal (``t - q``) in query order. A hit whose query
  start lies within ``2k`` of the last hit kept on its diagonal is redundant
  and dropped (GECKO's hit filter);
* a kept hit whose query start lies before the end of an earlier fragment on
  its diagonal is covered and not extended (GECKO's FragHits);
* extension, match +1 and mismatch -1 (N scores -1; a record separator
  stops it): the score starts at k for the seed and runs right from the
  seed's end while it stays ≥ 0, the fragment's end being where it peaked
  (first peak); then it restarts from that peak score and runs left from
  the seed's start the same way. This is GECKO's "x-drop to zero": the
  allowed drop is the whole score gained so far, so an extension ends only
  when the mismatches since the last peak outnumber everything before;
* the fragment's score is its peak; identity is counted exactly over it.
"""

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def kmer_keys(codes, k):
    """Key of the k-mer at each position (2 bits per letter, first letter highest) and its validity."""
    n = codes.shape[0]
    keys = np.zeros(n, dtype=np.uint64)
    valid = np.zeros(n, dtype=np.bool_)
    if n < k:
        return keys, valid
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) if k == 32 else (np.uint64(1) << np.uint64(2 * k)) - np.uint64(1)
    key = np.uint64(0)
    run = 0
    for i in range(n):
        c = codes[i]
        if c > 3:
            run = 0
            key = np.uint64(0)
        else:
            key = ((key << np.uint64(2)) | np.uint64(c)) & mask
            run += 1
        if run >= k:
            keys[i - k + 1] = key
            valid[i - k + 1] = True
    return keys, valid


@njit(cache=True, nogil=True)
def fill_hits(q_pos, first, counts, starts, sorted_t, hit_q, hit_t):
    """Expand (query position, range of sorted target positions) into hit pairs."""
    for i in range(q_pos.shape[0]):
        w = starts[i]
        for e in range(first[i], first[i] + counts[i]):
            hit_q[w] = q_pos[i]
            hit_t[w] = sorted_t[e]
            w += 1


@njit(cache=True, nogil=True, inline="always")
def _run_out(t_codes, q_codes, diag, s, stop, step, score, best, edge):
    """GECKO's +1/-1 walk along diagonal ``diag`` from query position ``s`` by ``step`` up to ``stop``.

    Stops at an N, at the end, or when the running score drops below zero;
    returns the best score and its edge (the end after it going right, its
    position going left; ``edge`` if the walk never beat ``best``).
    """
    while (step > 0 and s < stop) or (step < 0 and s > stop):
        a = t_codes[s + diag]
        b = q_codes[s]
        if a == 5 or b == 5:
            break
        if a == b and a < 4:
            score += 1
        else:
            score -= 1
        if score > best:
            best = score
            edge = s + 1 if step > 0 else s
        s += step
        if score < 0:
            break
    return best, edge


@njit(cache=True, nogil=True, inline="always")
def _extend(t_codes, q_codes, q, t, k):
    """GECKO extension of the seed at (q, t): right from its end, then left from its start; returns q0, q1, score."""
    diag = t - q
    qn = q_codes.shape[0]
    tn = t_codes.shape[0]
    limit = qn if qn < tn - diag else tn - diag
    best, end = _run_out(t_codes, q_codes, diag, q + k, limit, 1, k, k, q + k)
    lower = 0 if diag >= 0 else -diag
    best, start = _run_out(t_codes, q_codes, diag, q - 1, lower - 1, -1, best, best, q)
    return start, end, best


@njit(cache=True, nogil=True, parallel=True)
def fragments(t_codes, q_codes, hit_q, hit_t, seg, k):
    """Fragments of hits sorted by (diagonal, query); ``seg`` bounds each diagonal's run of hits.

    Returns
    -------
    q0, q1, score : ndarray of int64, one slot per hit (q0 = -1: no fragment)
    """
    n = hit_q.shape[0]
    q0 = np.full(n, -1, dtype=np.int64)
    q1 = np.zeros(n, dtype=np.int64)
    score = np.zeros(n, dtype=np.int64)
    for g in prange(seg.shape[0] - 1):
        kept = np.int64(-(1 << 62))
        covered = np.int64(-1)
        for h in range(seg[g], seg[g + 1]):
            q = hit_q[h]
            if q < kept + 2 * k:
                continue
            kept = q
            if q < covered:
                continue
            a, b, sc = _extend(t_codes, q_codes, q, hit_t[h], k)
            q0[h] = a
            q1[h] = b
            score[h] = sc
            if b > covered:
                covered = b
    return q0, q1, score


@njit(cache=True, nogil=True)
def columns(t_codes, q_codes, q0, q1, t0):
    """Ungapped columns of each fragment (0 match, 1 mismatch) and the identities."""
    n = q0.shape[0]
    op_off = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        op_off[i + 1] = op_off[i] + q1[i] - q0[i]
    ops = np.empty(op_off[n], dtype=np.uint8)
    ident = np.zeros(n, dtype=np.int64)
    for i in range(n):
        diag = t0[i] - q0[i]
        w = op_off[i]
        for s in range(q0[i], q1[i]):
            a = t_codes[s + diag]
            if a == q_codes[s] and a < 4:
                ops[w] = 0
                ident[i] += 1
            else:
                ops[w] = 1
            w += 1
    return op_off, ops, ident
