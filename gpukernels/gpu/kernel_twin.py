"""The gapped kernel's CPU twin for one task: ``cuda/gapped.cu``'s ydrop_task, statement by statement.

:func:`side_dp` computes one side of one anchor exactly as a group of
threads does on the device, in the inspector, executor and round modes,
with the same results row, traceback bytes and rows kept at the best. The
tests' kernel emulator (``tests/gapped_emulator.py``) runs the GPU stage's
host logic through it on machines without a GPU. :func:`_not_above` is the
stop rule at a stale best that the host's redone sides apply too
(:func:`gpukernels.gpu.gapped._rows_not_above`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .runner import DUMP_HEAD, KEEP_W, ROUTE_HEAD, route_room

_FAR = 1 << 62
_NEG = -(1 << 29)


@njit(cache=True, nogil=True)
def _cell_walled(i, j, bar, wq0, wt0, wdir, walls):
    """Is a side's cell (i, j) dead by position: on the barrier or on a wall (the kernel's rule, and ``side_dp``'s)?"""
    if j - i == bar:
        return True
    lt = wt0 + wdir * j
    lq = wq0 + wdir * i
    for k in range(walls.shape[1]):
        whi = walls[lt, k, 1]
        if whi == 0:
            break
        if walls[lt, k, 0] <= lq < whi:
            return True
    return False


@njit(cache=True, nogil=True)
def _gap(h_from, g_from, goe, gap_ext):
    """A gap cell's score (E or F), opened from the cell ``h_from`` or extending the gap ``g_from``.

    Returns the score (at least NEG) and whether it extends, the kernel's
    tie-break: an extension only when it scores strictly more.
    """
    opened = h_from - goe
    extended = g_from - gap_ext
    if extended > opened:
        return max(extended, _NEG), True
    return max(opened, _NEG), False


