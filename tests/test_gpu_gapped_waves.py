"""The wave logic of the GPU gapped stage, run on the CPU through a kernel emulator.

``gpu/gapped.py`` must give the CPU twin's result exactly, whatever the wave
size and memory budget. Here its inspector/executor kernels are replaced by
``gapped_emulator.EmuRunner``, which follows ``cuda/gapped.cu`` line by line,
so the host side (waves, nearness rule, dirty regions, executor batches, CPU
fallbacks) is checked on machines without a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from gapped_emulator import EmuRunner
from gpukernels import seeds, ungapped
from gpukernels.cpu import gapped as cpu_gapped, relay
from gpukernels.engine import AlignOptions, _record_bounds
from gpukernels.gapped import WALL_SLOTS, anchor_order
from gpukernels.genome import read_fasta
from gpukernels.gpu import gapped as gpu_gapped, kept, kept_rows
from gpukernels.gpu.runner import DCAP

from conftest import DATA


def strand_inputs(target, query, reverse, options=None):
    """The gapped stage's inputs for one strand, as engine.align_strand builds them."""
    options = options or AlignOptions()
    sc = options.scoring
    seed = seeds.parse_seed(options.seed)
    index = seeds.build_index(target.seed_codes(), seed)
    t_seed = target.seed_codes()
    if reverse:
        q_codes = query.reverse_complement()
        q_seed = query.seed_codes_rc()
    else:
        q_codes, q_seed = query.codes, query.seed_codes()
    qkeys = seeds.seed_keys(q_seed, seed)
    hq, ht = seeds.find_hits(index, qkeys, 0, len(q_codes), True, 0)
    diag_end = np.full(len(target.codes) + len(q_codes) + 1, -1, dtype=np.int64)
    hsps = ungapped.add_anchors(ungapped.extend_hits(t_seed, q_seed, hq, ht, seed.span, sc, diag_end),
                                target.codes, q_codes, sc)
    order = anchor_order(hsps.score, hsps.anchor_q, hsps.anchor_t)
    aq, at = hsps.anchor_q[order], hsps.anchor_t[order]
    t_lo, t_hi = _record_bounds(target, at, False)
    q_lo, q_hi = _record_bounds(query, aq, reverse)
    return (target.codes, q_codes, aq, at, t_lo, t_hi, q_lo, q_hi, sc.matrix, sc.gap_open, sc.gap_extend,
            sc.ydrop, sc.gappedthresh, False, WALL_SLOTS)


@pytest.fixture(scope="module")
def inputs():
    t = read_fasta(DATA / "hpylori_g27_40k.fa.gz")
    q = read_fasta(DATA / "hpylori_sjm180_40k.fa.gz")
    # self-comparison of the target on its own strand: repeats close to each other
    out = [strand_inputs(t, q, rev) for rev in (False, True)]
    tt = t.piece([(0, 0, 40000)])
    s = strand_inputs(tt, tt, False, AlignOptions(self_mode=True))
    out.append(s[:13] + (True,) + s[14:])
    return out


def assert_same_extension(got, ref):
    """The GPU twin's result equals the CPU twin's: every alignment array, and the anchors extended.

    The last array, cells per anchor, counts the cells computed, which may
    differ on the GPU: a side whose walls changed only past its best
    anti-diagonal keeps its inspection (same alignment), and with it the
    cells of its longer y-drop tail; a round that stops a side at its stale
    best leaves the tail out.
    """
    assert len(got) == len(ref)
    for x, y in zip(got[:-1], ref[:-1]):
        assert np.array_equal(x, y)
    assert np.array_equal(got[-1] >= 0, ref[-1] >= 0)
    assert (got[-1][ref[-1] > 0] > 0).all()


_DEF = gpu_gapped.ROUND_CELLS


