"""numba twin of ``cuda/gapped.cu``: y-drop gapped extension with traceback.

The DP walks anti-diagonals from the anchor outwards (FastZ's order, so the
GPU kernel can compute a whole anti-diagonal at once and reach the same
cells). Rules, shared with the CUDA kernel:

* affine gaps, a gap of length L costs ``open + extend * L``;
* cell (i, j) of anti-diagonal d = i + j takes the best of a substitution
  from d-2, a gap in the query (``D``, from (i, j-1)) and a gap in the target
  (``I``, from (i-1, j)), preferring substitution, then ``D``, then ``I``;
  a gap extends rather than opens only when extending scores strictly more;
* a cell is dead when its score is below ``best - ydrop``, ``best`` being the
  best substitution-ending score over the earlier anti-diagonals;
* the best cell is the highest substitution-ending score; ties go to the
  later anti-diagonal, then to the smaller query index;
* the extension ends when an anti-diagonal has no live cell.
"""

import numpy as np
from numba import int64, njit, types, uint64
from numba.extending import overload

from .buffers import grow, move_items
from .wall_events import file_row, live_at

from .wfa_traceback import WFA_OK, side_path

NEG = -(1 << 29)
NEG32 = np.int32(NEG)
ZERO8, ONE8, TWO8, FOUR8, EIGHT8 = (np.uint8(v) for v in (0, 1, 2, 4, 8))
#: a sweep's rows in 16 bits (:func:`ydrop_sweep`, where :func:`fits16` holds): scores less a base that
#: stays within REBASE16 below the best, dead cells at NEG16. Why no sum wraps and a dead cell stays dead:
#: a live cell of the rows a step reads lies within best - ydrop - 1,400 .. best + 700 (the floor, less
#: two anti-diagonals' rise of the best), so above NEG16 = -16,500; a sum of one stored value and one
#: score or gap cost (at most 700; substitution scores below -(ydrop + 1) count as that, dead either way)
#: then lies within -31,501 .. 17,784, and NEG16 plus 700 stays below every floor (at least -ydrop)
NEG16 = np.int16(-16500)
REBASE16 = 1 << 14
OP_EQ, OP_X, OP_I, OP_D = 0, 1, 2, 3
#: a sweep's state between anti-diagonals (:func:`ydrop_sweep`): the last anti-diagonal computed, the
#: live ranges of it and of the one before, the best cell and score, the cells and traceback bytes so
#: far, the rotation of the H rows and of the E and F rows of ``work``, and whether the extension ended
ST_D, ST_LO1, ST_HI1, ST_LO2, ST_HI2, ST_BEST, ST_BI, ST_BJ, ST_CELLS, ST_NTB, ST_ROTH, ST_ROTE, ST_DONE = range(13)
#: and how ``work`` holds the rows: in 32 bits as they are (ST_NARROW 0), or in 16 bits less ST_BASE (1)
ST_BASE, ST_NARROW = 13, 14
ST_N = 15


def as_row(x, like):
    """``x`` cast to the rows' integer type, that of ``like`` (int16 or int32; numba only)."""
    raise NotImplementedError


@overload(as_row, inline="always")
def _as_row(x, like):
    if like == types.int16:
        return lambda x, like: np.int16(x)
    return lambda x, like: np.int32(x)


@njit(cache=True, nogil=True)
def fits16(top, goe, gext, ydrop):
    """Do the scores fit rows of 16 bits (:data:`NEG16`; the GPU's ``ydrop16`` holds its pairs by the same rule)?

    ``top``: the largest substitution score; ``goe``: a gap's opening
    cost with its first extension; ``gext``: each further extension.
    """
    return top <= 700 and 0 <= goe <= 700 and 0 <= gext <= 700 and 0 <= ydrop <= 15000


@njit(cache=True, nogil=True, inline="always")
def _state_rows(st):
    """The rows a sweep standing at ``st`` reads next: H of its last anti-diagonal and of the one before, E and F."""
    roth, rote = st[ST_ROTH], st[ST_ROTE]
    return (roth + 1) % 3, roth, 4 - rote, 6 - rote


@njit(cache=True, nogil=True, inline="always")
def _span(lo1, hi1, lo2, hi2, width):
    """The cells of those rows the next anti-diagonal may read: both live ranges and two cells beyond."""
    lo, hi = lo1, hi1
    if hi2 > lo2:
        lo, hi = min(lo, lo2), max(hi, hi2)
    return max(lo - 2, 0), min(hi + 2, width)


@njit(cache=True, nogil=True, inline="always")
def _state_span(st, width):
    """:func:`_span` of a sweep standing at ``st``."""
    return _span(st[ST_LO1], st[ST_HI1], st[ST_LO2], st[ST_HI2], width)


@njit(cache=True, nogil=True, inline="always")
def _flat_views(work):
    """``work``'s row width and its cells as one int32 array and as one int16 array (row r from ``2 * r * width``)."""
    wk32 = work.reshape(work.size)
    return work.shape[1], wk32, wk32.view(np.int16)


