"""WFA (issue 5) on the GPU: same checks as test_wfa.py, and identity with the CPU twin.

Both GPU backtrace designs (``cigar_mode="chain"`` and ``"packed"``) must give
the twin's scores and CIGARs byte for byte.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpukernels import cli
from gpukernels.wfa import Sequences, simulate_pairs, wfa
from test_wfa import PENALTY_SETS, cigar_costs, make_pairs, reference_scores

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def pairs():
    return make_pairs()


def _same(g, c):
    """GPU and CPU results are identical (scores, and CIGARs when present)."""
    assert np.array_equal(g.scores, c.scores)
    if c.ops is not None:
        assert np.array_equal(g.op_offsets, c.op_offsets)
        assert np.array_equal(g.ops, c.ops)


def _check(P, T, pen, edit=False, tuning=None, cigar_mode="chain"):
    """GPU against plain DP and the CPU twin; score-only too unless ``cigar_mode="packed"``."""
    ref = reference_scores(P, T, None if edit else pen)
    for score_only in (False,) if cigar_mode == "packed" else (False, True):
        timing = {}
        g = wfa(P, T, penalties=pen, edit=edit, score_only=score_only, backend="gpu",
                timing=timing, tuning=tuning, cigar_mode=cigar_mode)
        c = wfa(P, T, penalties=pen, edit=edit, score_only=score_only, backend="cpu")
        assert np.array_equal(g.scores, ref)
        _same(g, c)
        if not score_only:
            assert np.array_equal(cigar_costs(P, T, g, None if edit else pen), ref)
    return timing


@pytest.mark.parametrize("pen", PENALTY_SETS + [(5, 11, 1)])
def test_gpu_affine_equals_dp_and_cpu(pairs, pen):
    timing = _check(*pairs, pen)
    assert timing["rescued"] == 0


def test_gpu_edit_equals_levenshtein_and_cpu(pairs):
    timing = _check(*pairs, (4, 6, 2), edit=True)
    assert timing["rescued"] == 0


def _head(S, n):
    return Sequences(S.codes, S.offsets[:n + 1])


@pytest.mark.parametrize("edit, tuning", [
    (False, {"pool": 16}),                       # first pass overflows, second fits
    (False, {"max_pool": 16}),                   # both overflow: CPU rescue
    (False, {"threads": 32}),                    # threads stride over wide wavefronts
    (False, {"threads": 512, "blocks_per_sm": 1}),
    (True, {"ewfa_k": 4, "ewfa_pool": 8}),       # eWFA overflows into the global kernel
    (True, {"no_ewfa": True, "max_pool": 16}),
    (True, {"ewfa_threads": 32}),
    (False, {"global_seqs": True}),              # sequences read from global memory
    (True, {"no_ewfa": True, "global_seqs": True, "threads": 64}),
    (False, {"chunk_pairs": 333}),               # several GPU batches
    (True, {"chunk_bases": 5000}),
])
def test_gpu_rescue_paths_give_same_result(pairs, edit, tuning):
    P, T = _head(pairs[0], 2000), _head(pairs[1], 2000)
    _check(P, T, (4, 6, 2), edit=edit, tuning=tuning)


def test_gpu_long_noisy_pairs():
    P, T = simulate_pairs(40, 2000, 0.3, seed=9)
    _check(P, T, (4, 6, 2))
    _check(P, T, None, edit=True)


def test_gpu_simulated_shapes():
    for length, err in [(150, 0.02), (1000, 0.1), (10000, 0.05)]:
        P, T = simulate_pairs(64 if length < 10000 else 8, length, err, seed=length)
        _check(P, T, (4, 6, 2))


# ---------------------------------------------------------------- packed backtrace

@pytest.mark.parametrize("pen", PENALTY_SETS + [(5, 11, 1)])
def test_gpu_packed_equals_dp_and_cpu(pairs, pen):
    timing = _check(*pairs, pen, cigar_mode="packed")
    assert timing["rescued"] == 0


@pytest.mark.parametrize("tuning", [
    {"pool": 16},                                # first pass overflows, second fits
    {"max_pool": 16},                            # both overflow: CPU rescue
    {"threads": 32},                             # one warp strides over wide wavefronts
    {"threads": 512, "blocks_per_sm": 1},
    {"threads": 1024, "blocks_per_sm": 2},
    {"global_seqs": True},
    {"chunk_pairs": 333},
])
def test_gpu_packed_rescue_paths_give_same_result(pairs, tuning):
    P, T = _head(pairs[0], 2000), _head(pairs[1], 2000)
    _check(P, T, (4, 6, 2), tuning=tuning, cigar_mode="packed")


def test_gpu_packed_long_noisy_and_benchmark_shapes():
    P, T = simulate_pairs(40, 2000, 0.3, seed=9)
    assert _check(P, T, (4, 6, 2), cigar_mode="packed")["rescued"] == 0
    for length, err, n in [(150, 0.1, 256), (1000, 0.1, 64), (10000, 0.02, 8), (10000, 0.1, 4)]:
        P, T = simulate_pairs(n, length, err, seed=length + int(100 * err))
        assert _check(P, T, (4, 6, 2), cigar_mode="packed")["rescued"] == 0


def test_gpu_packed_same_as_chain_and_edit_unchanged(pairs):
    P, T = _head(pairs[0], 3000), _head(pairs[1], 3000)
    a = wfa(P, T, backend="gpu", cigar_mode="chain")
    b = wfa(P, T, backend="gpu", cigar_mode="packed")
    _same(b, a)
    a = wfa(P, T, edit=True, backend="gpu", cigar_mode="chain")
    b = wfa(P, T, edit=True, backend="gpu", cigar_mode="packed")   # edit: always the chain
    _same(b, a)
    with pytest.raises(ValueError, match="multiples of 32"):
        wfa(P, T, backend="gpu", cigar_mode="packed", tuning={"threads": 48})


def test_gpu_cli(tmp_path, capsys):
    f = tmp_path / "pairs.tsv"
    f.write_text("ACGT\tACGA\nGATTACA\tGATTACA\n\tAC\n")
    assert cli.main(["wfa", str(f), "--backend", "gpu"]) == 0
    assert capsys.readouterr().out.splitlines() == ["4\t3=1X", "0\t7=", "10\t2I"]
