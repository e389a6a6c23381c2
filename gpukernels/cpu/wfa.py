"""numba twin of ``cuda/wfa.cu``: wavefront alignment (WFA) of many pairs.

Both backends follow one set of rules, so that they give the same score and
the same CIGAR for every pair:

* Diagonal ``k = h - v`` (``h``: text position, ``v``: pattern position); a
  wavefront cell holds the furthest text offset ``h`` reached on ``k``, or
  :data:`NULL`.
* Gap-affine (penalties ``x, o, e``; a gap of length L costs ``o + e*L``)::

      I[s,k] = max(M[s-o-e, k-1], I[s-e, k-1]) + 1        (ext wins ties)
      D[s,k] = max(M[s-o-e, k+1], D[s-e, k+1])            (ext wins ties)
      M[s,k] = max(M[s-x, k] + 1, I[s,k], D[s,k])         (X, then I, then D)

  then ``M[s,k]`` is extended along matches. Every candidate that would step
  past the end of either sequence is dropped before the maximum is taken.
* Edit distance: ``M[s,k] = max(M[s-1,k]+1, M[s-1,k-1]+1, M[s-1,k+1])`` with
  the same tie order (X, I, D), then extension.
* The alignment ends at the first score ``s`` with ``M[s, m-n] == m``.

The CPU twin keeps every wavefront and backtraces through them by redoing
the choices above; the GPU kernels record the same choices as 2-bit
operations while they go. CIGAR letters: ``=`` match, ``X`` mismatch, ``I``
a text base absent from the pattern, ``D`` a pattern base absent from the
text.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .buffers import grow

NULL = -(1 << 30)
OP_MATCH, OP_MISMATCH, OP_INS, OP_DEL = ord("="), ord("X"), ord("I"), ord("D")


@njit(cache=True)
def _extend(pat, ps, n, txt, ts, m, h, k):
    """Furthest offset reached on diagonal ``k`` by matches from ``h``."""
    v = h - k
    while v < n and h < m and pat[ps + v] == txt[ts + h]:
        v += 1
        h += 1
    return h


@njit(cache=True)
def _get(wf, lo, hi, base, s, k):
    """Offset of wavefront ``s`` on diagonal ``k``, or NULL outside it."""
    if s < 0 or k < lo[s] or k > hi[s]:
        return np.int64(NULL)
    return np.int64(wf[base[s] + k - lo[s]])


@njit(cache=True)
def _bump(h):
    """``h + 1`` for a reached cell, NULL for NULL."""
    return h + 1 if h >= 0 else NULL


@njit(cache=True)
def _mismatch(xs, k, n, m):
    """The mismatch candidate from ``M[s-x, k] = xs``, NULL past an end."""
    xv = _bump(xs)
    if xv > m or xv - k > n:
        return NULL
    return xv


@njit(cache=True)
def _pick3(xv, iv, dv):
    """Tie order X, I, D: returns (value, source 0/1/2)."""
    if xv >= iv and xv >= dv:
        return xv, 0
    if iv >= dv:
        return iv, 1
    return dv, 2


@njit(cache=True)
def _affine_choice(mo_l, ie_l, mo_r, de_r, xs, k, n, m):
    """The rules of one gap-affine cell, from its raw neighbours.

    Parameters are ``M[s-o-e, k-1]``, ``I[s-e, k-1]``, ``M[s-o-e, k+1]``,
    ``D[s-e, k+1]`` and ``M[s-x, k]`` (NULL where absent). Returns
    ``(i, iext, d, dext, mpre, msrc)``: I and D of the cell, whether each
    extends a gap, M before extension and its source (0 X, 1 I, 2 D).
    """
    io = _bump(mo_l)
    ie = _bump(ie_l)
    iext = ie >= io
    iv = ie if iext else io
    if iv > m or iv < 0:
        iv = NULL
    dext = de_r >= mo_r
    dv = de_r if dext else mo_r
    if dv < 0 or dv - k > n:
        dv = NULL
    xv = _mismatch(xs, k, n, m)
    mv, msrc = _pick3(xv, iv, dv)
    if mv < 0:
        mv = NULL
    return iv, iext, dv, dext, mv, msrc


@njit(cache=True)
def _affine_cell(M, I, D, lo, hi, base, s, k, n, m, x, o, e):
    """:func:`_affine_choice` of stored cell (s, k) (used by the backtrace)."""
    return _affine_choice(_get(M, lo, hi, base, s - o - e, k - 1),
                          _get(I, lo, hi, base, s - e, k - 1),
                          _get(M, lo, hi, base, s - o - e, k + 1),
                          _get(D, lo, hi, base, s - e, k + 1),
                          _get(M, lo, hi, base, s - x, k), k, n, m)


@njit(cache=True)
def _span(lo, hi, base, t):
    """(lo, hi, base - lo) of stored wavefront ``t``; an empty span for t < 0."""
    if t < 0:
        return 1, 0, 0
    return lo[t], hi[t], base[t] - lo[t]


@njit(cache=True)
def _affine_range(lo, hi, s, n, m, x, o, e):
    """Diagonal range (lo, hi) of wavefront ``s``; lo > hi when empty."""
    a = 1 << 30
    b = -(1 << 30)
    if s - x >= 0 and lo[s - x] <= hi[s - x]:
        a = min(a, lo[s - x])
        b = max(b, hi[s - x])
    for src in (s - o - e, s - e):
        if src >= 0 and lo[src] <= hi[src]:
            a = min(a, lo[src] - 1)
            b = max(b, hi[src] + 1)
    a = max(a, -n)
    b = min(b, m)
    if a > b:
        return 1, 0
    return a, b


@njit(cache=True)
def _score_zero(pat, ps, n, txt, ts, m, cap):
    """The score-0 wavefront: diagonal ranges and offsets for ``cap`` scores, M on diagonal 0 extended.

    Returns ``lo, hi, base, M`` and whether it already reaches the end.
    """
    lo = np.zeros(cap, np.int64)
    hi = np.zeros(cap, np.int64)
    base = np.zeros(cap, np.int64)
    M = np.empty(256, np.int32)
    M[0] = _extend(pat, ps, n, txt, ts, m, 0, 0)
    return lo, hi, base, M, m - n == 0 and M[0] == m


@njit(cache=True)
def _room_for(lo, hi, base, s):
    """The per-score tables, grown to hold score ``s``."""
    if s >= lo.shape[0]:
        lo = grow(lo, s + 1)
        hi = grow(hi, s + 1)
        base = grow(base, s + 1)
    return lo, hi, base


@njit(cache=True)
def _affine_forward(pat, ps, n, txt, ts, m, x, o, e):
    """Compute wavefronts up to the end; return (score, M, I, D, lo, hi, base)."""
    cap = 64
    lo, hi, base, M, done = _score_zero(pat, ps, n, txt, ts, m, cap)
    I = np.empty(256, np.int32)
    D = np.empty(256, np.int32)
    I[0] = NULL
    D[0] = NULL
    used = 1
    kend = m - n
    s = 0
    while not done:
        s += 1
        lo, hi, base = _room_for(lo, hi, base, s)
        a, b = _affine_range(lo, hi, s, n, m, x, o, e)
        lo[s] = a
        hi[s] = b
        base[s] = used
        if a > b:
            continue
        if used + b - a + 1 > M.shape[0]:
            M = grow(M, used + b - a + 1)
            I = grow(I, used + b - a + 1)
            D = grow(D, used + b - a + 1)
        l1, h1, b1 = _span(lo, hi, base, s - o - e)
        l2, h2, b2 = _span(lo, hi, base, s - e)
        l3, h3, b3 = _span(lo, hi, base, s - x)
        for k in range(a, b + 1):
            mo_l = M[b1 + k - 1] if l1 <= k - 1 <= h1 else NULL
            mo_r = M[b1 + k + 1] if l1 <= k + 1 <= h1 else NULL
            ie_l = I[b2 + k - 1] if l2 <= k - 1 <= h2 else NULL
            de_r = D[b2 + k + 1] if l2 <= k + 1 <= h2 else NULL
            xs = M[b3 + k] if l3 <= k <= h3 else NULL
            iv, _ie, dv, _de, mv, _ms = _affine_choice(mo_l, ie_l, mo_r, de_r, xs, k, n, m)
            if mv >= 0:
                mv = _extend(pat, ps, n, txt, ts, m, mv, k)
            j = used + k - a
            M[j] = mv
            I[j] = iv
            D[j] = dv
            if k == kend and mv == m:
                done = True
        used += b - a + 1
    return s, M, I, D, lo, hi, base


@njit(cache=True)
def _emit(out, pos, op, count):
    """Write ``count`` copies of ``op`` at ``out[pos:]``."""
    for j in range(count):
        out[pos + j] = op


@njit(cache=True)
def _reverse(out, start, end):
    """Reverse ``out[start:end]`` in place."""
    i = start
    j = end - 1
    while i < j:
        t = out[i]
        out[i] = out[j]
        out[j] = t
        i += 1
        j -= 1


@njit(cache=True)
def _affine_backtrace(M, I, D, lo, hi, base, s, n, m, x, o, e, out, start):
    """Write the CIGAR ops of the alignment ending at ``M[s, m-n]``; return the end."""
    k = np.int64(m - n)
    h = np.int64(m)
    pos = np.int64(start)
    state = 0  # 0: M, 1: I, 2: D
    while s > 0 or state != 0:
        if state == 0:
            _iv, _ie, _dv, _de, mpre, msrc = _affine_cell(M, I, D, lo, hi, base, s, k, n, m, x, o, e)
            _emit(out, pos, OP_MATCH, h - mpre)
            pos += h - mpre
            h = mpre
            if msrc == 0:
                _emit(out, pos, OP_MISMATCH, 1)
                pos += 1
                h -= 1
                s -= x
            else:
                state = msrc
        elif state == 1:
            ext = _bump(_get(I, lo, hi, base, s - e, k - 1)) >= _bump(_get(M, lo, hi, base, s - o - e, k - 1))
            _emit(out, pos, OP_INS, 1)
            pos += 1
            h -= 1
            k -= 1
            if ext:
                s -= e
            else:
                s -= o + e
                state = 0
        else:
            ext = _get(D, lo, hi, base, s - e, k + 1) >= _get(M, lo, hi, base, s - o - e, k + 1)
            _emit(out, pos, OP_DEL, 1)
            pos += 1
            k += 1
            if ext:
                s -= e
            else:
                s -= o + e
                state = 0
    _emit(out, pos, OP_MATCH, h)
    pos += h
    _reverse(out, start, pos)
    return pos


@njit(cache=True)
def _edit_forward(pat, ps, n, txt, ts, m):
    """Edit-distance wavefronts up to the end; return (score, M, lo, hi, base)."""
    cap = 64
    lo, hi, base, M, done = _score_zero(pat, ps, n, txt, ts, m, cap)
    used = 1
    kend = m - n
    s = 0
    while not done:
        s += 1
        lo, hi, base = _room_for(lo, hi, base, s)
        a = max(lo[s - 1] - 1, -n)
        b = min(hi[s - 1] + 1, m)
        lo[s] = a
        hi[s] = b
        base[s] = used
        if used + b - a + 1 > M.shape[0]:
            M = grow(M, used + b - a + 1)
        l1, h1, b1 = _span(lo, hi, base, s - 1)
        for k in range(a, b + 1):
            xs = M[b1 + k] if l1 <= k <= h1 else NULL
            il = M[b1 + k - 1] if l1 <= k - 1 <= h1 else NULL
            dr = M[b1 + k + 1] if l1 <= k + 1 <= h1 else NULL
            mv, _src = _edit_choice(xs, il, dr, k, n, m)
            if mv >= 0:
                mv = _extend(pat, ps, n, txt, ts, m, mv, k)
            M[used + k - a] = mv
            if k == kend and mv == m:
                done = True
        used += b - a + 1
    return s, M, lo, hi, base


@njit(cache=True)
def _edit_choice(xs, il, dr, k, n, m):
    """The rules of one edit cell from ``M[s-1, k]``, ``M[s-1, k-1]``, ``M[s-1, k+1]``.

    Returns (value before extension, source 0 X / 1 I / 2 D).
    """
    xv = _mismatch(xs, k, n, m)
    iv = _bump(il)
    if iv > m:
        iv = NULL
    dv = dr
    if dv - k > n:
        dv = NULL
    mv, src = _pick3(xv, iv, dv)
    if mv < 0:
        mv = NULL
    return mv, src


@njit(cache=True)
def _edit_cell(M, lo, hi, base, s, k, n, m):
    """:func:`_edit_choice` of stored cell (s, k) (used by the backtrace)."""
    return _edit_choice(_get(M, lo, hi, base, s - 1, k), _get(M, lo, hi, base, s - 1, k - 1),
                        _get(M, lo, hi, base, s - 1, k + 1), k, n, m)


@njit(cache=True)
def _edit_backtrace(M, lo, hi, base, s, n, m, out, start):
    """Write the CIGAR ops of the edit alignment ending at ``M[s, m-n]``."""
    k = np.int64(m - n)
    h = np.int64(m)
    pos = np.int64(start)
    while s > 0:
        mpre, src = _edit_cell(M, lo, hi, base, s, k, n, m)
        _emit(out, pos, OP_MATCH, h - mpre)
        pos += h - mpre
        if src == 0:
            _emit(out, pos, OP_MISMATCH, 1)
            pos += 1
            h = mpre - 1
        elif src == 1:
            _emit(out, pos, OP_INS, 1)
            pos += 1
            h = mpre - 1
            k -= 1
        else:
            _emit(out, pos, OP_DEL, 1)
            pos += 1
            h = mpre
            k += 1
        s -= 1
    _emit(out, pos, OP_MATCH, h)
    pos += h
    _reverse(out, start, pos)
    return pos


@njit(cache=True)
def _align_one(pat, ps, n, txt, ts, m, x, o, e, edit, cigar, out, start):
    """Align one pair; return (score, CIGAR length written at ``out[start:]``)."""
    if edit:
        s, M, lo, hi, base = _edit_forward(pat, ps, n, txt, ts, m)
        if not cigar:
            return s, 0
        return s, _edit_backtrace(M, lo, hi, base, s, n, m, out, start) - start
    s, M, I, D, lo, hi, base = _affine_forward(pat, ps, n, txt, ts, m, x, o, e)
    if not cigar:
        return s, 0
    return s, _affine_backtrace(M, I, D, lo, hi, base, s, n, m, x, o, e, out, start) - start


@njit(cache=True, parallel=True)
def align_batch(pat, pat_off, txt, txt_off, idx, x, o, e, edit, cigar,
                cig_off, cig_buf, cig_len, scores):
    """Align the pairs ``idx`` (in parallel) and store their results.

    Parameters
    ----------
    pat, txt : ndarray of uint8
        Concatenated base codes (0-3) of the patterns and of the texts.
    pat_off, txt_off : ndarray of int64
        Pair ``i`` is ``pat[pat_off[i]:pat_off[i+1]]`` against the text likewise.
    idx : ndarray of int64
        Which pairs to align.
    x, o, e : int
        Mismatch, gap-open and gap-extend penalties (ignored when ``edit``).
    edit : bool
        Edit distance instead of gap-affine.
    cigar : bool
        Also write the CIGAR ops.
    cig_off : ndarray of int64
        Pair ``i`` may write ``cig_buf[cig_off[i]:cig_off[i+1]]`` (room for
        ``n + m`` ops).
    cig_buf : ndarray of uint8
        CIGAR ops, one ASCII letter (``=XID``) per column.
    cig_len, scores : ndarray of int64
        Output: ops written and score (in the given penalties) per pair.
    """
    for j in prange(idx.shape[0]):
        i = idx[j]
        ps = pat_off[i]
        ts = txt_off[i]
        s, length = _align_one(pat, ps, pat_off[i + 1] - ps, txt, ts, txt_off[i + 1] - ts,
                               x, o, e, edit, cigar, cig_buf, cig_off[i])
        scores[i] = s
        cig_len[i] = length


@njit(cache=True)
def compact(buf, buf_off, lengths, out_off, out):
    """Copy ``buf[buf_off[i]:buf_off[i]+lengths[i]]`` to ``out[out_off[i]:]`` for all i."""
    for i in range(lengths.shape[0]):
        a = buf_off[i]
        b = out_off[i]
        for j in range(lengths[i]):
            out[b + j] = buf[a + j]


@njit(cache=True, parallel=True)
def pack_words(codes, offsets, first_word, words):
    """2-bit pack sequence ``i`` into ``words`` from ``first_word[i]`` (16 bases a word).

    Base ``j`` goes to bits ``2*(j%16)`` of word ``first_word[i] + j//16``;
    the target words must be zero and belong to this sequence alone.
    """
    for i in prange(offsets.shape[0] - 1):
        a = offsets[i]
        w0 = first_word[i]
        for j in range(offsets[i + 1] - a):
            words[w0 + j // 16] |= np.uint32(codes[a + j]) << np.uint32(2 * (j % 16))


@njit(cache=True)
def simulate(n_pairs, length, error, seed, pat, pat_off, txt, txt_off):
    """Random pairs as WFA2-lib's ``generate_dataset`` makes them.

    Pattern ``i`` is ``length`` uniform random bases; text ``i`` is a copy with
    ``round(error * length)`` errors at distinct uniform positions, each a
    mismatch (another base), an insertion (a random base before it) or a
    deletion with equal odds. ``pat`` needs ``n_pairs * length`` bytes and
    ``txt`` ``n_pairs * (length + round(error * length))``; the offsets get
    ``n_pairs + 1`` entries.
    """
    np.random.seed(seed)
    n_err = min(int(error * length + 0.5), length)
    marks = np.zeros(length, np.uint8)
    t = 0
    for i in range(n_pairs):
        a = i * length
        pat_off[i] = a
        txt_off[i] = t
        for j in range(length):
            pat[a + j] = np.random.randint(0, 4)
            marks[j] = 0
        placed = 0
        while placed < n_err:
            j = np.random.randint(0, length)
            if marks[j] == 0:
                marks[j] = 1 + np.random.randint(0, 3)
                placed += 1
        for j in range(length):
            c = pat[a + j]
            if marks[j] == 1:
                txt[t] = (c + 1 + np.random.randint(0, 3)) % 4
                t += 1
            elif marks[j] == 2:
                txt[t] = np.random.randint(0, 4)
                txt[t + 1] = c
                t += 2
            elif marks[j] == 0:
                txt[t] = c
                t += 1
    pat_off[n_pairs] = n_pairs * length
    txt_off[n_pairs] = t
