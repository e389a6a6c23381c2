"""CPU model of the GPU's packed backtrace (``cigar_mode="packed"``, ``cuda/wfa.cu``).

The GPU kernel ``wfa_affine_packed`` keeps no op chains. Each gap-affine cell
of wavefront ``s`` leaves four bits in the block's area ``bt`` (32-bit words):

* bit 0 and bit 1: M's source (0 mismatch, 1 I, 2 D);
* bit 2: I extends a gap (1) or opens one (0);
* bit 3: D likewise.

Thirty-two consecutive diagonals ``lo + 32g .. lo + 32g + 31`` form group
``g``: four words, word ``b`` holding bit ``b`` of the 32 cells (cell ``j`` of
the group in bit ``j``), as one ``__ballot_sync`` per bit gives them. The
groups of score ``s`` are contiguous from word ``base[s]`` (a multiple of 4),
scores in increasing order from word 0. The header of score ``s >= 1``,
``(lo[s], base[s])``, is kept at ``bt[cap - 2s]`` and ``bt[cap - 2s + 1]``:
headers grow down from the top while groups grow up, and a pair whose next
score would make them meet overflows (the launcher retries it).

The walk back starts in M at ``(s, m - n)`` and writes the op list the chain
mode would have built, last op first, 16 two-bit ops per word (0 X, 1 I,
2 D, 3 close), so that ``wfa_replay`` turns it into the same CIGAR.

This module builds the area from the numba twin's stored wavefronts (the same
values the GPU ring holds), walks it back as the kernel does, and replays the
ops as ``wfa_replay`` does; ``tests/test_wfa_packed.py`` checks the CIGARs
against the twin's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gpukernels.cpu import wfa as twin

OP_X, OP_I, OP_D, OP_C = 0, 1, 2, 3


@njit(cache=True)
def packed_words(lo, hi, s):
    """Words the area needs for scores ``1..s``: groups plus two header words a score."""
    used = 0
    for t in range(1, s + 1):
        if lo[t] <= hi[t]:
            used += 4 * (((hi[t] - lo[t]) >> 5) + 1)
    return used + 2 * s


@njit(cache=True)
def build_area(M, I, D, lo, hi, base, s, n, m, x, o, e, cap):
    """The area of one pair from the twin's wavefronts (``_affine_forward``); None on overflow.

    The area (``cap`` words, uint32) is laid out as the kernel lays it out;
    a score whose groups would meet the headers overflows, as on the GPU.
    """
    bt = np.zeros(cap, np.uint32)
    used = 0
    for t in range(1, s + 1):
        groups = ((hi[t] - lo[t]) >> 5) + 1 if lo[t] <= hi[t] else 0
        if used + 4 * groups > cap - 2 * t:
            return None
        bt[cap - 2 * t] = np.uint32(lo[t] & 0xFFFFFFFF)
        bt[cap - 2 * t + 1] = np.uint32(used)
        for k in range(lo[t], hi[t] + 1):
            _iv, iext, _dv, dext, _mv, msrc = twin._affine_cell(M, I, D, lo, hi, base, t, k,
                                                                n, m, x, o, e)
            code = msrc | (np.int64(iext) << 2) | (np.int64(dext) << 3)
            p = k - lo[t]
            w = used + 4 * (p >> 5)
            for b in range(4):
                if (code >> b) & 1:
                    bt[w + b] |= np.uint32(1) << np.uint32(p & 31)
        used += 4 * groups
    return bt


@njit(cache=True)
def _signed(word):
    """A header word back to a signed diagonal."""
    v = np.int64(word)
    return v - (1 << 32) if v >= (1 << 31) else v


@njit(cache=True)
def traceback(bt, s, k, x, o, e, out):
    """Walk back from M at ``(s, k)``; ops to ``out`` (last first, 16 a word).

    Returns the op count, or -1 when ``out`` is too small or the walk leaves
    the area (the kernel then flags the pair for the launcher's rescue).
    """
    cap = bt.shape[0]
    state = 0  # 0 M, 1 I, 2 D
    count = 0
    acc = np.uint32(0)
    while s > 0 or state != 0:
        if s <= 0:
            return -1
        lo = _signed(bt[cap - 2 * s])
        base = np.int64(bt[cap - 2 * s + 1])
        p = k - lo
        if p < 0:
            return -1
        g = base + 4 * (p >> 5)
        b = p & 31
        if state == 0:
            src = (bt[g] >> b) & 1 | ((bt[g + 1] >> b) & 1) << 1
            if src == 0:
                op = OP_X
                s -= x
            elif src == 3:
                return -1
            else:
                op = OP_C
                state = src
        elif state == 1:
            op = OP_I
            k -= 1
            if (bt[g + 2] >> b) & 1:
                s -= e
            else:
                s -= o + e
                state = 0
        else:
            op = OP_D
            k += 1
            if (bt[g + 3] >> b) & 1:
                s -= e
            else:
                s -= o + e
                state = 0
        acc |= np.uint32(op) << np.uint32(2 * (count & 15))
        count += 1
        if count & 15 == 0:
            if (count >> 4) > out.shape[0]:
                return -1
            out[(count >> 4) - 1] = acc
            acc = np.uint32(0)
    if count & 15:
        if (count >> 4) + 1 > out.shape[0]:
            return -1
        out[count >> 4] = acc
    return count


@njit(cache=True)
def replay(pat, ps, n, txt, ts, m, ops, count, letters):
    """``wfa_replay`` for gap-affine: op list → CIGAR letters; return their count, -1 if bad."""
    h = twin._extend(pat, ps, n, txt, ts, m, 0, 0)
    v = h
    pos = 0
    for j in range(h):
        letters[pos + j] = ord("=")
    pos += h
    for j in range(count - 1, -1, -1):
        c = (ops[j >> 4] >> np.uint32(2 * (j & 15))) & 3
        ext = False
        if c == OP_X:
            if h >= m or v >= n:
                return -1
            letters[pos] = ord("X")
            pos += 1
            h += 1
            v += 1
            ext = True
        elif c == OP_I:
            if h >= m:
                return -1
            letters[pos] = ord("I")
            pos += 1
            h += 1
        elif c == OP_D:
            if v >= n:
                return -1
            letters[pos] = ord("D")
            pos += 1
            v += 1
        else:
            ext = True
        if ext:
            h2 = twin._extend(pat, ps, n, txt, ts, m, h, h - v)
            for q in range(h2 - h):
                letters[pos + q] = ord("=")
            pos += h2 - h
            v += h2 - h
            h = h2
    if h != m or v != n:
        return -1
    return pos


def align_packed(P, T, penalties, cap=None):
    """Scores and CIGAR letters of every pair through the packed model.

    Parameters
    ----------
    P, T : gpukernels.wfa.Sequences
    penalties : tuple of int
        ``(x, o, e)``, already divided by their common divisor (as the GPU
        receives them).
    cap : int, optional
        Area words per pair; the default always fits. A pair that overflows
        it gets score -1 and no letters (the GPU would retry it).

    Returns
    -------
    scores : ndarray of int64
    letters : list of bytes
    words : ndarray of int64
        Area words each pair used (groups plus headers).
    """
    x, o, e = penalties
    scores = np.empty(len(P), np.int64)
    words = np.zeros(len(P), np.int64)
    letters = []
    for i in range(len(P)):
        ps, n = int(P.offsets[i]), int(P.lengths[i])
        ts, m = int(T.offsets[i]), int(T.lengths[i])
        s, M, I, D, lo, hi, base = twin._affine_forward(P.codes, ps, n, T.codes, ts, m, x, o, e)
        need = int(packed_words(lo, hi, s))
        words[i] = need
        bt = build_area(M, I, D, lo, hi, base, s, n, m, x, o, e, need if cap is None else cap)
        if bt is None:
            scores[i] = -1
            letters.append(b"")
            continue
        ops = np.zeros((2 * (n + m)) // 16 + 2, np.uint32)
        count = traceback(bt, s, m - n, x, o, e, ops)
        out = np.zeros(n + m, np.uint8)
        length = replay(P.codes, ps, n, T.codes, ts, m, ops, count, out) if count >= 0 else -1
        assert length >= 0, f"pair {i}: the packed walk back failed"
        scores[i] = s
        letters.append(out[:length].tobytes())
    return scores, letters, words
