"""The kept alignments of the GPU engine's walk, and the tests of a point or a side's region against them.

The walk (:mod:`gpukernels.gpu.gapped`) and its stripes (:mod:`gpukernels.gpu.stripes`)
keep alignments in the CPU twin's order; these arrays hold them, shared by the
compiled helpers:

- ``K[k]``: target start and end, query start and end, score, and the anchor
  it came from (column 5, where given) of kept alignment ``k``;
- ``op_off`` / ``ops_all``: its path's columns (``cpu/gapped.OP_*``);
- ``run_off`` / ``runs``: its substitution runs, ``runs[r]`` = target start,
  query start, length, index of its first column in the path;
- ``head[b]`` / ``ents[e]`` = (next, k): the kept alignments by target bucket
  (``1 << BSHIFT`` positions), newest first, for the on-path and region tests;
- ``cnt``: the alignments kept and the bucket entries used.
"""

from __future__ import annotations

from numba import njit

from ..cpu import gapped as cg
from ..cpu.buffers import grow, grow_rows, move_items
from ..cpu.gapped import OP_D, OP_I, OP_X
from .runner import R_BI, R_BJ, R_DIAGS, R_IMAX, R_JMAX, R_KMAX, R_KMIN, R_STATUS

#: bucket width (target positions, as a shift) of the kept-alignment index
BSHIFT = 12



@njit(cache=True, nogil=True)
def on_path(aq, at, k, K, run_off, runs):
    """Is (aq, at) on kept alignment ``k``'s path: in its box and on one of its substitution runs?"""
    if at < K[k, 0] or at >= K[k, 1] or aq < K[k, 2] or aq >= K[k, 3]:
        return False
    a = run_off[k]
    z = run_off[k + 1]
    if a == z:
        return False
    while z - a > 1:
        m = (a + z) >> 1
        if runs[m, 0] <= at:
            a = m
        else:
            z = m
    return runs[a, 0] <= at < runs[a, 0] + runs[a, 2] and aq - at == runs[a, 1] - runs[a, 0]


@njit(cache=True, nogil=True)
def on_kept(aq, at, k_lo, K, run_off, runs, head, ents):
    """Is (aq, at) on the path of a kept alignment k >= k_lo?

    The alignment's box is tested here before :func:`on_path` is called:
    a call of a compiled function with array arguments costs about 150
    cycles (their reference counts), four times the test, and most of a
    bucket's alignments are rejected by it.
    """
    e = head[at >> BSHIFT]
    while e >= 0:
        k = ents[e, 1]
        if k >= k_lo and K[k, 0] <= at < K[k, 1] and K[k, 2] <= aq < K[k, 3] and on_path(aq, at, k, K, run_off,
                                                                                         runs):
            return True
        e = ents[e, 0]
    return False


@njit(cache=True, nogil=True)
def _put_path(path, s_t0, s_q0, t1, q1, score, anchor, K, cnt, op_off, ops_all):
    """Kept alignment ``cnt[0]``'s row of ``K`` and its columns (:func:`add_kept`'s first part). Returns ops_all."""
    nk = cnt[0]
    K[nk, 0] = s_t0
    K[nk, 1] = t1
    K[nk, 2] = s_q0
    K[nk, 3] = q1
    K[nk, 4] = score
    if anchor >= 0:
        K[nk, 5] = anchor
    nops = path.shape[0]
    ops_all = grow(ops_all, op_off[nk] + nops)
    move_items(ops_all, op_off[nk], path, 0, nops)
    op_off[nk + 1] = op_off[nk] + nops
    return ops_all


@njit(cache=True, nogil=True)
def _put_entries(s_t0, t1, cnt, run_off, head, ents):
    """Kept alignment ``cnt[0]``'s bucket entries, where it has runs, then counted (:func:`add_kept`'s last
    part, its runs in place). Returns ents."""
    nk = cnt[0]
    if run_off[nk + 1] > run_off[nk]:
        b_lo = s_t0 >> BSHIFT
        b_hi = (t1 - 1) >> BSHIFT
        ents = grow_rows(ents, cnt[1] + b_hi - b_lo + 1)
        for b in range(b_lo, b_hi + 1):
            e = cnt[1]
            ents[e, 0] = head[b]
            ents[e, 1] = nk
            head[b] = e
            cnt[1] += 1
    cnt[0] = nk + 1
    return ents


