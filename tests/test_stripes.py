"""The walk in target stripes (``gpu/stripes.py``): the sequential rule's result, on the CPU emulator."""

from __future__ import annotations

import numpy as np
import pytest

from gapped_emulator import EmuRunner
from gpukernels.cpu import gapped as cpu_gapped
from gpukernels.genome import read_fasta
from gpukernels.gpu import gapped as gpu_gapped, stripes
from gpukernels.gpu.runner import R_DIAGS

from conftest import DATA
from test_gpu_gapped_waves import assert_same_extension, strand_inputs, tandem_inputs


@pytest.fixture(scope="module")
def pylori_plus():
    t = read_fasta(DATA / "hpylori_g27_40k.fa.gz")
    q = read_fasta(DATA / "hpylori_sjm180_40k.fa.gz")
    return strand_inputs(t, q, False)


def _extend(args, wave, round_cells=gpu_gapped.ROUND_CELLS, **kw):
    runner = EmuRunner(args[0], args[1], args[8], args[9], args[10], args[11], args[14], 1 << 30)
    return gpu_gapped.extend_anchors(*args, gpu_mem=1 << 30, wave=wave, runner=runner, round_cells=round_cells,
                                     stripes=4, **kw)


@pytest.mark.parametrize("margin, wave, escapes", [
    (stripes.STRIPE_MARGIN, 7, 0),      # small waves: many segments and barriers
    (0, 64, 0),                         # stripes as close as the inspections allow
    (-3000, 64, 1),                     # reaches cut short: a side steps out, the strand starts again
])
def test_stripes_equal_cpu(pylori_plus, margin, wave, escapes, monkeypatch):
    monkeypatch.setattr(stripes, "STRIPE_MIN", 1)
    monkeypatch.setattr(stripes, "STRIPE_MARGIN", margin)
    ref = cpu_gapped.extend_anchors(*pylori_plus)
    got = _extend(pylori_plus, wave)
    assert_same_extension(got, ref)
    stats = gpu_gapped.last_stats()
    assert stats["stripe_escapes"] == escapes
    if not escapes:
        assert stats["stripe_passes"] > 0 and stats["stripe_anchors"] > 0


def _pieces_and_self():
    """Records cut from the 40 kb pieces (reaches end at record bounds), and a self-comparison (its barrier)."""
    from gpukernels.engine import AlignOptions
    t = read_fasta(DATA / "hpylori_g27_40k.fa.gz")
    q = read_fasta(DATA / "hpylori_sjm180_40k.fa.gz")
    cuts = [(0, 0, 13000), (0, 13000, 27000), (0, 27000, 40000)]
    split = strand_inputs(t.piece(cuts, "t3"), q.piece(cuts, "q3"), False)
    tt = t.piece([(0, 0, 40000)])
    own = strand_inputs(tt, tt, False, AlignOptions(self_mode=True))
    return {"records": split, "self": own[:13] + (True,) + own[14:]}


@pytest.mark.parametrize("case", ["records", "self"])
def test_stripes_records_and_self(case, monkeypatch):
    monkeypatch.setattr(stripes, "STRIPE_MIN", 1)
    args = _pieces_and_self()[case]
    ref = cpu_gapped.extend_anchors(*args)
    got = _extend(args, 64)
    assert_same_extension(got, ref)
    stats = gpu_gapped.last_stats()
    assert stats["stripe_escapes"] == 0 and stats["stripe_passes"] > 0
    assert len(ref[0]) > 0


def test_stripes_stop_for_rounds(monkeypatch):
    """Every dirty side redone in GPU rounds: stripes stop at them and go on after, in the same stripes."""
    monkeypatch.setattr(stripes, "STRIPE_MIN", 1)
    args = tandem_inputs()
    ref = cpu_gapped.extend_anchors(*args)
    got = _extend(args, 7, round_cells=0)
    assert_same_extension(got, ref)
    stats = gpu_gapped.last_stats()
    assert stats["stripe_passes"] > 0 and stats["stripe_escapes"] == 0


