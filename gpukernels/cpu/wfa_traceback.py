"""WFA as the traceback of the gapped stage (uniform scoring only), numba.

The y-drop DP, run score-only (``ydrop_one_side(..., store=False)``), is the
inspector: it finds each side's best cell and score without keeping a
traceback. :func:`side_path` then aligns the two segments between the anchor
and that cell globally with WFA, using penalties from
:func:`gpukernels.wfa.penalties_from_scores`, for which
``2·score = match·(n + m) − g·penalty`` (``g``: the penalties' common divisor,
divided out before the call). The WFA path is accepted only when

* both segments are plain ``ACGT`` (N and the separator are outside WFA's
  alphabet),
* its score equals the DP's best score (it cannot be lower; it is higher
  when the optimum leaves the y-drop band or goes through a wall), and
* none of its lattice points, the anchor's excepted, lies on a wall of an
  earlier alignment or on the self-comparison barrier (``t == q``), cells
  the DP treats as dead.

Otherwise the caller runs the DP with its traceback for that side, so the
result is always an optimal path of the DP's score that the DP could have
taken.

numba caches ``cpu/gapped.extend_anchors`` with these functions compiled
in, keyed on ``cpu/gapped.py`` alone: after editing this file, touch that one.
"""

import numpy as np
from numba import njit

from .wfa import OP_INS, OP_MATCH, OP_MISMATCH, _align_one

# the engine's column codes (cpu/gapped.py: OP_EQ, OP_X, OP_I, OP_D)
_EQ, _X, _I, _D = 0, 1, 2, 3

#: side_path outcomes, also the index of each counter in ``stats``
WFA_OK, FALL_N, FALL_SCORE, FALL_WALL, FALL_COST = 0, 1, 2, 3, 4
STAT_NAMES = ("wfa", "fallback_n", "fallback_score", "fallback_wall", "fallback_cost")
#: cap on WFA's stored wavefront cells (about 12 bytes each) for one side
MAX_WFA_CELLS = 1 << 25
#: WFA runs on a side when ``penalty² / e × COST_FACTOR`` ≤ the DP cells of that side
COST_FACTOR = 1


@njit(cache=True, nogil=True)
def plain_acgt(codes, start, length):
    """True when ``codes[start:start + length]`` are all A, C, G or T (codes 0-3)."""
    for k in range(length):
        if codes[start + k] > 3:
            return False
    return True


@njit(cache=True, nogil=True)
def wfa_cost(penalty, e):
    """Rough count of wavefront cells WFA stores to reach ``penalty``: ``penalty² / e``."""
    return penalty * penalty // max(e, 1)


@njit(cache=True, nogil=True)
def to_columns(letters, n):
    """WFA CIGAR letters (``=XID``, pattern = target) → the engine's column codes."""
    ops = np.empty(n, dtype=np.uint8)
    for k in range(n):
        c = letters[k]
        if c == OP_MATCH:
            ops[k] = _EQ
        elif c == OP_MISMATCH:
            ops[k] = _X
        elif c == OP_INS:
            ops[k] = _I   # a query base against no target base
        else:
            ops[k] = _D   # a target base against no query base
    return ops


@njit(cache=True, nogil=True)
def _blocked(walls, lt, lq, self_barrier):
    """Whether lattice point (target lt, query lq) is dead for the DP."""
    if self_barrier and lt == lq:
        return True
    for k in range(walls.shape[1]):
        whi = walls[lt, k, 1]
        if whi == 0:
            return False
        if walls[lt, k, 0] <= lq < whi:
            return True
    return False


@njit(cache=True, nogil=True)
def crosses_walls(ops, t0, q0, walls, self_barrier, origin_first):
    """Whether a forward path from lattice point (t0, q0) touches a dead point.

    The anchor's own point (the first point when ``origin_first``, else the
    last) is not tested, as the DP does not test its origin.
    """
    lt = t0
    lq = q0
    n = ops.shape[0]
    if not origin_first and n > 0 and _blocked(walls, lt, lq, self_barrier):
        return True
    for k in range(n):
        op = ops[k]
        if op != _I:
            lt += 1
        if op != _D:
            lq += 1
        if k == n - 1 and not origin_first:
            break
        if _blocked(walls, lt, lq, self_barrier):
            return True
    return False


@njit(cache=True, nogil=True)
def side_path(t, t0, nt, q, q0, nq, best, cells, pen, walls, self_barrier, origin_first, buf):
    """WFA path of one side between lattice points (t0, q0) and (t0 + nt, q0 + nq).

    Parameters
    ----------
    t, q : ndarray of uint8
        Target and query codes.
    t0, q0, nt, nq : int
        The segments ``t[t0:t0 + nt]`` and ``q[q0:q0 + nq]``.
    best : int
        The DP's best score for this side.
    cells : int
        DP cells the inspector spent on this side (WFA is skipped when its
        estimated cost exceeds them, or :data:`MAX_WFA_CELLS`).
    pen : ndarray of int64
        ``(x, o, e, g, match, factor)``: WFA penalties divided by ``g``, the
        match score, and the cost factor (:data:`COST_FACTOR`).
    walls : ndarray of int32
        As in :func:`gpukernels.cpu.gapped.ydrop_one_side`.
    self_barrier : bool
        Points with ``t == q`` are dead.
    origin_first : bool
        The anchor is at (t0, q0) (right side), else at the far end (left side).
    buf : ndarray of uint8
        Scratch for WFA's letters (grown as needed and returned).

    Returns
    -------
    status : int
        :data:`WFA_OK` or the reason to fall back to the DP traceback.
    ops : ndarray of uint8
        Forward columns (``t0, q0`` onwards) when ``status == WFA_OK``.
    buf : ndarray of uint8
    """
    x, o, e, g, match, factor = pen[0], pen[1], pen[2], pen[3], pen[4], pen[5]
    empty = np.empty(0, dtype=np.uint8)
    if not (plain_acgt(t, t0, nt) and plain_acgt(q, q0, nq)):
        return FALL_N, empty, buf
    bound = match * (nt + nq) - 2 * best   # g × the penalty of the DP's own path
    if bound < 0 or bound % g != 0:
        return FALL_SCORE, empty, buf
    cost = wfa_cost(bound // g, e)
    if cost > MAX_WFA_CELLS or cost * factor > cells:
        return FALL_COST, empty, buf
    if buf.shape[0] < nt + nq:
        buf = np.empty(max(nt + nq, 2 * buf.shape[0]), dtype=np.uint8)
    s, n = _align_one(t, t0, nt, q, q0, nq, x, o, e, False, True, buf, 0)
    if g * s != bound:
        return FALL_SCORE, empty, buf
    ops = to_columns(buf, n)
    if crosses_walls(ops, t0, q0, walls, self_barrier, origin_first):
        return FALL_WALL, empty, buf
    return WFA_OK, ops, buf