@pytest.mark.parametrize("wave, mem, bands, dcap, round_cells, threads", [
    (4096, 1 << 30, (512, 2048), DCAP, _DEF, 2),
    (7, 1 << 30, (512, 2048), DCAP, _DEF, 2),   # small waves: many dirty regions, host redoes them
    (7, 1 << 30, (512, 2048), DCAP, 0, 2),      # the same, every dirty side redone in GPU rounds
    (64, 3000, (512, 2048), DCAP, 0, 2),        # tiny budget: executor batches of one, host extensions
    (64, 1 << 30, (16, 32), DCAP, _DEF, 2),     # narrow bands: band retries, then the host
    (64, 1 << 30, (512, 2048), 300, _DEF, 2),              # long sides abandoned by the inspector: wide rounds
    (64, 1 << 30, (512, 2048), 150, _DEF, 8),              # ... and several extended on host threads at once
])
def test_waves_equal_cpu(inputs, wave, mem, bands, dcap, round_cells, threads, monkeypatch):
    # long sides split into chunks of 1024 anti-diagonals (cpu/relay.py), so 40 kb pieces have several
    monkeypatch.setattr(relay, "CHUNK", 1024)
    monkeypatch.setattr(relay, "WARM", 512)
    batches = abandoned = taken = 0
    for args in inputs:
        ref = cpu_gapped.extend_anchors(*args)
        runner = EmuRunner(args[0], args[1], args[8], args[9], args[10], args[11], args[14], mem, bands, dcap,
                           wide_band=bands[-1])
        got = gpu_gapped.extend_anchors(*args, gpu_mem=mem, wave=wave, runner=runner, round_cells=round_cells,
                                        host_threads=threads)
        assert_same_extension(got, ref)
        print(wave, mem, bands, dcap, round_cells, threads, gpu_gapped.last_stats())
        batches += gpu_gapped.last_stats()["long_batches"]
        taken += gpu_gapped.last_stats()["relay_taken"]
        abandoned += gpu_gapped.last_stats()["host_why"]["abandoned"]
    if threads > 2:
        assert abandoned > batches > 0      # some batches took several anchors
    if threads > 2:
        assert taken > 0                    # some long sides were split
    assert sum(len(cpu_gapped.extend_anchors(*a)[0]) for a in inputs) > 0


@pytest.mark.parametrize("setting", ["ABANDONED_IN_BLOCKS", "EARLY_WAVES", "ABANDONED_AFTER_EARLY"])
def test_former_paths_equal_cpu(inputs, setting, monkeypatch):
    """What these settings replaced (warp rounds of abandoned anchors; a wave sent only once the one before
    had finished; the abandoned batch beside the early one) still gives the CPU's result."""
    monkeypatch.setattr(gpu_gapped, setting, False)
    test_waves_equal_cpu(inputs, 64, 1 << 30, (512, 2048), 300, _DEF, 2, monkeypatch)


def _mutated(rng, codes, rate):
    """``codes`` with a share ``rate`` of its letters substituted."""
    out = codes.copy()
    hit = rng.random(len(out)) < rate
    out[hit] = (out[hit] + rng.integers(1, 4, int(hit.sum()))) % 4
    return out


def tandem_inputs():
    """A tandem array (30 copies of a 120 bp unit, 10 % diverged, spaced 0-40 bp) in random flanks, against
    a 2 % diverged copy: alignments on neighbouring diagonals whose extensions explore each other's
    regions, so the walk finds dirty sides and, with ``round_cells=0``, redoes them in wide rounds."""
    from gpukernels.genome import Genome
    rng = np.random.default_rng(5)
    unit = rng.integers(0, 4, 120)
    parts = [rng.integers(0, 4, 1500)]
    for _ in range(30):
        parts += [_mutated(rng, unit, 0.1), rng.integers(0, 4, int(rng.integers(0, 40)))]
    parts.append(rng.integers(0, 4, 1500))
    tc = np.concatenate(parts).astype(np.uint8)
    qc = _mutated(rng, tc, 0.02).astype(np.uint8)

    def genome(codes, name):
        n = len(codes)
        return Genome(name, [name], np.array([n]), np.array([0]), np.array([0]), np.array([n]), codes,
                      np.zeros(n, dtype=bool))
    return strand_inputs(genome(tc, "t"), genome(qc, "q"), False)


@pytest.fixture(scope="module")
def tandem():
    """:func:`tandem_inputs`, once per module."""
    return tandem_inputs()


@pytest.mark.parametrize("room", ["ample", "tight"])
def test_rounds_traced_in_one_launch_equal_cpu(tandem, room, monkeypatch):
    """Wide rounds inspect and trace back in one launch (mode 2); sides that outgrow their room
    ("tight": half the stale cells and anti-diagonals) fall back to the executor. Same result."""
    monkeypatch.setattr(gpu_gapped, "HOST_STOP", False)     # else the walk redoes these sides itself
    if room == "tight":
        def tight(stale, mem):
            return stale[:, gpu_gapped.R_CELLS] // 2 + 1, stale[:, gpu_gapped.R_DIAGS] // 2 + 1
        monkeypatch.setattr(gpu_gapped, "_trace_room", tight)
    stats = _checked(tandem)
    print(room, stats)
    assert stats["rounds"] > 5
    assert 0 < stats["traced"] <= stats["round_anchors"]
    if room == "ample":
        assert stats["traced"] == stats["round_anchors"]
    else:
        assert stats["traced"] < stats["round_anchors"]    # the others went to the executor