@njit(cache=True, nogil=True)
def narrow_rows(work, st):
    """Put a sweep's rows in 16 bits less its best (ST_NARROW 1), in place: int16 row r in int32 row r's first half.

    Only the cells the next anti-diagonal reads (:func:`_state_span`) are
    kept; they go in rising order, so each 16-bit cell overwrites 32-bit
    cells already read.
    """
    if st[ST_NARROW]:
        return
    width, wk32, wk16 = _flat_views(work)
    base = st[ST_BEST]
    a, b = _state_span(st, width)
    for r in _state_rows(st):
        for i in range(a, b):
            v = wk32[r * width + i] - base
            wk16[2 * r * width + i] = NEG16 if v <= NEG16 else np.int16(min(v, 32767))
    st[ST_BASE] = base
    st[ST_NARROW] = 1


@njit(cache=True, nogil=True)
def widen_rows(work, st):
    """The inverse of :func:`narrow_rows`: the rows back in 32 bits as they are (ST_NARROW 0), in falling order."""
    if not st[ST_NARROW]:
        return
    width, wk32, wk16 = _flat_views(work)
    base = st[ST_BASE]
    a, b = _state_span(st, width)
    for r in _state_rows(st):
        for i in range(b - 1, a - 1, -1):
            v = wk16[2 * r * width + i]
            wk32[r * width + i] = NEG if v <= NEG16 else v + base
    st[ST_BASE] = 0
    st[ST_NARROW] = 0


@njit(cache=True, nogil=True)
def row_value(work, st, r, i):
    """Row ``r``'s cell ``i`` of a sweep standing at ``st``, as it is (dead: at most ``NEG``), in either width."""
    if not st[ST_NARROW]:
        return int64(work[r, i])
    width, _, wk16 = _flat_views(work)
    v = wk16[2 * r * width + i]
    return int64(NEG) if v <= NEG16 else int64(v) + st[ST_BASE]


@njit(cache=True, nogil=True)
def traceback_columns(tb, tb_off, tb_lo, bi, bj, t, t_base, t_step, q, q_base, q_step):
    """Columns of the path from the origin to cell (bi, bj), origin first.

    Walks the traceback bytes back from (bi, bj): the byte of cell (i, j)
    is ``tb[tb_off[i + j] + i - tb_lo[i + j]]`` and its letters are
    ``t[t_base + t_step * j]`` and ``q[q_base + q_step * i]``. Shared by
    the CPU DP and the GPU executor's host side.
    """
    ops = np.empty(bi + bj, dtype=np.uint8)
    n = traceback_steps(tb, tb_off, tb_lo, 0, bi, bj, 0, ops, 0, t, t_base, t_step, q, q_base, q_step)[0]
    return ops[:n][::-1].copy()


@njit(cache=True, nogil=True, inline="always")
def trace_step(byte, i, j, state, ops, n, t, t_base, t_step, q, q_base, q_step):
    """One step of the traceback walk back from cell (i, j) in ``state``, whose traceback byte is ``byte``.

    Writes one column to ``ops[n]``; returns the cell, state and count after it (:func:`traceback_steps`).
    """
    if state == 0:
        src = byte & 3
        if src == 0:
            tc = t[t_base + t_step * j]
            qc = q[q_base + q_step * i]
            ops[n] = OP_EQ if (tc == qc and tc < 4) else OP_X
            return i - 1, j - 1, 0, n + 1
        state = src
    if state == 1:
        ops[n] = OP_D
        return i, j - 1, (1 if byte & 4 else 0), n + 1
    ops[n] = OP_I
    return i - 1, j, (2 if byte & 8 else 0), n + 1


@njit(cache=True, nogil=True)
def traceback_steps(tb, tb_off, tb_lo, d_from, i, j, state, ops, n, t, t_base, t_step, q, q_base, q_step):
    """The traceback walk of :func:`traceback_columns` over one piece of the table, anti-diagonals from ``d_from`` on.

    The piece's tables start at ``d_from`` (the byte of cell (i, j) is
    ``tb[tb_off[i + j - d_from] + i - tb_lo[i + j - d_from]]``). Walks back
    from cell (i, j) in ``state`` (0 on the diagonal, 1 in a deletion, 2 in
    an insertion), writing columns, last first, to ``ops`` from ``n`` on,
    until the origin or a cell before ``d_from``. Returns ``n, i, j, state``
    there, for the piece before (the relay's chunks are such pieces).
    """
    while (i > 0 or j > 0) and i + j >= d_from:
        dd = i + j - d_from
        i, j, state, n = trace_step(tb[tb_off[dd] + i - tb_lo[dd]], i, j, state, ops, n, t, t_base, t_step, q,
                                    q_base, q_step)
    return n, i, j, state


@njit(cache=True, nogil=True)
def _flat_matrix(matrix):
    """The substitution matrix as a flat int32 table: ``flat[8 * t + q]``."""
    flat = np.empty(64, dtype=np.int32)
    for x in range(6):
        for y in range(6):
            flat[8 * x + y] = matrix[x, y]
    return flat


@njit(cache=True, nogil=True)
def origin_state(work, tb, tb_off, tb_lo):
    """The state (see :data:`ST_N`) and rows of an extension at its origin, anti-diagonal 0.

    The origin cell scores 0; every other cell is dead. Its traceback byte
    is ``tb[0]``. Returns the state and the (grown) traceback buffers.
    """
    for r in range(7):
        work[r, 0] = NEG
        work[r, 1] = NEG
    work[1, 0] = 0
    tb_off = grow(tb_off, 2)
    tb_lo = grow(tb_lo, 2)
    tb_off[0] = 0
    tb_lo[0] = 0
    tb = grow(tb, 1)
    tb[0] = 0
    st = np.zeros(ST_N, dtype=np.int64)
    st[ST_HI1] = 1
    st[ST_NTB] = 1
    return st, tb, tb_off, tb_lo


