"""numba twin of ``cuda/fmindex.cu``: FM-index construction, backward search with mismatches, locate.

Text alphabet (one byte per symbol)
-----------------------------------
=====  ==========================================================
0      ``$``, the sentinel that ends the text (once, last)
1-4    A, C, G, T
5      anything else: N, soft-masked bases (as seed codes give them), record separators
=====  ==========================================================

Symbol 5 is indexed like any other letter (so the LF mapping walks through
it) but a search only ever extends by 1-4, so no match contains it.

Index layout
------------
* ``blocks`` (uint64, ``(n // 128 + 1, 8)``), one 64-byte line per 128 BWT
  rows: words 0-1 hold the counts of A, C, G, T (uint32 each) before the
  block, words 2-5 the block's symbols at 2 bits each (A for anything that
  is not A-T), words 6-7 a bit per row set where the symbol is not A-T;
  ``Occ(c, i)`` is the block count plus popcounts of the symbol words
  (minus the "other" bits for A). So q = 128 (4 bits per base);
* ``occ5`` (uint32 per block): symbol 5 before the block; ``dollar`` the
  row holding ``$``; ``C`` (rows holding a smaller symbol);
* sampled SA: the rows whose suffix starts at a multiple of ``p`` are marked
  in a bit vector (``mark_words`` with per-word prefix counts ``mark_rank``)
  and their SA values kept in row order (``ssa``); locating a row walks LF
  until a marked row (at most ``p - 1`` steps) and adds the steps.
"""

import numpy as np
from numba import njit, prange

SENTINEL, OTHER = 0, 5
SIGMA = 6
#: symbols packed into one 63-bit key for the first sorting round
_PACK = 21


def to_symbols(codes):
    """Engine codes (A=0 .. T=3, N=4, separator=5) → text symbols with a closing sentinel."""
    sym = np.empty(len(codes) + 1, dtype=np.uint8)
    c = np.asarray(codes, dtype=np.uint8)
    sym[:-1] = np.where(c < 4, c + 1, OTHER)
    sym[-1] = SENTINEL
    return sym


@njit(cache=True, nogil=True)
def _pack_keys(sym, k):
    n = sym.shape[0]
    out = np.zeros(n, dtype=np.int64)
    key = 0
    # key of position i = sym[i] .. sym[i + k - 1] (0 past the end), first symbol highest
    for i in range(n - 1 + k, -1, -1):
        s = sym[i] if i < n else 0
        key = (key >> 3) | (np.int64(s) << (3 * (k - 1)))
        if i < n:
            out[i] = key
    return out


def suffix_array(sym):
    """Suffix array of ``sym`` (which must end with a unique smallest sentinel).

    Prefix doubling: one sort by the first 21 symbols, then each round
    re-sorts only the rows still tied, by (rank of the suffix, rank ``h``
    symbols further on), doubling ``h``. Rows stop being sorted once their
    group is a singleton, so repeats cost rounds only for their own rows.
    """
    n = len(sym)
    key = _pack_keys(sym, _PACK)
    sa = np.argsort(key, kind="stable").astype(np.int64)
    ks = key[sa]
    del key
    head = np.ones(n, dtype=bool)
    head[1:] = ks[1:] != ks[:-1]
    del ks
    pos = np.arange(n, dtype=np.int64)
    gstart = np.maximum.accumulate(np.where(head, pos, 0))
    rank = np.empty(n, dtype=np.int64)
    rank[sa] = gstart
    h = _PACK
    while True:
        nxt = np.ones(n, dtype=bool)
        nxt[:-1] = head[1:]
        idx = np.flatnonzero(~(head & nxt))        # rows in groups of size > 1
        if idx.size == 0:
            break
        i = sa[idx]
        j = i + h
        k2 = np.where(j < n, rank[np.minimum(j, n - 1)], -1)
        comb = rank[i] * (n + 1) + (k2 + 1)
        order = np.argsort(comb, kind="stable")
        sa[idx] = i[order]
        cs = comb[order]
        nh = np.ones(idx.size, dtype=bool)
        nh[1:] = cs[1:] != cs[:-1]
        head[idx] = nh
        gs = np.maximum.accumulate(np.where(nh, idx, 0))
        rank[sa[idx]] = gs
        h *= 2
    return sa


