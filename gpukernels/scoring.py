"""Scoring: substitution matrices, gap penalties and presets.

The default is LASTZ's: HOXD70 substitutions, gap open 400 and extend 30 (a
gap of length L costs 400 + 30·L), x-drop 910, y-drop 9400, HSP and gapped
thresholds 3000. Scores are integers so that every backend adds them the same
way.

The matrix is 6×6 over the engine's codes (A, C, G, T, N, separator). N scores
as in LASTZ without ``--ambiguous``: like the fill score of its scoring file,
-100 against anything. The separator row and column hold :data:`WALL`, a
score so low that no extension crosses a record boundary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import InputError

#: score of anything against a record separator: stops every extension
WALL = -(1 << 24)
#: dead DP cell
NEG_INF = -(1 << 29)
#: largest substitution score magnitude: far from WALL, and a kernel's 32-bit sums of a step (the
#: ungapped warp kernel's 1,024 letters) stay in range
MAX_SCORE = 1_000_000
#: x-drop limit: the ungapped kernels compare drops in 32 bits
MAX_XDROP = (1 << 30) - 1

HOXD70 = np.array([[91, -114, -31, -123],
                   [-114, 100, -125, -31],
                   [-31, -125, 100, -114],
                   [-123, -31, -114, 91]], dtype=np.int32)

N_SCORE = -100


def full_matrix(acgt, n_score=N_SCORE):
    """Extend a 4×4 ACGT matrix to the engine's 6×6 code matrix."""
    m = np.full((6, 6), WALL, dtype=np.int32)
    m[:5, :5] = n_score
    m[:4, :4] = np.asarray(acgt, dtype=np.int32)
    return m


def uniform_matrix(match, mismatch):
    """A 4×4 matrix with ``match`` on the diagonal and ``-mismatch`` elsewhere."""
    m = np.full((4, 4), -abs(int(mismatch)), dtype=np.int32)
    np.fill_diagonal(m, int(match))
    return m


#: the uniform preset (``ava align --preset uniform``): LASTZ's gap costs and
#: thresholds with a flat matrix on HOXD70's scale (C/C, G/G 100)
UNIFORM_MATCH = 100
UNIFORM_MISMATCH = 100


def uniform_scores(scoring):
    """``(match, mismatch)`` when the ACGT part of ``scoring.matrix`` is uniform, else None.

    Uniform means one positive score on the diagonal and one score
    ``-mismatch`` (≤ 0) elsewhere, so WFA penalties can be derived from it.
    """
    acgt = np.asarray(scoring.matrix)[:4, :4]
    match = int(acgt[0, 0])
    off = acgt[~np.eye(4, dtype=bool)]
    if match <= 0 or not (np.diag(acgt) == match).all() or not (off == off[0]).all() or off[0] > 0:
        return None
    return match, -int(off[0])


def uniform_scoring(match=UNIFORM_MATCH, mismatch=UNIFORM_MISMATCH, **kwargs):
    """:func:`lastz_scoring` with a uniform matrix (``match``, ``-mismatch``).

    The derived defaults follow LASTZ's rules: x-drop 10 × match (1000 by
    default), y-drop open + 300 × extend (9400), thresholds 3000; N scores
    -100 as with HOXD70. Keyword arguments go to :func:`lastz_scoring`.
    """
    if int(match) <= 0 or int(mismatch) < 0:
        raise InputError("uniform scoring needs match > 0 and mismatch ≥ 0")
    return lastz_scoring(matrix=uniform_matrix(match, mismatch), **kwargs)


@dataclass(frozen=True)
class Scoring:
    """Scores and thresholds of one run.

    Attributes
    ----------
    matrix : ndarray of int32, shape (6, 6)
        Substitution scores over codes A, C, G, T, N, separator.
    gap_open, gap_extend : int
        A gap of length L costs ``gap_open + gap_extend * L``.
    xdrop : int
        Ungapped extension stops when the score falls this far below its best.
    hspthresh : int
        Minimum (entropy-adjusted) HSP score.
    ydrop : int
        Gapped extension drops cells this far below the best score.
    gappedthresh : int
        Minimum score of a reported gapped alignment.
    entropy : bool
        Apply LASTZ's entropy adjustment to HSP scores.
    """

    matrix: np.ndarray = field(default_factory=lambda: full_matrix(HOXD70))
    gap_open: int = 400
    gap_extend: int = 30
    xdrop: int = 910
    hspthresh: int = 3000
    ydrop: int = 9400
    gappedthresh: int = 3000
    entropy: bool = True

    def __hash__(self):
        return hash((self.matrix.tobytes(), self.gap_open, self.gap_extend, self.xdrop,
                     self.hspthresh, self.ydrop, self.gappedthresh, self.entropy))


def lastz_scoring(gap_open=400, gap_extend=30, xdrop=None, hspthresh=3000, ydrop=None,
                  gappedthresh=None, entropy=True, matrix=None):
    """LASTZ-default scoring with the same derived defaults as LASTZ.

    ``xdrop`` defaults to 10 × the A/A score, ``ydrop`` to
    ``gap_open + 300 * gap_extend`` and ``gappedthresh`` to ``hspthresh``.
    """
    acgt = HOXD70 if matrix is None else np.asarray(matrix, dtype=np.int32)
    if acgt.shape != (4, 4):
        raise InputError("a scoring matrix must be 4×4 over A, C, G, T")
    if gap_open < 0 or gap_extend < 0:
        raise InputError("gap penalties must be non-negative")
    if np.abs(acgt.astype(np.int64)).max() > MAX_SCORE:
        raise InputError(f"substitution scores must lie within ±{MAX_SCORE:,}")
    xdrop = int(10 * acgt[0, 0] if xdrop is None else xdrop)
    if not 0 <= xdrop <= MAX_XDROP:
        raise InputError(f"x-drop must be from 0 to {MAX_XDROP:,}, not {xdrop:,}")
    return Scoring(matrix=full_matrix(acgt),
                   gap_open=int(gap_open), gap_extend=int(gap_extend),
                   xdrop=xdrop,
                   hspthresh=int(hspthresh),
                   ydrop=int(gap_open + 300 * gap_extend if ydrop is None else ydrop),
                   gappedthresh=int(hspthresh if gappedthresh is None else gappedthresh),
                   entropy=bool(entropy))