@njit(cache=True, nogil=True)
def ydrop_sweep(tA, T0, tn, qA, Q0, qn, flat, goe, gext, ydrop, barrier, walls, wq0, wt0, wdir, work, tb, tb_off,
                tb_lo, store, st, d_end):
    """Anti-diagonals ``st[ST_D] + 1`` to ``d_end`` of a y-drop extension, or until it ends.

    The arguments are :func:`ydrop_one_side`'s (``flat`` from
    :func:`_flat_matrix`, ``goe`` and ``gext`` the gap costs as int32); ``st``
    and the rows of ``work`` hold where the sweep stands (:func:`origin_state`,
    or a state carried over from another sweep) and are updated in place, so
    a later call goes on from there. Anti-diagonal d's traceback bytes are
    ``tb[tb_off[d]:]``, written from ``st[ST_NTB]`` on. Returns the (grown)
    traceback buffers.

    Where the scores fit (:func:`fits16`) the rows are held in 16 bits
    (:func:`narrow_rows`, :data:`NEG16`), twice the cells a vector: the
    same cells, best cell, scores and traceback bytes of live cells. Read a
    sweep's rows with :func:`row_value` or :func:`widen_rows`.
    """
    top = NEG
    for x in range(6):
        for y in range(6):
            top = max(top, flat[8 * x + y])
    width, wk32, wk16 = _flat_views(work)
    if fits16(top, goe, gext, ydrop):
        narrow_rows(work, st)
        return _sweep(tA, T0, tn, qA, Q0, qn, flat, goe, gext, ydrop, barrier, walls, wq0, wt0, wdir, wk16,
                      2 * width, width, NEG16, np.int32(-(ydrop + 1)), REBASE16, tb, tb_off, tb_lo, store, st, d_end)
    widen_rows(work, st)
    return _sweep(tA, T0, tn, qA, Q0, qn, flat, goe, gext, ydrop, barrier, walls, wq0, wt0, wdir, wk32, width,
                  width, NEG32, NEG32, 0, tb, tb_off, tb_lo, store, st, d_end)


