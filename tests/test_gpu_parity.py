"""GPU backend (issue 3): each stage equals its CPU twin, and ``ava align`` PAF is byte-identical.

All tests need a CUDA GPU (``gpu`` mark; skipped without one). The genomes
come from ``$AVA_SHARED_DATA`` (default ``../shared/data``); the CPU
reference PAFs from ``tests/gpu_reference.py`` (cached by content).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import gpu_reference as ref
from gpukernels import seeds, ungapped
from gpukernels.cpu import gapped as cpu_gapped
from gpukernels.engine import AlignOptions
from gpukernels.genome import read_fasta

pytestmark = [pytest.mark.gpu]
shared = pytest.mark.skipif(not ref.DATA.is_dir(), reason=f"{ref.DATA} is absent")


def _host(a):
    import cupy
    return cupy.asnumpy(a) if isinstance(a, cupy.ndarray) else np.asarray(a)


@pytest.fixture(scope="module")
def saureus():
    """400 kb of S. aureus COL and N315 (their first records)."""
    t = read_fasta(ref.DATA / "bacteria/S.Aureus_COL.fa.gz")
    q = read_fasta(ref.DATA / "bacteria/S.Aureus_N315.fa.gz")
    return t.piece([(0, 0, 400_000)]), q.piece([(0, 0, 400_000)])


@shared
@pytest.mark.shared
def test_seed_stage_equals_cpu(saureus):
    t, q = saureus
    seed = seeds.parse_seed()
    for codes in (t.seed_codes(), q.seed_codes()):
        assert np.array_equal(_host(seeds.seed_keys(codes, seed, "gpu")), seeds.seed_keys(codes, seed, "cpu"))
    ci = seeds.build_index(t.seed_codes(), seed, "cpu")
    gi = seeds.build_index(t.seed_codes(), seed, "gpu")
    for f in ("sorted_keys", "sorted_pos", "bucket"):
        assert np.array_equal(_host(getattr(gi, f)), getattr(ci, f)), f
    assert gi.shift == ci.shift
    from gpukernels.gpu import seeds as gs
    for reverse in (False, True):
        qs = q.seed_codes_rc() if reverse else q.seed_codes()
        qk = seeds.seed_keys(qs, seed, "cpu")
        for transition in (True, False):
            for self_mode in (0, 1, 2):
                c = seeds.find_hits(ci, qk, 1000, 300_000, transition, self_mode, "cpu")
                g = gs.find_hits(gi, qk, 1000, 300_000, transition, self_mode)
                assert np.array_equal(g[0], c[0]) and np.array_equal(g[1], c[1])
        # a budget that splits the lookup into many launches gives the same hits
        g = gs.find_hits(gi, qk, 0, len(qk), True, 0, gpu_mem=1 << 16)
        c = seeds.find_hits(ci, qk, 0, len(qk), True, 0, "cpu")
        assert np.array_equal(g[0], c[0]) and np.array_equal(g[1], c[1])
        assert len(c[0]) > 100_000


@shared
@pytest.mark.shared
@pytest.mark.parametrize("gpu_mem, min_score", [(None, 1), (None, 3000), (1 << 18, 3000)])
def test_ungapped_stage_equals_cpu(saureus, gpu_mem, min_score):
    from gpukernels.cpu import ungapped as cu
    from gpukernels.gpu import ungapped as gu
    t, q = saureus
    opts = AlignOptions()
    seed = seeds.parse_seed()
    mm = ungapped.masked_matrix(opts.scoring.matrix)
    index = seeds.build_index(t.seed_codes(), seed, "cpu")
    for reverse in (False, True):
        qs = q.seed_codes_rc() if reverse else q.seed_codes()
        qk = seeds.seed_keys(qs, seed, "cpu")
        de_c = np.full(len(t.codes) + len(qs) + 1, -1, dtype=np.int64)
        de_g = de_c.copy()
        for lo in range(0, len(qs), 150_000):          # batches carry the diagonal extents
            hq, ht = seeds.find_hits(index, qk, lo, min(lo + 150_000, len(qs)), True, 0, "cpu")
            c = cu.extend_hits(t.seed_codes(), qs, hq, ht, seed.span, mm, opts.scoring.xdrop, de_c, min_score)
            g = gu.extend_hits(t.seed_codes(), qs, hq, ht, seed.span, mm, opts.scoring.xdrop, de_g, min_score,
                               gpu_mem=gpu_mem)
            for a, b in zip(g, c):
                assert np.array_equal(a, b)
            assert np.array_equal(de_g, de_c)


@shared
@pytest.mark.shared
@pytest.mark.parametrize("wave, gpu_mem", [(None, None), (16, 1 << 20)])
def test_gapped_stage_equals_cpu(saureus, wave, gpu_mem):
    from test_gpu_gapped_waves import assert_same_extension, strand_inputs
    from gpukernels.gpu import gapped as gg
    t, q = saureus
    for reverse in (False, True):
        args = strand_inputs(t, q, reverse)
        c = cpu_gapped.extend_anchors(*args)
        # 16 host threads: the walk in 8 stripes
        g = gg.extend_anchors(*args, gpu_mem=gpu_mem, wave=wave, host_threads=16)
        assert_same_extension(g, c)
        assert gg.last_stats()["stripe_escapes"] == 0
        print("gapped", reverse, wave, gpu_mem, gg.last_stats())


@shared
def test_executor_long_chains_in_blocks_equal_cpu(saureus, monkeypatch):
    """The executor's long wide chains, each in a block of its own on a stream beside the warps
    (``runner.EXEC_WIDE_STEPS``), give the CPU twin's alignments: with the thresholds lowered so
    that a quarter of each call's tasks (the most steps) take that path, both strands."""
    from test_gpu_gapped_waves import assert_same_extension, strand_inputs
    from gpukernels.gpu import gapped as gg
    from gpukernels.gpu import runner as gr
    execute, in_blocks = gr.DeviceRunner.execute, []

    def quarter_in_blocks(self, tasks, band, dstop, tbb, adb, tb_total, *rest, **kw):
        steps = gr._exec_steps(dstop, tbb, tb_total)
        gr.EXEC_WIDE_STEPS = max(1, int(np.percentile(steps, 75)))     # restored by monkeypatch
        in_blocks.append(int((steps >= gr.EXEC_WIDE_STEPS).sum()))
        return execute(self, tasks, band, dstop, tbb, adb, tb_total, *rest, **kw)

    monkeypatch.setattr(gr, "EXEC_WIDE_STEPS", gr.EXEC_WIDE_STEPS)
    monkeypatch.setattr(gr, "EXEC_WIDE_WIDTH", 0)
    monkeypatch.setattr(gr.DeviceRunner, "execute", quarter_in_blocks)
    t, q = saureus
    for reverse in (False, True):
        args = strand_inputs(t, q, reverse)
        c = cpu_gapped.extend_anchors(*args)
        calls = len(in_blocks)
        g = gg.extend_anchors(*args, host_threads=16)
        assert_same_extension(g, c)
        assert sum(in_blocks[calls:]) > 0


