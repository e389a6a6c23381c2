"""The walk in target stripes: anchors whose sides explore rows apart from each other's, walked at once.

The sequential rule (:func:`gpukernels.gpu.gapped._walk`) decides anchors
in order, and each decision reads and writes only target rows near its
anchor: whether the anchor lies on a kept path (its own row), whether an
alignment kept since its inspection meets the region its sides explored
(:func:`~gpukernels.gpu.kept.side_dirty`), the walls along its stale
path (:func:`~gpukernels.gpu.path_holds.path_holds`), the walls a redone side
sweeps (rows at most its anti-diagonals away from the anchor), and the walls
its kept path adds (rows inside those). So where the undecided anchors
ahead fall into groups whose rows lie apart, every interleaving of the
groups' decisions gives the sequential rule's result, and the groups can be
walked on host threads at once.

A *segment* runs from the walk's position to its first *barrier*: an anchor
without a GPU traceback (host-only, abandoned, under way beside the walk),
or one whose sides reach over more than :data:`STRIPE_WIDE` rows. Its
other undecided anchors each reach ``[at + 1 - L, at + 1 + R]``, with ``L``
and ``R`` their sides' anti-diagonals from the inspection (the larger of the
last run and the last full one) plus :data:`BRANCH` and
:data:`STRIPE_MARGIN`. The reaches that overlap form clusters, and the
clusters, in target order, are dealt to the stripes by count (half the
host threads of ``extend_anchors``, at most :data:`STRIPES`);
the rows between two stripes' clusters are split in the middle, so the
stripes own rows apart (:func:`plan_stripes`).

Each stripe walks its anchors in order (:func:`walk_stripe`) with the
alignments kept before the segment (the shared arrays, read only) and its
own kept ones (arrays of its own); it writes walls only in its rows. An
anchor's true reach is checked before anything of it is written: a side
redone here may sweep farther than its inspection did. Where it goes out of
the stripe's rows, the result may differ from the sequential rule's, and
the whole strand is extended again without stripes (:class:`StripeEscape`);
no result is ever taken from a stripe that stepped out. A stripe stops at
an anchor with a side worth a GPU round; the others go on to the barrier,
and after the round the stripes go on from there in the same stripes (the
anchors decided meanwhile past the stop lie in other stripes' rows).
After each pass the stripes' alignments join the shared arrays in the
order of their anchors (their walls are in place already), so the kept
alignments are numbered as the sequential rule numbers them, but for
alignments of different stripes kept on either side of a stop; the call
returns them in their anchors' order (``gapped._in_anchor_order``), as the
CPU twin does.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..cpu import gapped as cg
from ..cpu.cycles import cycles
from .gapped import (H_CHECK, H_KEEP, H_KEPT, H_N, H_SIDES, R_FULL_DIAGS, ROUND_LOOK, _big_dirty, _big_side,
                     _both_sides, _cluster_ahead, _dirty_sides, _walk)
from .kept import add_kept, add_kept_runs, on_kept
from .path_holds import BRANCH
from .runner import R_DIAGS

#: threads walking a strand's anchors at once at most (``extend_anchors`` takes half its host threads)
STRIPES = 8
#: rows added to each side's reach from its inspection when the stripes are placed (a redone side may
#: sweep farther; one that leaves its stripe's rows sends the strand back to the sequential walk)
STRIPE_MARGIN = 2048
#: an anchor whose sides reach over more rows than this is a barrier, walked alone
STRIPE_WIDE = 1 << 17
#: a segment with fewer undecided anchors than this is walked sequentially
STRIPE_MIN = 32


#: where ``_walk``'s arguments past ``pos, end`` hold the arrays it returns grown (ops_all, runs, ents,
#: tb, tb_off, tb_lo)
_GROWN = (24, 26, 28, 32, 33, 34)


class StripeEscape(Exception):
    """A side redone in a stripe swept rows outside the stripe's: the strand is extended again, sequentially."""


@njit(cache=True, nogil=True)
def _reach(r, d):
    """Anti-diagonals past the anchor that a side's decision may read rows of: its inspection's (and a
    branch of :func:`~gpukernels.gpu.path_holds.path_holds` past its best), or ``d`` swept by its redo."""
    return max(max(r[R_DIAGS], r[R_FULL_DIAGS]) + BRANCH + 1, d)