@njit(cache=True, nogil=True)
def _sweep(tA, T0, tn, qA, Q0, qn, flat, goe, gext, ydrop, barrier, walls, wq0, wt0, wdir, wk, R, W, neg, smin,
           rebase, tb, tb_off, tb_lo, store, st, d_end):
    """:func:`ydrop_sweep` over rows ``wk`` (row r from ``r * R``, ``W`` cells) of one width, ``neg`` the dead value.

    Scores are held less ``st[ST_BASE]`` (0 in 32 bits), rebased to the best
    where it climbs past ``rebase`` above it (0: never); substitution scores
    below ``smin`` count as ``smin``.
    """
    d = st[ST_D]
    lo1, hi1, lo2, hi2 = st[ST_LO1], st[ST_HI1], st[ST_LO2], st[ST_HI2]
    best, bi, bj = st[ST_BEST], st[ST_BI], st[ST_BJ]
    cells, ntb = st[ST_CELLS], st[ST_NTB]
    base = st[ST_BASE]
    # rows of work: 0..2 H rotating (d-2, d-1, d), 3..4 E, 5..6 F, 7 substitution scores
    roth, rote = st[ST_ROTH], st[ST_ROTE]
    hA, hB, hC = roth, (roth + 1) % 3, (roth + 2) % 3
    eA, eB = 3 + rote, 4 - rote
    fA, fB = 5 + rote, 6 - rote
    # the walls of earlier alignments as events along the anti-diagonals (wall_events): each target
    # row j (cell (d - j, j)) is read once, as the range of j an anti-diagonal covers reaches it
    heap = np.empty((16, 3), dtype=np.int64)
    n_heap = 0
    live = np.empty((16, 2), dtype=np.int64)
    n_live = 0
    j_scanned = max(-1, d - max(hi1, hi2) - 1)
    done = 0
    dlast = d

    while True:
        if d == d_end:
            break
        d += 1
        if d > qn + tn:
            done = 1
            break
        lo = lo1
        if lo2 + 1 < lo:
            lo = lo2 + 1
        hi = hi1 + 1
        if hi2 + 1 > hi:
            hi = hi2 + 1
        if lo < d - tn:
            lo = d - tn
        if lo < 0:
            lo = 0
        if hi > qn + 1:
            hi = qn + 1
        if hi > d + 1:
            hi = d + 1
        if lo >= hi:
            done = 1
            break
        if not store:
            ntb = lo  # score-only: anti-diagonal d's bytes at tb[lo:hi]
        # (the calls only where a buffer is short: a call with array arguments costs about as much as
        # a hundred cells of the loop below, a few of them an anti-diagonal)
        if d >= tb_off.shape[0]:
            tb_off = grow(tb_off, d + 1)
        if d >= tb_lo.shape[0]:
            tb_lo = grow(tb_lo, d + 1)
        if ntb + hi - lo > tb.shape[0]:
            tb = grow(tb, ntb + hi - lo)
        tb_off[d] = ntb
        tb_lo[d] = lo
        # the rows as offsets into one flat view of ``work``: a view of a row made per anti-diagonal
        # cost its reference counts every time
        oH2, oH1, oH = hA * R, hB * R, hC * R
        oE1, oE, oF1, oF = eB * R, eA * R, fB * R, fA * R
        if rebase and best - base > rebase:
            # the scores less the best from here: the live cells this anti-diagonal reads, dead ones kept
            shift = best - base
            a, z = _span(lo1, hi1, lo2, hi2, W)
            for o in (oH2, oH1, oE1, oF1):
                for i in range(a, z):
                    v = wk[o + i]
                    wk[o + i] = as_row(v - shift, neg) if v > neg else neg
            base = best
        floor = best - ydrop - base
        # Reads outside the computed ranges of d-1 and d-2 hit the NEG
        # sentinels written just outside them, so the sweep needs no range tests.
        # Cells with i == 0 (only gaps in the query) or j == 0 (only gaps in
        # the target) are the edges; the interior is one branch-free loop.
        i_in = lo if lo >= 1 else 1
        i_out = hi if hi <= d else d
        # Unsigned indices (numba then skips its negative-index tests) and
        # int32 operands let LLVM vectorise this loop; the substitution scores
        # are gathered first, in a loop of their own. Each sum is cast back to
        # int32, the type of the rows it goes to (the comparisons between them
        # see the same values wherever no sum overflows 32 bits): numba widens
        # int32 arithmetic to int64, and the loop then ran half as many cells a vector.
        tofs = uint64(T0 - d)
        q0u = uint64(Q0)
        one = uint64(1)
        tbo = uint64(ntb - lo)
        floor_row = as_row(floor, neg)
        uH2, uH1, uH = uint64(oH2), uint64(oH1), uint64(oH)
        uE1, uE, uF1, uF, uS = uint64(oE1), uint64(oE), uint64(oF1), uint64(oF), uint64(7 * R)
        for i in range(uint64(i_in), uint64(i_out)):
            wk[uS + i] = as_row(max(flat[uint64(8) * uint64(tA[tofs + i]) + uint64(qA[q0u + i])], smin), neg)
        # (with the anti-diagonal's best substitution-ending score; the edge cells below never are)
        dbest = neg
        for i in range(uint64(i_in), uint64(i_out)):
            sub = as_row(wk[uH2 + i - one] + wk[uS + i], neg)
            e_open = as_row(wk[uH1 + i] - goe, neg)
            e_ext = as_row(wk[uE1 + i] - gext, neg)
            e = max(e_open, e_ext)
            f_open = as_row(wk[uH1 + i - one] - goe, neg)
            f_ext = as_row(wk[uF1 + i - one] - gext, neg)
            f = max(f_open, f_ext)
            h = max(sub, max(e, f))
            src = ZERO8 if h == sub else (ONE8 if h == e else TWO8)
            alive = h >= floor_row
            hv = h if alive else neg
            wk[uH + i] = hv
            wk[uE + i] = e if alive else neg
            wk[uF + i] = f if alive else neg
            tb[tbo + i] = src | (FOUR8 if e_ext > e_open else ZERO8) | (EIGHT8 if f_ext > f_open else ZERO8)
            dbest = max(dbest, hv if src == ZERO8 else neg)
        if lo == 0:
            # cell (0, d): a gap in the query from (0, d - 1)
            e_open = wk[oH1] - goe
            e_ext = wk[oE1] - gext
            e = max(e_open, e_ext)
            alive = e >= floor
            wk[oH] = e if alive else neg
            wk[oE] = e if alive else neg
            wk[oF] = neg
            tb[ntb] = 1 | (4 if e_ext > e_open else 0)
        if hi == d + 1:
            # cell (d, 0): a gap in the target from (d - 1, 0)
            f_open = wk[oH1 + d - 1] - goe
            f_ext = wk[oF1 + d - 1] - gext
            f = max(f_open, f_ext)
            alive = f >= floor
            wk[oH + d] = f if alive else neg
            wk[oE + d] = neg
            wk[oF + d] = f if alive else neg
            tb[ntb + d - lo] = 2 | (8 if f_ext > f_open else 0)
        # the self-comparison barrier and the walls of earlier alignments
        ib = (d - barrier) // 2 if (d - barrier) % 2 == 0 else -1
        killed_best = False     # a cell killed here held the anti-diagonal's best: look for it again
        if lo <= ib < hi:
            killed_best = wk[oH + ib] == dbest
            wk[oH + ib] = neg
            wk[oE + ib] = neg
            wk[oF + ib] = neg
        # walls of earlier alignments: the rows entering the j range [d - hi + 1, d - lo], then the
        # cells of the wall intervals live at d
        while j_scanned < d - lo:
            j_scanned += 1
            lt = wt0 + wdir * j_scanned
            if walls.shape[1] and walls[lt, 0, 1] != 0:        # (a row with no wall files nothing)
                heap, n_heap = file_row(heap, n_heap, walls, lt, j_scanned, wq0, wdir, d, qn)
        if n_heap > 0 and heap[0, 0] <= d:
            n_heap, live, n_live = live_at(heap, n_heap, live, n_live, d)
        x = 0
        while x < n_live:
            if live[x, 0] <= d:
                n_live -= 1
                live[x, 0] = live[n_live, 0]
                live[x, 1] = live[n_live, 1]
                continue
            iw = d - live[x, 1]
            if lo <= iw < hi:
                killed_best = killed_best or wk[oH + iw] == dbest
                wk[oH + iw] = neg
                wk[oE + iw] = neg
                wk[oF + iw] = neg
            x += 1
        # the best substitution-ending cell (first of equals, looked for only where it is the best
        # so far) and the live range
        if killed_best:
            dbest = neg
            for iu in range(uint64(lo), uint64(hi)):
                v = wk[uH + iu] if (tb[tbo + iu] & np.uint8(3)) == 0 else neg
                dbest = max(dbest, v)
        dbi = -1
        if dbest > neg and dbest >= best - base:
            # the first such cell as a minimum over the anti-diagonal: with no early exit, the loop vectorises
            first = uint64(hi)
            for iu in range(uint64(lo), uint64(hi)):
                hit = (wk[uH + iu] == dbest) & ((tb[tbo + iu] & np.uint8(3)) == 0)
                first = min(first, iu if hit else uint64(hi))
            if first < hi:
                dbi = int64(first)
        nlo = lo
        while nlo < hi and wk[oH + nlo] <= neg:
            nlo += 1
        nhi = hi
        while nhi > nlo and wk[oH + nhi - 1] <= neg:
            nhi -= 1
        # sentinels just outside the computed range of d
        if lo >= 1:
            wk[oH + lo - 1] = neg
            wk[oE + lo - 1] = neg
            wk[oF + lo - 1] = neg
        if hi < W:
            wk[oH + hi] = neg
            wk[oE + hi] = neg
            wk[oF + hi] = neg
        cells += hi - lo
        ntb += hi - lo
        dlast = d
        if nlo >= nhi:
            done = 1
            break
        if dbi >= 0 and dbest >= best - base:
            best = dbest + base
            bi = dbi
            bj = d - dbi
        # rotate: d-1 becomes d-2, d becomes d-1
        hA, hB, hC = hB, hC, hA
        eA, eB = eB, eA
        fA, fB = fB, fA
        lo2, hi2 = lo1, hi1
        lo1, hi1 = nlo, nhi
    st[ST_D] = dlast
    st[ST_LO1], st[ST_HI1], st[ST_LO2], st[ST_HI2] = lo1, hi1, lo2, hi2
    st[ST_BEST], st[ST_BI], st[ST_BJ] = best, bi, bj
    st[ST_CELLS], st[ST_NTB] = cells, ntb
    st[ST_ROTH] = hA
    st[ST_ROTE] = eA - 3
    st[ST_DONE] = done
    st[ST_BASE] = base
    return tb, tb_off, tb_lo


