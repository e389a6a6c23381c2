"""Long one-sided y-drop extensions on several threads: speculative chunks, checked exactly.

A y-drop extension is a chain of anti-diagonals, each computed from the two
before it, so one core sweeps a megabase-long one in about a second. Here
the chain is cut into chunks of :data:`CHUNK` anti-diagonals, run at once on
a thread pool:

* the *lead* goes on from the true state;
* each later chunk is speculation (1 in the first round, then 3, 7, ...: an
  extension that ends soon wastes little). It starts :data:`WARM` anti-diagonals
  before its own first one, from a single cell scoring 0 on the diagonal of
  the best cell so far. Along a long alignment of similar sequences, the best
  path to every live cell soon runs through the alignment's path, and the
  speculative rows become the true rows less a constant.

That is checked exactly where a chunk takes over from the one before it
(:func:`same_state`):

* the live ranges of the last two anti-diagonals are equal;
* every live value differs from the true one by one constant, and so does
  the best score;
* the values the DP holds as dead (at or below ``NEG // 2``) are dead in
  both.

Past a check that holds, the chunk computes what the sequential sweep would,
in a frame shifted by that constant. The rules compare scores only with each
other and with ``best - ydrop``, and a dead value never beats a live one. Where
a check fails, the next round of chunks starts from the true state there.
So the result (best score and cell, traceback, cells) is exactly
:func:`gpukernels.cpu.gapped.ydrop_one_side`'s.

The speculative chunks can run elsewhere too (``relay_side``'s ``chunks``):
the GPU runs all of a round's as blocks of one launch (kernel
``ydrop_chunk``) while a host thread runs the lead. The first round's lead
runs there too (:data:`LEAD_ELSEWHERE`): at the origin the true state is a
single cell scoring 0, which is where a chunk starts, so a chunk from there
with no warm-up is the sweep itself. Most long sides end within the first
round, and the host then only checks and traces back.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from .gapped import (NEG, ST_BASE, ST_BEST, ST_BI, ST_BJ, ST_CELLS, ST_D, ST_DONE, ST_HI1, ST_HI2, ST_LO1, ST_LO2,
                     ST_N, ST_NARROW, ST_NTB, ST_ROTE, ST_ROTH, _flat_matrix, _state_rows, origin_state, row_value,
                     trace_step, traceback_steps, ydrop_sweep)

#: anti-diagonals per chunk
CHUNK = 1 << 16
#: anti-diagonals a speculative chunk sweeps before its first checked one
WARM = 1 << 13
#: with ``relay_side``'s ``chunks``, the first round's lead runs there too (a chunk from the origin)
LEAD_ELSEWHERE = True
#: the pieces before the best cell's are traced back at once on the pool, each from a guess of where
#: the path enters it, and the path's own walk takes a guess's columns where it meets it (:func:`_traceback`)
TRACE_AHEAD = True
#: anti-diagonals a piece must span to be walked ahead
AHEAD_MIN = 1 << 12
_DEAD = NEG // 2


@njit(cache=True, nogil=True)
def seed_state(work, i0, d0):
    """The state (see ``cpu/gapped.ST_N``) of a sweep from the single cell ``(i0, d0 - i0)`` scoring 0.

    Its rows in ``work`` are dead around that cell, as around the origin.
    """
    width = work.shape[1]
    for r in range(7):
        for i in range(max(0, i0 - 1), min(width, i0 + 3)):
            work[r, i] = NEG
    work[1, i0] = 0
    st = np.zeros(ST_N, dtype=np.int64)
    st[ST_D] = d0
    st[ST_LO1], st[ST_HI1], st[ST_LO2], st[ST_HI2] = i0, i0 + 1, i0, i0
    st[ST_BI], st[ST_BJ] = i0, d0 - i0
    return st


@njit(cache=True, nogil=True)
def snapshot(work, st):
    """What the next anti-diagonals read of a sweep that stands at ``st``: its live cells.

    Returns
    -------
    lo : int
        The first query index covered.
    rows : ndarray of int64, shape (4, n)
        H of the last anti-diagonal, H of the one before, E and F of the
        last, over their live ranges (``NEG`` elsewhere).
    """
    lo1, hi1, lo2, hi2 = st[ST_LO1], st[ST_HI1], st[ST_LO2], st[ST_HI2]
    lo, hi = lo1, hi1
    if hi2 > lo2:
        lo, hi = min(lo1, lo2), max(hi1, hi2)
    h_last, h_before, e_last, f_last = _state_rows(st)
    rows = np.full((4, max(hi - lo, 0)), NEG, dtype=np.int64)
    for i in range(lo1, hi1):
        rows[0, i - lo] = row_value(work, st, h_last, i)
        rows[2, i - lo] = row_value(work, st, e_last, i)
        rows[3, i - lo] = row_value(work, st, f_last, i)
    for i in range(lo2, hi2):
        rows[1, i - lo] = row_value(work, st, h_before, i)
    return lo, rows


@njit(cache=True, nogil=True)
def restore(work, st, lo, rows):
    """Put :func:`snapshot`'s rows back into ``work`` as a sweep standing at ``st`` reads them.

    For a state that another sweep computed (a chunk run elsewhere): the
    rows go where rotation 0 keeps them (``st``'s rotation is set to 0),
    with dead cells around them as :func:`ydrop_sweep` leaves them.
    """
    width = work.shape[1]
    n = rows.shape[1]
    for r in range(7):
        for i in range(max(0, lo - 2), min(width, lo + n + 2)):
            work[r, i] = NEG
    for i in range(st[ST_LO1], st[ST_HI1]):
        work[1, i] = rows[0, i - lo]
        work[4, i] = rows[2, i - lo]
        work[6, i] = rows[3, i - lo]
    for i in range(st[ST_LO2], st[ST_HI2]):
        work[0, i] = rows[1, i - lo]
    st[ST_ROTH] = 0
    st[ST_ROTE] = 0
    st[ST_BASE] = 0
    st[ST_NARROW] = 0


@njit(cache=True, nogil=True)
def same_state(st_a, lo_a, rows_a, st_b, lo_b, rows_b):
    """Whether sweep b stands where sweep a does, less a constant.

    Returns ``(True, c)`` when both stand after the same anti-diagonal, with
    the same live ranges, the same dead cells, and every live value and the
    best score of a equal to b's plus ``c``; else ``(False, 0)``.
    """
    for k in (ST_D, ST_LO1, ST_HI1, ST_LO2, ST_HI2):
        if st_a[k] != st_b[k]:
            return False, 0
    if st_a[ST_DONE] != 0 or st_b[ST_DONE] != 0 or lo_a != lo_b or rows_a.shape[1] != rows_b.shape[1]:
        return False, 0
    c = st_a[ST_BEST] - st_b[ST_BEST]
    for r in range(4):
        for x in range(rows_a.shape[1]):
            va = rows_a[r, x]
            vb = rows_b[r, x]
            if (va <= _DEAD) != (vb <= _DEAD):
                return False, 0
            if va > _DEAD and va - vb != c:
                return False, 0
    return True, c


def speculative_chunk(dp, work, i0, s, d_check, d_end):
    """One speculative chunk here: from the seed cell ``(i0, s - i0)`` to ``d_end``, checked at ``d_check``.

    ``dp`` holds :func:`ydrop_sweep`'s first arguments. Returns None where
    the sweep ends before ``d_check``; else ``((state, lo, rows) at d_check,
    state at the end, tb, tb_off, tb_lo, snapshot at the end or None, 0)``,
    the traceback bytes from ``d_check + 1`` on; the last item is the
    anti-diagonal where ``tb_off`` and ``tb_lo`` start (here 0; a chunk run
    elsewhere returns only its own anti-diagonals, from ``d_check + 1``).
    """
    st = seed_state(work, i0, s)
    tb, off, lo = np.empty(1 << 12, np.uint8), np.empty(1 << 10, np.int64), np.empty(1 << 10, np.int64)
    tb, off, lo = ydrop_sweep(*dp, work, tb, off, lo, False, st, d_check)   # warm-up, score only
    if st[ST_DONE] or st[ST_D] != d_check:
        return None
    at_check = (st.copy(), *snapshot(work, st))
    st[ST_NTB] = 0
    tb, off, lo = ydrop_sweep(*dp, work, tb, off, lo, True, st, d_end)
    return at_check, st, tb, off, lo, (snapshot(work, st) if not st[ST_DONE] else None), 0


def relay_side(tA, T0, tn, qA, Q0, qn, matrix, gap_open, gap_ext, ydrop, barrier, walls, wq0, wt0, wdir, pool,
               works, chunk=None, warm=None, stats=None, chunks=None, per_round=None):
    """:func:`gpukernels.cpu.gapped.ydrop_one_side` with ``store``, its chunks spread over ``pool``.

    Parameters
    ----------
    tA, T0, tn, qA, Q0, qn, matrix, gap_open, gap_ext, ydrop, barrier, walls, wq0, wt0, wdir
        As for ``ydrop_one_side``.
    pool : concurrent.futures.Executor
        Runs the speculative chunks (at most ``len(works) - 1`` at once);
        the calling thread runs the lead.
    works : list of ndarray of int32, shape (8, >= qn + 3)
        One scratch buffer per chunk run at once; one runs the extension
        without speculation.
    chunk, warm : int
        Anti-diagonals per chunk, and swept by a speculative chunk before its
        first (:data:`CHUNK`, :data:`WARM`; only the speed depends on them).
    stats : dict, optional
        Counts added: ``relay_rounds``, ``relay_taken`` (chunks that took
        over), ``relay_missed`` (speculative chunks that did not).
    chunks : callable, optional
        Runs the speculative chunks elsewhere (the GPU,
        ``gpu/gapped.DeviceRunner.relay_chunks``): ``chunks(starts, width)``
        with one ``(i0, s, d_check, d_end)`` per chunk (seed cell
        ``(i0, s - i0)`` on anti-diagonal ``s``) and the live width of the
        lead's last anti-diagonal returns, per chunk, what
        :func:`speculative_chunk` returns (None where it ends before
        ``d_check``, or could not be run), optionally with an eighth item:
        :func:`same_state` of the chunk before's end and this one's check,
        ``(same, c)``, computed there (None: not computed). Then each round
        runs ``per_round`` of them (default 32) on the calling thread while
        the lead runs on ``pool`` (the first round's lead is one of them,
        from the origin, with :data:`LEAD_ELSEWHERE`), and only ``works[0]`` is used: a chunk's
        end state is put back there (:func:`restore`) when the next round
        goes on from it.

    Returns
    -------
    tuple
        ``ydrop_one_side``'s ``best, bi, bj, cells, ops, tb, tb_off, tb_lo``,
        less the traceback bytes: ``tb`` is None (they stay in the chunks;
        see :func:`_traceback`), the anti-diagonal tables are in one piece.
    """
    chunk = int(chunk or CHUNK)
    warm = int(warm or WARM)
    flat = _flat_matrix(matrix)
    goe, gext = np.int32(gap_open + gap_ext), np.int32(gap_ext)
    dp = (tA, T0, tn, qA, Q0, qn, flat, goe, gext, ydrop, barrier, walls, wq0, wt0, wdir)
    stats = {} if stats is None else stats
    for key in ("relay_rounds", "relay_taken", "relay_missed"):
        stats.setdefault(key, 0)

    def lead(work, st, d_end, tb, off, lo):
        tb, off, lo = ydrop_sweep(*dp, work, tb, off, lo, True, st, d_end)
        return tb, off, lo, (snapshot(work, st) if not st[ST_DONE] else None)

    home = 0                                    # the buffer holding the true state
    tb, off, lo = np.empty(1 << 16, np.uint8), np.empty(1 << 10, np.int64), np.empty(1 << 10, np.int64)
    st, tb, off, lo = origin_state(works[home], tb, off, lo)
    t0 = 0                                      # the anti-diagonal where off and lo start
    pieces = []                                 # (tb, its tables from d_from on, d_from, d_to, bytes end)
    frame = 0                                   # true score less the score in the lead's frame
    best, bi, bj, cells = 0, 0, 0, 0
    d_from, cells_mark, checked = 0, 0, -1
    spec_rounds = 1
    while True:
        stats["relay_rounds"] += 1
        d0 = int(st[ST_D])
        diag = int(st[ST_BJ] - st[ST_BI])
        # here, a slow start: 1 speculative chunk, then 3, 7, ... (an extension that ends soon wastes
        # few); elsewhere, per_round at once, the first round's lead among them (the true state at the
        # origin is a single cell scoring 0, where a chunk starts: no warm-up, its check holds)
        lead_there = LEAD_ELSEWHERE and chunks is not None and spec_rounds == 1
        if chunks is None:
            others = [x for x in range(len(works)) if x != home][:(1 << spec_rounds) - 1]
        else:
            others = [home] * (int(per_round or 32) - lead_there)     # elsewhere: only the lead's buffer here
        spec_rounds += 1
        starts = [(home, (0, 0, 0, chunk))] if lead_there else []
        for m, x in enumerate(others, start=1):
            d_check = d0 + m * chunk
            s = d_check - warm
            s -= (s - diag) & 1
            i0 = (s - diag) // 2
            if s <= 0 or not (0 <= i0 <= qn and 0 <= s - i0 <= tn):
                break
            starts.append((x, (i0, s, d_check, d_check + chunk)))
        if chunks is None:
            jobs = [(x, a[2], pool.submit(speculative_chunk, dp, works[x], *a)) for x, a in starts]
            tb, off, lo, snap = lead(works[home], st, d0 + chunk, tb, off, lo)    # here, beside the chunks
            results = [(x, d_check, f.result()) for x, d_check, f in jobs]
        elif lead_there:
            got = chunks([a for _, a in starts], 1)
            snap = snapshot(works[home], st)
            results = [(x, a[2], g) for (x, a), g in zip(starts, got)]
        else:
            led = pool.submit(lead, works[home], st, d0 + chunk, tb, off, lo)   # there, beside the chunks
            got = chunks([a for _, a in starts], int(st[ST_HI1] - st[ST_LO1])) if starts else []
            tb, off, lo, snap = led.result()
            results = [(x, a[2], g) for (x, a), g in zip(starts, got)]
        from_elsewhere = False
        chained = False                         # the true state is the end of this round's chunk before
        # the lead's piece, then each chunk that takes over from the one before it
        while True:
            d_to = int(st[ST_D])
            # the piece's own anti-diagonals only (the tables are indexed from anti-diagonal t0)
            a, z = max(d_from - t0, 0), max(d_to + 1 - t0, 0)
            # (a piece whose bytes stay elsewhere may keep its tables there too: None)
            own = (off[a:z].copy(), lo[a:z].copy()) if off is not None else (None, None)
            # (the guess where the path enters serves the host's walk ahead: none for bytes walked elsewhere)
            guess = entry_guess(*snap) if snap is not None and not _elsewhere(tb) else -1
            pieces.append((tb, *own, d_from, d_to, int(st[ST_NTB]), guess))
            cells += int(st[ST_CELLS]) - cells_mark
            best = int(st[ST_BEST]) + frame
            if st[ST_BI] + st[ST_BJ] > checked:
                bi, bj = int(st[ST_BI]), int(st[ST_BJ])
            if st[ST_DONE] or not results:
                break
            x, d_check, got = results.pop(0)
            if got is None:
                stats["relay_missed"] += 1 + len(results)
                break
            (st_c, lo_c, rows_c), st_n, tb_n, off_n, lo_n, snap_n, t0_n = got[:7]
            # a chunk run elsewhere may come with its hand-over from the chunk before it checked there
            handed = got[7] if len(got) > 7 and chained else None
            ok, c = handed if handed is not None else same_state(st, snap[0], snap[1], st_c, lo_c, rows_c)
            if not ok:
                stats["relay_missed"] += 1 + len(results)
                break
            stats["relay_taken"] += 1
            frame += int(c)
            home, st, tb, off, lo, snap, t0 = x, st_n, tb_n, off_n, lo_n, snap_n, t0_n
            d_from, cells_mark, checked = d_check + 1, int(st_c[ST_CELLS]), d_check
            from_elsewhere = chunks is not None
            chained = True
        if st[ST_DONE]:
            break
        if from_elsewhere:
            st = st.copy()
            restore(works[home], st, *snap)
        # the next round goes on from the true state, in the buffer that holds it
        d_from, cells_mark, checked = int(st[ST_D]) + 1, int(st[ST_CELLS]), int(st[ST_D])
        st[ST_NTB] = 0
        tb, off, lo, t0 = np.empty(1 << 16, np.uint8), np.empty(1 << 10, np.int64), np.empty(1 << 10, np.int64), 0
    ops, region = _traceback(pieces, bi, bj, tA, T0, qA, Q0, pool if TRACE_AHEAD else None)
    return best, bi, bj, cells, ops, region


@njit(cache=True, nogil=True)
def entry_guess(lo, rows):
    """Where the path likely enters a piece from the next: the best cell of its last anti-diagonal.

    ``lo, rows`` are :func:`snapshot`'s at the piece's end (-1 when none is live). Along a long
    alignment of similar sequences the path runs through that cell or meets the walk from it soon.
    """
    best, at = _DEAD, -1
    for x in range(rows.shape[1]):
        if rows[0, x] > best:
            best, at = rows[0, x], lo + x
    return at


@njit(cache=True, nogil=True)
def trace_ahead(tb, tb_off, tb_lo, d_from, end, i, t, t_base, t_step, q, q_base, q_step):
    """The traceback walk of one piece from cell ``(i, d_to - i)`` of its last anti-diagonal, in state 0.

    A guess (:func:`entry_guess`): the walk checks that each cell is one the
    piece computed, and gives up (returns ``ok`` False) where it is not.
    Returns ``ok``, the columns and their count, the cell and state where it
    leaves the piece, and per anti-diagonal (from ``d_from``) the cell and
    state it stood at (``4 * i + state``, -1 where it stepped over) and the
    columns written before it: :func:`trace_merge` joins it there.
    """
    nd = tb_off.shape[0]
    mark = np.full(nd, -1, dtype=np.int64)
    mark_n = np.zeros(nd, dtype=np.int64)
    ops = np.empty(nd + 1, dtype=np.uint8)
    j = d_from + nd - 1 - i
    state, n = 0, 0
    while (i > 0 or j > 0) and i + j >= d_from:
        dd = i + j - d_from
        x = i - tb_lo[dd]
        width = (tb_off[dd + 1] if dd + 1 < nd else end) - tb_off[dd]
        if i < 0 or j < 0 or x < 0 or x >= width:
            return False, ops, n, i, j, state, mark, mark_n
        mark[dd] = 4 * i + state
        mark_n[dd] = n
        i, j, state, n = trace_step(tb[tb_off[dd] + x], i, j, state, ops, n, t, t_base, t_step, q, q_base, q_step)
    return True, ops, n, i, j, state, mark, mark_n


@njit(cache=True, nogil=True)
def trace_merge(tb, tb_off, tb_lo, d_from, i, j, state, ops, n, t, t_base, t_step, q, q_base, q_step, a_ops, a_n,
                a_i, a_j, a_state, mark, mark_n):
    """:func:`gpukernels.cpu.gapped.traceback_steps` over a piece walked ahead (:func:`trace_ahead`).

    Where the path stands at a cell in the state the walk ahead stood there,
    the rest of the piece is that walk's (the bytes decide each step from the
    cell and state alone): its columns are copied and the walk goes on from
    where it left the piece.
    """
    while (i > 0 or j > 0) and i + j >= d_from:
        dd = i + j - d_from
        if mark[dd] == 4 * i + state:
            m = a_n - mark_n[dd]
            ops[n:n + m] = a_ops[mark_n[dd]:a_n]
            return n + m, a_i, a_j, a_state
        i, j, state, n = trace_step(tb[tb_off[dd] + i - tb_lo[dd]], i, j, state, ops, n, t, t_base, t_step, q,
                                    q_base, q_step)
    return n, i, j, state


@njit(cache=True, nogil=True)
def trace_split(tb, off, lo, wid, d0, i, j, state, stretch, above, t, t_base, t_step, q, q_base, q_step):
    """The traceback walk over anti-diagonals ``d0 .. i + j`` in stretches walked ahead: the device's way, here.

    The twin of kernels ``relay_walk_ahead`` and ``relay_walk_join``
    (``cuda/gapped.cu``, where the chunks' bytes stay on the device): the
    table is one piece, anti-diagonal d's first byte ``off[d - d0]``, first
    cell ``lo[d - d0]`` and cell count ``wid[d - d0]``. Each stretch of
    ``stretch`` anti-diagonals is first walked from a guess (the entry
    itself when it lies within ``above`` anti-diagonals, else the middle
    cell ``above`` anti-diagonals higher, in state 0), marking where it
    stood; the path's own walk from the entry ``(i, j, state)`` then takes a
    walk's columns from where it stands as that walk stood (a step depends
    on the cell and state only). Returns the columns (last first), the cell
    and state where the walk left anti-diagonal ``d0``, and the steps the
    path's own walk took (the rest were taken from the walks ahead).
    """
    d1 = i + j
    n_ad = d1 - d0 + 1
    nst = (n_ad + stretch - 1) // stretch
    mark = np.empty(n_ad, dtype=np.int64)
    mark_n = np.empty(n_ad, dtype=np.int64)
    gops = np.empty(nst * stretch, dtype=np.uint8)
    exits = np.zeros((nst, 5), dtype=np.int64)
    for s in range(nst):
        a = d0 + s * stretch
        b = min(a + stretch - 1, d1)
        mark[a - d0:b - d0 + 1] = -1
        wi, wj, ws = i, j, state
        if b + above < d1:
            x = b + above - d0
            wi = lo[x] + wid[x] // 2
            wj = b + above - wi
            ws = 0
        n, ok = 0, 1
        g = gops[s * stretch:]
        while wi > 0 or wj > 0:
            d = wi + wj
            if d < a:
                break
            x = d - d0
            c = wi - lo[x]
            if wi < 0 or wj < 0 or c < 0 or c >= wid[x]:
                ok = 0
                break
            if d <= b:
                mark[x] = 4 * wi + ws
                mark_n[x] = n
                wi, wj, ws, n = trace_step(tb[off[x] + c], wi, wj, ws, g, n, t, t_base, t_step, q, q_base, q_step)
            else:
                wi, wj, ws, _ = trace_step(tb[off[x] + c], wi, wj, ws, g, n, t, t_base, t_step, q, q_base, q_step)
        exits[s, 0], exits[s, 1], exits[s, 2], exits[s, 3], exits[s, 4] = wi, wj, ws, n, ok
    ops = np.empty(n_ad, dtype=np.uint8)
    n, steps = 0, 0
    while (i > 0 or j > 0) and i + j >= d0:
        x = i + j - d0
        s = x // stretch
        if mark[x] == 4 * i + state and exits[s, 4]:
            m = exits[s, 3] - mark_n[x]
            ops[n:n + m] = gops[s * stretch + mark_n[x]:s * stretch + exits[s, 3]]
            n += m
            i, j, state = exits[s, 0], exits[s, 1], exits[s, 2]
            continue
        i, j, state, n = trace_step(tb[off[x] + i - lo[x]], i, j, state, ops, n, t, t_base, t_step, q, q_base, q_step)
        steps += 1
    return ops[:n], i, j, state, steps


def _elsewhere(tb):
    """Whether a piece's bytes stay elsewhere (the device), walked there.

    Such a piece's ``tb`` is not an array but an object with ``buf``, ``start`` and ``trace``.

    ``trace(pieces, i, j, state)`` walks the run of pieces that share its
    ``buf`` (consecutive, along the side) from cell ``(i, j)`` in ``state``
    and returns the columns, last first, and the cell and state where it
    left them, as :func:`traceback_steps` over each would. A piece whose
    tables stay there too holds None for them, and ``tables(d_from, d_to)``
    brings those of the run of such pieces over anti-diagonals ``d_from..d_to``
    (offsets from the run's first byte, as if its pieces lay end to end,
    first cells, and the bytes of them all).
    """
    return not isinstance(tb, np.ndarray)


def check_consecutive(pieces):
    """Raise ValueError unless each piece starts at the anti-diagonal after the one before ends."""
    for a, b in zip(pieces, pieces[1:]):
        if b[3] != a[4] + 1:
            raise ValueError("relay pieces are not consecutive")


def split_tables(pieces, i, j):
    """One table over a run of consecutive pieces whose bytes share a buffer, for a walk from cell ``(i, j)``.

    Each piece ``(tb, off, lo, d_from, d_to, end, ...)`` holds its
    anti-diagonals ``d_from..d_to``, its bytes from ``tb.start`` in the
    buffer (``end`` of them). Returns the first anti-diagonal d0 and, for
    anti-diagonals d0 to ``i + j``, the first byte, first cell and cell count
    of each (for :func:`trace_split` and its kernels); None where the walk
    takes no step there.
    """
    d0 = int(pieces[0][3])
    if i + j < d0 or (i == 0 and j == 0):
        return None
    check_consecutive(pieces)
    n_ad = i + j - d0 + 1
    off = np.concatenate([p[1][:p[4] - p[3] + 1] + p[0].start for p in pieces])[:n_ad].astype(np.int64)
    lo = np.concatenate([p[2][:p[4] - p[3] + 1] for p in pieces])[:n_ad].astype(np.int32)
    wid = np.concatenate([np.diff(p[1][:p[4] - p[3] + 1], append=p[5]) for p in pieces])[:n_ad].astype(np.int32)
    return d0, off, lo, wid


@functools.lru_cache(maxsize=None)
def compile_traceback():
    """Compile (or load from numba's cache) the walks that only a side with long pieces traced on the host takes.

    A relayed side traces its host pieces ahead (:func:`trace_ahead`,
    :func:`trace_merge`) only where the device's chunks did not run, as when
    the other sides of its batch held the relay's memory: on E. coli about
    one pair in a hundred, which then waited 2-4 s for numba to compile them
    (the device's runs start with no numba cache). Called once per process
    before the GPU's gapped stage, with arguments of the types the relay
    passes: the same specialisations.
    """
    tb, seq = np.zeros(1, np.uint8), np.zeros(1, np.uint8)
    off, lo = np.zeros(2, np.int64), np.zeros(2, np.int64)
    walked = trace_ahead(tb, off, lo, 0, 0, 0, seq, 0, -1, seq, 0, 1)     # gives up at once: no cell
    trace_merge(tb, off, lo, 0, 0, 0, 0, np.zeros(1, np.uint8), 0, seq, 0, -1, seq, 0, 1, *walked[1:])


@njit(cache=True, nogil=True)
def rows_region(lo, wid, d_from, dbest):
    """:func:`side_region` of anti-diagonals ``d_from`` on: d covers ``wid[d - d_from]`` cells from ``lo[d - d_from]``.

    ``lo`` may stop at ``dbest``: only ``wid`` is read past it. The last
    anti-diagonal with cells is found from the end, and the reach up to
    ``dbest`` in scalars over slices, a loop the compiler vectorises (E. coli's
    2 Mb side: 9 ms on the device's host in the scalar loop it replaced, on
    the relay's traceback path).
    """
    out = np.zeros(5, dtype=np.int64)
    n = wid.shape[0]
    x0 = max(1 - d_from, 0)
    for x in range(n - 1, x0 - 1, -1):
        if wid[x] > 0:
            out[4] = d_from + x
            break
    # over slices from index 0, so that no index can be negative (numba's wraparound test kept the loop scalar)
    x1 = max(min(n, dbest - d_from + 1), x0)
    los, wids = lo[x0:x1], wid[x0:x1]
    i_max, j_max, k_min, k_max = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
    d0 = np.int64(d_from + x0)
    for x in range(los.shape[0]):
        d = d0 + x
        low = np.int64(los[x])
        top = low + np.int64(wids[x]) - 1
        i_max = max(i_max, top)
        j_max = max(j_max, d - low)
        k_min = min(k_min, d - 2 * top)
        k_max = max(k_max, d - 2 * low)
    out[0], out[1], out[2], out[3] = i_max, j_max, k_min, k_max
    return out


@njit(cache=True, nogil=True)
def piece_region(off, lo, end, d_from, d_to, dbest):
    """:func:`rows_region` of one piece: anti-diagonals ``d_from..d_to``, byte offsets ``off`` (its first
    anti-diagonal's ``off[0]``) and its bytes' end ``end``."""
    n = d_to - d_from + 1
    wid = np.empty(max(n, 0), dtype=np.int64)
    for x in range(n):
        wid[x] = (off[x + 1] if x + 1 < n else end) - off[x]
    return rows_region(lo, wid, d_from, dbest)


def join_regions(region, part):
    """Fold the region ``part`` of a run of pieces (:func:`rows_region`'s five numbers) into ``region``, in place."""
    region[0] = max(region[0], part[0])
    region[1] = max(region[1], part[1])
    region[2] = min(region[2], part[2])
    region[3] = max(region[3], part[3])
    region[4] = max(region[4], part[4])


@njit(cache=True, nogil=True)
def side_region(off, lo, cells, dbest):
    """The region a side explored: ``(imax, jmax, kmin, kmax, dlast)`` from its anti-diagonal table.

    Anti-diagonal d covered cells ``lo[d]`` to ``lo[d] + off[d + 1] - off[d]``
    (``cpu/gapped.ydrop_one_side``'s tables, the origin's byte first, ``cells``
    bytes after it). Over anti-diagonals 1 to ``dbest`` (the best cell's):
    the largest row and column reached, the least and largest ``d - 2i``;
    ``dlast``, the last anti-diagonal with a cell. The inspector's region
    columns, for the walk's checks of what an alignment kept since may touch.
    """
    dlast = 0
    if cells > 0:
        # (the table's arrays may be longer than the side: its first anti-diagonal to hold all cells)
        dlast = 1
        while off[dlast + 1] != cells + 1:
            dlast += 1
    return piece_region(off, lo, off[dlast + 1], 0, dlast, dbest)


def _traceback(pieces, bi, bj, tA, T0, qA, Q0, pool=None):
    """The columns to cell ``(bi, bj)``, and the region the side explored (:func:`side_region`).

    The path is walked back through each chunk's own bytes: joining them
    would copy a gigabyte for a megabase extension, of which the path reads
    a few megabytes. A piece's tables ``off`` and ``lo`` start at its first
    anti-diagonal ``d_from``. With a ``pool``, the pieces before the best
    cell's are first walked at once from a guess each (:func:`trace_ahead`),
    and the path's own walk takes their columns where it meets them
    (:func:`trace_merge`): a megabase path is millions of steps, each a read
    from a table the chunks' copies left out of the caches. The region
    comes from each run of pieces where its tables are: a megabase side's
    tables are tens of megabytes, which the device no longer copies back.
    """
    pieces = [p for p in pieces if p[3] <= p[4]]
    ops = np.empty(bi + bj, dtype=np.uint8)
    ahead = [k for k, p in enumerate(pieces) if p[4] < bi + bj and p[6] >= 0 and p[4] - p[3] >= AHEAD_MIN
             and not _elsewhere(p[0])]
    if pool is None or len(ahead) < 2:
        ahead = []
    ahead = {k: pool.submit(trace_ahead, *pieces[k][:4], pieces[k][5], pieces[k][6], tA, T0, -1, qA, Q0, 1)
             for k in ahead}
    n, i, j, state = 0, bi, bj, 0
    k = len(pieces) - 1
    while k >= 0:
        p_tb, p_off, p_lo, d_from = pieces[k][:4]
        if _elsewhere(p_tb):
            # the run of pieces whose bytes share one buffer elsewhere, walked there
            k0 = k
            while k0 > 0 and _elsewhere(pieces[k0 - 1][0]) and pieces[k0 - 1][0].buf is p_tb.buf:
                k0 -= 1
            cols, i, j, state = p_tb.trace(pieces[k0:k + 1], i, j, state)
            ops[n:n + len(cols)] = cols
            n += len(cols)
            k = k0 - 1
            continue
        walked = ahead[k].result() if k in ahead else None
        if walked is not None and walked[0]:
            n, i, j, state = trace_merge(p_tb, p_off, p_lo, d_from, i, j, state, ops, n, tA, T0, -1, qA, Q0, 1,
                                         *walked[1:])
        else:
            n, i, j, state = traceback_steps(p_tb, p_off, p_lo, d_from, i, j, state, ops, n, tA, T0, -1, qA, Q0, 1)
        k -= 1
    region = np.zeros(5, dtype=np.int64)
    k = 0
    while k < len(pieces):
        p_tb, p_off, p_lo, d_from, d_to, end, _ = pieces[k]
        k += 1
        if p_off is None:
            # tables elsewhere: the run of pieces that share them, at once
            while k < len(pieces) and pieces[k][1] is None and pieces[k][0].buf is p_tb.buf:
                d_to = pieces[k][4]
                k += 1
            part = p_tb.region(d_from, d_to, bi + bj)
        else:
            part = piece_region(p_off, p_lo, end, d_from, d_to, bi + bj)
        join_regions(region, part)
    return ops[:n][::-1].copy(), region