@njit(cache=True, nogil=True)
def _rows(a, d_left, d_right, margin, res_all, anchor_t, t_lo, t_hi):
    """The rows ``[lo, hi]`` anchor ``a``'s decision may read or write (its sides' :func:`_reach` and
    ``margin`` more, inside its record)."""
    at = anchor_t[a]
    return (max(at + 1 - _reach(res_all[2 * a], d_left) - margin, t_lo[a]),
            min(at + 1 + _reach(res_all[2 * a + 1], d_right) + margin, t_hi[a]))


@njit(cache=True, nogil=True)
def plan_stripes(pos, end, status, res_all, anchor_t, t_lo, t_hi, nrows, margin, wide, nstripes, bounds, order, starts):
    """Stripes for the segment from ``pos``: its barrier, and each stripe's anchors and rows.

    Writes ``bounds[s]`` (the rows ``[lo, hi)`` stripe ``s`` owns) and
    ``order[starts[s]:starts[s + 1]]`` (its anchors, the undecided ones
    before the barrier, in walk order).
    Returns the barrier (``end`` when none) and the anchors placed.
    """
    lo = np.empty(end - pos, dtype=np.int64)
    hi = np.empty(end - pos, dtype=np.int64)
    idx = np.empty(end - pos, dtype=np.int64)
    m = 0
    c = end
    for a in range(pos, end):
        st = status[a]
        if st == 4:
            continue
        if st != 2:
            c = a
            break
        lo[m], hi[m] = _rows(a, 0, 0, margin, res_all, anchor_t, t_lo, t_hi)
        hi[m] += 1
        if hi[m] - lo[m] > wide:
            c = a
            break
        idx[m] = a
        m += 1
    starts[:] = 0
    if m == 0:
        return c, 0
    srt = np.argsort(lo[:m], kind="mergesort")
    # clusters of overlapping reaches, in target order
    cl = np.empty(m, dtype=np.int64)
    first = np.empty(m + 1, dtype=np.int64)     # a cluster's first reach (in srt)
    top = np.empty(m, dtype=np.int64)           # a cluster's highest row, exclusive
    ncl = 0
    reach = -(1 << 62)
    for k in range(m):
        x = srt[k]
        if lo[x] >= reach:
            first[ncl] = k
            top[ncl] = hi[x]
            ncl += 1
        else:
            top[ncl - 1] = max(top[ncl - 1], hi[x])
        reach = max(reach, hi[x])
        cl[x] = ncl - 1
    first[ncl] = m
    # clusters to stripes by count, in target order; the rows between two stripes split in the middle
    stripe_of = np.empty(ncl, dtype=np.int64)
    for g in range(ncl):
        mid = (first[g] + first[g + 1]) // 2
        stripe_of[g] = min(mid * nstripes // m, nstripes - 1)
    for s in range(nstripes):
        bounds[s, 0] = 0
        bounds[s, 1] = nrows
    for g in range(1, ncl):
        p, s = stripe_of[g - 1], stripe_of[g]
        if p != s:
            cut = (top[g - 1] + lo[srt[first[g]]]) // 2
            for u in range(p + 1, s + 1):
                bounds[u, 0] = cut
            for u in range(p, s):
                bounds[u, 1] = cut
    for k in range(m):
        starts[stripe_of[cl[k]] + 1] += 1
    for s in range(nstripes):
        starts[s + 1] += starts[s]
    fill = starts[:nstripes].copy()
    for k in range(m):
        s = stripe_of[cl[k]]
        order[fill[s]] = idx[k]
        fill[s] += 1
    return c, m


@njit(cache=True, nogil=True)
def walk_stripe(mine, row_lo, row_hi, status, stamp, res_all, anchor_q, anchor_t, t, q, t_lo, t_hi, matrix, gap_open,
                gap_ext, gappedthresh, K, cnt, op_off, ops_all, run_off, runs, head, ents, walls, anchor_cells, work,
                tb, tb_off, tb_lo, round_cells, held, lk, lcnt, lop_off, lops, lrun_off, lruns, lhead, lents):
    """The sequential rule over one stripe's anchors ``mine`` (:func:`gapped._walk`'s steps).

    Kept alignments go to the stripe's own arrays (``lk`` ..., with the
    anchor of each in ``lk[:, 5]``), their walls to the shared walls, in rows
    ``[row_lo, row_hi)``. Returns the index in ``mine`` where the stripe
    stopped (``len(mine)`` when done), whether it stopped because an
    anchor's reach left its rows, and the grown arrays.
    """
    host = held[-1]
    rows_at = held[5]
    for x in range(mine.shape[0]):
        a = mine[x]
        if status[a] == 4:
            continue
        aq = anchor_q[a]
        at = anchor_t[a]
        c0 = cycles()
        kept_path = (on_kept(aq, at, 0, K, run_off, runs, head, ents)
                     or on_kept(aq, at, 0, lk, lrun_off, lruns, lhead, lents))
        c1 = cycles()
        host[H_KEPT] += c1 - c0
        if kept_path:
            status[a] = 4
            continue
        own = (lk, lcnt, lop_off, lops, lrun_off, lruns, lhead, lents)
        redo = _dirty_sides(a, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off, runs, head, ents,
                            held, own)
        big = _big_side(a, redo, round_cells, res_all, rows_at)
        if big == 2 and not _cluster_ahead(mine[x + 1:min(mine.shape[0], x + ROUND_LOOK)], round_cells, status, stamp,
                                           res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off, runs, head,
                                           ents, held, own):
            big = 0
        if big:
            return x, False, lops, lruns, lents, tb, tb_off, tb_lo
        c2 = cycles()
        host[H_CHECK] += c2 - c1
        lsc, li, lj, lpath, rsc, ri, rj, rpath, cells, d1, d2, tb, tb_off, tb_lo = _both_sides(a, redo, res_all, held,
                                                                                                work, tb, tb_off, tb_lo,
                                                                                                True)
        host[H_SIDES] += cycles() - c2
        lo, hi = _rows(a, d1, d2, 0, res_all, anchor_t, t_lo, t_hi)
        if lo < row_lo or hi >= row_hi:
            return x, True, lops, lruns, lents, tb, tb_off, tb_lo
        c3 = cycles()
        status[a] = 4
        host[2] += (redo & 1) + (redo >> 1)
        anchor_cells[a] = cells
        if redo:
            host[5] += 1
        if li + lj + ri + rj == 0:
            continue
        path, s_t0, s_q0, score = cg.join_sides(lpath, rpath, aq, at, li, lj, lsc, rsc, gap_open)
        if score < gappedthresh:
            continue
        lops, lruns, lents = add_kept(path, s_t0, s_q0, at + 1 + rj, aq + 1 + ri, score, lk, lcnt, lop_off, lops,
                                      lrun_off, lruns, lhead, lents, walls, a)
        host[H_KEEP] += cycles() - c3
    return mine.shape[0], False, lops, lruns, lents, tb, tb_off, tb_lo


@njit(cache=True, nogil=True)
def merge_kept(perm, kk, koff, kops, kroff, kruns, K, cnt, op_off, ops_all, run_off, runs, head, ents):
    """The stripes' kept alignments into the shared arrays, in the order ``perm`` (their anchors').

    ``kk``, ``koff``, ``kops``, ``kroff``, ``kruns``: all stripes' alignments
    (rows of ``K``), column offsets, columns, run offsets and runs, one after
    the other. Their walls are in place already, and their runs are the
    stripes' own (a pass over the columns to find them again took 3-4 ms of
    each pass on E. coli, on the walk's path). Returns the grown arrays.
    """
    for x in perm:
        ops_all, runs, ents = add_kept_runs(kops[koff[x]:koff[x + 1]], kruns[kroff[x]:kroff[x + 1]], kk[x, 0],
                                            kk[x, 2], kk[x, 1], kk[x, 3], kk[x, 4], K, cnt, op_off, ops_all, run_off,
                                            runs, head, ents, kk[x, 5])
    return ops_all, runs, ents


def _joined(offsets, items):
    """Per-stripe items (each stripe's ``offsets`` into its ``items``, from 0) one after the other: the joined
    offsets and items."""
    sizes = np.concatenate([np.diff(o) for o in offsets])
    off = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=off[1:])
    return off, np.concatenate([it[:o[-1]] for o, it in zip(offsets, items)])