@njit(cache=True, nogil=True)
def ydrop_one_side(tA, T0, tn, qA, Q0, qn, matrix, gap_open, gap_ext, ydrop, barrier,
                   walls, wq0, wt0, wdir, work, tb, tb_off, tb_lo, store=True):
    """One-sided y-drop extension from the origin, with traceback.

    Parameters
    ----------
    tA, qA : ndarray of uint8
        Codes, oriented so that along an anti-diagonal d, cell (i, j = d - i)
        reads the target letter ``tA[T0 - j]`` and the query letter
        ``qA[Q0 + i]``: both indices then rise with i, which lets the
        compiler vectorise the sweep. (For the right piece ``tA`` is the
        reversed target and ``qA`` the query; for the left piece the other
        way round.)
    tn, qn : int
        How far the extension may go in each sequence.
    matrix : ndarray of int32, shape (6, 6)
    barrier : int
        Cells with ``j - i == barrier`` are dead (a self-comparison's main
        diagonal); pass a value out of reach to disable.
    walls : ndarray of int32, shape (len(t) + 1, K, 2)
        Lattice points of alignments already kept: ``walls[x]`` holds up to K
        query intervals ``[lo, hi)`` at target lattice coordinate ``x``
        (``hi == 0`` ends the list). Cells on them are dead, so an extension
        never touches or crosses an earlier alignment.
    wq0, wt0, wdir : int
        Cell (i, j) is the lattice point ``(wq0 + wdir * i, wt0 + wdir * j)``.
    work : ndarray of int32, shape (8, >= qn + 2)
        Scratch rows (H for three anti-diagonals, E and F for two, substitution scores), held in
        16 bits where the scores fit (:func:`ydrop_sweep`).
    tb, tb_off, tb_lo : ndarray
        Traceback buffers (grown as needed and returned). With ``store``,
        anti-diagonal d's bytes are ``tb[tb_off[d]:tb_off[d + 1]]`` for every
        d computed, the last included, and its first cell is ``tb_lo[d]``.
    store : bool
        Keep the traceback and trace the path back (default). ``False`` is the
        score-only inspector: the same cells, the same best cell and score,
        but each anti-diagonal's traceback bytes overwrite the previous ones
        (``tb[lo:hi]``) and ``ops`` comes back empty.

    Returns
    -------
    best, bi, bj : int
        Best score and its cell (query and target letters consumed).
    cells : int
        DP cells computed.
    ops : ndarray of uint8
        Columns from the origin outwards (``OP_EQ``, ``OP_X``, ``OP_I``, ``OP_D``).
    tb, tb_off, tb_lo : ndarray
        The (possibly grown) buffers, for reuse.
    """
    goe = np.int32(gap_open + gap_ext)
    gext = np.int32(gap_ext)
    flat = _flat_matrix(matrix)
    st, tb, tb_off, tb_lo = origin_state(work, tb, tb_off, tb_lo)
    tb, tb_off, tb_lo = ydrop_sweep(tA, T0, tn, qA, Q0, qn, flat, goe, gext, ydrop, barrier, walls, wq0, wt0, wdir,
                                    work, tb, tb_off, tb_lo, store, st, 1 << 62)
    best, bi, bj, cells = st[ST_BEST], st[ST_BI], st[ST_BJ], st[ST_CELLS]
    if not store:
        return best, bi, bj, cells, np.empty(0, dtype=np.uint8), tb, tb_off, tb_lo
    dlast = st[ST_D]
    tb_off = grow(tb_off, dlast + 2)
    tb_off[dlast + 1] = st[ST_NTB]
    ops = traceback_columns(tb, tb_off, tb_lo, bi, bj, tA, T0, -1, qA, Q0, 1)
    return best, bi, bj, cells, ops, tb, tb_off, tb_lo