def _parity(name, t, q, tmp_path, args=(), env=None):
    expected = ref.cpu_paf(t, q, args)
    out = tmp_path / f"{name}.gpu.paf"
    clock = time.perf_counter()
    log = ref.run_ava(t, q, out, "gpu", list(args), env=env)
    seconds = time.perf_counter() - clock
    got = out.read_bytes()
    print(f"{name}: {len(got.splitlines())} alignments, gpu run {seconds:.1f} s\n{log[-1500:]}")
    assert got == expected
    assert len(got) > 0


@shared
@pytest.mark.shared
@pytest.mark.parametrize("name", list(ref.PAIRS))
def test_cli_paf_identical(name, tmp_path):
    t, q = (ref.DATA / p for p in ref.PAIRS[name])
    _parity(name, t, q, tmp_path)


@shared
@pytest.mark.shared
def test_cli_paf_identical_zymoseptoria(tmp_path):
    t, q = ref.zymo_files(tmp_path)
    _parity("zymo", t, q, tmp_path)


@shared
@pytest.mark.shared
def test_cli_paf_identical_tiny_budget(tmp_path):
    """2 MiB of GPU memory: every stage in many small batches, long tracebacks on the CPU."""
    t, q = (ref.DATA / p for p in ref.PAIRS["hpylori"])
    expected = ref.cpu_paf(t, q)
    out = tmp_path / "tiny.gpu.paf"
    ref.run_ava(t, q, out, "gpu", ["--gpu-mem", str(2 / 1024)])
    assert out.read_bytes() == expected


def test_second_run_does_not_recompile(tmp_path):
    """A fresh process finds the kernels in CuPy's on-disk cache."""
    cache = tmp_path / "cupy_cache"
    env = {"CUPY_CACHE_DIR": str(cache)}
    t = ref.ROOT / "tests" / "data" / "hpylori_g27_40k.fa.gz"
    q = ref.ROOT / "tests" / "data" / "hpylori_sjm180_40k.fa.gz"
    times = []
    for k in range(2):
        clock = time.perf_counter()
        ref.run_ava(t, q, tmp_path / f"run{k}.paf", "gpu", env=env)
        times.append(time.perf_counter() - clock)
        files = sorted(p.name for p in cache.rglob("*") if p.is_file())
        if k == 0:
            first = files
    print(f"startup: first run {times[0]:.2f} s (compiles), second {times[1]:.2f} s (cached)")
    assert first and files == first
    assert (tmp_path / "run0.paf").read_bytes() == (tmp_path / "run1.paf").read_bytes()