Q = 128


@njit(cache=True, nogil=True)
def _blocks(bwt):
    n = bwt.shape[0]
    nb = n // Q + 1
    blocks = np.zeros((nb, 8), dtype=np.uint64)
    occ5 = np.zeros(nb, dtype=np.uint32)
    run = np.zeros(SIGMA, dtype=np.uint64)
    for b in range(nb):
        blocks[b, 0] = run[1] | (run[2] << np.uint64(32))
        blocks[b, 1] = run[3] | (run[4] << np.uint64(32))
        occ5[b] = run[5]
        for r in range(Q):
            i = b * Q + r
            if i >= n:
                break
            c = bwt[i]
            run[c] += 1
            if 1 <= c <= 4:
                blocks[b, 2 + (r >> 5)] |= np.uint64(c - 1) << np.uint64(2 * (r & 31))
            else:
                blocks[b, 6 + (r >> 6)] |= np.uint64(1) << np.uint64(r & 63)
    return blocks, occ5


@njit(cache=True, nogil=True)
def _marks(sa, p):
    n = sa.shape[0]
    nw = (n + 63) // 64
    words = np.zeros(nw, dtype=np.uint64)
    cnt = 0
    for j in range(n):
        if sa[j] % p == 0:
            words[j >> 6] |= np.uint64(1) << np.uint64(j & 63)
            cnt += 1
    ssa = np.empty(cnt, dtype=np.int64)
    rank = np.zeros(nw + 1, dtype=np.int64)
    c = 0
    for j in range(n):
        if j & 63 == 0:
            rank[j >> 6] = c
        if sa[j] % p == 0:
            ssa[c] = sa[j]
            c += 1
    rank[nw] = c
    return words, rank, ssa


def build(codes, p=32):
    """Build the index arrays of ``codes`` (engine codes).

    Returns
    -------
    dict, ndarray
        ``blocks, occ5, C, mark_words, mark_rank, ssa`` and ``dollar, p, n``
        (rows, including the sentinel's); the full suffix array.
    """
    sym = to_symbols(codes)
    sa = suffix_array(sym)
    n = len(sym)
    bwt = sym[(sa - 1) % n]
    counts = np.bincount(sym, minlength=SIGMA).astype(np.int64)
    C = np.zeros(SIGMA + 1, dtype=np.int64)
    np.cumsum(counts, out=C[1:])
    blocks, occ5 = _blocks(bwt)
    words, rank, ssa = _marks(sa, p)
    dollar = int(np.flatnonzero(sa == 0)[0])
    return dict(blocks=blocks, occ5=occ5, C=C, mark_words=words, mark_rank=rank, ssa=ssa,
                dollar=dollar, p=p, n=n), sa


@njit(cache=True, nogil=True)
def bwt_symbols(blocks, dollar, n):
    """The BWT as one symbol per row (for tests and inspection)."""
    out = np.empty(n, dtype=np.uint8)
    for i in range(n):
        out[i] = symbol_at(blocks, dollar, i)
    return out


@njit(cache=True, nogil=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True, inline="always")
def _low_bits(k):
    """A mask of the ``k`` (0-64) lowest bits."""
    if k >= 64:
        return np.uint64(0xFFFFFFFFFFFFFFFF)
    return (np.uint64(1) << np.uint64(k)) - np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def occ_at(blocks, c, i):
    """Number of symbol ``c`` (1-4) among the BWT rows ``[0, i)``."""
    b = i >> 7
    r = i & 127
    pair = blocks[b, (c - 1) >> 1]
    cnt = np.int64((pair >> np.uint64(32 * ((c - 1) & 1))) & np.uint64(0xFFFFFFFF))
    pat = np.uint64(0x5555555555555555) * np.uint64(c - 1)
    for w in range(4):
        k = r - 32 * w
        if k <= 0:
            break
        x = blocks[b, 2 + w] ^ pat
        match = ~(x | (x >> np.uint64(1))) & np.uint64(0x5555555555555555)
        if k < 32:
            match &= _low_bits(2 * k)
        cnt += _popcount(match)
    if c == 1:
        cnt -= _popcount(blocks[b, 6] & _low_bits(r))
        if r > 64:
            cnt -= _popcount(blocks[b, 7] & _low_bits(r - 64))
    return cnt