@pytest.mark.parametrize("least", [1, 3])
def test_stripes_stop_for_rounds_of_sides_with_host_rows(least, monkeypatch):
    """Dirty sides whose rows the host holds sent to rounds as well (all of them, or where 3 of a
    stripe's next anchors have one, gapped._cluster_ahead over its own anchors): the sequential rule's
    result, in its order. (Without the routes of records off the paths: with them, the walk proves
    most of these sides held, and too few are left for rounds.)"""
    monkeypatch.setattr(stripes, "STRIPE_MIN", 1)
    monkeypatch.setattr(gpu_gapped, "PATH_ROUTES", False)
    args = tandem_inputs()
    ref = cpu_gapped.extend_anchors(*args)
    got = _extend(args, 7, round_cells=0, stop_round_cells=0, stop_round_min=least)
    assert_same_extension(got, ref)
    stats = gpu_gapped.last_stats()
    print(least, {k: stats[k] for k in ("rounds", "host_stopped", "stripe_passes")})
    assert stats["stripe_passes"] > 0 and stats["stripe_escapes"] == 0 and stats["rounds"] > 0


@pytest.mark.parametrize("host_threads, stripes_given, passes", [(2, None, False), (16, None, True), (16, 1, False)])
def test_stripes_follow_host_threads(pylori_plus, host_threads, stripes_given, passes, monkeypatch):
    """Half the host threads walk in stripes (one: the sequential walk); ``stripes`` overrides."""
    monkeypatch.setattr(stripes, "STRIPE_MIN", 1)
    ref = cpu_gapped.extend_anchors(*pylori_plus)
    runner = EmuRunner(*(pylori_plus[i] for i in (0, 1, 8, 9, 10, 11, 14)), 1 << 30)
    got = gpu_gapped.extend_anchors(*pylori_plus, gpu_mem=1 << 30, wave=64, runner=runner, host_threads=host_threads,
                                    stripes=stripes_given)
    assert_same_extension(got, ref)
    assert (gpu_gapped.last_stats()["stripe_passes"] > 0) == passes


def test_plan_stripes_rows_apart():
    """Each placed anchor's rows lie inside its stripe's; the stripes' rows are apart; the barrier is the
    first anchor without a traceback or reaching too wide."""
    rng = np.random.default_rng(3)
    n, nrows, margin, wide, ns = 400, 200_000, 100, 5000, 6
    anchor_t = rng.integers(0, nrows - 1, n)
    res_all = np.zeros((2 * n, gpu_gapped.R_FULL_DIAGS + 1), np.int64)
    res_all[:, R_DIAGS] = rng.integers(0, 800, 2 * n)
    status = np.where(rng.random(n) < 0.2, 4, 2).astype(np.int8)
    status[300] = 5
    res_all[2 * 250, R_DIAGS] = 6000        # too wide: the barrier
    t_lo, t_hi = np.zeros(n, np.int64), np.full(n, nrows - 1, np.int64)
    bounds = np.zeros((ns, 2), np.int64)
    order = np.empty(n, np.int64)
    starts = np.zeros(ns + 1, np.int64)
    c, placed = stripes.plan_stripes(0, n, status, res_all, anchor_t, t_lo, t_hi, nrows, margin, wide, ns, bounds,
                                     order, starts)
    assert c == (250 if status[250] != 4 else 300)
    live = [a for a in range(c) if status[a] == 2]
    assert placed == len(live) and sorted(order[:placed]) == live
    used = []
    for s in range(ns):
        mine = order[starts[s]:starts[s + 1]]
        assert list(mine) == sorted(mine)
        for a in mine:
            lo, hi = stripes._rows(a, 0, 0, margin, res_all, anchor_t, t_lo, t_hi)
            assert bounds[s, 0] <= lo and hi < bounds[s, 1]
        if len(mine):
            used.append(tuple(bounds[s]))
    assert all(b[1] <= c2[0] for b, c2 in zip(used, used[1:]))
    assert len(used) > 1


def test_kept_alignments_come_back_in_anchor_order():
    """The call returns the kept alignments in their anchors' order, as the CPU twin keeps them, even
    where a stripe's stop for a round numbered them otherwise (gapped._in_anchor_order)."""
    rng = np.random.default_rng(3)
    n = 9
    K = np.zeros((n, 6), np.int64)
    K[:, :5] = rng.integers(0, 1000, (n, 5))
    K[:, 5] = rng.permutation(40)[:n]
    sizes = rng.integers(0, 6, n)
    op_off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    ops = rng.integers(0, 4, op_off[-1] + 7).astype(np.uint8)     # (spare room past the last column)
    k2, off2, ops2 = gpu_gapped._in_anchor_order(K, op_off, ops)
    order = np.argsort(K[:, 5])
    assert np.array_equal(k2, K[order]) and np.all(np.diff(k2[:, 5]) > 0)
    for new, old in enumerate(order):
        assert np.array_equal(ops2[off2[new]:off2[new + 1]], ops[op_off[old]:op_off[old + 1]])
    assert off2[-1] == op_off[-1] == len(ops2)
    # already in order: the same arrays back (copies)
    k3, off3, ops3 = gpu_gapped._in_anchor_order(k2, off2, ops2)
    assert np.array_equal(k3, k2) and np.array_equal(off3, off2) and np.array_equal(ops3, ops2)
    empty = gpu_gapped._in_anchor_order(K[:0], op_off[:1], ops)
    assert len(empty[0]) == 0 and len(empty[2]) == 0