@pytest.mark.parametrize("slots", [4, 3])
@pytest.mark.parametrize("host_stop", [False, True])
def test_gapped_rounds_equal_cpu(slots, host_stop, monkeypatch):
    """Wide rounds on the GPU (a tandem array whose alignments dirty each other; every dirty side
    redone in a round, inspected and traced back in one launch, and stopped at its stale best
    where the rows the device kept allow) give the CPU twin's alignments, with 4 wall slots per
    target position (read as two 16-byte words) and with 3 (slot by slot). With ``host_stop``
    the walk redoes those sides itself from the rows copied back, stopping there too (every dirty side
    redone: PATH_CHECK off, as the hold proof spares nearly all of this array's)."""
    from test_gpu_gapped_waves import assert_same_extension, tandem_inputs
    from gpukernels.gpu import gapped as gg
    monkeypatch.setattr(gg, "HOST_STOP", host_stop)
    monkeypatch.setattr(gg, "PATH_CHECK", False)
    args = tandem_inputs()[:14] + (slots,)
    c = cpu_gapped.extend_anchors(*args)
    g = gg.extend_anchors(*args, wave=64, round_cells=0)
    assert_same_extension(g, c)
    stats = gg.last_stats()
    if host_stop:
        assert stats["host_stopped"] > 0
    else:
        assert stats["rounds"] > 5 and stats["traced"] > 0 and stats["stopped"] > 0


@pytest.mark.parametrize("ydrop", [9400, 300000])
def test_gapped_stage_equals_cpu_any_ydrop(ydrop):
    """The GPU gapped stage gives the CPU twin's alignments with the default y-drop and with one
    so large that nothing is pruned (bundled 40 kb H. pylori pieces, cut to 1500 bp so that the
    unpruned extension stays inside the GPU band)."""
    from conftest import DATA
    from test_gpu_gapped_waves import assert_same_extension, strand_inputs
    from gpukernels.gpu import gapped as gg
    from gpukernels.scoring import lastz_scoring
    t = read_fasta(DATA / "hpylori_g27_40k.fa.gz").piece([(0, 0, 1500)])
    q = read_fasta(DATA / "hpylori_sjm180_40k.fa.gz").piece([(0, 0, 1500)])
    options = AlignOptions(scoring=lastz_scoring(ydrop=ydrop))
    found = 0
    for reverse in (False, True):
        args = strand_inputs(t, q, reverse, options)
        c = cpu_gapped.extend_anchors(*args)
        g = gg.extend_anchors(*args)
        assert_same_extension(g, c)
        found += len(c[0])
    assert found > 0


def _grid_covers_walls(runner):
    """Every wall on the runner's device sits in a block its wall grid marks (both ends of each slot)."""
    import cupy
    walls, bits = cupy.asnumpy(runner.walls), cupy.asnumpy(runner.wall_grid)
    rows, slots = np.nonzero(walls[:, :, 1] != 0)
    shift, cols = runner.grid_shift, runner.grid_cols
    for q in (np.maximum(walls[rows, slots, 0], 0), walls[rows, slots, 1] - 1):
        bit = (rows.astype(np.int64) >> shift) * cols + (q.astype(np.int64) >> shift)
        assert ((bits[bit >> 5] >> (bit & 31)) & 1).all()
    return len(rows)


@shared
def test_inspector_in_16_bit_pairs_equals_ydrop(saureus, monkeypatch):
    """Every wave inspection of a real pair (S. aureus, both strands, walls as the walk left them at
    each launch) gives the same results from ``ydrop16`` (16-bit pairs, the walls of a side read only
    where the wall grid marks a block in its reach) as from ``ydrop``, task by task; the strand's
    alignments equal the CPU twin's, and the grid marks the block of every wall on the device. The
    results are the same with the inspector's quota of sides a warp (a warp a side) as without."""
    import cupy
    from test_gpu_gapped_waves import assert_same_extension, strand_inputs
    from gpukernels.gpu import gapped as gg, runner as gr
    launch = gr.DeviceRunner._launch
    quota = gr.INSPECT_QUOTA
    assert quota > 0
    compared, runners = [], {}

    def both(self, tasks, mode, band, wide, res=None, **kw):
        launch(self, tasks, mode, band, wide, res=res, **kw)
        if mode == 0 and not wide and kw.get("slots") is None and self.pairs16 and gr.PAIRS16:
            other = cupy.empty_like(res)
            launch(self, tasks, mode, band, wide, res=other, pairs16=False, **kw)
            # and from a grid that fills the device once (no quota: the warps drain the queue)
            persistent = cupy.empty_like(res)
            monkeypatch.setattr(gr, "INSPECT_QUOTA", 0)
            launch(self, tasks, mode, band, wide, res=persistent, **kw)
            monkeypatch.setattr(gr, "INSPECT_QUOTA", quota)
            compared.append((int(len(res)), int(((res != other) | (res != persistent)).any(axis=1).sum())))
            runners[id(self)] = self

    monkeypatch.setattr(gr.DeviceRunner, "_launch", both)
    t, q = saureus
    for reverse in (False, True):
        args = strand_inputs(t, q, reverse, AlignOptions())
        assert_same_extension(gg.extend_anchors(*args), cpu_gapped.extend_anchors(*args))
    print(f"ydrop16: {len(compared)} launches, {sum(n for n, _ in compared)} sides")
    assert sum(n for n, _ in compared) > 300
    assert [bad for _, bad in compared if bad] == []
    assert sum(_grid_covers_walls(r) for r in runners.values()) > 0


