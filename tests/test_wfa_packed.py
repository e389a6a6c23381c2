"""The packed backtrace (``cigar_mode="packed"``) on the CPU, through its model.

``wfa_packed_model`` lays out the bit planes as the GPU kernel does, walks
them back as the kernel does and replays the ops as ``wfa_replay`` does; the
CIGARs must be the twin's, byte for byte (the GPU contract). The GPU kernel
itself is checked in ``test_wfa_gpu.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpukernels import wfa as W
from gpukernels.cpu import wfa as twin
from gpukernels.wfa import Sequences, simulate_pairs, wfa
from test_wfa import PENALTY_SETS, make_pairs
from wfa_packed_model import align_packed, build_area, packed_words


def _head(S, n):
    return Sequences(S.codes, S.offsets[:n + 1])


def _reduced(pen):
    g = math.gcd(math.gcd(pen[0], pen[1]), pen[2])
    return tuple(v // g for v in pen)


def _same_as_twin(P, T, pen):
    """Model scores and CIGAR letters equal the twin's; return the model's area words."""
    scores, letters, words = align_packed(P, T, _reduced(pen))
    ref = wfa(P, T, penalties=pen, backend="cpu")
    g = math.gcd(math.gcd(pen[0], pen[1]), pen[2])
    assert np.array_equal(scores * g, ref.scores)
    for i in range(len(P)):
        assert letters[i] == ref.ops[ref.op_offsets[i]:ref.op_offsets[i + 1]].tobytes(), i
    return words


@pytest.fixture(scope="module")
def pairs():
    P, T = make_pairs()
    return _head(P, 2500), _head(T, 2500)


@pytest.mark.parametrize("pen", PENALTY_SETS + [(5, 11, 1)])
def test_model_cigars_are_the_twins(pairs, pen):
    _same_as_twin(*pairs, pen)


def test_model_on_long_noisy_and_simulated_pairs():
    for length, err, n in [(2000, 0.3, 3), (1000, 0.1, 8), (10000, 0.02, 2)]:
        P, T = simulate_pairs(n, length, err, seed=length + int(100 * err))
        _same_as_twin(P, T, (4, 6, 2))


def test_model_area_fits_the_first_pass_size():
    """The first GPU pass sizes W*W/32 words; 1 kbp at 10 % uses far less."""
    P, T = simulate_pairs(8, 1000, 0.1, seed=11)
    words = _same_as_twin(P, T, (4, 6, 2))
    width = 2 * int(max(P.lengths.max(), T.lengths.max())) + 1
    assert (words * 32 < width * width).all()
    assert (words % 2 == 0).all()


def test_model_overflow_is_detected():
    P, T = simulate_pairs(1, 300, 0.1, seed=2)
    ps, n, ts, m = int(P.offsets[0]), int(P.lengths[0]), int(T.offsets[0]), int(T.lengths[0])
    s, M, I, D, lo, hi, base = twin._affine_forward(P.codes, ps, n, T.codes, ts, m, 2, 3, 1)
    need = int(packed_words(lo, hi, s))
    assert build_area(M, I, D, lo, hi, base, s, n, m, 2, 3, 1, need) is not None
    assert build_area(M, I, D, lo, hi, base, s, n, m, 2, 3, 1, need - 2) is None
    scores, letters, _ = align_packed(P, T, (2, 3, 1), cap=16)
    assert scores.tolist() == [-1] and letters == [b""]


def test_packed_area_sizes():
    mib = 1 << 20
    blocks, words = W._packed_area(264, 9 * 20001 * 4, 40_000 * mib, 20001, False, {})
    assert blocks == 264 and words == (20001 * 20001 // 32) // 4 * 4   # what it asks for fits
    assert W._packed_area(10, 1000, 10**9, 301, False, {"pool": 18})[1] == 16
    assert W._packed_area(10, 1000, 10**9, 301, False, {"max_pool": 16})[1] == 16
    blocks, words = W._packed_area(132, 1000, 132 * 4 * 10**6, 301, True, {})
    assert blocks == 132 and 0.9e6 < words <= 1e6 and words % 4 == 0
    blocks, _ = W._packed_area(1000, 4 * 10**6, 10**8, 301, False, {})
    assert blocks * (4 * 10**6 + 4 * W.PACKED_MIN_WORDS) <= 10**8


def test_cigar_mode_is_checked_and_ignored_on_the_cpu():
    with pytest.raises(ValueError, match="cigar_mode"):
        wfa(["A"], ["A"], backend="cpu", cigar_mode="bits")
    a = wfa(["ACGT", "GATTACA"], ["ACGA", "GATACA"], backend="cpu", cigar_mode="packed")
    assert a.cigars() == ["3=1X", "3=1D3="]