def test_merge_takes_the_stripes_runs():
    """merge_kept adds the stripes' alignments with the runs their own keeps found (kept.add_kept_runs): the
    shared arrays come out as add_kept, finding the runs again, leaves them (random paths in two stripes,
    merged in anchor order onto alignments kept before)."""
    from gpukernels.gpu import kept
    rng = np.random.default_rng(5)
    codes = np.array([cpu_gapped.OP_EQ, cpu_gapped.OP_X, cpu_gapped.OP_I, cpu_gapped.OP_D], np.uint8)
    n, rows = 12, 40000
    walls = np.zeros((rows, 4, 2), np.int32)

    def fresh(m):
        return (np.zeros((m, 6), np.int64), np.zeros(2, np.int64), np.zeros(m + 2, np.int64),
                np.empty(1, np.uint8), np.zeros(m + 2, np.int64), np.empty((1, 4), np.int64),
                np.full((rows >> kept.BSHIFT) + 2, -1, np.int64), np.empty((1, 2), np.int64))

    def keep(arrays, ops, t0, q0, anchor):
        K, cnt, op_off, ops_all, run_off, runs, head, ents = arrays
        t1, q1 = t0 + int((ops != cpu_gapped.OP_I).sum()), q0 + int((ops != cpu_gapped.OP_D).sum())
        grown = kept.add_kept(ops, t0, q0, t1, q1, 11, K, cnt, op_off, ops_all, run_off, runs, head, ents, walls,
                              anchor)
        return (K, cnt, op_off, grown[0], run_off, grown[1], head, grown[2])

    paths = [(rng.choice(codes, int(rng.integers(0, 400)), p=[0.7, 0.1, 0.1, 0.1]),
              int(rng.integers(0, rows - 1000)), int(rng.integers(0, 5000))) for _ in range(n)]
    want, shared = fresh(2 * n), fresh(2 * n)
    for k in range(3):                                  # kept before the pass, in both
        want = keep(want, *paths[k], k)
        shared = keep(shared, *paths[k], k)
    anchors = 3 + rng.permutation(n - 3)
    parts = []
    for stripe in (anchors[:4], anchors[4:]):
        local = fresh(n)
        for a in sorted(stripe):
            local = keep(local, *paths[a], a)
        nk = int(local[1][0])
        parts.append((local[0][:nk], local[2][:nk + 1], local[3], local[4][:nk + 1], local[5]))
    for a in sorted(anchors):
        want = keep(want, *paths[a], a)
    kk = np.concatenate([p[0] for p in parts])
    koff, kops = stripes._joined([p[1] for p in parts], [p[2] for p in parts])
    kroff, kruns = stripes._joined([p[3] for p in parts], [p[4] for p in parts])
    K, cnt, op_off, ops_all, run_off, runs, head, ents = shared
    ops_all, runs, ents = stripes.merge_kept(np.argsort(kk[:, 5], kind="mergesort"), kk, koff, kops, kroff, kruns, K,
                                             cnt, op_off, ops_all, run_off, runs, head, ents)
    got = (K, cnt, op_off, ops_all, run_off, runs, head, ents)
    nk, nr, ne = int(want[1][0]), int(want[4][n]), int(want[1][1])
    assert nk == n and int(cnt[0]) == n and int(cnt[1]) == ne
    for x, (a, b) in enumerate(zip(want, got)):
        if x == 3:
            a, b = a[:want[2][nk]], b[:op_off[nk]]
        elif x == 5:
            a, b = a[:nr], b[:run_off[nk]]
        elif x == 7:
            a, b = a[:ne], b[:ne]
        assert np.array_equal(a, b), x
