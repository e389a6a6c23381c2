"""SeedHit-style filters: a pair screen before alignment and a candidate filter before extension.

Pair screen
-----------
Two sequences are compared by counting b-mer hits: the positions of the
query whose b-mer (``b`` = 8-16 bits, i.e. 4-8 letters) occurs in the target
(a bit table of ``2**b`` bits of the target's b-mers). If a query of ``n``
letters matches a target stretch with at most ``e`` differences
(substitutions or indels), at least

    T(n, b, e) = n - L + 1 - L·e,    L = b / 2 letters,

of its b-mers survive unchanged (each difference destroys at most ``L``
b-mers: the q-gram lemma of Jokinen & Ukkonen that SeedHit's bound rests on).
For a similarity cutoff ``s`` (fraction identical) we take
``e = floor((1 - s)·n)``; a pair whose count is below ``T`` cannot reach the
cutoff and is skipped; when ``T ≤ 0`` the bound says nothing and the pair
passes. So the screen never rejects a pair that truly reaches the cutoff.

For work units (whole records), :func:`screen_units` cuts the query into
windows of ``W`` (default 256) and the target into windows of ``2W`` with
stride ``W``, on both strands; the unit pair passes when any window pair
passes. The window edge costs nothing: a query window aligned with ``d ≥ 1``
target-only letters (deletions) may run up to ``d - 1`` letters past the end
of the target window that holds its start, which loses at most ``d - 1``
more b-mers; but a deletion breaks only ``L - 1`` b-mers, not ``L``, so the
total loss stays below ``L·e`` and ``T`` still holds.

The screen is off unless asked for (``screen_min_identity`` in the
workflow's ``engine`` config, :attr:`AlignOptions.screen_min_identity`,
``ava align --screen`` or ``--screen-min-identity``). Its documented cutoff
is :data:`DEFAULT_SCREEN_IDENTITY` (92 %), chosen in ``docs/seeding.md``.

Candidate filter
----------------
Seed hits are binned in cells of 16 diagonals × 512 query positions; a hit
is kept when its cell and the 8 cells around it hold at least 2 hits
(itself and one more). True alignments scoring LASTZ's 3000 carry dozens of
hits on nearby diagonals; random hits are mostly alone. Hits are filtered
per query batch of the engine (1 Mi positions), so a hit whose only
neighbour lies across a batch boundary is dropped. The measured effect on
real bacteria is in ``docs/seeding.md``.

Counting runs in ``cpu/seedhit.py`` (numba) or ``cuda/seedhit.cu``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .genome import complement_reversed

log = logging.getLogger("gpukernels")

DEFAULT_BITS = 16
DEFAULT_WINDOW = 256
#: The screen's documented cutoff (percent). Its bound, 89 of the 249 b-mers of a
#: 256-letter window (16-bit b-mers), lies midway between random genomes of
#: bacterial composition (best window 24-74) and any two real bacteria (111 and
#: more); see docs/seeding.md, "Default cutoff".
DEFAULT_SCREEN_IDENTITY = 92.0
BAND_SHIFT = 4      # 16 diagonals per band
WIN_SHIFT = 9       # 512 query positions per window
MIN_NEIGHBOURHOOD = 2


def _check_bits(bits):
    if bits not in (8, 10, 12, 14, 16):
        raise InputError(f"b-mer size must be 8, 10, 12, 14 or 16 bits, not {bits}")


def threshold(n, bits, min_identity):
    """Least b-mer hit count of an ``n``-letter query within ``(1 - s)·n`` differences (may be ≤ 0).

    Parameters
    ----------
    n : int or ndarray
        Query length(s).
    bits : int
        b-mer size in bits (2 per letter).
    min_identity : float
        The cutoff ``s`` in percent.
    """
    L = bits // 2
    n = np.asarray(n, dtype=np.int64)
    e = np.floor((100.0 - float(min_identity)) * n / 100.0 + 1e-9).astype(np.int64)
    return n - L + 1 - L * e


def count_pairs(t_codes, t_off, q_codes, q_off, bits=DEFAULT_BITS, backend="cpu"):
    """b-mer hit count of each pair ``(t[t_off[i]:t_off[i+1]], q[q_off[i]:q_off[i+1]])``."""
    _check_bits(bits)
    args = (np.ascontiguousarray(t_codes, dtype=np.uint8), np.ascontiguousarray(t_off, dtype=np.int64),
            np.ascontiguousarray(q_codes, dtype=np.uint8), np.ascontiguousarray(q_off, dtype=np.int64),
            int(bits))
    if backend == "gpu":
        from .gpu import seedhit as gpu_sh
        return gpu_sh.count_pairs(*args)
    from .cpu import seedhit as cpu_sh
    return cpu_sh.count_pairs(*args)


def screen_pairs(t_codes, t_off, q_codes, q_off, min_identity, bits=DEFAULT_BITS, backend="cpu"):
    """Which pairs may reach ``min_identity`` (percent): a bool array, with the counts and thresholds."""
    counts = count_pairs(t_codes, t_off, q_codes, q_off, bits, backend)
    need = threshold(np.diff(np.asarray(q_off, dtype=np.int64)), bits, min_identity)
    return counts >= need, counts, need


def best_window_counts(t_codes, q_codes, bits=DEFAULT_BITS, window=DEFAULT_WINDOW, backend="cpu"):
    """Per query window of ``window`` letters: the best b-mer count over the ``2·window`` target windows."""
    _check_bits(bits)
    t = np.ascontiguousarray(t_codes, dtype=np.uint8)
    q = np.ascontiguousarray(q_codes, dtype=np.uint8)
    if backend == "gpu":
        from .gpu import seedhit as gpu_sh
        return gpu_sh.best_window_counts(t, q, int(bits), int(window))
    from .cpu import seedhit as cpu_sh
    return cpu_sh.best_window_counts(t, q, int(bits), int(window))


@dataclass(frozen=True)
class ScreenVerdict:
    """What the pair screen decided for one target/query pair, and why.

    Attributes
    ----------
    passes : bool
        False: the pair is skipped (no query window can reach ``min_identity``).
    min_identity : float
        The cutoff in percent.
    count : int
        b-mer hits of the first passing query window; for a skipped pair the
        best count of any whole query window (-1 when the query has none).
    need : int
        The bound ``T`` for one window (``≤ 0``: the screen passes everything).
    window : int or None
        Index of the passing query window (None when skipped or vacuous).
    strand : str or None
        ``"+"`` or ``"-"``: the query strand of the passing window.
    bits, window_size : int
        b-mer size in bits and query window length in letters.
    """

    passes: bool
    min_identity: float
    count: int
    need: int
    window: int | None = None
    strand: str | None = None
    bits: int = DEFAULT_BITS
    window_size: int = DEFAULT_WINDOW

    @property
    def verdict(self):
        """``"pass"`` or ``"skip"``."""
        return "pass" if self.passes else "skip"

    @property
    def reason(self):
        """The verdict in words: the passing window, or the best count against the bound."""
        if self.need <= 0:
            return (f"bound {self.need} <= 0 at {self.min_identity:g}% with {self.bits}-bit b-mers: "
                    "always passes")
        if self.passes:
            return f"query window {self.window} ({self.strand}) has {self.count} b-mer hits >= {self.need}"
        return (f"best query window has {self.count} b-mer hits < {self.need} needed for "
                f"{self.min_identity:g}% identity")

    def __str__(self):
        return self.reason


def screen_verdict(t_codes, q_codes, min_identity, bits=DEFAULT_BITS, window=DEFAULT_WINDOW, backend="cpu"):
    """Screen a work-unit pair: may any ``window``-long stretch of the query reach ``min_identity``?

    Both query strands are tried; the plus strand first, and the minus
    strand only when the plus strand has no passing window.

    Parameters
    ----------
    t_codes, q_codes : ndarray of uint8
        Target and query codes (0-3 = A, C, G, T; anything else never counts).
    min_identity : float
        The cutoff in percent.
    bits : int
        b-mer size in bits (8, 10, 12, 14 or 16).
    window : int
        Query window length; target windows are twice as long, stride ``window``.
    backend : {"cpu", "gpu"}

    Returns
    -------
    ScreenVerdict
    """
    need = int(threshold(window, bits, min_identity))
    common = dict(min_identity=float(min_identity), need=need, bits=bits, window_size=window)
    if need <= 0:
        return ScreenVerdict(True, count=0, **common)
    best = -1
    for strand, q in (("+", q_codes), ("-", complement_reversed(np.asarray(q_codes, dtype=np.uint8)))):
        counts = best_window_counts(t_codes, q, bits, window, backend)
        full = np.flatnonzero(np.arange(len(counts)) < len(q) // window)   # whole windows only
        if len(full) == 0:
            continue
        top = int(counts[full].max())
        if top >= need:
            w = int(full[np.argmax(counts[full] >= need)])
            return ScreenVerdict(True, count=int(counts[w]), window=w, strand=strand, **common)
        best = max(best, top)
    return ScreenVerdict(False, count=best, **common)


def screen_units(t_codes, q_codes, min_identity, bits=DEFAULT_BITS, window=DEFAULT_WINDOW, backend="cpu"):
    """:func:`screen_verdict` as ``(passes, reason)``."""
    v = screen_verdict(t_codes, q_codes, min_identity, bits, window, backend)
    return v.passes, v.reason


def filter_candidates(hit_q, hit_t, backend="cpu"):
    """Drop isolated seed hits: keep those with ≥ 2 hits in their 3 × 3 neighbourhood of cells.

    Hits keep their order. CuPy arrays in, CuPy arrays out on the GPU backend.
    """
    if len(hit_q) == 0:
        return hit_q, hit_t
    if backend == "gpu":
        from .gpu import seedhit as gpu_sh
        return gpu_sh.filter_candidates(hit_q, hit_t)
    from .cpu import seedhit as cpu_sh
    hit_q = np.asarray(hit_q)
    hit_t = np.asarray(hit_t)
    band = (hit_t - hit_q) >> BAND_SHIFT
    win = hit_q >> WIN_SHIFT
    order = np.lexsort((win, band))
    sb, sw = band[order], win[order]
    head = np.ones(len(sb), dtype=bool)
    head[1:] = (sb[1:] != sb[:-1]) | (sw[1:] != sw[:-1])
    starts = np.flatnonzero(head)
    counts = np.diff(np.append(starts, len(sb)))
    near = cpu_sh.neighbour_counts(band, win, sb[starts], sw[starts], counts)
    keep = near >= MIN_NEIGHBOURHOOD
    return hit_q[keep], hit_t[keep]