@njit(cache=True, nogil=True, inline="always")
def symbol_at(blocks, dollar, j):
    """BWT symbol of row ``j``."""
    b = j >> 7
    r = j & 127
    if (blocks[b, 6 + (r >> 6)] >> np.uint64(r & 63)) & np.uint64(1):
        return 0 if j == dollar else 5
    return np.int64((blocks[b, 2 + (r >> 5)] >> np.uint64(2 * (r & 31))) & np.uint64(3)) + 1


@njit(cache=True, nogil=True, inline="always")
def occ_other(blocks, occ5, dollar, i):
    """Number of symbol 5 among the BWT rows ``[0, i)``."""
    b = i >> 7
    r = i & 127
    cnt = np.int64(occ5[b]) + _popcount(blocks[b, 6] & _low_bits(r))
    if r > 64:
        cnt += _popcount(blocks[b, 7] & _low_bits(r - 64))
    if b * 128 <= dollar and dollar < i:
        cnt -= 1
    return cnt


@njit(cache=True, nogil=True)
def locate_row(blocks, occ5, dollar, C, mark_words, mark_rank, ssa, j):
    """Text position of the suffix at row ``j`` (LF walk to the nearest sampled row)."""
    steps = 0
    while True:
        w = mark_words[j >> 6]
        bit = np.uint64(1) << np.uint64(j & 63)
        if w & bit:
            below = w & (bit - np.uint64(1))
            return ssa[mark_rank[j >> 6] + _popcount(below)] + steps
        c = symbol_at(blocks, dollar, j)
        if c == 5:
            j = C[5] + occ_other(blocks, occ5, dollar, j)
        else:
            j = C[c] + occ_at(blocks, c, j)
        steps += 1


@njit(cache=True, nogil=True)
def backward_search(blocks, C, n, pattern, m, limit, out_lo, out_hi, lo, hi, mis, nxt):
    """SA intervals of every string within Hamming distance ``m`` of ``pattern``.

    ``pattern`` holds symbols 1-4 (A-T). Depth-first from the pattern's last
    letter, letters tried in the order A, C, G, T at each depth; the
    intervals are distinct strings, hence disjoint. ``lo, hi, mis, nxt`` are
    work arrays of ``len(pattern) + 1`` entries. Writes the intervals to
    ``out_lo, out_hi`` and stops early once more than ``limit`` rows are
    found (``out_*`` must hold ``limit + 1`` entries).

    Returns
    -------
    found, rows : int
        Intervals written and rows in them (``rows > limit`` when stopped).
    """
    L = pattern.shape[0]
    d = 0
    lo[0] = 0
    hi[0] = n
    mis[0] = 0
    nxt[0] = 1
    found = 0
    rows = 0
    while d >= 0:
        if d == L:
            out_lo[found] = lo[d]
            out_hi[found] = hi[d]
            found += 1
            rows += hi[d] - lo[d]
            if rows > limit:
                return found, rows
            d -= 1
            continue
        c = nxt[d]
        if c > 4:
            d -= 1
            continue
        nxt[d] = c + 1
        pc = pattern[L - 1 - d]
        mm = mis[d] + (1 if c != pc else 0)
        if mm > m:
            continue
        a = C[c] + occ_at(blocks, c, lo[d])
        b = C[c] + occ_at(blocks, c, hi[d])
        if a >= b:
            continue
        d += 1
        lo[d] = a
        hi[d] = b
        mis[d] = mm
        nxt[d] = 1
    return found, rows


@njit(cache=True, nogil=True, inline="always")
def _word(codes, qpos, L, pattern):
    for s in range(L):
        c = codes[qpos + s]
        if c > 3:
            return False
        pattern[s] = c + 1
    return True


#: query words per parallel chunk
_CHUNK = 2048


@njit(cache=True, nogil=True)
def _search_scratch(L, cap):
    """Buffers of one thread's :func:`backward_search` calls: the word, the intervals found, the stack."""
    out = (np.empty(L, dtype=np.uint8), np.empty(cap + 1, dtype=np.int64), np.empty(cap + 1, dtype=np.int64))
    return out + (np.empty(L + 1, dtype=np.int64), np.empty(L + 1, dtype=np.int64), np.empty(L + 1, dtype=np.int64),
                  np.empty(L + 1, dtype=np.int64))


