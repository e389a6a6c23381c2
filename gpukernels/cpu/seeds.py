"""numba twin of ``cuda/seeds.cu``: spaced-seed keys, index and query lookup.

A key packs the 2-bit codes at a pattern's care positions, first care
position in the highest bits. A word is valid only when all ``span`` letters
under the pattern are unmasked A, C, G or T (as in LASTZ); invalid words get
key -1 and never seed.
"""

import numpy as np
from numba import njit

INVALID = -1


@njit(cache=True, nogil=True)
def seed_keys(codes, care, span):
    """Key of the word starting at each position (-1 where no valid word starts)."""
    n = codes.shape[0]
    keys = np.full(n, INVALID, dtype=np.int64)
    if n < span:
        return keys
    w = care.shape[0]
    last_bad = -1  # last position holding a non-ACGT code
    for p in range(span - 1):
        if codes[p] > 3:
            last_bad = p
    for p in range(n - span + 1):
        e = p + span - 1
        if codes[e] > 3:
            last_bad = e
        if last_bad >= p:
            continue
        k = 0
        for c in range(w):
            k = (k << 2) | codes[p + care[c]]
        keys[p] = k
    return keys


@njit(cache=True, nogil=True)
def build_index(keys, prefix_bits, key_bits):
    """Sort the valid target words by key, then by position.

    Returns
    -------
    sorted_keys, sorted_pos : ndarray of int64
        Keys and positions of valid words, ordered by (key, position).
    bucket : ndarray of int64
        ``bucket[b]`` is the first entry whose key's top ``prefix_bits`` bits
        are ``b``; a direct table when ``prefix_bits == key_bits``.
    """
    shift = key_bits - prefix_bits
    nb = 1 << prefix_bits
    counts = np.zeros(nb + 1, dtype=np.int64)
    nvalid = 0
    for p in range(keys.shape[0]):
        k = keys[p]
        if k >= 0:
            counts[(k >> shift) + 1] += 1
            nvalid += 1
    for b in range(nb):
        counts[b + 1] += counts[b]
    bucket = counts.copy()
    fill = counts[:nb].copy()
    sorted_pos = np.empty(nvalid, dtype=np.int64)
    sorted_keys = np.empty(nvalid, dtype=np.int64)
    for p in range(keys.shape[0]):
        k = keys[p]
        if k >= 0:
            b = k >> shift
            sorted_pos[fill[b]] = p
            sorted_keys[fill[b]] = k
            fill[b] += 1
    if shift > 0:
        # order each bucket by full key (positions stay ascending: stable sort)
        for b in range(nb):
            lo = bucket[b]
            hi = bucket[b + 1]
            if hi - lo > 1:
                order = np.argsort(sorted_keys[lo:hi], kind="mergesort")
                sorted_keys[lo:hi] = sorted_keys[lo:hi][order]
                sorted_pos[lo:hi] = sorted_pos[lo:hi][order]
    return sorted_keys, sorted_pos, bucket


@njit(cache=True, nogil=True, inline="always")
def _key_range(key, sorted_keys, bucket, shift):
    b = key >> shift
    lo = bucket[b]
    hi = bucket[b + 1]
    if shift == 0:
        return lo, hi
    # binary search within the bucket
    a, z = lo, hi
    while a < z:
        m = (a + z) >> 1
        if sorted_keys[m] < key:
            a = m + 1
        else:
            z = m
    first = a
    z = hi
    while a < z:
        m = (a + z) >> 1
        if sorted_keys[m] <= key:
            a = m + 1
        else:
            z = m
    return first, a


@njit(cache=True, nogil=True, inline="always")
def _keeps(t, q, self_mode, q_total, span):
    """Does a self-comparison's ``self_mode`` keep the hit of query word ``q`` at target word ``t``?"""
    if self_mode == 1:
        return t < q
    if self_mode == 2:
        return t <= q_total - q - span
    return True


@njit(cache=True, nogil=True, inline="always")
def _variant(k0, v):
    """Key ``k0`` with a transition at care position ``v - 1`` (``v`` 0: the key itself)."""
    return k0 if v == 0 else k0 ^ (2 << (2 * (v - 1)))


@njit(cache=True, nogil=True)
def find_hits(qkeys, q_lo, q_hi, sorted_keys, sorted_pos, bucket, shift, w, transition,
              self_mode, q_total, span):
    """All (query, target) word-start pairs whose keys match, for query positions [q_lo, q_hi).

    With ``transition`` a key also matches each variant with one care position
    changed by a transition (A↔G, C↔T: code XOR 2). ``self_mode`` 1 keeps only
    target < query (one half of a self-comparison on the same strand); 2
    keeps target start ≤ the query word's forward start (opposite strand of
    a self-comparison, the query being reverse-complemented, length ``q_total``).

    The hits are counted first, then written into arrays of that size: the
    lookups cost less than the copies of arrays grown as the hits came
    (E. coli's 24 M hits a strand: 3.2 against 4.5-5.3 s). The two passes
    are two loops: one loop run twice, writing only on its second run, took
    3.7-4.5 s.

    Returns
    -------
    hit_q, hit_t : ndarray of int64
        Ordered by query position, then by lookup (exact key first), then target.
    """
    nvar = w + 1 if transition else 1
    count = 0
    for q in range(q_lo, q_hi):
        k0 = qkeys[q]
        if k0 < 0:
            continue
        for v in range(nvar):
            lo, hi = _key_range(_variant(k0, v), sorted_keys, bucket, shift)
            if self_mode == 0:
                count += hi - lo
            else:
                for e in range(lo, hi):
                    count += _keeps(sorted_pos[e], q, self_mode, q_total, span)
    hit_q = np.empty(count, dtype=np.int64)
    hit_t = np.empty(count, dtype=np.int64)
    count = 0
    for q in range(q_lo, q_hi):
        k0 = qkeys[q]
        if k0 < 0:
            continue
        for v in range(nvar):
            lo, hi = _key_range(_variant(k0, v), sorted_keys, bucket, shift)
            for e in range(lo, hi):
                t = sorted_pos[e]
                if _keeps(t, q, self_mode, q_total, span):
                    hit_q[count] = q
                    hit_t[count] = t
                    count += 1
    return hit_q, hit_t