@njit(cache=True, nogil=True)
def side_dp(t, q, tk, matrix, gap_open, gap_ext, ydrop, walls, band, mode, dstop, tb, tbb, tb_lo, tb_off, adb,
            dcap=_FAR, tbcap=_FAR, adcap=_FAR, keep=None, stale=None, rec=None):
    """One side of one anchor on the CPU, exactly as ``cuda/gapped.cu`` computes it.

    ``tk`` is a task row (t0, tstep, tn, q0, qstep, qn, barrier, wq0, wt0); mode 0 inspects
    (returns the :data:`R_N` result columns), mode 1 writes the traceback of anti-diagonals
    1..dstop at ``tb[tbb:]`` and their first cell and offset at ``tb_lo/tb_off[adb + d]``,
    mode 2 inspects and writes the traceback of every anti-diagonal while ``tbcap`` bytes
    and ``adcap`` rows hold it (``R_TRACED``: whether the best cell's is complete).
    ``band`` bounds the cells of an anti-diagonal (status 1 when exceeded), as the kernel's
    shared buffer does; the inspector gives up (status 2) past ``dcap`` anti-diagonals.
    ``keep`` (modes 1 and 2): a slot (:data:`KEEP_W` wide) for the rows at the best cell;
    ``stale`` (mode 2): an earlier run's slot, at whose best the side stops when
    :func:`_not_above` holds (``R_STOPPED``). ``rec`` (with a traceback): at ``rec[adb + d]`` the
    i of the cell where the best rose at anti-diagonal d, -1 where it did not (:func:`side_routes`
    traces them back). The tests' kernel emulator runs the kernel's logic through it.
    """
    t0, tstep, tn, q0, qstep, qn, barrier, wq0, wt0 = tk[0], tk[1], tk[2], tk[3], tk[4], tk[5], tk[6], tk[7], tk[8]
    goe = gap_open + gap_ext
    H = np.full((3, qn + 2), _NEG, dtype=np.int32)
    E = np.full((2, qn + 2), _NEG, dtype=np.int32)
    F = np.full((2, qn + 2), _NEG, dtype=np.int32)
    hA, hB, hC, eA, eB, fA, fB = 0, 1, 2, 0, 1, 0, 1
    H[hB, 0] = 0
    lo1, hi1, lo2, hi2 = 0, 1, 0, 0
    best, bi, bj = 0, 0, 0
    cells, cab, ntb = 0, 0, 0
    tracing, traced_to = mode != 0, 0
    imax, jmax, kmin, kmax, status = 0, 0, 0, 0, 0
    bimax, bjmax, bkmin, bkmax, last = 0, 0, 0, 0, 0
    d = 0
    if keep is not None:
        keep[0] = -1
    dstale, stopped = -1, False
    bsum = 0
    if stale is not None and goe > 0 and stale[0] >= 1 and stale[6] + stale[7] == stale[0]:
        dstale = stale[0]
    while True:
        d += 1
        if d > qn + tn or (mode == 1 and d > dstop):
            break
        if mode != 1 and d > dcap:
            status = 2
            break
        lo = min(lo1, lo2 + 1)
        hi = max(hi1 + 1, hi2 + 1)
        lo = max(lo, d - tn, 0)
        hi = min(hi, qn + 1, d + 1)
        if lo >= hi:
            break
        if hi - lo > band:
            status = 1
            break
        if tracing and (ntb + hi - lo > tbcap or d >= adcap):
            tracing = False
        if tracing:
            traced_to = d
            tb_lo[adb + d] = lo
            tb_off[adb + d] = ntb
        floor = best - ydrop
        bsum += best
        dbest, dbi, nlo, nhi = _NEG, -1, hi, lo
        for i in range(lo, hi):
            j = d - i
            sub = _NEG
            if i >= 1 and j >= 1 and lo2 <= i - 1 < hi2:
                hp = H[hA, i - 1]
                if hp > _NEG:
                    sub = hp + matrix[t[t0 + tstep * (j - 1)], q[q0 + qstep * (i - 1)]]
            e, ebit = _NEG, 0
            if j >= 1 and lo1 <= i < hi1:
                e, extends = _gap(H[hB, i], E[eB, i], goe, gap_ext)
                ebit = 4 if extends else 0
            f, fbit = _NEG, 0
            if i >= 1 and lo1 <= i - 1 < hi1:
                f, extends = _gap(H[hB, i - 1], F[fB, i - 1], goe, gap_ext)
                fbit = 8 if extends else 0
            h, src = sub, 0
            if e > h:
                h, src = e, 1
            if f > h:
                h, src = f, 2
            # (a task's tstep and qstep are the same: both -1 on the left, both 1 on the right)
            dead = h < floor or h <= _NEG or _cell_walled(i, j, barrier, wq0, wt0, tstep, walls)
            if dead:
                H[hC, i] = _NEG
                E[eA, i] = _NEG
                F[fA, i] = _NEG
                if tracing:
                    tb[tbb + ntb + i - lo] = 0
                continue
            H[hC, i] = h
            E[eA, i] = e
            F[fA, i] = f
            if tracing:
                tb[tbb + ntb + i - lo] = src | ebit | fbit
            nlo = min(nlo, i)
            nhi = i + 1
            if src == 0 and h > dbest:
                dbest, dbi = h, i
        cells += hi - lo
        ntb += hi - lo
        imax = max(imax, hi - 1)
        jmax = max(jmax, d - lo)
        kmin = min(kmin, d - 2 * (hi - 1))
        kmax = max(kmax, d - 2 * lo)
        last = d
        if nlo >= nhi:
            break
        if tracing and rec is not None:
            rec[adb + d] = dbi if dbi >= 0 and dbest > best else -1
        if dbi >= 0 and dbest >= best:
            best, bi, bj, cab = dbest, dbi, d - dbi, cells
            bimax, bjmax, bkmin, bkmax = imax, jmax, kmin, kmax
            if keep is not None and (mode == 2 or d == dstop):
                _dump_rows(keep, KEEP_W, H[hC], H[hB], E[eA], F[fA], d, nlo, nhi, lo1, hi1, best, bi, bj, cells,
                           traced_to, status, bsum)
        if stale is not None:
            if d == dstale and _not_above(H[hC], H[hB], E[eA], F[fA], nlo, nhi, lo1, hi1, best, bi, bj, stale,
                                          KEEP_W + 2):
                stopped = True
                break
        hA, hB, hC = hB, hC, hA
        eA, eB = eB, eA
        fA, fB = fB, fA
        lo2, hi2, lo1, hi1 = lo1, hi1, nlo, nhi
    if status == 2:
        bimax, bjmax, bkmin, bkmax = imax, jmax, kmin, kmax
    traced = mode == 2 and bi + bj <= traced_to
    return np.array([best, bi, bj, cells, cab, bimax, bjmax, bkmin, bkmax, status, last, traced, stopped],
                    dtype=np.int64)