@njit(cache=True, nogil=True)
def add_kept(path, s_t0, s_q0, t1, q1, score, K, cnt, op_off, ops_all, run_off, runs, head, ents, walls, anchor=-1):
    """Add a kept alignment: columns, runs, bucket entries, walls. Returns grown arrays.

    ``K[k]`` holds the alignment's target and query bounds and score, and
    where ``anchor`` is given, the anchor it came from in ``K[k, 5]``
    (:func:`_in_anchor_order`).

    ``runs[r]`` = target start, query start, length, index of its first
    column in the path (``cpu/gapped.runs_of``). The runs and the walls
    (``cpu/gapped.mark_walls``) come from one pass over the columns, each
    substitution run in a loop of its own: the keeps are a quarter of the
    − strand's walk on E. coli (``walk_cycles``), and one pass took 15 %
    fewer cycles there than the two functions.
    """
    nk = cnt[0]
    ops_all = _put_path(path, s_t0, s_q0, t1, q1, score, anchor, K, cnt, op_off, ops_all)
    nops = path.shape[0]
    r = run_off[nk]
    lt = s_t0
    lq = s_q0
    cg.mark_point(walls, lt, lq)
    k = 0
    while k < nops:
        if path[k] <= OP_X:
            runs = grow_rows(runs, r + 1)
            runs[r, 0] = lt
            runs[r, 1] = lq
            runs[r, 3] = k
            x = k
            while k < nops and path[k] <= OP_X:
                lt += 1
                lq += 1
                cg.mark_point(walls, lt, lq)
                k += 1
            runs[r, 2] = k - x
            r += 1
        else:
            if path[k] == OP_I:
                lq += 1
            else:
                lt += 1
            cg.mark_point(walls, lt, lq)
            k += 1
    run_off[nk + 1] = r
    ents = _put_entries(s_t0, t1, cnt, run_off, head, ents)
    return ops_all, runs, ents


@njit(cache=True, nogil=True)
def add_kept_runs(path, path_runs, s_t0, s_q0, t1, q1, score, K, cnt, op_off, ops_all, run_off, runs, head, ents,
                  anchor=-1):
    """:func:`add_kept` with the path's runs given (``path_runs``, as :func:`add_kept` found them: a stripe's own
    keep), and its walls in place: no pass over the columns. Returns grown arrays."""
    nk = cnt[0]
    ops_all = _put_path(path, s_t0, s_q0, t1, q1, score, anchor, K, cnt, op_off, ops_all)
    r = run_off[nk]
    m = path_runs.shape[0]
    runs = grow_rows(runs, r + m)
    if m:
        move_items(runs, 4 * r, path_runs, 0, 4 * m)
    run_off[nk + 1] = r + m
    ents = _put_entries(s_t0, t1, cnt, run_off, head, ents)
    return ops_all, runs, ents


@njit(cache=True, nogil=True)
def in_region(lq, lt, aq, at, side, imax, jmax, kmin, kmax, dmax):
    """Is the point (lq, lt) in the region a side of the anchor (aq, at) explored?

    ``i``, ``j`` count from the anchor outwards (``side`` 0: leftwards); the
    region is ``i <= imax``, ``j <= jmax``, ``kmin <= j - i <= kmax`` and
    ``i + j <= dmax`` (:func:`side_dirty`).
    """
    if side == 0:
        i = aq + 1 - lq
        j = at + 1 - lt
    else:
        i = lq - (aq + 1)
        j = lt - (at + 1)
    return 0 <= i <= imax and 0 <= j <= jmax and kmin <= j - i <= kmax and i + j <= dmax