def _emulated(args, slots=None, wave=64, stop_round_cells=None, stop_round_min=None):
    """The GPU twin on the emulator with ``slots`` slots of rows at the best (None: the budget's),
    every dirty side without rows on the host in GPU rounds (``round_cells`` 0), and those with rows
    in rounds from ``stop_round_cells`` cells where ``stop_round_min`` anchors ahead have one (None:
    the defaults)."""
    runner = EmuRunner(args[0], args[1], args[8], args[9], args[10], args[11], args[14], 1 << 30)
    if slots is not None:
        runner.keep_slots = slots
        runner.arena = runner.arena[:slots]
    return gpu_gapped.extend_anchors(*args, gpu_mem=1 << 30, wave=wave, runner=runner, round_cells=0,
                                     stop_round_cells=stop_round_cells, stop_round_min=stop_round_min)


def _checked(args, slots=None, wave=64, stop_round_cells=1 << 62, stop_round_min=None):
    """:func:`_emulated`, checked against the CPU twin; returns the GPU twin's stats."""
    assert_same_extension(_emulated(args, slots, wave, stop_round_cells, stop_round_min),
                          cpu_gapped.extend_anchors(*args))
    return gpu_gapped.last_stats()


@pytest.mark.parametrize("slots", [0, 40, None])
def test_rounds_stop_at_stale_best(tandem, slots, monkeypatch):
    """A round's side stops at its stale best where its rows there are nowhere above the stale
    run's (kernel's at_stale_best): the result is the CPU's with the device keeping no rows, 40
    slots (taken back from decided anchors again and again) or as many as the budget allows."""
    monkeypatch.setattr(gpu_gapped, "HOST_STOP", False)
    stats = _checked(tandem, slots)
    print(slots, {k: stats[k] for k in ("rounds", "round_anchors", "stopped")})
    if slots == 0:
        assert stats["stopped"] == 0
    else:
        # some sides stop, not all: the check fails where the new walls changed the rows at the best
        assert 0 < stats["stopped"] < 2 * stats["round_anchors"]


@pytest.mark.parametrize("slots, cap", [(0, None), (40, None), (None, 1 << 12), (None, None)])
def test_walk_stops_at_stale_best(tandem, slots, cap, monkeypatch):
    """The walk redoes a dirty side on the host and stops it at its stale best where the rows kept
    of it allow (_redo_side), else goes on to the end: the CPU's result with no rows kept (every
    big dirty side then goes to a GPU round), 40 slots, host copies dropped for decided anchors
    at every wave (a tiny HOST_CAP), and the budget's. Every dirty side is redone (PATH_CHECK off: with
    its routes, the hold proof spares nearly all of this array's)."""
    monkeypatch.setattr(gpu_gapped, "PATH_CHECK", False)
    if cap is not None:
        monkeypatch.setattr(kept_rows.KeptRows, "HOST_CAP", cap)
    stats = _checked(tandem, slots)
    print(slots, cap, {k: stats[k] for k in ("rounds", "host_stopped", "host_why")})
    if slots == 0:
        assert stats["host_stopped"] == 0 and stats["rounds"] > 5
    else:
        # most dirty sides stop on the host, not all (the check fails where the walls changed the rows)
        assert 0 < stats["host_stopped"] < stats["host_why"]["dirty_sides"]


def test_big_dirty_sides_with_rows_go_to_rounds(tandem, monkeypatch):
    """A dirty side whose rows at the stale best the host holds still goes to a GPU round where its
    redo up to that best would be big (_big_side counts its cells up to the best): with
    stop_round_cells 0 no side stops on the host, the rounds stop them at the stale best instead,
    and the result is the CPU's. Where they must come STOP_ROUND_MIN at a time, fewer go (none
    where no walk holds that many), and the result is the CPU's still."""
    monkeypatch.setattr(gpu_gapped, "PATH_CHECK", False)     # every dirty side redone
    stats = _checked(tandem, None, stop_round_cells=0, stop_round_min=1)
    print({k: stats[k] for k in ("rounds", "host_stopped", "stopped")})
    assert stats["host_stopped"] == 0 and stats["rounds"] > 5 and stats["stopped"] > 0
    alone = _checked(tandem, None, stop_round_cells=0, stop_round_min=1 << 20)
    assert alone["host_stopped"] > 0 and alone["rounds"] < stats["rounds"]
    some = _checked(tandem, None, stop_round_cells=0, stop_round_min=4)
    print({k: some[k] for k in ("rounds", "host_stopped", "stopped")})