@njit(cache=True, nogil=True)
def _dump_rows(out, w, h_last, h_before, e_last, f_last, d, lo1, hi1, lo2, hi2, best, bi, bj, cells, traced_to,
               status, bsum):
    """The kernel's ``dump_state`` for a side's rows at its best (rows indexed by i, not cyclic)."""
    lo, hi = lo1, hi1
    if hi2 > lo2:
        lo, hi = min(lo2, lo1), max(hi2, hi1)
    n = hi - lo
    stride = w + 2
    if n > stride:
        out[0] = -1
        return
    low = bsum & 0xffffffff
    out[:16] = np.array([d, lo1, hi1, lo2, hi2, best, bi, bj, cells, 0, lo, n, traced_to, status,
                         low - (1 << 32) if low >= 1 << 31 else low, bsum >> 32], dtype=np.int64)
    r = out[DUMP_HEAD:]
    for x in range(n):
        i = lo + x
        in1 = lo1 <= i < hi1
        r[x] = h_last[i] if in1 else _NEG
        r[stride + x] = h_before[i] if lo2 <= i < hi2 else _NEG
        r[2 * stride + x] = e_last[i] if in1 else _NEG
        r[3 * stride + x] = f_last[i] if in1 else _NEG


@njit(cache=True, nogil=True)
def _not_above(h_last, h_before, e_last, f_last, lo1, hi1, lo2, hi2, best, bi, bj, st, stride):
    """The kernel's ``at_stale_best``: this run's best and rows at the stale best's anti-diagonal are
    the stale run's best and nowhere above its rows ``st`` (a header, then rows ``stride`` apart).

    The rows are indexed by i (H of the anti-diagonal, of the one before, E and F), live over
    ``[lo1, hi1)`` and ``[lo2, hi2)``; a dead or unreached cell, or a value below ``NEG`` (the
    host's sweep does not clamp them), counts as ``NEG``.
    """
    if best != st[5] or bi != st[6] or bj != st[7]:
        return False
    slo, sn = st[10], st[11]
    lo, hi = slo, slo + sn
    if hi1 > lo1:
        lo, hi = min(lo1, lo), max(hi1, hi)
    if hi2 > lo2:
        lo, hi = min(lo2, lo), max(hi2, hi)
    r = st[DUMP_HEAD:]
    for i in range(lo, hi):
        s = i - slo
        ins = 0 <= s < sn
        in1 = lo1 <= i < hi1
        if (max(h_last[i], _NEG) if in1 else _NEG) > (r[s] if ins else _NEG):
            return False
        if (max(h_before[i], _NEG) if lo2 <= i < hi2 else _NEG) > (r[stride + s] if ins else _NEG):
            return False
        if (max(e_last[i], _NEG) if in1 else _NEG) > (r[2 * stride + s] if ins else _NEG):
            return False
        if (max(f_last[i], _NEG) if in1 else _NEG) > (r[3 * stride + s] if ins else _NEG):
            return False
    return True


#: the marks :func:`side_routes` leaves in traceback bytes (bits the traceback does not read): the path
#: in state 0, 1, 2 (``PATH_MARK << state``), and a route in state 0
PATH_MARK = 16
ROUTE_MARK = 128


@njit(cache=True, nogil=True, inline="always")
def _byte_at(tb_off, tb_lo, i, j):
    """Index of cell (i, j)'s traceback byte in a side's bytes."""
    return tb_off[i + j] + i - tb_lo[i + j]


@njit(cache=True, nogil=True)
def _put_int(out, at, v):
    for k in range(4):
        out[at + k] = (v >> (8 * k)) & 0xff


@njit(cache=True, nogil=True)
def get_int(buf, at):
    """The little-endian int32 at ``buf[at:at + 4]`` (a route header's field, :func:`side_routes`)."""
    v = np.int64(buf[at]) | (np.int64(buf[at + 1]) << 8) | (np.int64(buf[at + 2]) << 16) | (np.int64(buf[at + 3]) << 24)
    return v - (1 << 32) if v >= 1 << 31 else v