@njit(cache=True, nogil=True)
def run_in_region(lq, lt, length, aq, at, side, imax, jmax, kmin, kmax, dmax):
    """Is one of the points ``(lq + s, lt + s)``, s = 1..length (a substitution run's) in the region?

    :func:`in_region` for a diagonal segment at once: along it i and j move
    together, so each bound is an interval of s.
    """
    if side == 0:
        a, b = aq + 1 - lq, at + 1 - lt        # i = a - s, j = b - s
        lo = max(1, a - imax, b - jmax, -((dmax - a - b) // 2))
        hi = min(length, a, b)
    else:
        a, b = lq - (aq + 1), lt - (at + 1)    # i = a + s, j = b + s
        lo = max(1, -a, -b)
        hi = min(length, imax - a, jmax - b, (dmax - a - b) // 2)
    return kmin <= b - a <= kmax and lo <= hi


@njit(cache=True, nogil=True)
def side_dirty(aq, at, side, r, k_lo, K, op_off, ops_all, run_off, runs, head, ents):
    """Does a kept alignment ``k >= k_lo`` have a lattice point where the side's DP ran up to its best?

    ``r`` is the side's inspector row (the region explored up to the best
    anti-diagonal: ``R_IMAX``, ``R_JMAX``, ``R_KMIN``, ``R_KMAX``, and
    anti-diagonals up to ``R_BI + R_BJ``; for a side abandoned past
    :data:`~gpukernels.gpu.runner.DCAP`, all it explored, so that a clean one is still abandoned
    with the walls of now). Walls met only past the best
    anti-diagonal cannot change the side's result: up to there the DP is
    the same, and past it the walls only remove cells and lower scores
    (every cell there already scored below the best, as any cell not
    reached by a substitution scores below an earlier one that is), so the
    best cell and its traceback stay; only the y-drop tail, and with it the
    cell count, can shrink. Candidates come from the target buckets the
    region spans (newest first, so the scan of a bucket ends at the first
    alignment older than ``k_lo``); the walk along a path starts at its last
    substitution run starting before the region, and takes each run at once
    (:func:`run_in_region`), its gaps column by column.
    """
    imax, jmax, kmin, kmax = r[R_IMAX], r[R_JMAX], r[R_KMIN], r[R_KMAX]
    dmax = r[R_DIAGS] if r[R_STATUS] == 2 else r[R_BI] + r[R_BJ]
    if side == 0:
        qa, qb, ta, tb = aq + 1 - imax, aq + 1, at + 1 - jmax, at + 1
    else:
        qa, qb, ta, tb = aq + 1, aq + 1 + imax, at + 1, at + 1 + jmax
    for bkt in range(max(ta, 0) >> BSHIFT, (tb >> BSHIFT) + 1):
        if bkt >= head.shape[0]:
            break
        e = head[bkt]
        while e >= 0:
            k = ents[e, 1]
            e = ents[e, 0]
            if k < k_lo:
                break
            if K[k, 1] < ta or K[k, 0] > tb or K[k, 3] < qa or K[k, 2] > qb:
                continue
            lt = K[k, 0]
            lq = K[k, 2]
            x0 = op_off[k]
            lo = run_off[k]
            hi = run_off[k + 1]
            if lo < hi and runs[lo, 0] < ta:
                # last run starting before ta
                while hi - lo > 1:
                    m = (lo + hi) >> 1
                    if runs[m, 0] < ta:
                        lo = m
                    else:
                        hi = m
                lt = runs[lo, 0]
                lq = runs[lo, 1]
                x0 = op_off[k] + runs[lo, 3]
            if in_region(lq, lt, aq, at, side, imax, jmax, kmin, kmax, dmax):
                return True
            x = x0
            r = lo          # the next run: its first column is at x or after
            while x < op_off[k + 1]:
                if r < run_off[k + 1] and x == op_off[k] + runs[r, 3]:
                    n = runs[r, 2]
                    if run_in_region(lq, lt, n, aq, at, side, imax, jmax, kmin, kmax, dmax):
                        return True
                    lq += n
                    lt += n
                    x += n
                    r += 1
                    if lt > tb:
                        break
                    continue
                op = ops_all[x]
                x += 1
                if op != OP_I:
                    lt += 1
                if op != OP_D:
                    lq += 1
                if lt > tb:
                    break
                if in_region(lq, lt, aq, at, side, imax, jmax, kmin, kmax, dmax):
                    return True
    return False
