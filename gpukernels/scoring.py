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
    return Scoring(matrix=full_matrix(acgt),
                   gap_open=int(gap_open), gap_extend=int(gap_extend),
                   xdrop=int(10 * acgt[0, 0] if xdrop is None else xdrop),
                   hspthresh=int(hspthresh),
                   ydrop=int(gap_open + 300 * gap_extend if ydrop is None else ydrop),
                   gappedthresh=int(hspthresh if gappedthresh is None else gappedthresh),
                   entropy=bool(entropy))