@njit(cache=True, nogil=True)
def rescore(ops, t, t0, q, q0, matrix, gap_open, gap_ext):
    """Score of a path given as forward columns starting at (t0, q0)."""
    s = 0
    ti = t0
    qi = q0
    prev = -1
    for k in range(ops.shape[0]):
        op = ops[k]
        if op <= OP_X:
            s += matrix[t[ti], q[qi]]
            ti += 1
            qi += 1
        elif op == OP_I:
            s -= gap_ext if prev == OP_I else gap_open + gap_ext
            qi += 1
        else:
            s -= gap_ext if prev == OP_D else gap_open + gap_ext
            ti += 1
        prev = op
    return s


@njit(cache=True, nogil=True)
def _on_path(aq, at, k, kt0, kt1, kq0, kq1, run_off, run_t, run_q, run_len):
    if at < kt0[k] or at >= kt1[k] or aq < kq0[k] or aq >= kq1[k]:
        return False
    a = run_off[k]
    z = run_off[k + 1]
    # last run with run_t <= at
    while z - a > 1:
        m = (a + z) >> 1
        if run_t[m] <= at:
            a = m
        else:
            z = m
    return run_t[a] <= at < run_t[a] + run_len[a] and aq - at == run_q[a] - run_t[a]


@njit(cache=True, nogil=True)
def runs_of(ops, t0, q0):
    """Substitution runs of a path: target start, query start, length, first column index."""
    n = 0
    prev_sub = False
    for k in range(ops.shape[0]):
        sub = ops[k] <= OP_X
        if sub and not prev_sub:
            n += 1
        prev_sub = sub
    rt = np.empty(n, dtype=np.int64)
    rq = np.empty(n, dtype=np.int64)
    rl = np.empty(n, dtype=np.int64)
    rx = np.empty(n, dtype=np.int64)
    r = -1
    ti = t0
    qi = q0
    prev_sub = False
    for k in range(ops.shape[0]):
        op = ops[k]
        if op <= OP_X:
            if not prev_sub:
                r += 1
                rt[r] = ti
                rq[r] = qi
                rl[r] = 0
                rx[r] = k
            rl[r] += 1
            ti += 1
            qi += 1
            prev_sub = True
        else:
            if op == OP_I:
                qi += 1
            else:
                ti += 1
            prev_sub = False
    return rt, rq, rl, rx


@njit(cache=True, nogil=True, inline="always")
def mark_point(walls, lt, lq):
    """Add lattice point (lq, lt) to ``walls``: extend the last interval of target row ``lt``, or add one.

    A point that finds every slot of its row taken is left out.
    """
    nslot = walls.shape[1]
    for s in range(nslot):
        hi = walls[lt, s, 1]
        if hi == 0:
            walls[lt, s, 0] = lq
            walls[lt, s, 1] = lq + 1
            return
        if hi == lq and (s + 1 == nslot or walls[lt, s + 1, 1] == 0):
            walls[lt, s, 1] = lq + 1
            return


@njit(cache=True, nogil=True)
def mark_walls(walls, path, t0, q0):
    """Add the lattice points of a kept path starting at (q0, t0) to ``walls``."""
    lt = t0
    lq = q0
    mark_point(walls, lt, lq)
    for k in range(path.shape[0]):
        op = path[k]
        if op != OP_I:
            lt += 1
        if op != OP_D:
            lq += 1
        mark_point(walls, lt, lq)


@njit(cache=True, nogil=True)
def side_frame(right, t, q, t_rev, q_rev, aq, at, t_lo, t_hi, q_lo, q_hi, self_barrier):
    """The arguments of :func:`ydrop_one_side` that place one side of an anchor.

    The left side runs on the target forward and the reversed query, the
    right side on the reversed target and the query, each from the anchor
    base ``(aq, at)`` outwards and inside the record bounds ``[t_lo, t_hi)``,
    ``[q_lo, q_hi)``; a self-comparison's main diagonal is a barrier.

    Returns
    -------
    tuple
        ``(tA, T0, tn, qA, Q0, qn, barrier, wq0, wt0, wdir)``.
    """
    if right:
        bar = aq - at if self_barrier else 1 << 62
        return t_rev, t.shape[0] - 1 - at, t_hi - at - 1, q, aq, q_hi - aq - 1, bar, aq + 1, at + 1, 1
    bar = at - aq if self_barrier else 1 << 62
    return t, at + 1, at - t_lo + 1, q_rev, q.shape[0] - 2 - aq, aq - q_lo + 1, bar, aq + 1, at + 1, -1


