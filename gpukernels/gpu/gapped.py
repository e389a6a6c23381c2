"""GPU twin of ``cpu/gapped.extend_anchors``: y-drop extension, GPU speculation checked by the host.

The CPU twin is sequential: anchors in order; one lying on a kept path is
skipped; the others are extended with the lattice points of the alignments
kept so far as walls. Here the GPU computes extensions *speculatively*, in
waves, and the host keeps the sequential rule:

1. **Form a wave** (host): from the first anchor not yet decided, take up to
   ``W`` anchors not on a kept path (with the wave beside the walk, below,
   :data:`FIRST_WAVE` in the first and twice as many in each next one, up
   to ``W``).
2. **Inspector** (``cuda/gapped.cu``, mode 0): one warp per side of each
   anchor, score only, with the walls of this moment. It reports the best
   cell, the cells, the cells up to the best anti-diagonal and the explored
   region (query/target reach and diagonal range). A side that runs past
   :data:`~gpukernels.gpu.runner.DCAP` anti-diagonals is *abandoned*: one warp is latency-bound on
   such long extensions.
3. **Executor** (mode 1): for every inspected anchor whose traceback fits the
   memory budget, recompute up to the best anti-diagonal with a one-byte
   traceback per cell, in batches within the budget; ``ydrop_trace`` walks
   each side's path back on the device, and only the columns come back.
   The next wave's inspector and executor run beside the walk of this one
   (:data:`OVERLAP_WAVES`: their own thread, a copy of the walls, a stream
   of the least priority); its results are stamped with the walls they saw
   and checked like any other. It is sent as soon as the walk before has
   ended, while the wave this walk waits for may still run
   (:data:`EARLY_WAVES`: two in flight, with the walls they would have had
   one after the other).
4. **Walk** (host, the sequential rule; anchors whose sides reach target
   rows apart are walked at once on threads, :mod:`gpukernels.gpu.stripes`,
   with the same result): anchors in order. On a path kept
   earlier (in this wave too): skipped. With a traceback: each side's GPU
   result is exactly the CPU's unless an alignment kept since the inspection
   has a lattice point where the side's DP ran up to its best anti-diagonal
   (walls met only past it shorten the y-drop tail, not the result, see
   :func:`~gpukernels.gpu.kept.side_dirty`) and the side's path does not provably hold with the
   walls of now (:func:`~gpukernels.gpu.path_holds.path_holds`: no new wall on the path or on the
   witnesses of its best before each anti-diagonal, checked against the
   kernel's sum of those bests): the side is *dirty*.
   A dirty side is redone with the walls of now. Most of a redone side's
   run is its y-drop tail, and most redone sides end at the same best
   cell: the device keeps each side's rows at its best and copies them back
   (:class:`KeptRows`), and a redo stops at the anti-diagonal of its stale
   best when its rows there are nowhere above the stale ones (kernel
   ``at_stale_best``, whose comment has the argument; host
   :func:`_redo_side`): the rest of the run cannot change the result. So
   the walk redoes a dirty side with such rows right there on the host, and
   a small one without them too (the CPU twin's DP). A big one without them
   (:data:`ROUND_CELLS`) stops the walk for a *wide round*: that anchor
   and the next ones with such a side (:data:`ROUND_LOOK`,
   :data:`ROUND_CAP`) are inspected and executed again on the GPU with the
   walls of now, one thread block per side (``ydrop_wide``: a round is
   latency-bound, and a block sweeps an anti-diagonal 2 times faster than
   a warp), in one launch: the inspector writes each side's traceback as it
   goes, in a room sized from the side's last inspection
   (:func:`_trace_room`; a side that outgrows it goes to the executor),
   and stops a side at its stale best as above. An anchor abandoned before
   the last keep stops the walk too: a round re-inspects, with the
   walls of now, the next :data:`ROUND_CAP` such anchors (most are near a
   long alignment just kept, whose walls now end them early), in blocks
   writing their tracebacks as a wide round does, abandoning a side again
   past ``DCAP`` anti-diagonals (:data:`ABANDONED_IN_BLOCKS`). An anchor
   still abandoned with the current walls (or whose explored region no new
   alignment meets) is a long extension in a narrow band. It goes through
   the relay (``cpu/relay.py``): a lead chunk of each such side on a host
   thread, and the side's next chunks at once on the GPU, each a block
   started from a seed cell (``ydrop_chunk``), checked exactly where they
   take over; with the next such anchors on other diagonals at once when
   there are more host threads (speculation the walk checks). Either way
   the anchor is scored (its sides' best scores, ``cpu/gapped.join_sides``) and
   kept at ``gappedthresh``.

So the output is the CPU twin's, value for value and in the same order,
whatever the wave size or the memory budget. The counts (waves, anchors
taken from the GPU, anchors extended on the host and their cells) of the
calling thread's last call are in :func:`last_stats`.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait as futures_wait

import numpy as np
from numba import njit

from ..cpu import gapped as cg
from ..cpu.buffers import ArrayPool, grow
from ..cpu.cycles import cycles
from ..cpu.relay import compile_traceback, relay_side, side_region
from . import blocking_waits, runner as runner_mod, wait
from .kernel_twin import _FAR, _not_above, routes_batch
from .kept import BSHIFT, add_kept, on_kept, side_dirty
from .kept_rows import KeptRows, kept_on_host
from .path_holds import path_holds
from .runner import (DCAP, DUMP_HEAD, KEEP_W, R_BEST, R_BI, R_BJ, R_CAB, R_CELLS, R_DIAGS, R_IMAX, R_JMAX, R_KMAX,
                     R_KMIN, R_N, R_STATUS, R_STOPPED, R_TRACED, DeviceRunner, _up16,
                     route_room)

#: anchors inspected per wave at most
WAVE = 4096
#: ints of the host's store of rows at the best (KeptRows) beyond its cap: two waves' rows at the widest
#: (a wave's fetch that found no room grew the store, copying all of it: 20-40 ms on the wave's thread)
KEPT_ROOM = 2 * 2 * WAVE * (DUMP_HEAD + 4 * (KEEP_W + 2))
#: ints of the host store: the cap and two waves' rows (growing copied the whole store)
KEPT_SIZE = KeptRows.HOST_CAP + KEPT_ROOM
#: the host's store of rows at the best in pinned memory kept between calls, where a call has full
#: waves (DeviceRunner.host_kept): the rows come back straight into it
PINNED_KEPT = True
#: the stores of executed columns, grown to tens of megabytes a strand, kept for the next calls
POOL_STORES = True
_STORES = ArrayPool(keep=2)
#: anchors of the first wave: the waves double from it up to WAVE, so the walk starts sooner and the
#: next wave runs beside it (OVERLAP_WAVES)
FIRST_WAVE = 512
#: a dirty side whose stale inspection computed this many cells, over anti-diagonals ROUND_WIDTH cells
#: wide on average, is redone in a GPU round rather than on the host (a round costs about the same per
#: anti-diagonal whatever its width; the host's DP costs the same per cell)
ROUND_CELLS = 1 << 17
#: the same for a dirty side whose rows at its stale best the host holds, counting its cells up to that
#: best (where the host's redo stops; a round stops there too), where at least STOP_ROUND_MIN anchors of
#: the walk's next ROUND_LOOK (this one included) have such a side (_cluster_ahead; in a stripe, of its
#: own next anchors). Clusters of close alignments hold many such sides; E. coli's come one at a time, and
#: a round stops every stripe where the host's redo stops one. Without the count, 2^20 took S. aureus
#: JKD6008 x N315 to 5.8-6.1 s a pair from 6.7-7.5 s but E. coli to 0.504 s from 0.434 s (H200, fortieth
#: session). With it (H100, forty-first session, ``bench/ab_settings.py``): JKD6008 x N315 6.04 s against
#: 7.36 s, COL x RF122 3.19 s against 3.62 s (with a count of 2), E. coli within 1-2 % of off in three
#: calls (0.499/0.490, 0.554/0.556, 0.517/0.505 s); 2^18, 2^19, 2^21 and a count of 2 or 8 were no better
STOP_ROUND_CELLS = 1 << 20
STOP_ROUND_MIN = 4
ROUND_WIDTH = 128
#: the sides of a long batch share the relay's memory as their chunks ask for it (runner.RelayShare),
#: rather than an even split
RELAY_SHARE = True
#: a relayed side's thread waits for the device asleep (gpu.blocking_waits): a long batch runs 16 of them
#: on a 16-core host, and spinning they kept cores from the threads with host work (E. coli, alternated in
#: one process: 0.967 [0.958, 1.000] and 0.974 [0.957, 1.002] of the pair's time spinning, 24 and 18 pairs
#: each; every wait of the process asleep, gpu.BLOCKING_WAITS, 1.004; the waves' threads asleep too, 0.982)
RELAY_BLOCKING_WAITS = True
#: speculative relay chunks per launch (cpu/relay.relay_side's per_round when they run on the GPU), and their
#: anti-diagonals and warm-up (its chunk and warm there: cpu/relay.CHUNK and WARM on the host). A round's
#: chunks run at once, each a chain of anti-diagonals, so shorter chunks end a long side's round sooner: 64 of
#: 32,768 with warm-ups of 4,096 took 0.874 s a pair against 0.920 s for 32 of 65,536 with 8,192 (E. coli, 10
#: pairs each alternated, an H100); 128 of 16,384 lost a pair to 4.2 s
RELAY_CHUNKS = 64
RELAY_CHUNK = 1 << 15
RELAY_WARM = 1 << 12
#: the walk redoes a dirty side whose stale rows come back to the host itself, stopping at the stale
#: best (False: such sides go to GPU rounds as the others; the tests of rounds and benchmarks compare)
HOST_STOP = True
#: a dirty side whose stale path provably holds with the walls of now is taken without a DP (path_holds;
#: False: every dirty side is redone, for benchmarks and tests to compare)
PATH_CHECK = True
#: the executor traces the routes of each side's records off its path too, path_holds's witnesses (a dirty side
#: whose stale best rose off its path then holds unless a wall or floor cuts a route; kernel_twin.side_routes)
PATH_ROUTES = True
#: the next wave is inspected and executed on the GPU while the host walks this one
OVERLAP_WAVES = True
#: the next wave goes to the GPU as soon as the walk before has ended, before the wave the walk waits
#: for has finished (two in flight, with the same walls as one after the other), where the runner keeps
#: two copies of the walls (DeviceRunner.snapshots): its inspector fills the device while the wave
#: before runs its executor's chains and host work
EARLY_WAVES = True
#: waves in flight at most with EARLY_WAVES (the one the walk waits for included; within the runner's copies
#: of the walls, runner.SNAPSHOTS): each one more sends a wave a walk sooner, with the walls of a walk
#: before. Three (with three copies) took 0.631 s a pair against 0.625 s for two (E. coli, 9 pairs each)
WAVES_IN_FLIGHT = 2
#: the stream priority of a background wave's executor (None: the wave's own stream, the least): above
#: the next wave's inspector, which would otherwise hold the multiprocessors it waits for (E. coli, 9 pairs
#: each: 0.641 s a pair at -1 against 0.672 s at 0, the least, with two waves in flight)
EXEC_PRIORITY = -1
#: a round of anchors abandoned before the last keep (most of them end early with the walls of now) runs as
#: a wide round, a block a side writing its traceback as it goes (one launch, where a warp round
#: inspected and then executed), abandoning a side again past DCAP anti-diagonals as the warps do
ABANDONED_IN_BLOCKS = True
#: a round takes dirty anchors from this many anchors on, and at most ROUND_CAP of them (a round of
#: abandoned anchors: 64 measured faster than 32 and 128 as warp rounds; in blocks its 128 sides fit an
#: H100's 132 multiprocessors)
ROUND_LOOK = 64
ROUND_CAP = 64
#: anchors extended on host threads at once lie on diagonals at least this far apart (anchors of one
#: long alignment share its diagonal; two long alignments on either side of an insertion do not)
LONG_APART = 64
#: the first wave's anchors whose ungapped run along their diagonal reaches past the inspector's
#: reach (:func:`_early_long`) start on host threads and the relay at once, beside the first wave, when
#: the first anchor is one (a megabase alignment's anchor comes first, and the walk would stop there)
EARLY_LONG = True
#: then, once the first wave is inspected, the anchors it abandoned (past the inspector's reach) go the
#: same way before the walk starts (:func:`_abandoned_batch`), beside the first batch: the walk would stop
#: at the first of them a few anchors on and wait for that batch
EARLY_ABANDONED = True
#: that batch starts once the first batch is done: the walk waits for the first batch, and both at once
#: share the device and the host's threads
ABANDONED_AFTER_EARLY = True
#: cells per anti-diagonal assumed for such a side (the relay's chunks take a band of 512 for it)
EARLY_WIDTH = 128
#: anchors of that first batch at most (0: half the host threads, as the walk's long batches)
EARLY_CAP = 0
#: executor memory per anti-diagonal up to the best, besides a byte per cell and the routes' room
#: (runner.route_room): its first cell (4 bytes), offset (8), record (4, PATH_ROUTES) and at most one column
#: of the path
_ROW_BYTES = 17
_MAXLEN = 1 << 30

#: host-only columns of each side's row. R_CHECKED: what the dirty checks know since its inspection
#: (the kept-alignment count through which the side is clean, or -(stamp + 1) once it is dirty; 0:
#: nothing). R_FULL_CELLS, R_FULL_DIAGS: the cells and anti-diagonals of the side's last run to its
#: end (a side stopped at its stale best keeps the stale run's), which size its next round
R_CHECKED, R_FULL_CELLS, R_FULL_DIAGS = R_N, R_N + 1, R_N + 2

#: the count in the walk's ``host`` counts, after the 11 counts of _walk and path_holds, of the sides the host
#: redid that came out as the GPU's stale result had them (score, best cell and columns): where most do,
#: a stronger proof than path_holds would spare their DP
H_SAME = 11
#: of those, the sides whose stale run came without the routes of its records (a round's or the relay's,
#: or one that outgrew its room): path_holds had only the path's witnesses for them
H_BARE = 12
#: the walk's cycle sums in its ``host`` counts, after those: each anchor's test of lying on a kept path, its
#: dirty checks (and of them the path checks, path_holds, rounds' look-ahead included), its sides (GPU results
#: taken or redone on the host) and its keep
H_KEPT, H_CHECK, H_HOLDS, H_SIDES, H_KEEP, H_N = 13, 14, 15, 16, 17, 18

#: counts from each thread's last call (waves, launches, CPU fallbacks, ...): see last_stats
_LAST = threading.local()
#: seconds between progress lines in the log
PROGRESS_S = 30.0

log = logging.getLogger("gpukernels")


@njit(cache=True, nogil=True)
def _form_wave(pos, anchor_q, anchor_t, K, run_off, runs, head, ents, width, status, sel):
    """Choose the anchors to inspect next: up to ``width`` undecided ones from ``pos`` on.

    Anchors on a kept path are decided here (status 4, skipped). Returns (end
    of the scan, number taken into ``sel``).
    """
    n = anchor_q.shape[0]
    taken = 0
    a = pos
    while a < n and taken < width:
        st = status[a]
        if st == 4:
            a += 1
            continue
        if on_kept(anchor_q[a], anchor_t[a], 0, K, run_off, runs, head, ents):
            status[a] = 4
        elif st == 0:
            sel[taken] = a
            taken += 1
        a += 1
    return a, taken


@njit(cache=True, nogil=True)
def _choose_exec(idx, status, res_all, mem, room_ad, room_extra, sel):
    """Anchors of ``idx`` just inspected to trace back on the GPU: all whose traceback fits ``mem``.

    The executor then runs with the walls the inspector saw; a side's
    routes take ``room_ad`` bytes a best anti-diagonal and ``room_extra``
    more (:func:`~gpukernels.gpu.runner.route_room`). Returns the number
    written to ``sel``.
    """
    taken = 0
    for a in idx:
        if status[a] != 1:
            continue
        need = 0
        for side in range(2):
            r = res_all[2 * a + side]
            dd = r[R_BI] + r[R_BJ]
            if dd > 0:
                need += r[R_CAB] + _ROW_BYTES * (dd + 1) + room_ad * dd + room_extra
        if need <= mem:
            sel[taken] = a
            taken += 1
    return taken


@njit(cache=True, nogil=True)
def _dirty_sides(a, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off, runs, head, ents, held,
                 own=None):
    """Sides of anchor ``a`` (bit 1 left, bit 2 right) whose result an alignment kept since its inspection may change.

    A side is dirty when such an alignment touches its region
    (:func:`~gpukernels.gpu.kept.side_dirty`) and its stale result does not provably hold with
    the walls of now (:func:`~gpukernels.gpu.path_holds.path_holds`; ``held`` is its context, see
    :func:`_held_context`). The answer is remembered in the side's
    ``R_CHECKED`` column (the walk and every round's look-ahead ask again
    about the same anchors): a side found clean is checked next time only
    against the alignments kept since, and a dirty side stays dirty until it
    is inspected again.

    ``own``: a stripe's own kept alignments (``lk, lcnt, lop_off, lops,
    lrun_off, lruns, lhead, lents``, :func:`~gpukernels.gpu.stripes.walk_stripe`),
    all of them checked too; the remembered answers are then read, not
    written (the stripe's numbering is its own, and the other stripes read
    the shared answers).
    """
    if own is None and stamp[a] >= cnt[0]:
        return 0
    aq, at = anchor_q[a], anchor_t[a]
    out = 0
    for side in range(2):
        r = res_all[2 * a + side]
        k_lo = _checked_from(a, side, stamp, res_all)
        if k_lo < 0:
            out |= 1 << side
            continue
        if own is None:
            if k_lo >= cnt[0]:
                continue
            touched = side_dirty(aq, at, side, r, k_lo, K, op_off, ops_all, run_off, runs, head, ents)
        else:
            touched = ((k_lo < cnt[0] and side_dirty(aq, at, side, r, k_lo, K, op_off, ops_all, run_off, runs, head,
                                                     ents))
                       or (own[1][0] > 0 and side_dirty(aq, at, side, r, 0, own[0], own[2], own[3], own[4], own[5],
                                                        own[6], own[7])))
        dirty = touched and _fails_path_check(a, side, held)
        if own is None:
            r[R_CHECKED] = -(stamp[a] + 1) if dirty else cnt[0]
        if dirty:
            out |= 1 << side
    return out


@njit(cache=True, nogil=True)
def _checked_from(a, side, stamp, res_all):
    """The first kept alignment a side of anchor ``a`` is still to be checked against, from the answer
    remembered in its ``R_CHECKED`` (:func:`_dirty_sides`); -1: found dirty already."""
    known = res_all[2 * a + side, R_CHECKED]
    if known == -(stamp[a] + 1):
        return -1
    return max(stamp[a], known)


@njit(cache=True, nogil=True)
def _fails_path_check(a, side, held):
    """``not path_holds(a, side, *held)``, its cycles counted in the walk's counters (``held``'s last)."""
    c0 = cycles()
    fails = not path_holds(a, side, *held)
    held[-1][H_HOLDS] += cycles() - c0
    return fails


def _held_context(check, status, anchor_q, anchor_t, rows_host, rows_at, store, ops_idx, routes, route_idx, walls, t,
                  q, t_rev, q_rev, t_lo, t_hi, q_lo, q_hi, self_barrier, matrix, gap_open, gap_ext, ydrop, host):
    """The arguments of :func:`~gpukernels.gpu.path_holds.path_holds` past the anchor and side, as one tuple
    for the dirty checks.

    Built on the host once per walk or round (a plain tuple: the compiled checks take it as it is).
    """
    return (check, status, anchor_q, anchor_t, rows_host, rows_at, store, ops_idx, routes, route_idx, walls, t, q,
            t_rev, q_rev, t_lo, t_hi, q_lo, q_hi, self_barrier, matrix, gap_open, gap_ext, ydrop, host)


@njit(cache=True, nogil=True)
def _big_dirty(a, round_cells, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off, runs, head,
               ents, held):
    """Dirty sides of anchor ``a`` (as :func:`_dirty_sides`), and whether one of them is worth a GPU round.

    A dirty side is worth a round when its redo on the host would compute at
    least ``round_cells[0]`` cells, :data:`ROUND_WIDTH` per anti-diagonal on
    average: a smaller side is redone sooner by the host's DP than by a
    round trip to the GPU, and a long narrow one too (a block's time grows
    with the anti-diagonals, the host's with the cells). A side whose stale
    rows at its best the host holds (``rows_at``, :class:`KeptRows`) is
    redone by the host's DP up to that best, where it nearly always stops
    (:func:`_redo_side`): its cells up to there (``R_CAB``) count, against
    ``round_cells[1]``; another's run to its end (``R_FULL_CELLS``). A round
    stops at the stale best too, from the device's copy of the rows.
    """
    redo = _dirty_sides(a, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off, runs, head, ents,
                        held)
    return redo, _big_side(a, redo, round_cells, res_all, held[5])


@njit(cache=True, nogil=True)
def _big_side(a, redo, round_cells, res_all, rows_at):
    """Is one of anchor ``a``'s dirty sides ``redo`` worth a GPU round (:func:`_big_dirty`)?

    0: no; 1: a side without rows on the host is; 2: only sides with rows
    on the host are, worth a round where others come with them
    (:func:`_cluster_ahead`).
    """
    out = 0
    for side in range(2):
        r = res_all[2 * a + side]
        if not redo & (1 << side):
            continue
        on_host = rows_at[2 * a + side] >= 0
        if on_host:
            cells, diags, least = r[R_CAB], r[R_BI] + r[R_BJ] + 1, round_cells[1]
        else:
            cells, diags, least = r[R_FULL_CELLS], r[R_FULL_DIAGS], round_cells[0]
        if cells >= least and cells >= ROUND_WIDTH * diags:
            if not on_host:
                return 1
            out = 2
    return out


@njit(cache=True, nogil=True)
def _cluster_ahead(ahead, round_cells, status, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off,
                   runs, head, ents, held, own=None):
    """Do at least ``round_cells[2]`` anchors have a big dirty side: the walk's anchor and those of ``ahead``?

    Where the only big dirty sides of an anchor are ones whose rows the
    host holds (:func:`_big_side` 2), a round pays only with others: the
    host redoes such a side inside its stripe, beside the other stripes,
    where a round stops them all. ``ahead`` are the next anchors the walk
    would take (the undecided ones of the next :data:`ROUND_LOOK` - 1, as
    :func:`_gather` would take them; in a stripe, of its own, with its
    ``own`` alignments as :func:`_dirty_sides` takes them). The dirty
    checks remember their answers, as there (a stripe's read them only).
    """
    need = round_cells[2] - 1
    rows_at = held[5]
    for b in ahead:
        if need <= 0:
            break
        if status[b] != 2 or not _big_side(b, 3, round_cells, res_all, rows_at):
            continue
        aq, at = anchor_q[b], anchor_t[b]
        if own is None:
            if stamp[b] >= cnt[0] or on_kept(aq, at, 0, K, run_off, runs, head, ents):
                continue
        elif on_kept(aq, at, 0, K, run_off, runs, head, ents) or on_kept(aq, at, 0, own[0], own[4], own[5], own[6],
                                                                          own[7]):
            continue
        redo = _dirty_sides(b, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off, runs, head, ents,
                            held, own)
        if _big_side(b, redo, round_cells, res_all, rows_at):
            need -= 1
    return need <= 0


@njit(cache=True, nogil=True)
def _gather(a, end, look, cap, round_cells, status, stamp, res_all, cnt, anchor_q, anchor_t, K, op_off, ops_all,
            run_off, runs, head, ents, held, sel):
    """The next round's anchors, from the undecided ones of [a, end), ``a`` itself first.

    Where the walk stopped at an anchor the inspector abandoned (status 5),
    the next ``cap`` such anchors abandoned before the last keep: the warp
    inspector looks at them again with the walls of now (most then end early
    at the long alignment just kept; a near-identical genome pair has tens
    of thousands of them along its long alignments, mostly skipped later as
    on its path, so a round never takes them all). Where it stopped at a big
    dirty side, the anchors of ``[a, a + look)`` with one
    (:func:`_big_dirty`), at most ``cap``: one block per side redoes them
    (``ydrop_wide``). Anchors found on a kept path are decided here. Returns
    the number written to ``sel``.
    """
    kind = status[a]
    taken = 0
    for b in range(a, end if kind == 5 else min(end, a + look)):
        if status[b] != kind or stamp[b] >= cnt[0]:
            continue
        if on_kept(anchor_q[b], anchor_t[b], 0, K, run_off, runs, head, ents):
            status[b] = 4
            continue
        if kind == 2 and not _big_dirty(b, round_cells, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all,
                                         run_off, runs, head, ents, held)[1]:
            continue
        if taken == cap:
            break
        sel[taken] = b
        taken += 1
    return taken


@njit(cache=True, nogil=True)
def _near_taken(a, sel, taken, anchor_q, anchor_t, apart):
    """Is anchor ``a``'s diagonal less than ``apart`` from that of one of the ``taken`` anchors in ``sel``?"""
    diag = anchor_t[a] - anchor_q[a]
    for x in range(taken):
        if abs(diag - (anchor_t[sel[x]] - anchor_q[sel[x]])) < apart:
            return True
    return False


@njit(cache=True, nogil=True)
def _long_batch(a, end, cap, apart, stamp, status, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off,
                runs, head, ents, held, sel):
    """Anchors to extend on host threads at once: ``a``, then up to ``cap - 1`` more from ``(a, end)``.

    ``a`` was abandoned by the inspector and is still long with the walls of
    now. The others are abandoned anchors found still long too (no alignment
    kept since their inspection meets what they explored), not on a kept
    path, and each on a diagonal at least ``apart`` (:data:`LONG_APART`)
    from those taken (anchors of one long alignment share its diagonal: the
    first one's extension takes the others' place). Their results are
    speculative like the GPU's: the walk checks each against the alignments
    kept before it. Returns the number written to ``sel``.
    """
    sel[0] = a
    taken = 1
    for b in range(a + 1, end):
        if taken == cap:
            break
        if status[b] != 5:
            continue
        if on_kept(anchor_q[b], anchor_t[b], 0, K, run_off, runs, head, ents):
            status[b] = 4
            continue
        if _near_taken(b, sel, taken, anchor_q, anchor_t, apart) or _dirty_sides(b, stamp, res_all, anchor_q,
                                                                                anchor_t, K, cnt, op_off, ops_all,
                                                                                run_off, runs, head, ents, held):
            continue
        sel[taken] = b
        taken += 1
    return taken


@njit(cache=True, nogil=True)
def _ungapped_reach(t, q, t0, q0, step, t_end, q_end, matrix, drop, reach):
    """Whether the ungapped run from ``(q0, t0)`` goes ``reach`` letters without dropping ``drop`` below its best.

    It steps along the diagonal by ``step`` (1 or -1); ``t_end`` and ``q_end``
    are the first positions outside the records, where it stops short.
    """
    score, best = 0, 0
    for k in range(reach):
        x, y = t0 + step * k, q0 + step * k
        if x == t_end or y == q_end:
            return False
        score += matrix[t[x], q[y]]
        if score > best:
            best = score
        elif score < best - drop:
            return False
    return True


@njit(cache=True, nogil=True)
def _early_long(idx, anchor_q, anchor_t, t, q, t_lo, t_hi, q_lo, q_hi, matrix, drop, reach, cap, apart, sel):
    """The anchors of ``idx`` to extend as long ones before any inspection: none unless ``idx[0]`` is one.

    An anchor is taken when the ungapped run along its diagonal, on either
    side, goes ``reach`` letters without dropping ``drop`` below its best
    (:func:`_ungapped_reach`): the y-drop extension on that side then almost
    surely runs past the inspector's :data:`~gpukernels.gpu.runner.DCAP`
    anti-diagonals, and the inspector would abandon it. Up to ``cap``, on
    diagonals ``apart`` from each other, as :func:`_long_batch` takes them.
    Only a guess: the walk checks such results as it checks the GPU's.
    Returns the number written to ``sel``.
    """
    taken = 0
    for x in range(idx.shape[0]):
        if taken == cap:
            break
        a = idx[x]
        aq, at = anchor_q[a], anchor_t[a]
        long = (_ungapped_reach(t, q, at, aq, -1, t_lo[a] - 1, q_lo[a] - 1, matrix, drop, reach)
                or _ungapped_reach(t, q, at + 1, aq + 1, 1, t_hi[a], q_hi[a], matrix, drop, reach))
        if not long:
            if taken == 0:
                return 0
            continue
        if not _near_taken(a, sel, taken, anchor_q, anchor_t, apart):
            sel[taken] = a
            taken += 1
    return taken


@njit(cache=True, nogil=True)
def _abandoned_batch(idx, skip, cap, apart, status, anchor_q, anchor_t, sel):
    """The anchors of ``idx`` the inspector abandoned (status 5), less those of ``skip``, as :func:`_long_batch` would.

    Up to ``cap``, each on a diagonal ``apart`` from those taken and from
    those of ``skip`` (the first batch, under way: an anchor on its
    diagonal is most likely on its path). Before the walk starts nothing is
    kept, so none is dirty or on a kept path yet. Returns the number written
    to ``sel``.
    """
    taken = 0
    for x in range(idx.shape[0]):
        if taken == cap:
            break
        a = idx[x]
        if status[a] != 5 or _near_taken(a, skip, skip.shape[0], anchor_q, anchor_t, apart):
            continue
        if _near_taken(a, sel, taken, anchor_q, anchor_t, apart):
            continue
        sel[taken] = a
        taken += 1
    return taken


def _set_region(r, region):
    """A side's region columns, as the inspector would fill them, from ``cpu/relay.side_region``'s."""
    r[R_IMAX], r[R_JMAX], r[R_KMIN], r[R_KMAX], r[R_DIAGS] = region
    r[R_STATUS] = 0


@njit(cache=True, nogil=True)
def _traceback_batch(tb, tb_lo, tb_off, tbb, adb, bi, bj, tasks, t, q):
    """Columns of every side of an executor batch, from the origin outwards, as one flat array.

    Side x's traceback bytes start at ``tb[tbb[x]]`` and its anti-diagonal
    table at ``tb_lo/tb_off[adb[x]]``; row i, column j read
    ``q[q0 + qstep * (i - 1)]`` and ``t[t0 + tstep * (j - 1)]`` (task row).
    Returns the columns and each side's count, as
    ``cpu/gapped.ydrop_one_side`` would give them.
    """
    n = bi.shape[0]
    total = 0
    for x in range(n):
        total += bi[x] + bj[x]
    out = np.empty(total, dtype=np.uint8)
    lens = np.zeros(n, dtype=np.int64)
    at = 0
    for x in range(n):
        t0, tstep, q0, qstep = tasks[x, 0], tasks[x, 1], tasks[x, 3], tasks[x, 4]
        ops = cg.traceback_columns(tb[tbb[x]:], tb_off[adb[x]:], tb_lo[adb[x]:], bi[x], bj[x], t, t0 - tstep,
                                   tstep, q, q0 - qstep, qstep)
        out[at:at + ops.shape[0]] = ops
        lens[x] = ops.shape[0]
        at += ops.shape[0]
    return out[:at], lens


@njit(cache=True, nogil=True)
def _rows_not_above(work, st, kept):
    """The kernel's ``at_stale_best`` for a host sweep standing at ``st`` (its rows in ``work``).

    ``kept`` holds the stale run's rows at its best as :class:`KeptRows`
    stores them on the host (a header, then four rows as wide as its
    ``kept[11]``). The rows go back to 32 bits first (:func:`gpukernels.cpu.gapped.widen_rows`).
    """
    cg.widen_rows(work, st)
    roth, rote = st[cg.ST_ROTH], st[cg.ST_ROTE]
    return _not_above(work[(roth + 1) % 3], work[roth], work[4 - rote], work[6 - rote], st[cg.ST_LO1],
                      st[cg.ST_HI1], st[cg.ST_LO2], st[cg.ST_HI2], st[cg.ST_BEST], st[cg.ST_BI], st[cg.ST_BJ], kept,
                      kept[11])


@njit(cache=True, nogil=True)
def _redo_side(right, kept, t, q, t_rev, q_rev, aq, at, t_lo, t_hi, q_lo, q_hi, matrix, gap_open, gap_ext, ydrop,
               self_barrier, walls, work, tb, tb_off, tb_lo):
    """A dirty side on the host with the walls of now: the CPU twin's DP, stopped at the stale best.

    With the stale run's rows at its best (``kept``, empty when none), the
    sweep stops at that anti-diagonal D when :func:`_rows_not_above` holds,
    with the kernel's argument (``cuda/gapped.cu``): the rest of the run
    cannot change the best cell or its traceback. Else it goes on to its end,
    as :func:`gpukernels.cpu.gapped.extend_side`. Returns the best score and
    cell ``(i, j)``, the cells, the columns, the grown buffers, whether it
    stopped, and the anti-diagonals it swept (its cells lie in target rows
    at most that far from the anchor).
    """
    tA, T0, tn, qA, Q0, qn, bar, wq0, wt0, wdir = cg.side_frame(right, t, q, t_rev, q_rev, aq, at, t_lo, t_hi, q_lo,
                                                                q_hi, self_barrier)
    goe = np.int32(gap_open + gap_ext)
    gext = np.int32(gap_ext)
    flat = cg._flat_matrix(matrix)
    st, tb, tb_off, tb_lo = cg.origin_state(work, tb, tb_off, tb_lo)
    stopped = False
    if kept.shape[0] and goe > 0 and kept[0] >= 1 and kept[6] + kept[7] == kept[0]:
        tb, tb_off, tb_lo = cg.ydrop_sweep(tA, T0, tn, qA, Q0, qn, flat, goe, gext, ydrop, bar, walls, wq0, wt0, wdir,
                                           work, tb, tb_off, tb_lo, True, st, kept[0])
        stopped = st[cg.ST_DONE] == 0 and st[cg.ST_D] == kept[0] and _rows_not_above(work, st, kept)
    if not stopped and st[cg.ST_DONE] == 0:
        tb, tb_off, tb_lo = cg.ydrop_sweep(tA, T0, tn, qA, Q0, qn, flat, goe, gext, ydrop, bar, walls, wq0, wt0, wdir,
                                           work, tb, tb_off, tb_lo, True, st, 1 << 62)
    dlast = st[cg.ST_D]
    tb_off = grow(tb_off, dlast + 2)
    tb_off[dlast + 1] = st[cg.ST_NTB]
    bi, bj = st[cg.ST_BI], st[cg.ST_BJ]
    ops = cg.traceback_columns(tb, tb_off, tb_lo, bi, bj, tA, T0, -1, qA, Q0, 1)
    return st[cg.ST_BEST], bi, bj, st[cg.ST_CELLS], ops, tb, tb_off, tb_lo, stopped, dlast


@njit(cache=True, nogil=True)
def _side_now(right, redo, r, kept, store, idx, t, q, t_rev, q_rev, aq, at, t_lo, t_hi, q_lo, q_hi, matrix,
              gap_open, gap_ext, ydrop, self_barrier, walls, work, tb, tb_off, tb_lo):
    """One side of an anchor as the walk takes it: the GPU's result, or the host DP's with the walls of now.

    The GPU's: inspector row ``r`` and the columns ``store[idx[right]:idx[right + 1]]``;
    with ``redo``, the host's DP (:func:`_redo_side`, stopped at the stale best
    where the rows ``kept`` allow) instead. Returns the best score and cell
    ``(i, j)``, the cells, the columns from the anchor outwards, the host DP's (grown)
    buffers, whether the redo stopped at the stale best, and the
    anti-diagonals the redo swept (0 for the GPU's result).
    """
    if redo:
        return _redo_side(right == 1, kept, t, q, t_rev, q_rev, aq, at, t_lo, t_hi, q_lo, q_hi, matrix, gap_open,
                          gap_ext, ydrop, self_barrier, walls, work, tb, tb_off, tb_lo)
    return (r[R_BEST], r[R_BI], r[R_BJ], r[R_CELLS], store[idx[right]:idx[right + 1]].copy(), tb, tb_off, tb_lo,
            False, 0)


@njit(cache=True, nogil=True)
def _same_as_stale(sc, i, j, ops, r, stale_ops):
    """Did a side redone on the host come out as its stale GPU result (row ``r``, columns ``stale_ops``)?"""
    if sc != r[R_BEST] or i != r[R_BI] or j != r[R_BJ] or ops.shape[0] != stale_ops.shape[0]:
        return False
    for k in range(ops.shape[0]):
        if ops[k] != stale_ops[k]:
            return False
    return True


@njit(cache=True, nogil=True)
def _both_sides(a, redo, res_all, held, work, tb, tb_off, tb_lo, stale):
    """Both sides of anchor ``a`` as the walk takes them (:func:`_side_now`; ``redo``: bit 1 the left side
    redone, bit 2 the right), counted in the walk's counters (``held``'s last; ``stale``: the anchor has
    GPU results, against which its redone sides are counted in ``H_SAME``).

    Returns the left side's best score, cell and columns, the right side's,
    the cells of both, each side's anti-diagonals swept by a redo, and the grown
    host DP buffers.
    """
    (_, _, anchor_q, anchor_t, rows_host, rows_at, store, ops_idx, _, route_idx, walls, t, q, t_rev, q_rev, t_lo, t_hi,
     q_lo, q_hi, self_barrier, matrix, gap_open, gap_ext, ydrop, host) = held
    aq = anchor_q[a]
    at = anchor_t[a]
    sides = (t, q, t_rev, q_rev, aq, at, t_lo[a], t_hi[a], q_lo[a], q_hi[a], matrix, gap_open, gap_ext, ydrop,
             self_barrier, walls, work)
    lsc, li, lj, n1, lops, tb, tb_off, tb_lo, s1, d1 = _side_now(0, redo & 1, res_all[2 * a],
                                                                 kept_on_host(rows_host, rows_at, 2 * a), store,
                                                                 ops_idx[a], *sides, tb, tb_off, tb_lo)
    rsc, ri, rj, n2, rops, tb, tb_off, tb_lo, s2, d2 = _side_now(1, redo & 2, res_all[2 * a + 1],
                                                                 kept_on_host(rows_host, rows_at, 2 * a + 1), store,
                                                                 ops_idx[a], *sides, tb, tb_off, tb_lo)
    host[9] += s1 + s2
    if redo:
        host[0] += 1
        host[1] += (n1 if redo & 1 else 0) + (n2 if redo & 2 else 0)
        idx = ops_idx[a]
        if stale and redo & 1 and _same_as_stale(lsc, li, lj, lops, res_all[2 * a], store[idx[0]:idx[1]]):
            host[H_SAME] += 1
            host[H_BARE] += route_idx[a, 3] != idx[0]
        if stale and redo & 2 and _same_as_stale(rsc, ri, rj, rops, res_all[2 * a + 1], store[idx[1]:idx[2]]):
            host[H_SAME] += 1
            host[H_BARE] += route_idx[a, 4] != idx[1]
    return lsc, li, lj, lops, rsc, ri, rj, rops, n1 + n2, d1, d2, tb, tb_off, tb_lo


@njit(cache=True, nogil=True)
def _walk(pos, end, status, stamp, res_all, store, ops_idx, anchor_q, anchor_t, t, q, t_rev, q_rev, t_lo, t_hi,
          q_lo, q_hi, matrix, gap_open, gap_ext, ydrop, gappedthresh, self_barrier, K, cnt, op_off, ops_all,
          run_off, runs, head, ents, walls, anchor_cells, work, tb, tb_off, tb_lo, host, round_cells, held):
    """The sequential rule over the undecided anchors of [pos, end), up to the first that needs a GPU round.

    An anchor with a GPU traceback (status 2) takes each side's result unless
    an alignment kept since its inspection touches that side's region and
    the side's path does not provably hold (:func:`_dirty_sides`, with
    ``held`` from :func:`_held_context`, which also holds the host's copies
    of rows at the best). A dirty side is extended here by the host's DP
    with the current walls (stopped at its stale best where the rows the
    host holds of it allow, :func:`_redo_side`), and so are both sides of a
    host-only anchor (status 3) (``host`` counts anchors, cells, dirty
    sides, anchors by status, sides stopped and sides held, then sums the
    cycles of each anchor's parts from :data:`H_KEPT` on), unless it is
    big (:func:`_big_dirty`): then the walk stops for a GPU round with the
    walls of now. It stops too at an anchor the inspector abandoned (status
    5), and at one whose long sides are under way beside it (status 6).
    Returns where the walk stopped (``end`` when done) and the grown arrays.
    """
    for a in range(pos, end):
        st = status[a]
        if st == 4:
            continue
        aq = anchor_q[a]
        at = anchor_t[a]
        c0 = cycles()
        kept_path = on_kept(aq, at, 0, K, run_off, runs, head, ents)
        c1 = cycles()
        host[H_KEPT] += c1 - c0
        if kept_path:
            status[a] = 4
            continue
        if st >= 5:
            return a, ops_all, runs, ents, tb, tb_off, tb_lo
        redo = 3
        if st == 2:
            redo, big = _big_dirty(a, round_cells, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all,
                                   run_off, runs, head, ents, held)
            if big == 2 and not _cluster_ahead(np.arange(a + 1, min(end, a + ROUND_LOOK)), round_cells, status, stamp,
                                               res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off, runs,
                                               head, ents, held):
                big = 0
            if big:
                return a, ops_all, runs, ents, tb, tb_off, tb_lo
            host[2] += (redo & 1) + (redo >> 1)
        status[a] = 4
        c2 = cycles()
        host[H_CHECK] += c2 - c1
        lsc, li, lj, lops, rsc, ri, rj, rops, cells, _, _, tb, tb_off, tb_lo = _both_sides(a, redo, res_all, held,
                                                                                            work, tb, tb_off, tb_lo,
                                                                                            st == 2)
        anchor_cells[a] = cells
        c3 = cycles()
        host[H_SIDES] += c3 - c2
        if redo:
            host[3 + st] += 1
        if li + lj + ri + rj == 0:
            continue
        path, s_t0, s_q0, score = cg.join_sides(lops, rops, aq, at, li, lj, lsc, rsc, gap_open)
        if score < gappedthresh:
            continue
        ops_all, runs, ents = add_kept(path, s_t0, s_q0, at + 1 + rj, aq + 1 + ri, score, K, cnt, op_off,
                                       ops_all, run_off, runs, head, ents, walls, a)
        host[H_KEEP] += cycles() - c3
    return end, ops_all, runs, ents, tb, tb_off, tb_lo


# ---------------------------------------------------------------------------------------------

def _merged_spans(lo, hi):
    """The union of intervals ``[lo, hi)`` as sorted, disjoint ``(start, stop)`` rows."""
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], np.maximum.accumulate(hi[order])
    new = np.ones(len(lo), dtype=bool)
    new[1:] = lo[1:] > hi[:-1]
    starts = np.flatnonzero(new)
    stops = np.append(starts[1:], len(lo)) - 1
    return np.stack([lo[starts], hi[stops]], axis=1)


def _tasks_of(idx, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, self_barrier):
    """Task rows (left, right per anchor): t0, tstep, tn, q0, qstep, qn, barrier, wq0, wt0."""
    return _side_tasks(_side_rows(np.asarray(idx, dtype=np.int64)), anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi,
                       bool(self_barrier))


@njit(cache=True)
def _side_tasks(sides, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, self_barrier):
    """:func:`_tasks_of`'s rows for the per-side rows ``sides`` (``2a``: anchor ``a``'s left side, ``2a + 1``
    its right).

    Compiled without ``nogil``, on purpose: one call holds the interpreter's
    lock for its few microseconds. Its numpy form made some 25 calls, and
    beside the relay's 16 threads each call was a point where the strand's
    thread could lose the lock (a sample put an E. coli strand's thread 26 ms
    there, in the first wave's execution).
    """
    n = sides.shape[0]
    tasks = np.empty((n, 9), dtype=np.int64)
    for x in range(n):
        a = sides[x] >> 1
        aq, at = anchor_q[a], anchor_t[a]
        if sides[x] & 1 == 0:
            tasks[x, 0], tasks[x, 1], tasks[x, 2] = at, -1, at - t_lo[a] + 1
            tasks[x, 3], tasks[x, 4], tasks[x, 5] = aq, -1, aq - q_lo[a] + 1
            tasks[x, 6] = at - aq if self_barrier else _FAR
        else:
            tasks[x, 0], tasks[x, 1], tasks[x, 2] = at + 1, 1, t_hi[a] - at - 1
            tasks[x, 3], tasks[x, 4], tasks[x, 5] = aq + 1, 1, q_hi[a] - aq - 1
            tasks[x, 6] = aq - at if self_barrier else _FAR
        tasks[x, 7], tasks[x, 8] = aq + 1, at + 1
    return tasks


def extend_anchors(t, q, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, matrix, gap_open, gap_ext, ydrop,
                   gappedthresh, self_barrier, wall_slots, gpu_mem=None, wave=None, runner=None,
                   round_cells=None, host_threads=2, label="", stripes=None, stop_round_cells=None,
                   stop_round_min=None):
    """Gapped extension of anchors in the given order: the CPU twin's result, GPU-accelerated.

    Parameters are those of :func:`gpukernels.cpu.gapped.extend_anchors`, plus:

    gpu_mem : int, optional
        Memory budget in bytes (tracebacks per executor batch).
    wave : int, optional
        Anchors per wave (default :data:`WAVE`).
    runner : object, optional
        Kernel runner (default :class:`DeviceRunner`); tests pass an emulator.
    round_cells : int, optional
        A dirty side is redone in a GPU round rather than on the host when its
        redo there would compute at least this many cells (:func:`_big_dirty`;
        default :data:`ROUND_CELLS`; only the speed depends on it).
    stop_round_cells, stop_round_min : int, optional
        The same for a dirty side whose redo stops at its stale best, counting
        its cells up to there, where at least ``stop_round_min`` of the walk's
        next anchors have a big dirty side (defaults :data:`STOP_ROUND_CELLS`,
        :data:`STOP_ROUND_MIN`).
    host_threads : int, optional
        Host threads for the extensions too long for the GPU (default 2:
        both sides of one anchor at once; more also extend the next such
        anchors on other diagonals speculatively). A side the inspector
        abandoned runs its lead chunks on one of them
        (:mod:`gpukernels.cpu.relay`).
    label : str, optional
        Names this call in the progress lines of the log (the strand).
    stripes : int, optional
        Host threads walking anchors apart at once (default half of
        ``host_threads``, the two strands running at once, at most
        :data:`gpukernels.gpu.stripes.STRIPES`; 1: the sequential walk
        alone). Where a stripe cannot give the sequential rule's result,
        the call starts again with 1.

    Returns
    -------
    tuple
        ``(t0, t1, q0, q1, score, op_off, ops, anchor_cells)`` as the CPU twin;
        ``anchor_cells`` counts the cells of the extension kept, which can
        exceed the CPU's where walls met a side only past its best cell, and
        fall short of it where a round stopped a side at its stale best.
    """
    from . import budget
    from .stripes import STRIPES, StripedWalk, StripeEscape
    t = np.ascontiguousarray(t, dtype=np.uint8)
    q = np.ascontiguousarray(q, dtype=np.uint8)
    anchor_q = np.ascontiguousarray(anchor_q, dtype=np.int64)
    anchor_t = np.ascontiguousarray(anchor_t, dtype=np.int64)
    t_lo, t_hi, q_lo, q_hi = (np.ascontiguousarray(x, dtype=np.int64) for x in (t_lo, t_hi, q_lo, q_hi))
    matrix = np.ascontiguousarray(matrix, dtype=np.int32)
    n = len(anchor_q)
    width = int(wave or WAVE)
    round_cells = ROUND_CELLS if round_cells is None else int(round_cells)
    stop_round_cells = STOP_ROUND_CELLS if stop_round_cells is None else int(stop_round_cells)
    stop_round_min = STOP_ROUND_MIN if stop_round_min is None else int(stop_round_min)
    round_at = np.array([round_cells, stop_round_cells, stop_round_min], dtype=np.int64)   # (_big_side)
    mem = budget(gpu_mem)
    given_runner = runner is not None
    if runner is None:
        runner = DeviceRunner(t, q, matrix, gap_open, gap_ext, ydrop, wall_slots, mem)
    mem = int(getattr(runner, "mem", mem))
    compile_traceback()     # (rarely taken, so not compiled in the middle of a pair)
    # host state: kept alignments (see add_kept), walls, per-anchor results
    K = np.zeros((max(n, 1), 6), dtype=np.int64)
    op_off = np.zeros(n + 2, dtype=np.int64)
    run_off = np.zeros(n + 2, dtype=np.int64)
    ops_all = np.empty(1 << 16, dtype=np.uint8)
    runs = np.empty((1024, 4), dtype=np.int64)
    head = np.full((len(t) >> BSHIFT) + 2, -1, dtype=np.int64)
    ents = np.empty((1024, 2), dtype=np.int64)
    cnt = np.zeros(2, dtype=np.int64)       # kept alignments, bucket entries
    # the runner's own (pinned, kept between calls) where it has them
    walls = runner.host_walls() if hasattr(runner, "host_walls") else np.zeros((len(t) + 1, wall_slots, 2), np.int32)
    anchor_cells = np.full(n, -1, dtype=np.int64)
    # status: 0 to inspect, 1 inspected, 2 executed (traceback ready), 3 host only, 4 decided,
    # 5 abandoned by the inspector (past DCAP)
    status = np.zeros(n, dtype=np.int8)
    long_rec = (t_hi - t_lo > _MAXLEN) | (q_hi - q_lo > _MAXLEN)
    status[long_rec] = 3
    stamp = np.zeros(n, dtype=np.int64)     # kept alignments when the anchor was inspected
    res_all = np.zeros((2 * n, R_FULL_DIAGS + 1), dtype=np.int64)
    # the device's copies of sides' rows at their best, for redos that stop there (none on a runner without)
    nslots = int(getattr(runner, "keep_slots", 0))
    # a call of full waves keeps its store pinned between calls (allocating it costs about 0.1 s once)
    pinned = PINNED_KEPT and nslots and n >= width and hasattr(runner, "host_kept")
    kept = KeptRows(nslots, 2 * n, runner.host_kept(KEPT_SIZE) if pinned else None, KEPT_SIZE)
    band_all = np.zeros(2 * n, dtype=np.int64)
    ops_idx = np.zeros((n, 3), dtype=np.int64)
    store = _STORES.take(1 << 16, np.uint8) if POOL_STORES else np.empty(1 << 16, np.uint8)
    used = 0
    # the routes of executed sides' records off their paths, for path_holds (_store_routes)
    route_idx = np.full((n, 5), -1, dtype=np.int64)
    routes = np.empty(1 << 12, np.uint8)
    rused = 0
    sel = np.empty(n + 1, dtype=np.int64)
    # the host's own DP (cpu/gapped.extend_side) and its buffers
    t_rev, q_rev = t[::-1].copy(), q[::-1].copy()
    qmax = int((q_hi - q_lo).max()) + 2 if n else 2
    work = np.empty((8, qmax), dtype=np.int32)
    h_tb, h_off, h_lo = np.empty(1 << 16, np.uint8), np.empty(1024, np.int64), np.empty(1024, np.int64)
    long_bufs = []                          # host DP buffers for long_on_host, one set per thread
    relay_pool, relay_works = None, []      # threads and buffers for the sides split by relay_side
    side_pool = None                        # threads for long_on_host's sides, kept for the strand's batches
    host = np.zeros(H_N, dtype=np.int64)
    stats = dict(waves=0, rounds=0, round_anchors=0, round_s=0.0, long_s=0.0, inspected=0, abandoned=0, executed=0,
                 host_anchors=0, host_cells=0, band_retries=0,
                 launches=0, inspect_s=0.0, execute_s=0.0, traceback_s=0.0, walk_s=0.0, form_s=0.0, walls_s=0.0,
                 max_task_cells=0, long_batches=0, relay_rounds=0, relay_taken=0, relay_missed=0, traced=0,
                 stopped=0, abandoned_cells=0, waves_beside=0, wave_wait_s=0.0, early_anchors=0,
                 early_abandoned=0)
    # one row per GPU speculation: kind (0 wave, 1 wide round, 2 round of abandoned anchors), anchors, the longest
    # side's explored and best anti-diagonals, all sides' cells, inspector and executor seconds; and
    # per batch of long extensions on the host: 3, anchors, the same, seconds, the first anchor
    trace = []
    clock = time.perf_counter
    synced = 0                              # kept alignments whose walls are on the device
    # the next wave speculated on the GPU while the host walks this one (OVERLAP_WAVES): its own
    # thread and walls; each side of the overlap speculates within half the budget
    overlap = OVERLAP_WAVES and n > width and hasattr(runner, "snapshot_walls")
    if overlap:
        mem //= 2
    in_flight = min(WAVES_IN_FLIGHT, getattr(runner, "snapshots", 1)) if overlap and EARLY_WAVES else 1
    wave_mem = mem // in_flight
    lock = threading.RLock()

    def sync_walls():
        """Upload the walls of the alignments kept since the last upload (on the walk's stream)."""
        nonlocal synced
        c0 = clock()
        if cnt[0] > synced:
            runner.set_walls(walls, _merged_spans(K[synced:cnt[0], 0], K[synced:cnt[0], 1] + 1))
            synced = int(cnt[0])
        stats["walls_s"] += clock() - c0

    def speculate(idx, wide=False, kind=0, at=None, dcap=None, inspected=None):
        """Inspect and execute anchors ``idx`` on the GPU with the walls of this moment (``wide``: a round).

        ``at``: a wave speculated beside the walk (:meth:`DeviceRunner.background`), with the walls
        of ``at`` kept alignments, within ``wave_mem`` (two such waves may be in flight); its executor
        runs at :data:`EXEC_PRIORITY`. ``dcap``: a round's sides are abandoned past that many
        anti-diagonals (a round of anchors abandoned before). ``inspected``: called once the
        inspection's results are in, before the executor. The host's bookkeeping goes under ``lock``.
        """
        nonlocal store, used, routes, rused
        budget = mem if at is None else wave_mem
        if at is None:
            sync_walls()
            at = int(cnt[0])
        c1 = clock()
        tasks = _tasks_of(idx, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, self_barrier)
        rows = _side_rows(idx)
        room = _trace_room(res_all[rows], mem) if wide else None
        traced = None
        if room is None:
            r, b = runner.inspect(tasks, wide, dcap=dcap)
            kept.assign(rows, -1)
        else:
            # each side keeps its rows at its new best, and stops at its stale best where they allow
            fresh = kept.fresh(len(rows), status)
            r, b, traced = runner.inspect_traced(tasks, *room, slots=np.stack([fresh, kept.slot_of[rows]], axis=1),
                                                 dcap=dcap, routes=PATH_ROUTES)
            ok = (r[:, R_STATUS] == 0) & (fresh >= 0)
            kept.assign(rows, np.where(ok, fresh, -1))
            kept.release(fresh[~ok])
            if HOST_STOP:
                kept.fetch(runner, rows[ok], fresh[ok])
        c2 = clock()
        with lock:
            stats["inspect_s"] += c2 - c1
            stats["inspected"] += len(idx)
            counts = _note_inspection(idx, r, np.asarray(b, dtype=np.int64), at, res_all, band_all, stamp, status)
            for key, v in zip(("stopped", "abandoned", "abandoned_cells"), counts[:3]):
                stats[key] += int(v)
            stats["max_task_cells"] = max(stats["max_task_cells"], int(counts[3]))
            if traced is not None:
                # the anchors whose tracebacks came back with the inspection
                whole = (r[:, R_TRACED] != 0) | (r[:, R_BI] + r[:, R_BJ] == 0)
                held = (status[idx] == 1) & whole.reshape(-1, 2).all(axis=1)
                if held.any():
                    c3 = clock()
                    store, used, routes, rused = _traced_columns(np.flatnonzero(held), idx, r, tasks, traced, t, q,
                                                                 ops_idx, store, used, route_idx, routes, rused)
                    stats["traceback_s"] += clock() - c3
                    status[idx[held]] = 2
                    stats["executed"] += int(held.sum())
                    stats["traced"] += int(held.sum())
        if inspected is not None:
            inspected()
        chosen = np.empty(len(idx), dtype=np.int64)
        m = _choose_exec(idx, status, res_all, budget, runner_mod.ROUTE_ROOM_PER_AD, runner_mod.ROUTE_ROOM_EXTRA,
                         chosen)
        exec_s = 0.0
        if m:
            with _exec_stream(runner, at is not None):
                flat, lens, rflat, rlens, exec_s, tb_s = _execute(runner, chosen[:m], res_all, band_all, anchor_q,
                                                                  anchor_t, t_lo, t_hi, q_lo, q_hi, self_barrier,
                                                                  budget, wide, kept, status)
            with lock:
                store, used = _store_columns(flat, lens, chosen[:m], ops_idx, store, used)
                routes, rused = _store_routes(rflat, rlens, chosen[:m], ops_idx, route_idx, routes, rused)
                status[chosen[:m]] = 2
                stats["executed"] += m
                stats["execute_s"] += exec_s
                stats["traceback_s"] += tb_s
        status[idx[status[idx] == 1]] = 3
        trace.append(_trace_row(kind, r, c2 - c1, exec_s))

    def long_on_host(batch, beside_walk=False):
        """Both sides of the anchors ``batch`` on host threads at once, with the walls of now.

        Each anchor was abandoned by the inspector and is still long with the
        walls of now: a long extension in a narrow band, which one CPU core
        runs faster than one GPU block. The first is the walk's next anchor;
        the others (:func:`_long_batch`) are speculation. A side the inspector
        abandoned is split into chunks checked where they take over
        (:func:`gpukernels.cpu.relay.relay_side`): a lead on a host thread,
        speculative chunks on the GPU (:meth:`DeviceRunner.relay_chunks`).
        The results go where the executor's would (status 2, stamped now, with the region each side
        explored up to its best), so the walk takes and checks them. ``beside_walk``: the walk goes on
        meanwhile (the batch's anchors wait in status 6, where the walk stops): the results, computed
        with the walls as they stood at the start and any the walk added since (a wall the DP met is
        one whose alignment touches the side's region, which the walk's check then finds), are
        stamped with the start's and published by the returned function, which the walk calls once
        the batch is done (anchors the walk found on a kept path meanwhile stay skipped).
        """
        nonlocal store, used, relay_pool, side_pool
        if beside_walk:
            # the walls of its start, none (start_beside submits it before the walk keeps anything), on
            # the host and the device, where the walk adds its own meanwhile (and uploads them itself).
            # On the host, rows of no slots: nothing to read (a copy of the walls' shape, zeroed, took
            # 40 ms of the batch's thread for E. coli before its first side started)
            at, side_walls, dev_walls = 0, np.zeros((walls.shape[0], 0, 2), walls.dtype), runner.no_walls()
        else:
            at, side_walls, dev_walls = int(cnt[0]), walls, None
            # the chunks on the GPU go on past their checks with the device's walls: those of now
            sync_walls()
        jobs = [(a, right) for a in batch for right in (0, 1)]
        # the sides the inspector abandoned go through the relay: their speculative chunks on the GPU,
        # all of a round in one launch (each side on a stream of its own), the lead on the relay's
        # threads, one buffer per side
        long_sides = [job for job in jobs if res_all[2 * job[0] + job[1], R_STATUS] == 2]
        with lock:
            # buffers of this call (two batches may run at once before the walk starts)
            mine = [long_bufs.pop() if long_bufs else
                    [np.empty((8, qmax), np.int32), np.empty(1 << 16, np.uint8), np.empty(1024, np.int64),
                     np.empty(1024, np.int64)] for _ in range(min(len(jobs), host_threads))]
            works = [relay_works.pop() if relay_works else np.empty((8, qmax), np.int32) for _ in long_sides]
            if long_sides and relay_pool is None:
                relay_pool = ThreadPoolExecutor(host_threads)
            if side_pool is None:
                # threads for two batches at once (the first wave's abandoned batch beside the walk's own),
                # kept: a batch's own pool took 4 ms to let its 16 threads go, on the walk's path
                side_pool = ThreadPoolExecutor(2 * host_threads, thread_name_prefix=f"ava-side{label}")
        # the host DP's buffers of this call, one side each at a time (its relayed sides take none)
        free = queue.SimpleQueue()
        for slot in range(len(mine)):
            free.put(slot)
        shares, launchers = {}, {}
        relay_mem = mem // max(len(long_sides), 1)
        if RELAY_SHARE and long_sides and hasattr(runner, "relay_share"):
            relay_mem = runner.relay_share(mem, len(long_sides), RELAY_CHUNK + RELAY_WARM)
        for k, job in enumerate(long_sides):
            shares[job] = works[k:k + 1]
            row = res_all[2 * job[0] + job[1]]
            task = _tasks_of(np.array([job[0]]), anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, self_barrier)[job[1]]
            launchers[job] = runner.relay_launcher(task, row[R_CELLS] // max(row[R_DIAGS], 1), relay_mem, dev_walls)
        relay_stats = {job: {} for job in shares}

        def side(job):
            a, right = job
            if job in shares:
                tA, T0, tn, qA, Q0, qn, bar, wq0, wt0, wdir = cg.side_frame(
                    bool(right), t, q, t_rev, q_rev, int(anchor_q[a]), int(anchor_t[a]), t_lo[a], t_hi[a], q_lo[a],
                    q_hi[a], self_barrier)
                try:
                    with blocking_waits(RELAY_BLOCKING_WAITS):
                        out = relay_side(tA, T0, tn, qA, Q0, qn, matrix, gap_open, gap_ext, ydrop, bar, side_walls,
                                         wq0, wt0, wdir, relay_pool, shares[job], chunk=RELAY_CHUNK, warm=RELAY_WARM,
                                         stats=relay_stats[job], chunks=launchers[job], per_round=RELAY_CHUNKS)
                finally:
                    # the chunks' traceback bytes are traced: their pinned blocks serve later batches
                    getattr(launchers[job], "release", lambda: None)()
            else:
                slot = free.get()
                try:
                    w, b1, b2, b3 = mine[slot]
                    out = cg.extend_side(bool(right), t, q, t_rev, q_rev, int(anchor_q[a]), int(anchor_t[a]),
                                         t_lo[a], t_hi[a], q_lo[a], q_hi[a], matrix, gap_open, gap_ext, ydrop,
                                         self_barrier, side_walls, w, b1, b2, b3)
                    mine[slot][1:] = out[5:]
                finally:
                    free.put(slot)
            row = res_all[2 * a + right]
            row[R_BEST], row[R_BI], row[R_BJ], row[R_CELLS] = out[0], out[1], out[2], out[3]
            # a relayed side's region comes with it, computed where its tables are
            _set_region(row, out[5] if job in shares else side_region(out[6], out[7], out[3], out[1] + out[2]))
            row[R_CHECKED], row[R_FULL_CELLS], row[R_FULL_DIAGS] = 0, row[R_CELLS], row[R_DIAGS]
            return out[4]

        c0 = clock()
        futures = [side_pool.submit(side, job) for job in jobs]
        try:
            futures_wait(futures)               # all of them, before their buffers go back
            pieces = [f.result() for f in futures]
        finally:
            with lock:
                long_bufs.extend(mine)
                relay_works.extend(works)
        idx = np.asarray(batch, dtype=np.int64)
        rows = res_all[_side_rows(idx)]
        with lock:
            for counts in relay_stats.values():
                for key, value in counts.items():
                    stats[key] += value
            kept.assign(_side_rows(idx), -1)
            trace.append(_trace_row(3, rows, clock() - c0, batch[0]))
            store, used = _store_pieces(pieces, idx, ops_idx, store, used)
            stats["long_batches"] += 1

        def publish():
            """The batch's results for the walk: stamped with the alignments kept when it started."""
            with lock:
                waiting = idx[status[idx] != 4] if beside_walk else idx
                status[waiting] = 2
                stamp[waiting] = at
                host[0] += len(idx)             # (the walk's counters: it stands still meanwhile)
                host[1] += int(rows[:, R_CELLS].sum())
                host[8] += len(idx)
        if not beside_walk:
            publish()
        return publish

    def start_early(idx):
        """The long anchors among the first wave's ``idx`` (:func:`_early_long`) on a thread of their own, now.

        They go where the walk would send them once the inspector had
        abandoned them (:func:`long_on_host`, both sides through the relay),
        beside the first wave's inspection. Returns the future, or None.
        """
        if not (EARLY_LONG and hasattr(runner, "relay_launcher")):
            return None
        k = _early_long(idx, anchor_q, anchor_t, t, q, t_lo, t_hi, q_lo, q_hi, matrix, ydrop,
                        int(getattr(runner, "dcap", DCAP)) // 2 + 64,
                        EARLY_CAP or max(1, host_threads // 2), LONG_APART, sel_early)
        if not k:
            return None
        batch = sel_early[:k].copy()
        rows = _side_rows(batch)
        res_all[rows, R_STATUS] = 2
        res_all[rows, R_CELLS] = EARLY_WIDTH
        res_all[rows, R_DIAGS] = 1
        status[batch] = 5
        stats["early_anchors"] = k
        return long_on_thread(early_pool, batch)

    def start_beside(batch, after=None):
        """:func:`long_on_host` of ``batch`` on a thread of its own, beside the walk; returns the future of its publish.

        Only before the walk's first keep: the batch runs with no walls (so
        it may start later, once the future ``after`` is done).
        """
        if int(cnt[0]):
            raise RuntimeError("a long batch beside the walk must start before the first keep")
        return long_on_thread(beside_pool, batch, beside_walk=True, after=after)

    def long_on_thread(pool, batch, beside_walk=False, after=None):
        """:func:`long_on_host` submitted to ``pool``, on a stream of its own, once the future ``after`` (if
        any) is done; returns the future."""
        if hasattr(runner, "cp"):
            wait()      # the runner's uploads, for the thread's stream

        def run():
            from . import own_stream
            if after is not None:
                futures_wait([after])
            with own_stream(runner.device_id) if hasattr(runner, "device_id") else contextlib.nullcontext():
                return long_on_host(batch, beside_walk)
        return pool.submit(run)

    sel_early = np.empty(n + 1, dtype=np.int64)
    early_pool = ThreadPoolExecutor(1, thread_name_prefix=f"ava-early{label}")
    if stripes is None:
        stripes = min(STRIPES, max(1, host_threads // 2))
    striped = StripedWalk(n, len(t) + 1, len(head), work.shape, stripes, label)
    escaped = None
    beside_pool = ThreadPoolExecutor(1, thread_name_prefix=f"ava-abandoned{label}")
    started = last_note = clock()

    def held_now():
        """The dirty checks' context (:func:`_held_context`) over the arrays as they stand."""
        return _held_context(PATH_CHECK, status, anchor_q, anchor_t, kept.host, kept.host_at, store, ops_idx, routes,
                             route_idx, walls, t, q, t_rev, q_rev, t_lo, t_hi, q_lo, q_hi, self_barrier, matrix,
                             gap_open, gap_ext, ydrop, host)

    def progress(done):
        """A log line every :data:`PROGRESS_S` seconds: long extensions take minutes."""
        nonlocal last_note
        if clock() - last_note >= PROGRESS_S:
            last_note = clock()
            log.info("gapped extension%s: %d of %d anchors done, %d alignments kept, %d GPU rounds (%.0f s)",
                     f" ({label})" if label else "", done, n, int(cnt[0]), stats["rounds"], last_note - started)

    def beside(idx, at, ready):
        """Speculate a wave on the background's stream and walls (:meth:`DeviceRunner.background`)."""
        with runner.background(ready):
            speculate(idx, at=at)

    def wave_width():
        """Anchors of the next wave: :data:`FIRST_WAVE`, doubling with each wave formed, up to ``width``."""
        nonlocal formed
        formed += 1
        return min(width, max(int(FIRST_WAVE), 1) << min(formed - 1, 30)) if overlap else width

    formed = 0

    def next_wave(start):
        """Form the wave after ``start`` and speculate it beside the walk; returns (end of its scan, future).

        It runs with the walls of now (copied on the device, as the walk's
        rounds upload more) and is stamped with them, so the walk checks
        its results against the alignments kept meanwhile as any other.
        """
        c0 = clock()
        end2, m2 = _form_wave(start, anchor_q, anchor_t, K, run_off, runs, head, ents, wave_width(), status,
                              sel_next)
        stats["form_s"] += clock() - c0
        if not m2:
            return end2, None
        sync_walls()
        ready = runner.snapshot_walls()
        stats["waves_beside"] += 1
        return end2, background.submit(beside, sel_next[:m2].copy(), int(cnt[0]), ready)

    background = ThreadPoolExecutor(in_flight, thread_name_prefix=f"ava-wave{label}") if overlap else None
    sel_next = np.empty(n + 1, dtype=np.int64)
    pending = []                            # the next waves: (end of its scan, its speculation), in order
    early = None                            # the first wave's long anchors (start_early)
    abandoned = None                        # the first wave's abandoned anchors beside the walk, and their future
    pos = 0
    try:
        while pos < n:
            stats["waves"] += 1
            if not pending:
                c0 = clock()
                end, m = _form_wave(pos, anchor_q, anchor_t, K, run_off, runs, head, ents, wave_width(), status,
                                    sel)
                stats["form_s"] += clock() - c0
                early = start_early(sel[:m]) if m and pos == 0 else None
                idx = sel[:m][status[sel[:m]] == 0]

                def start_abandoned():
                    """The anchors the first wave abandoned, beside the first batch and then beside the walk,
                    from the wave's inspection on (its executor runs meanwhile)."""
                    nonlocal abandoned
                    k = _abandoned_batch(idx, sel_early[:stats["early_anchors"]].copy(), max(1, host_threads // 2),
                                         LONG_APART, status, anchor_q, anchor_t, sel_next)
                    if k:
                        batch = sel_next[:k].copy()
                        status[batch] = 6
                        abandoned = (batch, start_beside(batch, early if ABANDONED_AFTER_EARLY else None))
                        stats["early_abandoned"] += k

                at_inspection = early is not None and EARLY_ABANDONED
                if len(idx):
                    speculate(idx, inspected=start_abandoned if at_inspection else None)
                elif at_inspection:
                    start_abandoned()
            else:
                end, fut = pending.pop(0)
                # the walk before has ended: the next waves go now, beside this one's end
                tail = pending[-1][0] if pending else end
                while len(pending) + 1 < in_flight and tail < n:
                    pending.append(next_wave(tail))
                    tail = pending[-1][0]
                if fut is not None:
                    c0 = clock()
                    fut.result()
                    stats["wave_wait_s"] += clock() - c0
            kept.compact(status)
            if overlap and end < n and not pending:
                pending.append(next_wave(end))
            if early is not None:
                c0 = clock()
                early.result()
                early = None
                stats["long_s"] += clock() - c0
            # the sequential rule; at an anchor worth recomputing with the walls of now, a round
            a = pos
            while True:
                c0 = clock()
                a, ops_all, runs, ents, h_tb, h_off, h_lo = striped.walk(
                    a, end, status, stamp, res_all, store, ops_idx, anchor_q, anchor_t, t, q, t_rev, q_rev, t_lo,
                    t_hi, q_lo, q_hi, matrix, gap_open, gap_ext, ydrop, gappedthresh, self_barrier, K, cnt, op_off,
                    ops_all, run_off, runs, head, ents, walls, anchor_cells, work, h_tb, h_off, h_lo, host,
                    round_at, held_now())
                stats["walk_s"] += clock() - c0
                progress(a)
                if abandoned is not None and (a == end or status[a] == 6):
                    # the batch the walk waits for (or that must end with the wave it belongs to)
                    c0 = clock()
                    abandoned[1].result()()
                    abandoned = None
                    stats["long_s"] += clock() - c0
                    continue
                if a == end:
                    break
                held = held_now()
                if status[a] == 5 and not _dirty_sides(a, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off,
                                                       ops_all, run_off, runs, head, ents, held):
                    # still abandoned with the walls of now: a long extension, for host threads
                    c0 = clock()
                    m = _long_batch(a, end, max(1, host_threads // 2), LONG_APART, stamp, status, res_all, anchor_q,
                                    anchor_t, K, cnt, op_off, ops_all, run_off, runs, head, ents, held, sel)
                    long_on_host(sel[:m].copy())
                    stats["long_s"] += clock() - c0
                    continue
                c0 = clock()
                wide = status[a] == 2           # a big dirty side (else an anchor abandoned before the last keep)
                m = _gather(a, end, ROUND_LOOK, ROUND_CAP, round_at, status, stamp, res_all, cnt, anchor_q,
                            anchor_t, K, op_off, ops_all, run_off, runs, head, ents, held, sel)
                c1 = clock()
                stats["form_s"] += c1 - c0
                stats["rounds"] += 1
                stats["round_anchors"] += m
                if wide:
                    speculate(sel[:m].copy(), True, 1)
                elif ABANDONED_IN_BLOCKS:
                    # a round of sides abandoned before, in blocks with their tracebacks, abandoned
                    # again past the inspector's cap
                    speculate(sel[:m].copy(), True, 2, dcap=getattr(runner, "dcap", DCAP))
                else:
                    speculate(sel[:m].copy(), False, 2)
                stats["round_s"] += clock() - c1
            pos = end
    except StripeEscape as err:
        escaped = err
    finally:
        if abandoned is not None:
            abandoned[1].exception()        # done before the arrays it writes go
        early_pool.shutdown()
        beside_pool.shutdown()
        if background is not None:
            background.shutdown()
        if relay_pool is not None:
            relay_pool.shutdown()
        if side_pool is not None:
            side_pool.shutdown()
        striped.close()
    nk = int(cnt[0])
    # (the rows written: those of the kept alignments; after a stripe stepped out too, as the stripes'
    # alignments join the shared arrays before it stops)
    spans = _merged_spans(K[:nk, 0], K[:nk, 1] + 1) if nk else np.zeros((0, 2), np.int64)
    if hasattr(runner, "give_kept"):
        runner.give_kept(kept.host)
    _STORES.give(store)
    if escaped is not None:
        # the walls zeroed, here and on the device, the call starts again on one thread
        log.info("gapped extension%s: %s; the walk starts again without stripes", f" ({label})" if label else "",
                 escaped)
        if hasattr(runner, "give_walls"):
            runner.give_walls(walls, spans)
        if given_runner:
            runner.walls[...] = 0
        out = extend_anchors(t, q, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, matrix, gap_open, gap_ext, ydrop,
                             gappedthresh, self_barrier, wall_slots, gpu_mem, wave, runner if given_runner else None,
                             round_cells, host_threads, label, stripes=1, stop_round_cells=stop_round_cells,
                             stop_round_min=stop_round_min)
        _LAST.stats["stripe_escapes"] = 1
        return out
    if hasattr(runner, "give_walls"):
        runner.give_walls(walls, spans)
    stats["launches"] = getattr(runner, "launches", 0)
    stats["band_retries"] = getattr(runner, "band_retries", 0)
    stats["host_anchors"], stats["host_cells"], stats["host_stopped"] = int(host[0]), int(host[1]), int(host[9])
    stats["path_held"] = int(host[10])
    stats["redone_same"] = int(host[H_SAME])
    stats["redone_same_bare"] = int(host[H_BARE])
    stats["walk_cycles"] = dict(zip(("on_kept", "dirty", "path_holds", "sides", "keep"),
                                    (host[H_KEPT:H_N] / 1e6).round(1).tolist()))
    stats["host_why"] = dict(zip(("dirty_sides", "dirty_anchors", "host_only", "abandoned"),
                                 host[[2, 5, 6, 8]].tolist()))
    stats["trace"] = np.array(trace, dtype=np.float64).reshape(-1, 7)
    stats.update(striped.stats, stripe_escapes=0)
    _LAST.stats = stats
    K, op_off, ops_all = _in_anchor_order(K[:nk], op_off[:nk + 1], ops_all)
    return K[:, 0].copy(), K[:, 1].copy(), K[:, 2].copy(), K[:, 3].copy(), K[:, 4].copy(), op_off, ops_all, anchor_cells


def _in_anchor_order(K, op_off, ops_all):
    """The kept alignments ``K`` (anchor in column 5), their column offsets and columns, in their anchors' order.

    The sequential rule keeps them in that order, as the CPU twin returns
    them. The stripes number them so too, but for a pass that a stripe
    stopped for a GPU round: the other stripes' alignments of anchors past
    the stop join the shared arrays before those of the stopped stripe's
    anchors between the stop and the pass's end, which come after the round
    (:mod:`gpukernels.gpu.stripes`). The offsets and columns come back as
    copies, ``K`` as it is where it is in order already.
    """
    order = np.argsort(K[:, 5], kind="stable")
    if np.all(order == np.arange(len(order))):
        return K, op_off.copy(), ops_all[:op_off[-1]].copy()
    sizes = np.diff(op_off)[order]
    new_off = np.zeros_like(op_off)
    np.cumsum(sizes, out=new_off[1:])
    # each column's place in ops_all: its alignment's old start, plus its offset in the new order's run
    at = np.repeat(op_off[:-1][order] - new_off[:-1], sizes) + np.arange(new_off[-1])
    return K[order], new_off, ops_all[at]


def last_stats():
    """Counts of the calling thread's last :func:`extend_anchors` (waves, launches, CPU fallbacks, ...).

    Per thread, because the engine extends both strands at once.
    """
    return getattr(_LAST, "stats", {})


@njit(cache=True)
def _note_inspection(idx, r, b, at, res_all, band_all, stamp, status):
    """Write an inspection's results ``r`` and bands ``b`` of anchors ``idx``'s sides (left, right, ...) into
    the tables.

    Each side's row of ``res_all`` takes its results (its full run's cells
    and anti-diagonals too unless it stopped at its stale best), each anchor
    its ``stamp`` (``at``, the kept alignments it saw) and its status: 1
    inspected, 3 a side failed (no band), 5 abandoned (a side past the
    inspector's anti-diagonals, and no side failed otherwise). Returns the
    sides stopped at their stale best, the anchors abandoned, the abandoned
    sides' cells and the largest side's cells. Without ``nogil``, as
    :func:`_side_tasks`: one call where its numpy form made some 30.
    """
    stopped = abandoned = abandoned_cells = most = 0
    for k in range(idx.shape[0]):
        a = idx[k]
        failed = gave_up = other = False
        for s in range(2):
            x, row = 2 * k + s, 2 * a + s
            for c in range(R_N):
                res_all[row, c] = r[x, c]
            res_all[row, R_CHECKED] = 0
            if r[x, R_STOPPED] != 0:
                stopped += 1
            else:
                res_all[row, R_FULL_CELLS] = r[x, R_CELLS]
                res_all[row, R_FULL_DIAGS] = r[x, R_DIAGS]
            band_all[row] = b[x]
            most = max(most, r[x, R_CELLS])
            if r[x, R_STATUS] == 2:
                abandoned_cells += r[x, R_CELLS]
            if b[x] == 0:
                failed = True
                if r[x, R_STATUS] == 2:
                    gave_up = True
                else:
                    other = True
        stamp[a] = at
        status[a] = 5 if gave_up and not other else (3 if failed else 1)
        if status[a] == 5:
            abandoned += 1
    return stopped, abandoned, abandoned_cells, most


def _side_rows(idx):
    """Rows of the anchors ``idx`` in the per-side tables: left, right, left, ..."""
    return np.stack([2 * idx, 2 * idx + 1], axis=1).ravel()


def _trace_row(kind, rows, seconds, extra):
    """One row of ``last_stats()["trace"]`` for the sides ``rows`` (result rows) of one speculation."""
    return (kind, len(rows) // 2, int(rows[:, R_DIAGS].max()), int((rows[:, R_BI] + rows[:, R_BJ]).max()),
            int(rows[:, R_CELLS].sum()), seconds, extra)


def _exec_stream(runner, beside):
    """The stream of a wave's executor: at :data:`EXEC_PRIORITY` for a wave ``beside`` the walk, else the caller's."""
    if not beside or EXEC_PRIORITY is None or not hasattr(runner, "device_id"):
        return contextlib.nullcontext()
    from . import own_stream
    return own_stream(runner.device_id, priority=EXEC_PRIORITY)


def _execute(runner, idx, res_all, band_all, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, self_barrier, mem, wide, kept,
             status):
    """Tracebacks of anchors ``idx`` on the GPU, in batches within ``mem``.

    A side whose rows at its best no slot holds yet keeps them in a fresh
    one of ``kept`` (a later redo may stop there). Returns the columns of
    the sides (left, right, left, ...) as one flat array and each side's
    count (for :func:`_store_columns`), the routes of the sides' records off
    their paths and each side's bytes of them (-1: none, for :func:`_store_routes`),
    and the seconds of the executor (the device's tracebacks included) and
    of gathering the columns.
    """
    clock = time.perf_counter
    exec_s = tb_s = 0.0
    side_rows = _side_rows(idx)
    flats, side_lens = [], np.zeros(len(side_rows), dtype=np.int64)
    rflats, route_lens = [], np.zeros(len(side_rows), dtype=np.int64)
    ds_all = res_all[side_rows, R_BI] + res_all[side_rows, R_BJ]
    need = np.where(ds_all > 0, res_all[side_rows, R_CAB] + _ROW_BYTES * (ds_all + 1) + route_room(ds_all, 0),
                    0).reshape(-1, 2).sum(axis=1)
    start = 0
    while start < len(idx):
        # a batch: consecutive anchors whose tracebacks fit the budget together (at least one)
        stop = start + 1 + int(np.searchsorted(np.cumsum(need[start + 1:]), mem - need[start], side="right"))
        rows = np.arange(2 * start, 2 * stop)
        run = rows[ds_all[rows] > 0]
        start = stop
        if not len(run):
            continue
        srow = side_rows[run]
        ds = ds_all[run]
        cab = res_all[srow, R_CAB]
        tbb = np.concatenate([[0], np.cumsum(cab)[:-1]]).astype(np.int64)
        adb = np.concatenate([[0], np.cumsum(ds + 1)[:-1]]).astype(np.int64)
        tasks = _side_tasks(srow, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, bool(self_barrier))
        keep = np.full(len(srow), -1, dtype=np.int64)
        want = np.flatnonzero(kept.slot_of[srow] < 0)
        if len(want):
            keep[want] = kept.fresh(len(want), status)
            kept.assign(srow[keep >= 0], keep[keep >= 0])
        c0 = clock()
        flat, lens, rflat, rlens = runner.execute(tasks, band_all[srow], ds, tbb, adb, int(cab.sum()),
                                                  int((ds + 1).sum()), res_all[srow, R_BI], res_all[srow, R_BJ], wide,
                                                  keep, PATH_ROUTES)
        if HOST_STOP:
            kept.fetch(runner, srow[keep >= 0], keep[keep >= 0])
        c1 = clock()
        exec_s += c1 - c0
        # run ascends, so the batches' columns follow the sides' order
        flats.append(flat)
        side_lens[run] = lens
        rflats.append(rflat)
        route_lens[run] = rlens
        tb_s += clock() - c1
    empty = np.zeros(0, dtype=np.uint8)
    return (np.concatenate(flats) if flats else empty, side_lens, np.concatenate(rflats) if rflats else empty,
            route_lens, exec_s, tb_s)


def _trace_room(stale, mem):
    """Traceback room per side for a wide round in one launch, or None where ``mem`` is short.

    ``stale`` are the sides' rows from their last inspection, with fewer
    walls: twice the cells and anti-diagonals of their last run to its end, plus some. A side that
    outgrows its room still gets its inspection; the executor traces it back.
    """
    tb_room = _up16(2 * stale[:, R_FULL_CELLS] + (1 << 16))
    ad_room = 2 * stale[:, R_FULL_DIAGS] + (1 << 12)
    # on the device: the rooms, and as much again packed; 12 bytes per row, 16 packed
    if int(2 * tb_room.sum() + 28 * ad_room.sum()) > mem:
        return None
    return tb_room, ad_room


def _traced_columns(held, idx, r, tasks, traced, t, q, ops_idx, store, used, route_idx, routes, rused):
    """Store the columns of anchors ``idx[held]`` from the tracebacks a mode 2 inspection packed, and
    the routes of their records off the paths where it packed the records.

    ``r`` and ``tasks`` are that inspection's rows (left, right per anchor
    of ``idx``), ``traced`` its ``(tb, tb_lo, tb_off, tbb, adb, rec)``. Returns
    the (grown) store and the new ``used``, as :func:`_store_columns`, then
    the routes' (:func:`_store_routes`).
    """
    tb, tb_lo, tb_off, tbb, adb, rec = traced
    srow = _side_rows(held)
    past = np.flatnonzero(r[srow, R_BI] + r[srow, R_BJ] > 0)     # sides whose best cell is past the origin
    run = srow[past]
    flat, lens = _traceback_batch(tb, tb_lo, tb_off, tbb[run], adb[run], r[run, R_BI], r[run, R_BJ], tasks[run], t,
                                  q)
    side_lens = np.zeros(len(srow), dtype=np.int64)
    side_lens[past] = lens          # past ascends: the columns follow the sides' order
    store, used = _store_columns(flat, side_lens, idx[held], ops_idx, store, used)
    if rec is None:
        return store, used, routes, rused
    # the host walks the routes as ydrop_trace would (the bytes are the round's packed copy)
    rflat, rlens = routes_batch(tb, tb_lo, tb_off, rec, tbb[run], adb[run], r[run, R_BI], r[run, R_BJ])
    route_lens = np.zeros(len(srow), dtype=np.int64)
    route_lens[past] = rlens
    routes, rused = _store_routes(rflat, route_lens, idx[held], ops_idx, route_idx, routes, rused)
    return store, used, routes, rused


def _store_pieces(pieces, idx, ops_idx, store, used):
    """:func:`_store_columns` of the columns ``pieces`` (one array per side, left, right, left, ...), each
    copied straight into the store.

    A long batch's pieces hold megabases of columns: joined first into a
    fresh array, they took 12 ms on the batch's thread in one timeline
    (E. coli, − strand), with the walk waiting for the batch.
    """
    lens = np.array([len(p) for p in pieces], dtype=np.int64)
    store, offs = _column_offsets(lens, idx, ops_idx, store, used)
    for k, piece in enumerate(pieces):
        store[offs[k]:offs[k + 1]] = piece
    return store, int(offs[-1])


def _store_columns(flat, lens, idx, ops_idx, store, used):
    """Append the columns of anchors ``idx`` to ``store[used:]``: ``flat`` holds them side after side
    (left, right, left, ...), ``lens`` each side's count.

    ``ops_idx[a]`` then locates anchor a's left and right columns. Returns
    the (grown) store and the new ``used``.
    """
    store, offs = _column_offsets(lens, idx, ops_idx, store, used)
    store[used:offs[-1]] = flat
    return store, int(offs[-1])


def _store_routes(flat, lens, idx, ops_idx, route_idx, routes, used):
    """Append the routes of anchors ``idx``'s sides (``flat``, side after side, ``lens`` bytes each, -1:
    none) to ``routes[used:]``, after their columns went to the store (:func:`_store_columns`).

    ``route_idx[a, :3]`` then locates anchor a's left and right routes, and
    ``route_idx[a, 3 + side]`` is the side's columns' start in the store: the
    routes belong to those columns only (:func:`~gpukernels.gpu.path_holds.path_holds`;
    a side stored again from another run has other columns). Returns the
    (grown) routes and the new ``used``.
    """
    routes, offs = _column_offsets(np.maximum(lens, 0), idx, route_idx, routes, used)
    routes[used:offs[-1]] = flat
    route_idx[idx, 3] = np.where(lens[0::2] >= 0, ops_idx[idx, 0], -1)
    route_idx[idx, 4] = np.where(lens[1::2] >= 0, ops_idx[idx, 1], -1)
    return routes, int(offs[-1])


def _column_offsets(lens, idx, ops_idx, store, used):
    """Place sides of ``lens`` columns (left, right, left, ...) of anchors ``idx`` at ``store[used:]``:
    their offsets into ``ops_idx`` and the store grown to hold them. Returns the store and the offsets."""
    offs = used + np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    store = grow(store, int(offs[-1]))
    ops_idx[idx, 0] = offs[0:-1:2]
    ops_idx[idx, 1] = offs[1::2]
    ops_idx[idx, 2] = offs[2::2]
    return store, offs
