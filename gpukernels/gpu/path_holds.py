"""The walk's proof that a dirty side's stale GPU result holds with the walls of now, without a DP.

A side whose region an alignment kept since its inspection touches is
*dirty* (:func:`~gpukernels.gpu.kept.side_dirty`); most such sides still
have the result the device computed, and :func:`path_holds` shows it from
the stale path, its rows at the best and a few witness cells, so that the
walk (:mod:`gpukernels.gpu.gapped`) and its stripes need not redo them on
the host. ``tests/test_path_holds.py`` checks the argument against the DP.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cpu import gapped as cg
from ..cpu.gapped import OP_D, OP_EQ, OP_X
from .kernel_twin import _FAR, ROUTE_HEAD, _cell_walled, get_int
from .runner import DUMP_HEAD

#: substitutions along the diagonal a stale path leaves for a gap, taken as witnesses of its best (path_holds)
BRANCH = 64


@njit(cache=True, nogil=True)
def path_holds(a, side, check, status, anchor_q, anchor_t, rows_host, rows_at, store, ops_idx, routes, route_idx,
               walls, t, q, t_rev, q_rev, t_lo, t_hi, q_lo, q_hi, self_barrier, matrix, gap_open, gap_ext, ydrop, host):
    """Does side ``side`` of executed anchor ``a`` keep its stale result with the walls of now, DP or not?

    The walls only grew since the stale run S; call the run with the walls
    of now N. The test takes S's path (columns ``store``, from the anchor
    outwards), its rows at the best as the device kept them (``rows_host``,
    ``rows_at``; without them, or without ``check``, :data:`PATH_CHECK`, no)
    and *witnesses* (:func:`witness_cells`): the path's cells, along
    each diagonal the path leaves for a gap, up to :data:`BRANCH`
    substitutions on (where S's best often rose for a while: the old
    diagonal matching by chance past an indel), and the *routes* of S's
    records off the path, where the device traced them
    (:func:`~gpukernels.gpu.kernel_twin.side_routes`: ``routes`` from
    ``route_idx[a, side]``, valid while ``route_idx[a, 3 + side]`` is the
    path's start in ``store``). Each witness cell has a
    score, that of its route from the origin. With R(d) the best
    substitution-ending witness score before anti-diagonal d (0 at first):

    1. no cell of the path is on a wall or under R(d) - ydrop, also where the
       path is in a gap (there S's cell may have lived by another score);
       a branch ends before its first cell that is on a wall, under that
       floor, or above an earlier cell of the branch by more than ydrop; a
       route ends before its first cell on a wall or under that floor;
    2. R(d) summed over anti-diagonals 1 to the best one D is the kernel's
       sum of S's best before each d (the rows' header);
    3. where the path skips an anti-diagonal (a substitution from (i, j)),
       one of (i + 1, j) and (i, j + 1) is off the walls and the barrier and
       the gap into it from (i, j) clears the floor.

    Why: R is at most S's best at every d (a witness score is at most S's
    score of its cell while the route lives in S, and a branch cell past a
    cell dead in S lies below S's best then, the branch never rising by more
    than ydrop; a route's cells are S's own, scored as S scored them), so by
    2 the two are equal at every d. With every record's route, R is S's best
    wherever no wall or floor cuts a route: test 2 then holds. Then by induction
    over the anti-diagonals up to D: N's floors are S's (its best before
    each d is at least R, every witness route living in N as in S by 1, and
    at most S's, as N's cells are nowhere above S's when the floors agree,
    the cell rules being monotone and the walls only more), the path's cells
    score the same in N (the max over the same path step, no more than S's),
    every anti-diagonal up to D keeps a live cell (3), and each path cell's
    traceback byte is the same (the option taken scores the same, the others
    no more, so the preferred one among equals stays). Past D, N's cells are
    nowhere above S's, below B: the best cell, score and traceback are S's
    (the argument of the kernel's ``at_stale_best``). Only the cells of the
    y-drop tail may change. ``tests/test_path_holds.py`` checks it against
    the DP.
    """
    at = rows_at[2 * a + side]
    # (a gap's cells then score below the cell it opened from, and a second gap column extends)
    if not check or status[a] != 2 or at < 0 or gap_open < 0 or gap_open + gap_ext <= 0:
        return False
    kept = rows_host[at:at + DUMP_HEAD]
    dstale = kept[0]
    if dstale < 1 or kept[6] + kept[7] != dstale:
        return False
    tA, T0, tn, qA, Q0, qn, bar, wq0, wt0, wdir = cg.side_frame(side == 1, t, q, t_rev, q_rev, anchor_q[a],
                                                                anchor_t[a], t_lo[a], t_hi[a], q_lo[a], q_hi[a],
                                                                self_barrier)
    ops = store[ops_idx[a, side]:ops_idx[a, side + 1]]
    own = routes[route_idx[a, side]:route_idx[a, side + 1]]
    if route_idx[a, 3 + side] != ops_idx[a, side]:
        own = routes[:0]
    cd, cs, ck, n, ok = witness_cells(ops, own, tA, T0, tn, qA, Q0, qn, bar, wq0, wt0, wdir, walls, matrix,
                                      gap_open + gap_ext, gap_ext, ydrop, kept)
    if not ok:
        return False
    # anti-diagonal by anti-diagonal: R before each, the floor tests, R summed over 1..D
    order = by_antidiagonal(cd, n, dstale)
    dead = np.zeros(cd.shape[0], dtype=np.bool_)     # by branch or route (fewer than the room for cells)
    run = 0
    pending = 0
    last = 0
    rsum = 0
    for x in order:
        d = cd[x]
        if d != last:
            run = max(run, pending)
            rsum += run * (d - last)
            last = d
        kind = ck[x]
        score = cs[x]
        if kind >= 0:
            if dead[kind >> 1]:
                continue
            if score < run - ydrop:
                dead[kind >> 1] = True
                continue
            if not kind & 1:
                pending = max(pending, score)
        else:
            if score < run - ydrop:
                return False
            if kind == -1:
                pending = max(pending, score)
    if last != dstale or rsum != (np.int64(kept[15]) << 32) | (np.int64(kept[14]) & 0xffffffff):
        return False
    host[10] += 1
    return True


@njit(cache=True, nogil=True)
def by_antidiagonal(cd, n, dmax):
    """The witnesses of anti-diagonals up to ``dmax`` among ``cd[:n]``, in order of anti-diagonal (a counting sort).

    The same order as a stable sort of ``cd[:n]`` cut at ``dmax``, in time
    linear in ``n + dmax``: the path's cells come in order already and each
    branch's too, and a comparison sort took two thirds of :func:`path_holds`.
    """
    start = np.zeros(dmax + 2, dtype=np.int64)
    for x in range(n):
        d = cd[x]
        if d <= dmax:
            start[d + 1] += 1
    for d in range(dmax + 1):
        start[d + 1] += start[d]
    order = np.empty(start[dmax + 1], dtype=np.int64)
    for x in range(n):
        d = cd[x]
        if d <= dmax:
            order[start[d]] = x
            start[d] += 1
    return order


@njit(cache=True, nogil=True)
def witness_cells(ops, routes, tA, T0, tn, qA, Q0, qn, bar, wq0, wt0, wdir, walls, matrix, goe, gext, ydrop, kept):
    """The witness cells of :func:`path_holds`: anti-diagonal, score and kind of each, and the path's own tests.

    Kind -1: a substitution-ending cell of the path; -2: one of its gap cells,
    or the score a skipped anti-diagonal's cell reaches from the path (test
    3), both only tested against the floor; 2 b and 2 b + 1 >= 0: a
    substitution-ending and a gap cell of branch or route b. ``routes``: the
    side's routes of records off the path (:func:`~gpukernels.gpu.kernel_twin.side_routes`'s
    bytes), each scored from the path's cell where it meets it and cut
    before its first cell on a wall.
    Returns the three arrays, their length, and False where the path fails
    a test that needs no floor (a wall on it, both cells of a skipped
    anti-diagonal dead, or an end other than the kept best's).
    """
    m = ops.shape[0]
    cap = 2 * m + 2 + routes.shape[0]
    for x in range(m):
        if ops[x] > OP_X and (x == 0 or ops[x - 1] <= OP_X):
            cap += BRANCH
    cd = np.empty(cap, dtype=np.int64)
    cs = np.empty(cap, dtype=np.int64)
    ck = np.empty(cap, dtype=np.int64)
    # the path's score at each anti-diagonal it stands on (where a route meets it)
    at_d = np.full(2 * m + 2 if routes.shape[0] else 1, -1, dtype=np.int64)
    score_at = np.zeros(at_d.shape[0], dtype=np.int64)
    at_d[0] = 0
    n = 0
    nb = 0
    i = j = d = 0
    p = 0
    prev = -1
    for x in range(m):
        op = ops[x]
        if op == OP_EQ or op == OP_X:
            if (_cell_walled(i + 1, j, bar, wq0, wt0, wdir, walls)
                    and _cell_walled(i, j + 1, bar, wq0, wt0, wdir, walls)):
                return cd, cs, ck, n, False
            cd[n], cs[n], ck[n] = d + 1, p - goe, -2
            n += 1
            i += 1
            j += 1
            p += matrix[tA[T0 - j], qA[Q0 + i]]
            d += 2
        else:
            if prev == -1 or prev == OP_EQ or prev == OP_X:
                # the path leaves diagonal j - i here: the branch of substitutions along it
                bi, bj, w, low = i, j, p, _FAR
                for _ in range(BRANCH):
                    bi += 1
                    bj += 1
                    if bi > qn or bj > tn:
                        break
                    w += matrix[tA[T0 - bj], qA[Q0 + bi]]
                    if w < p - ydrop or w - low > ydrop or _cell_walled(bi, bj, bar, wq0, wt0, wdir, walls):
                        break
                    low = min(low, w)
                    cd[n], cs[n], ck[n] = bi + bj, w, 2 * nb
                    n += 1
                nb += 1
            p -= gext if op == prev else goe
            if op == OP_D:
                j += 1
            else:
                i += 1
            d += 1
        if _cell_walled(i, j, bar, wq0, wt0, wdir, walls):
            return cd, cs, ck, n, False
        cd[n], cs[n], ck[n] = d, p, -1 if op == OP_EQ or op == OP_X else -2
        n += 1
        if routes.shape[0]:
            at_d[d] = i
            score_at[d] = p
        prev = op
    ok = d == kept[0] and i == kept[6] and j == kept[7] and p == kept[5]
    x = 0
    while ok and x + ROUTE_HEAD <= routes.shape[0]:
        # a route: from the path's cell (d0, i0) in state st, its columns stored from its record back
        d0, i0, st, cnt = get_int(routes, x), get_int(routes, x + 4), get_int(routes, x + 8), get_int(routes, x + 12)
        x += ROUTE_HEAD + cnt
        if d0 >= at_d.shape[0] or at_d[d0] != i0 or x > routes.shape[0]:
            return cd, cs, ck, n, False
        ri, rj, w = i0, d0 - i0, score_at[d0]
        for y in range(x - 1, x - 1 - cnt, -1):
            col = routes[y]
            if col == 0:
                ri += 1
                rj += 1
                w += matrix[tA[T0 - rj], qA[Q0 + ri]]
                st = 0
            elif col == 3:
                rj += 1
                w -= gext if st == 1 else goe
                st = 1
            else:
                ri += 1
                w -= gext if st == 2 else goe
                st = 2
            if _cell_walled(ri, rj, bar, wq0, wt0, wdir, walls):
                break
            cd[n], cs[n], ck[n] = ri + rj, w, 2 * nb + (st != 0)
            n += 1
        nb += 1
    return cd, cs, ck, n, ok