@njit(cache=True, nogil=True)
def extend_side(right, t, q, t_rev, q_rev, aq, at, t_lo, t_hi, q_lo, q_hi, matrix, gap_open, gap_ext, ydrop,
                self_barrier, walls, work, tb, tb_off, tb_lo, store=True):
    """One side of one anchor, with the walls as they are: the sequential rule's step.

    The side is placed by :func:`side_frame`. Shared by
    :func:`extend_anchors` and the GPU twin's host side, which extends here
    the sides whose speculative GPU result is not valid.

    Returns
    -------
    tuple
        ``ydrop_one_side``'s: best score, cell ``(i, j)``, cells, columns from
        the anchor outwards, and the grown ``tb, tb_off, tb_lo``.
    """
    tA, T0, tn, qA, Q0, qn, bar, wq0, wt0, wdir = side_frame(right, t, q, t_rev, q_rev, aq, at, t_lo, t_hi, q_lo,
                                                             q_hi, self_barrier)
    return ydrop_one_side(tA, T0, tn, qA, Q0, qn, matrix, gap_open, gap_ext, ydrop, bar, walls, wq0, wt0, wdir,
                          work, tb, tb_off, tb_lo, store)


@njit(cache=True, nogil=True)
def join_sides(lops, rops, aq, at, li, lj, lsc, rsc, gap_open):
    """Forward path of an anchor from its left columns (anchor outwards) and right columns.

    ``lsc`` and ``rsc`` are the sides' best scores. Each side's columns are
    a path of its DP to its best cell, so they score that best (a WFA path
    is taken only where it scores the same), and the path's score is their
    sum, with one gap opening given back where both sides start with a gap
    of the same kind: joined at the anchor, the two are one gap. (Summing,
    not rescoring the path column by column: a megabase alignment's rescore
    took most of its keep. ``tests/test_wfa_traceback.py`` rescoring every
    kept path holds the two equal.)

    Returns the path, its target and query start, and its score.
    """
    nl = lops.shape[0]
    nr = rops.shape[0]
    path = np.empty(nl + nr, dtype=np.uint8)
    for k in range(nl):
        path[k] = lops[nl - 1 - k]
    move_items(path, nl, rops, 0, nr)
    score = lsc + rsc
    if nl and nr and lops[0] == rops[0] and lops[0] >= OP_I:
        score += gap_open
    return path, at + 1 - lj, aq + 1 - li, score