def test_run_in_region_is_the_points_one_by_one():
    """side_dirty takes a substitution run at once (run_in_region): the same answer as testing its
    points one by one (in_region), on both sides, for random regions and runs."""
    rng = np.random.default_rng(1)
    aq, at = 1000, 1200
    for _ in range(20000):
        side = int(rng.integers(2))
        imax, jmax, dmax = (int(x) for x in rng.integers(0, 130, 3))
        kmin, kmax = int(rng.integers(-60, 1)), int(rng.integers(0, 60))
        lq, lt = aq + 1 + int(rng.integers(-80, 80)), at + 1 + int(rng.integers(-80, 80))
        n = int(rng.integers(1, 50))
        want = any(kept.in_region(lq + s, lt + s, aq, at, side, imax, jmax, kmin, kmax, dmax)
                   for s in range(1, n + 1))
        assert kept.run_in_region(lq, lt, n, aq, at, side, imax, jmax, kmin, kmax, dmax) == want


@pytest.mark.parametrize("overlap", [False, True])
def test_waves_beside_the_walk(tandem, overlap, monkeypatch):
    """The next wave is inspected and executed (on its own thread, with a copy of the walls) while
    the host walks this one (OVERLAP_WAVES): its results are stamped with the walls it saw, so the
    walk checks them as any other. The CPU's result either way."""
    monkeypatch.setattr(gpu_gapped, "OVERLAP_WAVES", overlap)
    stats = _checked(tandem, wave=16)
    print(overlap, {k: stats[k] for k in ("waves", "waves_beside", "rounds", "host_stopped")})
    assert stats["waves"] > 3
    assert stats["waves_beside"] == (stats["waves"] - 1 if overlap else 0)


def test_keep_is_runs_of_and_mark_walls():
    """add_kept finds a path's runs and marks its walls in one pass: cpu/gapped.runs_of's runs and
    mark_walls's walls, on random paths over walls already holding intervals (slots extended, added,
    or all taken)."""
    rng = np.random.default_rng(3)
    codes = np.array([cpu_gapped.OP_EQ, cpu_gapped.OP_X, cpu_gapped.OP_I, cpu_gapped.OP_D], np.uint8)
    for _ in range(200):
        ops = rng.choice(codes, int(rng.integers(0, 300)), p=[0.6, 0.1, 0.15, 0.15])
        t0, q0 = int(rng.integers(0, 50)), int(rng.integers(0, 50))
        t1, q1 = t0 + int((ops != cpu_gapped.OP_I).sum()), q0 + int((ops != cpu_gapped.OP_D).sum())
        walls = np.zeros((t1 + 2, 4, 2), np.int32)
        for row in rng.integers(0, t1 + 1, 40):
            for s in range(int(rng.integers(1, 5))):
                lo = int(rng.integers(0, q1 + 5))
                walls[row, s] = (lo, lo + 1 + int(rng.integers(0, 3)))
        want = walls.copy()
        cpu_gapped.mark_walls(want, ops, t0, q0)
        K, cnt = np.zeros((2, 5), np.int64), np.zeros(2, np.int64)
        op_off, run_off = np.zeros(3, np.int64), np.zeros(3, np.int64)
        head = np.full((t1 >> kept.BSHIFT) + 2, -1, np.int64)
        ops_all, runs, ents = kept.add_kept(ops, t0, q0, t1, q1, 7, K, cnt, op_off, np.empty(1, np.uint8), run_off,
                                                    np.empty((1, 4), np.int64), head, np.empty((1, 2), np.int64), walls)
        assert np.array_equal(walls, want)
        assert np.array_equal(runs[:run_off[1]], np.stack(cpu_gapped.runs_of(ops, t0, q0), axis=1))
        assert np.array_equal(ops_all[:op_off[1]], ops) and cnt[0] == 1
        assert cnt[1] == (((t1 - 1) >> kept.BSHIFT) - (t0 >> kept.BSHIFT) + 1 if run_off[1] else 0)
