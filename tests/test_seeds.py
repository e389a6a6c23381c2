"""Seed stage against a plain enumeration of every (query, target) pair."""

import numpy as np
import pytest

from gpukernels import seeds
from gpukernels.errors import InputError


def brute_hits(t, q, pattern, transition, span):
    care = [i for i, c in enumerate(pattern) if c == "1"]
    out = set()
    for qi in range(len(q) - span + 1):
        wq = q[qi:qi + span]
        if (wq > 3).any():
            continue
        for ti in range(len(t) - span + 1):
            wt = t[ti:ti + span]
            if (wt > 3).any():
                continue
            diff = [c for c in care if wq[c] != wt[c]]
            if not diff or (transition and len(diff) == 1 and wq[diff[0]] ^ wt[diff[0]] == 2):
                out.add((qi, ti))
    return out


@pytest.mark.parametrize("pattern", ["1110100110010101111", "11011", "1111"])
@pytest.mark.parametrize("transition", [True, False])
def test_hits_equal_enumeration(pattern, transition):
    rng = np.random.default_rng(len(pattern) + transition)
    t = rng.integers(0, 4, 300).astype(np.uint8)
    q = np.where(rng.random(300) < 0.15, rng.integers(0, 4, 300), t).astype(np.uint8)
    t[[50, 51, 200]] = 4  # N never seeds
    q[120] = 4
    sd = seeds.parse_seed(pattern)
    idx = seeds.build_index(t, sd)
    qk = seeds.seed_keys(q, sd)
    hq, ht = seeds.find_hits(idx, qk, 0, len(q), transition)
    got = set(zip(hq.tolist(), ht.tolist()))
    assert len(got) == len(hq)
    assert got == brute_hits(t, q, pattern, transition, sd.span)


def test_bucket_table_follows_the_target_and_keeps_the_hits(monkeypatch):
    """A short target gets a small bucket table (lookups search its buckets); the hits are a direct table's."""
    sd = seeds.parse_seed()
    assert seeds._prefix_bits(sd, 4_641_652) == 24          # E. coli: a direct table, as before
    assert seeds._prefix_bits(sd, 40_000) == 17
    assert seeds._prefix_bits(sd, 300) == seeds.PREFIX_BITS_MIN
    rng = np.random.default_rng(5)
    t = rng.integers(0, 4, 5000).astype(np.uint8)
    q = np.where(rng.random(5000) < 0.1, rng.integers(0, 4, 5000), t).astype(np.uint8)
    qk = seeds.seed_keys(q, sd)
    small = seeds.build_index(t, sd)
    assert small.shift == sd.key_bits - seeds.PREFIX_BITS_MIN and len(small.bucket) == (1 << 16) + 1
    monkeypatch.setattr(seeds, "PREFIX_BITS_MIN", 24)
    direct = seeds.build_index(t, sd)
    assert direct.shift == 0
    hits = seeds.find_hits(small, qk, 0, len(q))
    for a, b in zip(hits, seeds.find_hits(direct, qk, 0, len(q))):
        assert np.array_equal(a, b)
    assert len(hits[0]) > 1000


def test_masked_positions_never_seed():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, 200).astype(np.uint8)
    sd = seeds.parse_seed()
    keys = seeds.seed_keys(codes, sd)
    masked = codes.copy()
    masked[100] = 4
    mkeys = seeds.seed_keys(masked, sd)
    assert (mkeys[100 - sd.span + 1:101] == -1).all()
    assert (mkeys[:100 - sd.span + 1] == keys[:100 - sd.span + 1]).all()


def test_self_mode_keeps_upper_triangle():
    rng = np.random.default_rng(4)
    t = rng.integers(0, 4, 400).astype(np.uint8)
    sd = seeds.parse_seed()
    idx = seeds.build_index(t, sd)
    hq, ht = seeds.find_hits(idx, seeds.seed_keys(t, sd), 0, len(t), True, self_mode=1)
    assert (ht < hq).all()


@pytest.mark.parametrize("bad", ["", "1102", "0111", "1110", "111"])
def test_bad_patterns(bad):
    with pytest.raises(InputError):
        seeds.parse_seed(bad)