@njit(cache=True, nogil=True)
def extend_anchors(t, q, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, matrix, gap_open, gap_ext,
                   ydrop, gappedthresh, self_barrier, wall_slots, wfa_pen=None, wfa_stats=None):
    """Gapped extension of anchors in the given order (best HSP first).

    An anchor lying on the path of an alignment already kept is skipped;
    an alignment scoring under ``gappedthresh`` is dropped and blocks nothing.

    Parameters
    ----------
    t, q : ndarray of uint8
        Target and query codes (this strand's query).
    anchor_q, anchor_t : ndarray of int64
        Anchors, in processing order.
    t_lo, t_hi, q_lo, q_hi : ndarray of int64
        Bounds of the record holding each anchor (extension stays inside).
    self_barrier : bool
        Forbid the main diagonal (t == q): a self-comparison's same strand.
    wall_slots : int
        Kept alignments remembered per target position as walls for later
        extensions (more, in deep repeats, are not walls but still block
        anchors on their paths).
    wfa_pen : ndarray of int64, optional
        Uniform scoring only: ``(x, o, e, g, match)`` (see
        :func:`gpukernels.cpu.wfa_traceback.side_path`). The DP then runs
        score-only and each side's path comes from WFA, or from the DP's
        traceback where WFA's path is not one the DP could take.
    wfa_stats : ndarray of int64, optional
        With ``wfa_pen``: counts of sides per outcome are added here
        (indexed as :data:`gpukernels.cpu.wfa_traceback.STAT_NAMES`).

    Returns
    -------
    t0, t1, q0, q1, score : ndarray of int64
        Kept alignments, in the order found.
    op_off : ndarray of int64
        ``ops[op_off[k]:op_off[k + 1]]`` are alignment k's columns.
    ops : ndarray of uint8
    anchor_cells : ndarray of int64
        DP cells spent on each anchor (-1: skipped, on an earlier path).
    """
    n = anchor_q.shape[0]
    cap = 16
    kt0 = np.empty(cap, dtype=np.int64)
    kt1 = np.empty(cap, dtype=np.int64)
    kq0 = np.empty(cap, dtype=np.int64)
    kq1 = np.empty(cap, dtype=np.int64)
    ksc = np.empty(cap, dtype=np.int64)
    op_off = np.zeros(cap + 1, dtype=np.int64)
    run_off = np.zeros(cap + 1, dtype=np.int64)
    ops_all = np.empty(1024, dtype=np.uint8)
    run_t = np.empty(1024, dtype=np.int64)
    run_q = np.empty(1024, dtype=np.int64)
    run_len = np.empty(1024, dtype=np.int64)
    nk = 0
    total_cells = 0
    anchor_cells = np.full(n, -1, dtype=np.int64)
    maxlen = 2
    for a in range(n):
        x = q_hi[a] - q_lo[a] + 2
        if x > maxlen:
            maxlen = x
    work = np.empty((8, maxlen), dtype=np.int32)
    tb = np.empty(1 << 16, dtype=np.uint8)
    tb_off = np.empty(1024, dtype=np.int64)
    tb_lo = np.empty(1024, dtype=np.int64)
    walls = np.zeros((t.shape[0] + 1, wall_slots, 2), dtype=np.int32)
    t_rev = t[::-1].copy()
    q_rev = q[::-1].copy()
    wbuf = np.empty(1024, dtype=np.uint8)
    for a in range(n):
        aq = anchor_q[a]
        at = anchor_t[a]
        covered = False
        for k in range(nk):
            # the box first, here: a call with eight arrays costs far more than the test that rejects most
            # alignments (E. coli: 13.2 s against 0.38 s for one strand's anchors)
            if (kt0[k] <= at < kt1[k] and kq0[k] <= aq < kq1[k]
                    and _on_path(aq, at, k, kt0, kt1, kq0, kq1, run_off, run_t, run_q, run_len)):
                covered = True
                break
        if covered:
            continue
        store = wfa_pen is None
        bounds = (t_lo[a], t_hi[a], q_lo[a], q_hi[a])
        lsc, li, lj, c1, lops, tb, tb_off, tb_lo = extend_side(
            False, t, q, t_rev, q_rev, aq, at, *bounds, matrix, gap_open, gap_ext, ydrop, self_barrier, walls,
            work, tb, tb_off, tb_lo, store)
        rsc, ri, rj, c2, rops, tb, tb_off, tb_lo = extend_side(
            True, t, q, t_rev, q_rev, aq, at, *bounds, matrix, gap_open, gap_ext, ydrop, self_barrier, walls,
            work, tb, tb_off, tb_lo, store)
        total_cells += c1 + c2
        anchor_cells[a] = c1 + c2
        if li + lj + ri + rj == 0:
            continue
        if wfa_pen is not None:
            # WFA paths between the anchor and each side's best cell, else the DP's traceback
            st, fops, wbuf = side_path(t, at + 1 - lj, lj, q, aq + 1 - li, li, lsc, c1, wfa_pen, walls,
                                       self_barrier, False, wbuf)
            wfa_stats[st] += 1
            if st == WFA_OK:
                lops = fops[::-1].copy()
            else:
                lsc, li, lj, c1, lops, tb, tb_off, tb_lo = extend_side(
                    False, t, q, t_rev, q_rev, aq, at, *bounds, matrix, gap_open, gap_ext, ydrop, self_barrier,
                    walls, work, tb, tb_off, tb_lo)
            st, fops, wbuf = side_path(t, at + 1, rj, q, aq + 1, ri, rsc, c2, wfa_pen, walls,
                                       self_barrier, True, wbuf)
            wfa_stats[st] += 1
            if st == WFA_OK:
                rops = fops
            else:
                rsc, ri, rj, c2, rops, tb, tb_off, tb_lo = extend_side(
                    True, t, q, t_rev, q_rev, aq, at, *bounds, matrix, gap_open, gap_ext, ydrop, self_barrier,
                    walls, work, tb, tb_off, tb_lo)
        path, s_t0, s_q0, score = join_sides(lops, rops, aq, at, li, lj, lsc, rsc, gap_open)
        nops = path.shape[0]
        if score < gappedthresh:
            continue
        if nk == cap:
            cap *= 2
            kt0 = grow(kt0, cap)
            kt1 = grow(kt1, cap)
            kq0 = grow(kq0, cap)
            kq1 = grow(kq1, cap)
            ksc = grow(ksc, cap)
            op_off = grow(op_off, cap + 1)
            run_off = grow(run_off, cap + 1)
        kt0[nk] = s_t0
        kt1[nk] = at + 1 + rj
        kq0[nk] = s_q0
        kq1[nk] = aq + 1 + ri
        ksc[nk] = score
        ops_all = grow(ops_all, op_off[nk] + nops)
        ops_all[op_off[nk]:op_off[nk] + nops] = path
        op_off[nk + 1] = op_off[nk] + nops
        rt, rq, rl, _ = runs_of(path, s_t0, s_q0)
        r0 = run_off[nk]
        nr = rt.shape[0]
        run_t = grow(run_t, r0 + nr)
        run_q = grow(run_q, r0 + nr)
        run_len = grow(run_len, r0 + nr)
        run_t[r0:r0 + nr] = rt
        run_q[r0:r0 + nr] = rq
        run_len[r0:r0 + nr] = rl
        run_off[nk + 1] = r0 + nr
        mark_walls(walls, path, s_t0, s_q0)
        nk += 1
    return (kt0[:nk].copy(), kt1[:nk].copy(), kq0[:nk].copy(), kq1[:nk].copy(), ksc[:nk].copy(),
            op_off[:nk + 1].copy(), ops_all[:op_off[nk]].copy(), anchor_cells)