@njit(cache=True, nogil=True)
def side_routes(tb, tb_off, tb_lo, rec, bi, bj, out, room):
    """The routes of a side's off-path records: ``cuda/gapped.cu``'s ``ydrop_trace`` twin for them.

    The side's traceback bytes ``tb``, its anti-diagonal tables ``tb_off``, ``tb_lo``
    and records ``rec`` (:func:`side_dp`'s) start at anti-diagonal 0, its best cell is
    ``(bi, bj)``. The walk back from the best marks the path in the bytes
    (:data:`PATH_MARK`); then, from the last anti-diagonal down, each record
    cell off the path and off the routes so far is walked back until it meets
    the path in the same state (its cells in state 0 marked :data:`ROUTE_MARK`,
    so a record on a later one's route is skipped: that route passes it). Each
    route goes to ``out`` as a header (:data:`ROUTE_HEAD`: the meeting cell's
    anti-diagonal, i and state, the count) and its columns from the record back
    (0 a substitution, 2 a gap in the target, 3 in the query). Returns the bytes
    written, or -1 where they outgrow ``room`` less 4 bytes a record off the
    path (the kernel's notes of them; the walk's proof then has no routes for
    the side, :func:`gpukernels.gpu.path_holds.path_holds`).
    """
    i, j, state = bi, bj, 0
    while i + j > 0:
        x = _byte_at(tb_off, tb_lo, i, j)
        byte = tb[x]
        if state == 0:
            tb[x] = byte | PATH_MARK
            src = byte & 3
            if src == 0:
                i -= 1
                j -= 1
                continue
            state = src
        tb[x] |= PATH_MARK << state
        if state == 1:
            j -= 1
            state = 1 if byte & 4 else 0
        else:
            i -= 1
            state = 2 if byte & 8 else 0
    # the records off the path (the kernel notes them in the room, 4 bytes each, while it walks the path)
    noted = 0
    for d in range(bi + bj, 0, -1):
        if rec[d] >= 0 and not tb[_byte_at(tb_off, tb_lo, rec[d], d - rec[d])] & PATH_MARK:
            noted += 1
    if 4 * noted > room:
        return -1
    room -= 4 * noted
    used = 0
    for d in range(bi + bj, 0, -1):
        r = rec[d]
        if r < 0:
            continue
        i, j, state = r, d - r, 0
        if tb[_byte_at(tb_off, tb_lo, i, j)] & (PATH_MARK | ROUTE_MARK):
            continue
        head = used
        used += ROUTE_HEAD
        n = 0
        while i + j > 0:
            x = _byte_at(tb_off, tb_lo, i, j)
            byte = tb[x]
            if byte & (PATH_MARK << state):
                break
            if used + n >= room:
                return -1
            if state == 0:
                tb[x] = byte | ROUTE_MARK
                src = byte & 3
                if src == 0:
                    out[used + n] = 0
                    n += 1
                    i -= 1
                    j -= 1
                    continue
                state = src
                if byte & (PATH_MARK << state):
                    break
            if state == 1:
                out[used + n] = 3
                j -= 1
                state = 1 if byte & 4 else 0
            else:
                out[used + n] = 2
                i -= 1
                state = 2 if byte & 8 else 0
            n += 1
        _put_int(out, head, i + j)
        _put_int(out, head + 4, i)
        _put_int(out, head + 8, state)
        _put_int(out, head + 12, n)
        used += n
    return used


@njit(cache=True, nogil=True)
def _routes_of(tb, tb_lo, tb_off, rec, tbb, adb, bi, bj, room, obase, out, lens):
    """:func:`side_routes` of each side of a batch, into its room of ``out`` (``obase``), its bytes to ``lens``."""
    for x in range(bi.shape[0]):
        d = bi[x] + bj[x]
        if d == 0:
            lens[x] = 0
            continue
        a = adb[x]
        lens[x] = side_routes(tb[tbb[x]:], tb_off[a:a + d + 1], tb_lo[a:a + d + 1], rec[a:a + d + 1], bi[x], bj[x],
                              out[obase[x]:], room[x])


@njit(cache=True, nogil=True)
def _packed_rooms(out, obase, lens):
    """The bytes written at the front of each side's room, one flat array (sides of -1 bytes: none): kernel
    ``pack_rooms``, as ``DeviceRunner._packed_rooms`` runs it."""
    flat = np.empty(np.maximum(lens, 0).sum(), dtype=np.uint8)
    at = 0
    for x in range(lens.shape[0]):
        if lens[x] > 0:
            flat[at:at + lens[x]] = out[obase[x]:obase[x] + lens[x]]
            at += lens[x]
    return flat


def routes_batch(tb, tb_lo, tb_off, rec, tbb, adb, bi, bj):
    """The routes of every side of an executor batch (:func:`side_routes`, as ``ydrop_trace`` gives them):
    one flat array, side after side, and each side's bytes (-1: outgrew its :func:`route_room`)."""
    room = route_room(bi, bj)
    obase = np.concatenate([[0], np.cumsum(room)[:-1]]).astype(np.int64)
    out = np.zeros(max(int(room.sum()), 1), dtype=np.uint8)
    lens = np.zeros(len(bi), dtype=np.int64)
    _routes_of(tb, tb_lo, tb_off, rec, np.asarray(tbb, np.int64), np.asarray(adb, np.int64), bi, bj, room, obase,
               out, lens)
    return _packed_rooms(out, obase, lens), lens