@njit(cache=True, nogil=True, parallel=True)
def count_hits(blocks, C, n, q_codes, q_lo, q_hi, L, m, cap):
    """Occurrences per query word ``[q_lo, q_hi)``: 0 for invalid words and words over ``cap``."""
    nq = q_hi - q_lo
    counts = np.zeros(nq, dtype=np.int64)
    nchunks = (nq + _CHUNK - 1) // _CHUNK
    for ch in prange(nchunks):
        pattern, out_lo, out_hi, lo, hi, mis, nxt = _search_scratch(L, cap)
        for k in range(ch * _CHUNK, min(nq, (ch + 1) * _CHUNK)):
            qpos = q_lo + k
            if qpos + L > q_codes.shape[0]:
                continue
            if not _word(q_codes, qpos, L, pattern):
                continue
            f, rows = backward_search(blocks, C, n, pattern, m, cap, out_lo, out_hi, lo, hi, mis,
                                      nxt)
            counts[k] = rows if rows <= cap else 0
    return counts


@njit(cache=True, nogil=True, parallel=True)
def fill_hits(blocks, occ5, dollar, C, n, mark_words, mark_rank, ssa, q_codes, q_lo, q_hi, L, m, cap, starts,
              counts, hit_q, hit_t):
    """Write the hits of each query word counted by :func:`count_hits` at ``starts[k]``.

    Per word: intervals in search order, rows ascending within an interval.
    """
    nq = q_hi - q_lo
    nchunks = (nq + _CHUNK - 1) // _CHUNK
    for ch in prange(nchunks):
        pattern, out_lo, out_hi, lo, hi, mis, nxt = _search_scratch(L, cap)
        for k in range(ch * _CHUNK, min(nq, (ch + 1) * _CHUNK)):
            if counts[k] == 0:
                continue
            qpos = q_lo + k
            _word(q_codes, qpos, L, pattern)
            f, rows = backward_search(blocks, C, n, pattern, m, cap, out_lo, out_hi, lo, hi, mis,
                                      nxt)
            w = starts[k]
            for i in range(f):
                for j in range(out_lo[i], out_hi[i]):
                    hit_q[w] = qpos
                    hit_t[w] = locate_row(blocks, occ5, dollar, C, mark_words, mark_rank, ssa, j)
                    w += 1


def find_hits(ix, q_codes, q_lo, q_hi, L, m, cap):
    """Hits of query words ``[q_lo, q_hi)`` against the index arrays ``ix`` (see :func:`build`).

    Returns
    -------
    hit_q, hit_t : ndarray of int64
        In search order per query word (the caller sorts).
    """
    counts = count_hits(ix["blocks"], ix["C"], ix["n"], q_codes, q_lo, q_hi, L, m, cap)
    ends = np.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    starts = ends - counts
    hit_q = np.empty(total, dtype=np.int64)
    hit_t = np.empty(total, dtype=np.int64)
    if total:
        fill_hits(ix["blocks"], ix["occ5"], ix["dollar"], ix["C"], ix["n"], ix["mark_words"], ix["mark_rank"],
                  ix["ssa"], q_codes, q_lo, q_hi, L, m, cap, starts, counts, hit_q, hit_t)
    return hit_q, hit_t


@njit(cache=True, nogil=True)
def intervals(blocks, C, n, pattern, m, limit):
    """All SA intervals of ``pattern`` (symbols 1-4) within Hamming ``m`` (up to ``limit`` rows)."""
    L = pattern.shape[0]
    out_lo = np.empty(limit + 1, dtype=np.int64)
    out_hi = np.empty(limit + 1, dtype=np.int64)
    lo = np.empty(L + 1, dtype=np.int64)
    hi = np.empty(L + 1, dtype=np.int64)
    mis = np.empty(L + 1, dtype=np.int64)
    nxt = np.empty(L + 1, dtype=np.int64)
    f, rows = backward_search(blocks, C, n, pattern, m, limit, out_lo, out_hi, lo, hi, mis, nxt)
    return out_lo[:f].copy(), out_hi[:f].copy(), rows