@shared
def test_executor_in_16_bit_pairs_equals_ydrop(saureus, monkeypatch):
    """Every wave execution of a real pair (S. aureus, both strands) gives the same paths and the same
    rows kept at the best from ``exec16`` (the executor in 16-bit pairs) as from ``ydrop``'s mode 1,
    call by call; the strand's alignments equal the CPU twin's."""
    from test_gpu_gapped_waves import assert_same_extension, strand_inputs
    from gpukernels.gpu import gapped as gg, runner as gr
    execute = gr.DeviceRunner.execute
    compared = []

    def kept(self, keep):
        slots = np.asarray(keep if keep is not None else [], dtype=np.int64)
        slots = slots[slots >= 0]
        if not len(slots) or self._arena is None:
            return np.zeros(0, np.int32), np.zeros(0, np.int64)
        flat, at = self.kept_rows(slots)
        return flat.copy(), at

    def both(self, tasks, band, dstop, tbb, adb, tb_total, ad_total, bi, bj, wide=False, keep=None, routes=True):
        args = (tasks, band, dstop, tbb, adb, tb_total, ad_total, bi, bj, wide, keep, routes)
        monkeypatch.setattr(gr, "EXEC16", False)
        flat, lens, rflat, rlens = (x.copy() for x in execute(self, *args))
        rows, at = kept(self, keep)
        monkeypatch.setattr(gr, "EXEC16", True)
        flat16, lens16, rflat16, rlens16 = execute(self, *args)
        rows16, at16 = kept(self, keep)
        if self.pairs16 and not wide:
            same = (np.array_equal(lens, lens16) and np.array_equal(flat, flat16) and np.array_equal(at, at16)
                    and np.array_equal(rows, rows16) and np.array_equal(rlens, rlens16)
                    and np.array_equal(rflat, rflat16))
            compared.append((len(lens), int((at >= 0).sum()), same))
        return flat16, lens16, rflat16, rlens16

    monkeypatch.setattr(gr.DeviceRunner, "execute", both)
    t, q = saureus
    for reverse in (False, True):
        args = strand_inputs(t, q, reverse, AlignOptions())
        assert_same_extension(gg.extend_anchors(*args), cpu_gapped.extend_anchors(*args))
    print(f"exec16: {len(compared)} calls, {sum(n for n, _, _ in compared)} sides, "
          f"{sum(k for _, k, _ in compared)} kept rows")
    assert sum(n for n, _, _ in compared) > 300 and sum(k for _, k, _ in compared) > 100
    assert [x for x in compared if not x[2]] == []


def test_blocking_waits_give_the_same_alignments(monkeypatch):
    """Waiting for the device asleep (``gpu.BLOCKING_WAITS``, off by default) changes only the host's
    waits: the bundled 40 kb H. pylori pieces give the same alignments, column for column."""
    from gpukernels import gpu
    from gpukernels.engine import align
    t = read_fasta(ref.ROOT / "tests" / "data" / "hpylori_g27_40k.fa.gz")
    q = read_fasta(ref.ROOT / "tests" / "data" / "hpylori_sjm180_40k.fa.gz")
    base = align(t, q, AlignOptions(), backend="gpu", threads=4)
    monkeypatch.setattr(gpu, "BLOCKING_WAITS", True)
    got = align(t, q, AlignOptions(), backend="gpu", threads=4)
    assert len(base) > 0 and len(got) == len(base)
    for name in ("t_rec", "t_start", "t_end", "q_rec", "q_start", "q_end", "strand", "score", "op_off", "ops"):
        assert np.array_equal(getattr(got, name), getattr(base, name)), name
