"""Gapped stage: y-drop extension of HSP anchors, traceback to columns.

Anchors are taken best HSP first (ties: query position, then target
position). An anchor that lies on the path of an alignment already kept is
skipped, and a new extension may not touch or cross an alignment already
kept (its lattice points are walls in the DP), as in LASTZ. So each
alignment is found once and no region is aligned twice. An extension thus
depends on its anchor and on the alignments kept before it, in this order.
"""

from __future__ import annotations

import math

import numpy as np

from .scoring import Scoring

#: earlier alignments remembered per target position as walls for later extensions
WALL_SLOTS = 4


def anchor_order(score, anchor_q, anchor_t):
    """Processing order: score descending, then query, then target position."""
    return np.lexsort((anchor_t, anchor_q, -np.asarray(score)))


def extend_anchors(t_codes, q_codes, anchor_q, anchor_t, bounds, scoring: Scoring, self_barrier=False,
                   backend="cpu", traceback="dp", threads=1, label=""):
    """Extend anchors (already in processing order) into gapped alignments.

    Parameters
    ----------
    t_codes, q_codes : ndarray of uint8
        Target codes and this strand's query codes (soft-mask ignored).
    anchor_q, anchor_t : ndarray of int64
    bounds : tuple of four ndarray of int64
        ``(t_lo, t_hi, q_lo, q_hi)``: the record holding each anchor.
    scoring : Scoring
    self_barrier : bool
        Forbid the main diagonal (same-strand self-comparison).
    traceback : {"dp", "wfa"}
        ``wfa`` (uniform scoring, CPU backend): the DP runs score-only and
        the paths come from WFA where WFA's path has the DP's score and
        crosses no wall (:mod:`gpukernels.cpu.wfa_traceback`); the scores
        are the DP's either way.
    threads : int
        GPU backend: host threads for the extensions too long for the GPU
        (at least 2 are used; the output does not depend on it).
    label : str
        Names this call in progress lines (GPU backend; the engine passes
        the strand, as both strands run at once).

    Returns
    -------
    dict
        ``t0, t1, q0, q1, score`` (int64 arrays), ``op_off`` and ``ops``
        (the columns), ``cells`` (DP cells computed), ``extended`` (anchors
        extended) and ``anchor_cells`` (cells per anchor, -1 where skipped);
        with ``traceback="wfa"`` also ``wfa_stats`` (sides per outcome).
    """
    t_lo, t_hi, q_lo, q_hi = bounds
    args = (t_codes, q_codes, np.ascontiguousarray(anchor_q, dtype=np.int64),
            np.ascontiguousarray(anchor_t, dtype=np.int64), t_lo, t_hi, q_lo, q_hi,
            scoring.matrix, scoring.gap_open, scoring.gap_extend, scoring.ydrop, scoring.gappedthresh,
            bool(self_barrier), WALL_SLOTS)
    extra = {}
    if traceback == "wfa" and backend == "gpu":
        raise ValueError("the WFA traceback runs on the CPU backend only")
    if traceback == "wfa":
        from .cpu.wfa_traceback import STAT_NAMES
        stats = np.zeros(len(STAT_NAMES), dtype=np.int64)
        res = _cpu_extend(*args, wfa_penalties(scoring), stats)
        extra["wfa_stats"] = dict(zip(STAT_NAMES, stats.tolist()))
    elif traceback != "dp":
        raise ValueError(f"unknown traceback {traceback!r}; choose dp or wfa")
    elif backend == "gpu":
        from .gpu import gapped as gpu_gapped
        res = gpu_gapped.extend_anchors(*args, host_threads=max(2, int(threads)), label=label)
    else:
        res = _cpu_extend(*args)
    t0, t1, q0, q1, score, op_off, ops, anchor_cells = res
    extended = anchor_cells >= 0
    return dict(t0=t0, t1=t1, q0=q0, q1=q1, score=score, op_off=op_off, ops=ops,
                cells=int(anchor_cells[extended].sum()), extended=int(extended.sum()),
                anchor_cells=anchor_cells, **extra)


def _cpu_extend(*args):
    """``cpu/gapped.extend_anchors`` (imported late: numba compiles on first use)."""
    from .cpu import gapped as cpu_gapped
    return cpu_gapped.extend_anchors(*args)


def wfa_penalties(scoring: Scoring, cost_factor=None):
    """``(x, o, e, g, match, cost_factor)`` of a uniform scoring for the WFA traceback.

    ``x, o, e`` are :func:`gpukernels.wfa.penalties_from_scores` divided by
    their greatest common divisor ``g``; ``cost_factor`` defaults to
    :data:`gpukernels.cpu.wfa_traceback.COST_FACTOR`.

    Raises
    ------
    ValueError
        When the scoring is not uniform (:func:`gpukernels.scoring.uniform_scores`).
    """
    from .cpu.wfa_traceback import COST_FACTOR
    from .scoring import uniform_scores
    from .wfa import penalties_from_scores
    pair = uniform_scores(scoring)
    if pair is None:
        raise ValueError("the WFA traceback needs a uniform match/mismatch matrix")
    match, mismatch = pair
    x, o, e = penalties_from_scores(match, mismatch, scoring.gap_open, scoring.gap_extend)
    g = math.gcd(math.gcd(x, o), e)
    factor = COST_FACTOR if cost_factor is None else cost_factor
    return np.array([x // g, o // g, e // g, g, match, factor], dtype=np.int64)
