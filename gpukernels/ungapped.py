"""Ungapped stage: x-drop extension of seed hits to HSPs, entropy rule, anchors.

The extension itself runs in ``cpu/ungapped.py`` (numba) or
``cuda/ungapped.cu``; the entropy adjustment and the thresholds are applied
here, in NumPy, for both backends, so their floating-point steps are the same
whatever the backend.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .scoring import Scoring

#: LASTZ scores an N or a masked base -1000 in gap-free extension
MASKED_SCORE = -1000
ANCHOR_WINDOW = 31
_ENTROPY_MIN_MATCHES = 20


def masked_matrix(matrix):
    """The gap-free matrix: N (and soft-masked bases, coded N) at -1000."""
    m = np.array(matrix, dtype=np.int32, copy=True)
    m[4, :5] = MASKED_SCORE
    m[:5, 4] = MASKED_SCORE
    return m


@dataclass
class HSPs:
    """High-scoring segment pairs of one strand (arrays of equal length).

    Attributes
    ----------
    q0, q1 : ndarray of int64
        Query bounds (half-open) in the strand's coordinates.
    t0 : ndarray of int64
        Target start.
    score : ndarray of int64
        Entropy-adjusted score.
    anchor_q, anchor_t : ndarray of int64
        Anchor cell for gapped extension.
    """

    q0: np.ndarray
    q1: np.ndarray
    t0: np.ndarray
    score: np.ndarray
    anchor_q: np.ndarray = None
    anchor_t: np.ndarray = None

    def __len__(self):
        return int(self.q0.shape[0])

    @classmethod
    def concat(cls, parts):
        """Join HSP batches."""
        if not parts:
            z = np.zeros(0, dtype=np.int64)
            return cls(z, z, z, z, z, z)
        return cls(*(np.concatenate([getattr(p, f) for p in parts])
                     for f in ("q0", "q1", "t0", "score", "anchor_q", "anchor_t")))


def entropy_adjust(score, counts, length, hspthresh):
    """LASTZ's entropy adjustment of HSP scores.

    For a score in ``[hspthresh, 3 * hspthresh]`` and at least 20 identical
    ACGT pairs, the score is scaled by the nucleotide entropy of those pairs,
    ``q = -Σ p_x ln p_x / ln 4`` with ``p_x = count_x / length``, and
    truncated towards zero.
    """
    score = np.asarray(score, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=1)
    apply = (score >= hspthresh) & (score <= 3 * hspthresh) & (total >= _ENTROPY_MIN_MATCHES)
    if not apply.any():
        return score
    p = counts[apply] / np.asarray(length, dtype=np.float64)[apply, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    q = -terms.sum(axis=1) / np.log(4.0)
    out = score.copy()
    out[apply] = np.trunc(score[apply] * q).astype(np.int64)
    return out


def new_diag_end(size, backend="cpu"):
    """Per-diagonal extents for :func:`extend_hits`, all -1 (on the device for the GPU backend)."""
    if backend == "gpu":
        import cupy
        return cupy.full(size, -1, dtype=cupy.int64)
    return np.full(size, -1, dtype=np.int64)


def extend_hits(t_codes, q_codes, hit_q, hit_t, span, scoring: Scoring, diag_end, backend="cpu"):
    """Extend hits to HSPs and keep those scoring at least ``hspthresh``.

    Parameters
    ----------
    t_codes, q_codes : ndarray of uint8
        Seed codes of target and query (masked bases as N).
    hit_q, hit_t : ndarray of int64
        Hits ordered by query position.
    span : int
        Seed word length.
    scoring : Scoring
    diag_end : ndarray of int64
        Per-diagonal extents, ``len(t_codes) + len(q_codes) + 1`` entries,
        initialised to -1 and carried from one batch of hits to the next
        (see :func:`new_diag_end`; a CuPy array stays on the device).

    Returns
    -------
    HSPs
        Without anchors (see :func:`add_anchors`).
    """
    mm = masked_matrix(scoring.matrix)
    if backend == "gpu":
        from .gpu import ungapped as gpu_ungapped
        q0, q1, t0, raw, counts = gpu_ungapped.extend_hits(t_codes, q_codes, hit_q, hit_t, span, mm,
                                                          scoring.xdrop, diag_end, max(1, scoring.hspthresh))
    else:
        from .cpu import ungapped as cpu_ungapped
        q0, q1, t0, raw, counts = cpu_ungapped.extend_hits(t_codes, q_codes, hit_q, hit_t, span, mm,
                                                          scoring.xdrop, diag_end, max(1, scoring.hspthresh))
    score = raw
    if scoring.entropy:
        score = entropy_adjust(raw, counts, q1 - q0, scoring.hspthresh)
    keep = score >= scoring.hspthresh
    return HSPs(q0[keep], q1[keep], t0[keep], score[keep])


def add_anchors(hsps: HSPs, t_codes, q_codes, scoring: Scoring, backend="cpu"):
    """Set each HSP's anchor: the middle of its best 31-bp stretch (LASTZ's rule).

    The GPU backend slides the windows of a megabase HSP on the device
    (``gpu/ungapped.anchors``); the anchors are the same either way.
    """
    if backend == "gpu":
        from .gpu import ungapped as twin
    else:
        from .cpu import ungapped as twin
    hsps.anchor_q, hsps.anchor_t = twin.anchors(t_codes, q_codes, hsps.q0, hsps.q1, hsps.t0, scoring.matrix,
                                                ANCHOR_WINDOW)
    return hsps
