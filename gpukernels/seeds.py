"""Seed stage: spaced-seed words of the target indexed, query words looked up.

The default is LASTZ's: the 12-of-19 pattern ``1110100110010101111`` with one
transition allowed at any care position, every target position indexed
(step 1), every query position looked up. Masked positions and N never seed.

Each function checks its inputs and dispatches to the numba twin in
``cpu/seeds.py`` or the CUDA kernels in ``cuda/seeds.cu``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError

DEFAULT_SEED = "1110100110010101111"


@dataclass(frozen=True)
class SeedPattern:
    """A spaced seed.

    Attributes
    ----------
    pattern : str
        ``1`` marks a care position, ``0`` a don't-care.
    care : ndarray of int64
        Offsets of the care positions.
    span : int
        Length of the pattern.
    """

    pattern: str
    care: np.ndarray
    span: int

    @property
    def weight(self):
        """Number of care positions."""
        return int(self.care.shape[0])

    @property
    def key_bits(self):
        """Bits in a key: two per care position."""
        return 2 * self.weight


def parse_seed(pattern=DEFAULT_SEED):
    """Parse and check a seed pattern of ``1`` and ``0``.

    Raises
    ------
    InputError
        When the pattern holds other characters, does not start and end with
        ``1``, or has more than 31 or fewer than 4 care positions.
    """
    if not pattern or set(pattern) - {"0", "1"}:
        raise InputError(f"seed pattern {pattern!r} must be made of 1 (care) and 0 (don't care)")
    if pattern[0] != "1" or pattern[-1] != "1":
        raise InputError(f"seed pattern {pattern!r} must start and end with 1")
    care = np.array([i for i, c in enumerate(pattern) if c == "1"], dtype=np.int64)
    if not 4 <= len(care) <= 31:
        raise InputError(f"seed pattern {pattern!r} must have 4 to 31 care positions")
    return SeedPattern(pattern, care, len(pattern))


@dataclass
class SeedIndex:
    """Target words sorted by key, with a prefix table into them."""

    sorted_keys: np.ndarray
    sorted_pos: np.ndarray
    bucket: np.ndarray
    shift: int
    seed: SeedPattern


#: the bucket table's most and fewest bits: 2^24 buckets (134 MB) index E. coli's 4.6 M words directly
PREFIX_BITS_MAX = 24
PREFIX_BITS_MIN = 16


def _prefix_bits(seed, n):
    """Bits of a key's top that index the bucket table, for a target of ``n`` words.

    About two buckets a word, up to :data:`PREFIX_BITS_MAX` (a key no wider
    is indexed directly). With 2^24 buckets whatever its size, a 40 kb target
    took 0.23-0.30 s to index on the CPU (three tables of 134 MB), where it
    takes 0.003 s now; lookups search a bucket's few keys. The hits are the
    same for any width.
    """
    return min(seed.key_bits, PREFIX_BITS_MAX, max(PREFIX_BITS_MIN, int(n).bit_length() + 1))


def seed_keys(codes, seed, backend="cpu"):
    """Key of the word starting at each position of ``codes`` (-1: no valid word).

    On the GPU backend the keys are a CuPy array, and :func:`build_index`
    returns a :class:`SeedIndex` whose arrays are on the device.

    ``codes`` must already carry the soft-mask as N where masked words must
    not seed (see :meth:`Genome.seed_codes`).
    """
    if backend == "gpu":
        from .gpu import seeds as gpu_seeds
        return gpu_seeds.seed_keys(codes, seed)
    from .cpu import seeds as cpu_seeds
    return cpu_seeds.seed_keys(np.ascontiguousarray(codes), seed.care, seed.span)


def build_index(codes, seed, backend="cpu"):
    """Index every valid word of the target ``codes``."""
    keys = seed_keys(codes, seed, backend)
    if backend == "gpu":
        from .gpu import seeds as gpu_seeds
        return gpu_seeds.build_index(keys, seed, _prefix_bits(seed, len(codes)))
    from .cpu import seeds as cpu_seeds
    pb = _prefix_bits(seed, len(codes))
    sk, sp, bucket = cpu_seeds.build_index(keys, pb, seed.key_bits)
    return SeedIndex(sk, sp, bucket, seed.key_bits - pb, seed)


def find_hits(index, qkeys, q_lo, q_hi, transition=True, self_mode=0, backend="cpu"):
    """Seed hits of query positions ``[q_lo, q_hi)`` against ``index``.

    Parameters
    ----------
    index : SeedIndex
        From :func:`build_index`.
    qkeys : ndarray of int64
        From :func:`seed_keys` on the query (strand already chosen).
    q_lo, q_hi : int
        Query word starts to look up.
    transition : bool
        Allow one transition at any care position.
    self_mode : {0, 1, 2}
        0: two genomes; 1: self-comparison, same strand (keep target < query);
        2: self-comparison, opposite strand (keep target ≤ forward query start).

    Returns
    -------
    hit_q, hit_t : ndarray of int64
        Word starts of each hit, ordered by query position (CuPy arrays on
        the GPU backend while they fit its memory budget).
    """
    if backend == "gpu":
        from .gpu import seeds as gpu_seeds
        return gpu_seeds.find_hits(index, qkeys, q_lo, q_hi, transition, self_mode, on_device=True)
    from .cpu import seeds as cpu_seeds
    return cpu_seeds.find_hits(qkeys, q_lo, q_hi, index.sorted_keys, index.sorted_pos, index.bucket,
                               index.shift, index.seed.weight, bool(transition), int(self_mode),
                               len(qkeys), index.seed.span)