class StripedWalk:
    """:func:`gapped._walk` for one call of ``extend_anchors``, over stripes of the target on host threads.

    :meth:`walk` takes and returns what ``_walk`` does. The plan of the
    segment being walked lives here between calls (a GPU round may stop the
    walk inside a segment).
    """

    def __init__(self, n, nrows, nheads, work_shape, stripes, label=""):
        self.nstripes = max(1, int(stripes))
        self.nrows = nrows
        self.nheads = nheads
        self.work_shape = work_shape
        self.order = np.empty(n, dtype=np.int64)
        self.starts = np.zeros(self.nstripes + 1, dtype=np.int64)
        self.bounds = np.zeros((self.nstripes, 2), dtype=np.int64)
        self.barrier = -1           # the plan's barrier; -1: no plan
        self.stepped = False        # the plan's segment is walked in stripes (so its anchors are decided out of order)
        self.pool = ThreadPoolExecutor(self.nstripes, thread_name_prefix=f"ava-stripe{label}") \
            if self.nstripes > 1 else None
        self.buffers = [None] * self.nstripes
        #: stripe_cycles: the walk cycles of all stripes' passes; stripe_cycles_max: of each pass's busiest
        #: stripe (their ratio is how far the passes spread the walk); serial_s: the walk outside stripes
        self.stats = dict(stripe_passes=0, stripe_anchors=0, stripe_s=0.0, stripe_cycles=0, stripe_cycles_max=0,
                          serial_s=0.0, serial_anchors=0)

    def close(self):
        if self.pool is not None:
            self.pool.shutdown()

    def _buffers(self, s):
        """Stripe ``s``'s host DP buffers (made once: the work rows are as long as the longest record)."""
        if self.buffers[s] is None:
            self.buffers[s] = [np.empty(self.work_shape, np.int32), np.empty(1 << 16, np.uint8),
                               np.empty(1024, np.int64), np.empty(1024, np.int64)]
        return self.buffers[s]

    def walk(self, pos, end, *args):
        """The sequential rule over [pos, end) as :func:`gapped._walk`, with the stripes where they apply."""
        if self.pool is None:
            return _walk(pos, end, *args)
        rest = list(args)
        status, res_all, anchor_t = rest[0], rest[2], rest[6]
        while pos < end:
            if pos >= self.barrier:
                self.barrier, placed = plan_stripes(pos, end, status, res_all, anchor_t, rest[11], rest[12],
                                                    self.nrows, STRIPE_MARGIN, STRIPE_WIDE, self.nstripes,
                                                    self.bounds, self.order, self.starts)
                self.stepped = placed >= STRIPE_MIN
            c = self.barrier
            if not self.stepped:
                # too few anchors for the threads: the sequential walk, on to the barrier and through it
                upto = min(c + 1, end)
                out = self._serial(pos, upto, rest)
                if out[0] < upto:
                    return out
                pos = upto
                continue
            c0 = time.perf_counter()
            stop = self._pass(pos, rest)
            self.stats["stripe_s"] += time.perf_counter() - c0
            if stop < c:
                # a stripe stopped for a round: so does the walk, deciding nothing (the round's anchors
                # are walked in the same stripes after it). The stripe's alignments have joined the
                # shared ones, so the anchor's big dirty side shows there too (whether a side with rows
                # on the host goes to a round depends on the stripe's next anchors, which the sequential
                # walk does not see: it is not asked again)
                if not self._stops(stop, rest):
                    raise StripeEscape(f"anchor {stop}: the walk would not stop where its stripe did")
                return (stop,) + self._grown(rest)
            if c >= end:
                break
            out = self._serial(c, c + 1, rest)
            if out[0] == c:
                return out
            pos = c + 1
        return (end,) + self._grown(rest)

    @staticmethod
    def _grown(rest):
        """The arrays :func:`gapped._walk` returns grown, from ``rest`` (its arguments past ``pos, end``)."""
        return tuple(rest[i] for i in _GROWN)

    @staticmethod
    def _stops(a, rest):
        """Would the sequential walk stop at anchor ``a`` for a round (:func:`gapped._big_dirty`), but for
        :func:`gapped._cluster_ahead`?"""
        (status, stamp, res_all, store, ops_idx, anchor_q, anchor_t, t, q, t_rev, q_rev, t_lo, t_hi, q_lo, q_hi,
         matrix, gap_open, gap_ext, ydrop, gappedthresh, self_barrier, K, cnt, op_off, ops_all, run_off, runs,
         head, ents, walls, anchor_cells, work, tb, tb_off, tb_lo, host, round_cells, held) = rest
        if status[a] != 2 or on_kept(anchor_q[a], anchor_t[a], 0, K, run_off, runs, head, ents):
            return False
        return _big_dirty(a, round_cells, stamp, res_all, anchor_q, anchor_t, K, cnt, op_off, ops_all, run_off, runs,
                          head, ents, held)[1] != 0

    def _serial(self, pos, end, rest):
        """:func:`gapped._walk` over [pos, end); its grown arrays replace those of ``rest``."""
        c0 = time.perf_counter()
        out = _walk(pos, end, *rest)
        self.stats["serial_s"] += time.perf_counter() - c0
        self.stats["serial_anchors"] += out[0] - pos
        for i, v in zip(_GROWN, out[1:]):
            rest[i] = v
        return out

    def _pass(self, pos, rest):
        """Walk each stripe's undecided anchors from ``pos`` on at once; returns the first stop (or the barrier)."""
        (status, stamp, res_all, store, ops_idx, anchor_q, anchor_t, t, q, t_rev, q_rev, t_lo, t_hi, q_lo, q_hi,
         matrix, gap_open, gap_ext, ydrop, gappedthresh, self_barrier, K, cnt, op_off, ops_all, run_off, runs,
         head, ents, walls, anchor_cells, work, tb, tb_off, tb_lo, host, round_cells, held) = rest
        jobs = []
        for s in range(self.nstripes):
            mine = self.order[self.starts[s]:self.starts[s + 1]]
            mine = mine[mine >= pos]
            mine = mine[status[mine] != 4]
            if not len(mine):
                continue
            m = len(mine)
            local = (np.zeros((m, 6), np.int64), np.zeros(2, np.int64), np.zeros(m + 2, np.int64),
                     np.empty(1 << 12, np.uint8), np.zeros(m + 2, np.int64), np.empty((256, 4), np.int64),
                     np.full(self.nheads, -1, np.int64), np.empty((256, 2), np.int64))
            own_host = np.zeros_like(host)
            w, b_tb, b_off, b_lo = self._buffers(s)
            own_held = held[:-1] + (own_host,)
            jobs.append((s, mine, local, own_host, self.pool.submit(
                walk_stripe, mine, self.bounds[s, 0], self.bounds[s, 1], status, stamp, res_all, anchor_q, anchor_t,
                t, q, t_lo, t_hi, matrix, gap_open, gap_ext, gappedthresh, K, cnt, op_off, ops_all, run_off, runs,
                head, ents, walls, anchor_cells, w, b_tb, b_off, b_lo, round_cells, own_held, *local)))
        stop = self.barrier
        escaped = False
        parts = []
        busiest = 0
        for s, mine, local, own_host, fut in jobs:
            x, out, lops, lruns, lents, b_tb, b_off, b_lo = fut.result()
            self.buffers[s][1:] = [b_tb, b_off, b_lo]
            spent = int(own_host[H_KEPT:H_N].sum())
            busiest = max(busiest, spent)
            self.stats["stripe_cycles"] += spent
            host += own_host
            escaped |= out
            if x < len(mine):
                stop = min(stop, int(mine[x]))
            nk = int(local[1][0])
            if nk:
                parts.append((local[0][:nk], local[2][:nk + 1], lops, local[4][:nk + 1], lruns))
            self.stats["stripe_anchors"] += x
        self.stats["stripe_passes"] += 1
        self.stats["stripe_cycles_max"] += busiest
        if parts:
            kk = np.concatenate([p[0] for p in parts])
            koff, kops = _joined([p[1] for p in parts], [p[2] for p in parts])
            kroff, kruns = _joined([p[3] for p in parts], [p[4] for p in parts])
            perm = np.argsort(kk[:, 5], kind="mergesort")
            grown = merge_kept(perm, kk, koff, kops, kroff, kruns, K, cnt, op_off, ops_all, run_off, runs, head, ents)
            for i, v in zip(_GROWN, grown):      # ops_all, runs, ents
                rest[i] = v
        if escaped:
            raise StripeEscape("a side redone in a stripe swept rows outside it")
        return stop
