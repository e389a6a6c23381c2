#!/usr/bin/env python3
"""The warp inspector alone on one captured wave of a genome pair (GPU only): its time, cells and walls.

Usage::

    python3 bench/wave_kernel.py TARGET QUERY [--sides 4096] [--nth 1] [--long 16] [--exec-walls none]
                                 [--repeats 3] [--profile] [--save R.npy] [--set MODULE.NAME=VALUE,...]
                                 [--variants A.cu,B.cu [--rounds 3] [--variant-walls end,none]]

Aligns the pair once on the GPU, keeping the tasks of the ``--nth`` inspector
launch of ``--sides`` tasks (two per anchor: 4,096 is the wave of 2,048
anchors), then relaunches the warp kernel (``ydrop``, mode 0, the first
band) on them with CUDA events after a warm-up, with the walls of the end
of the run and with no walls in 4, 2 and 1 slots (the same cells: what the
wall reads cost). It also runs the executor (mode 1: ``exec16`` in 16-bit
pairs, and ``ydrop``) up to each side's best, to set the cells past the
best (the y-drop tail, which only the inspector computes) beside those up
to it, and the whole execution as
the pipeline runs it (the executor, the walk back on the device, the
copies) and its walk back (``ydrop_trace``) alone, with the walls of ``--exec-walls`` (none, those the first wave
saw; end, the end of the run's, where each side stops at its own kept
path); and the ``--long`` sides with the most warp steps apart, in warps
and in a block each. Prints one table, then the executor's shape (:func:`executor_shape`: its sides'
anti-diagonals to their bests and their widths there).
``--profile`` brackets one more launch of each inspector kernel and of the executor with
``cudaProfilerStart/Stop`` for ``ncu --profile-from-start off``, with the kernels built with
``-lineinfo`` (so that ncu's source page maps each SASS instruction to its line of ``gapped.cu``).
``--save`` writes the inspector's results with the walls of the end of the run (``R_N`` columns per
task, ``.npy``), to compare two builds of the kernel.
``--variants`` times instead the inspector (``ydrop16``) built from the landed ``cuda/gapped.cu`` and
from each of these other copies of it, in turn for ``--rounds`` rounds in this one process, on the same
captured wave (:func:`gpu_timing.cuda_source`), and prints one row per build: its registers, its
launch's shape, its milliseconds by round, and whether its results equal the landed build's on every
side; one table for each of ``--variant-walls`` (``end``: the walls of the end of the run; ``none``: no
walls, so that every anti-diagonal runs the sweep built without wall reads). A build's registers set
the warps a multiprocessor holds, and the inspector's pace follows its warps' chains
(``bench/RESULTS.md``, fifty-third session).
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def executor_shape(ds, cab):
    """A line on the executor's work: its sides' anti-diagonals up to the best and their mean widths there.

    The share of the anti-diagonals and of the cells in sides whose mean width up to the best is under
    32 and 64 cells (an anti-diagonal that a warp sweeps in one step of 32 pairs, or half of one).
    """
    import numpy as np
    run = ds > 0
    d, c = ds[run].astype(np.float64), cab[run].astype(np.float64)
    width = c / d
    parts = []
    for w in (32, 64):
        narrow = width < w
        parts.append(f"under {w} cells wide: {100 * narrow.mean():.0f} % of the sides, "
                     f"{100 * d[narrow].sum() / d.sum():.0f} % of the anti-diagonals, "
                     f"{100 * c[narrow].sum() / c.sum():.0f} % of the cells")
    q = np.percentile(d, [50, 90, 99]).astype(int).tolist()
    return (f"executor: {int(run.sum()):,} sides, {int(d.sum()):,} anti-diagonals to their bests "
            f"(median, 90th, 99th percentile {q}), mean width {c.sum() / d.sum():.1f} cells; " + "; ".join(parts))


def variant_rows(runner, timed_inspection, res, band, sources, rounds):
    """:func:`main`'s ``--variants`` table: the inspector built from each of ``sources`` (None: the landed file).

    ``timed_inspection(out)`` times one inspection into ``out`` (results of
    ``res``'s shape) with the runner's kernels as they stand; the builds take
    turns, ``rounds`` times, and each one's results are checked against the
    landed build's, side by side.
    """
    import numpy as np
    from gpu_timing import cuda_source
    times, shapes, equal, ref = {s: [] for s in sources}, {}, {}, None
    for _ in range(rounds):
        for tag, source in enumerate(sources):
            with cuda_source("gapped", source, tag):
                runner._kernels.clear()
                try:
                    out = res.copy()
                    times[source].append(timed_inspection(out))
                    k, tpb, threads, smem, grid = runner._kernel(band, False, "ydrop16")
                    shapes[source] = f"{k.num_regs} | {tpb} warps a block, {grid} blocks to fill the device"
                finally:
                    runner._kernels.clear()
            got = out.get()
            ref = got if ref is None else ref
            equal[source] = equal.get(source, True) and bool((got == ref).all())
    print("| build | registers | shape | ms by round | median ms | results equal the landed build's |")
    print("|---|---|---|---|---|---|")
    for source in sources:
        ms = times[source]
        print(f"| {source or 'landed'} | {shapes[source]} | {', '.join(f'{x:.2f}' for x in ms)} | "
              f"{float(np.median(ms)):.2f} | {'yes' if equal[source] else 'NO'} |")


def main(argv=None):
    from gpu_timing import pair_parser
    p = pair_parser(__doc__)
    p.add_argument("--sides", type=int, default=4096)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--nth", type=int, default=1, help="take the nth inspector launch of --sides tasks")
    p.add_argument("--long", type=int, default=16, help="the executor's longest sides timed apart")
    p.add_argument("--exec-walls", choices=("none", "end"), default="none",
                   help="walls of the executor's part: none (those the first wave saw) or the end of the run's")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--grids", default="", help="also time ydrop16 with the launch's blocks scaled by each "
                   "of these comma-separated factors (0.5: half the warps a multiprocessor)")
    p.add_argument("--carveouts", default="", help="also time ydrop16 with each of these comma-separated "
                   "shared-memory carveouts (percent of the multiprocessor's unified L1 and shared memory; "
                   "the rest is L1 cache for the letters and walls)")
    p.add_argument("--save", help="write the inspector's results (end-of-run walls) to this .npy file")
    p.add_argument("--variants", default="", help="comma-separated copies of cuda/gapped.cu: time ydrop16 built "
                   "from each against the landed build, in turn, and print only that table")
    p.add_argument("--rounds", type=int, default=3, help="rounds of --variants")
    p.add_argument("--variant-walls", default="end", help="comma-separated walls of --variants' tables: end (the "
                   "end of the run's) and none (no walls: the sweep built without wall reads throughout)")
    p.add_argument("--set", default="", help="settings applied first, ab_settings.py's MODULE.NAME=VALUE,... "
                   "(runner.INSPECT_QUOTA=0: the inspector's warps drain its queue)")
    args = p.parse_args(argv)
    from ab_settings import apply_settings
    apply_settings(args.set)

    import cupy as cp
    import numpy as np
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import runner as gr
    from gpu_timing import gpu_seconds

    captured, seen, sizes = [], [], []
    inspect = gr.DeviceRunner.inspect

    def keep_first(self, tasks, wide=False, dcap=None):
        sizes.append(len(tasks))
        if not wide and dcap is None and len(tasks) == args.sides:
            seen.append(1)
            if len(seen) == args.nth:
                captured.append((self, np.array(tasks)))
        return inspect(self, tasks, wide, dcap=dcap)

    if args.profile:
        import gpukernels.cuda as kc
        module = kc._module
        kc._module = lambda name, dev, options: module(name, dev, tuple(options) + ("-lineinfo",))
    gr.DeviceRunner.inspect = keep_first
    align(read_fasta(args.target), read_fasta(args.query), AlignOptions(), backend="gpu")
    gr.DeviceRunner.inspect = inspect
    if not captured:
        raise SystemExit(f"no inspector launch of {args.sides} sides; launches of {sorted(set(sizes))[-12:]}")
    runner, tasks = captured[0]
    n, band = len(tasks), gr.BANDS[0]
    d_tasks = cp.asarray(tasks)
    res = cp.empty((n, gr.R_N), dtype=cp.int64)

    def timed(launch, walls=None):
        """Milliseconds of one ``launch()``: the mean of ``--repeats`` after a warm-up (CUDA events).

        ``walls``: the walls its launches read (default: the runner's).
        """
        def run():
            runner._tl.walls = walls
            try:
                launch()
            finally:
                runner._tl.walls = None
        return 1000.0 * gpu_seconds(run, args.repeats)[0]

    def inspector(walls, nslot, pairs16=False, out=res):
        def launch():
            saved, runner.nslot, runner._tl.walls = runner.nslot, nslot, walls
            try:
                runner._launch(d_tasks, 0, band, False, res=out, pairs16=pairs16)
            finally:
                runner.nslot, runner._tl.walls = saved, None
        return launch

    if args.variants:
        for name in args.variant_walls.split(","):
            walls = runner.walls if name == "end" else cp.zeros_like(runner.walls)
            print("walls: " + ("the end of the run" if name == "end" else
                               "none (every anti-diagonal in the build without wall reads)"))
            variant_rows(runner, lambda out: timed(inspector(walls, 4, True, out)), res, band,
                         [None] + args.variants.split(","), args.rounds)
        return

    rows = runner.walls.shape[0]
    print("| kernel | walls | inspector (ms) | cells | Gcells/s |")
    print("|---|---|---|---|---|")
    for name, walls, nslot in (("end of run, 4 slots", runner.walls, 4),
                               ("none, 4 slots", cp.zeros_like(runner.walls), 4),
                               ("none, 2 slots", cp.zeros((rows, 2, 2), dtype=cp.int32), 2),
                               ("none, 1 slot", cp.zeros((rows, 1, 2), dtype=cp.int32), 1)):
        for kernel in (("ydrop", "ydrop16") if nslot == 4 and runner.pairs16 else ("ydrop",)):
            ms = timed(inspector(walls, nslot, kernel == "ydrop16"))
            cells = int(res.get()[:, gr.R_CELLS].sum())
            print(f"| {kernel} | {name} | {ms:.2f} | {cells:,} | {cells / ms / 1e6:.1f} |")
    if runner.pairs16 and args.grids:
        # the inspector's throughput against the warps resident on a multiprocessor
        key = (band, False, "ydrop16")
        k, tpb, threads, smem, grid = runner._kernel(*key)
        for f in (float(x) for x in args.grids.split(",")):
            runner._kernels[key] = (k, tpb, threads, smem, max(1, int(grid * f)))
            ms = timed(inspector(runner.walls, 4, True))
            cells = int(res.get()[:, gr.R_CELLS].sum())
            print(f"| ydrop16, blocks x{f:g} ({max(1, int(grid * f))} of {tpb} warps) | end of run | {ms:.2f} "
                  f"| {cells:,} | {cells / ms / 1e6:.1f} |")
        runner._kernels[key] = (k, tpb, threads, smem, grid)
        # the wave's tail: its sides with the most anti-diagonals alone, and the wave without them
        r0 = res.get()
        span = r0[:, gr.R_DIAGS]
        top = np.argsort(-span, kind="stable")[:args.long]
        rest = np.setdiff1d(np.arange(n), top)
        for label, sel in (("longest", top), ("without them", rest)):
            sel_tasks, sel_res = cp.asarray(tasks[sel]), cp.empty((len(sel), gr.R_N), dtype=cp.int64)

            def launch_sel(sel_tasks=sel_tasks, sel_res=sel_res):
                runner._launch(sel_tasks, 0, band, False, res=sel_res, pairs16=True)
            ms = timed(launch_sel, runner.walls)
            cells = int(sel_res.get()[:, gr.R_CELLS].sum())
            print(f"| ydrop16, the {args.long} {label} ({len(sel)} sides) | end of run | {ms:.2f} | {cells:,} "
                  f"| {cells / ms / 1e6:.1f} |")
    if runner.pairs16 and args.carveouts:
        # the inspector against its L1 cache: a smaller carveout leaves more L1 and fits fewer blocks
        k, tpb, threads, smem, grid = runner._kernel(band, False, "ydrop16")
        for pct in (int(x) for x in args.carveouts.split(",")):
            k.preferred_shared_memory_carveout = pct
            ms = timed(inspector(runner.walls, 4, True))
            cells = int(res.get()[:, gr.R_CELLS].sum())
            print(f"| ydrop16, carveout {pct} % ({smem} bytes a block of {tpb} warps) | end of run | {ms:.2f} "
                  f"| {cells:,} | {cells / ms / 1e6:.1f} |")
        k.preferred_shared_memory_carveout = -1
    if runner.pairs16:
        # the 16-bit pairs against ydrop, result by result, with the walls of the end of the run
        other = cp.empty_like(res)
        inspector(runner.walls, 4, False)()
        inspector(runner.walls, 4, True, other)()
        a, b = res.get(), other.get()
        bad = np.flatnonzero((a != b).any(axis=1))
        print(f"\nydrop16 against ydrop: {len(a) - len(bad)} of {len(a)} tasks' results equal")
        for x in bad[:5]:
            print(f"  task {x}: ydrop {a[x].tolist()} ydrop16 {b[x].tolist()}")

    if args.save:
        inspector(runner.walls, runner.nslot)()
        np.save(args.save, res.get())
    # the executor up to each side's best, with the walls of --exec-walls (none: those the first wave saw)
    exec_walls = cp.zeros_like(runner.walls) if args.exec_walls == "none" else runner.walls
    inspector(exec_walls, runner.nslot)()
    r = res.get()
    ok = r[:, gr.R_STATUS] == 0
    ds = np.where(ok, r[:, gr.R_BI] + r[:, gr.R_BJ], 0)
    cab = np.where(ok, r[:, gr.R_CAB], 0)           # cells up to the best anti-diagonal
    tbb = cp.asarray(np.concatenate([[0], np.cumsum(cab)[:-1]]))
    adb = cp.asarray(np.concatenate([[0], np.cumsum(ds + 1)[:-1]]))
    dstop = cp.asarray(ds)
    tb = cp.empty(int(cab.sum()) + 1, dtype=cp.uint8)
    tb_lo = cp.empty(int((ds + 1).sum()), dtype=cp.int32)
    tb_off = cp.empty(int((ds + 1).sum()), dtype=cp.int64)

    def executor_all(pairs16):
        return lambda: runner._launch(d_tasks, 1, band, False, dstop=dstop, tbb=tbb, adb=adb, tb=tb, tb_lo=tb_lo,
                                      tb_off=tb_off, pairs16=pairs16)

    # the executor in 16-bit pairs (exec16, where the scores fit them) against ydrop's mode 1
    ms32 = timed(executor_all(False), exec_walls)
    ms = timed(executor_all(None), exec_walls) if runner.pairs16 else ms32
    # the wave's whole execution as the pipeline runs it (DeviceRunner.execute): the executor, the
    # walk back on the device (ydrop_trace, one thread per side) and the columns' copy back
    run = np.flatnonzero(ds > 0)
    h_tbb = np.concatenate([[0], np.cumsum(cab[run])[:-1]])
    h_adb = np.concatenate([[0], np.cumsum(ds[run] + 1)[:-1]])
    def whole_execution(routes):
        return lambda: runner.execute(tasks[run], np.full(len(run), band), ds[run], h_tbb, h_adb, int(cab[run].sum()),
                                      int((ds[run] + 1).sum()), r[run, gr.R_BI], r[run, gr.R_BJ], routes=routes)

    whole = timed(whole_execution(True), exec_walls)
    bare = timed(whole_execution(False), exec_walls)

    def walk_back(routes):
        """Milliseconds of the execution's walk back alone (``ydrop_trace``), events around its launch."""
        trace, spans = runner._trace, []

        def timed_trace(*a, **k):
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record()
            trace(*a, **k)
            e1.record()
            spans.append((e0, e1))
        runner._trace = timed_trace
        runner._tl.walls = exec_walls
        try:
            for _ in range(args.repeats + 1):
                whole_execution(routes)()
        finally:
            runner._trace = trace
            runner._tl.walls = None
        cp.cuda.Device().synchronize()
        return float(np.mean([cp.cuda.get_elapsed_time(a, b) for a, b in spans[1:]]))
    walk, walk_bare = walk_back(True), walk_back(False)
    # the executor's longest chains: the sides with the most warp steps (anti-diagonals plus 32-cell
    # steps), alone in a warp launch and in one block each (ydrop_wide), and the wave without them
    steps = gr._exec_steps(ds, np.concatenate([[0], np.cumsum(cab)[:-1]]), int(cab.sum()))
    top = np.argsort(-steps, kind="stable")[:args.long]
    rest = np.setdiff1d(np.flatnonzero(ds > 0), top)

    def executor(sel, wide):
        sel_tbb = cp.asarray(np.concatenate([[0], np.cumsum(cab[sel])[:-1]]))
        sel_adb = cp.asarray(np.concatenate([[0], np.cumsum(ds[sel] + 1)[:-1]]))
        sel_tasks, sel_stop = cp.asarray(tasks[sel]), cp.asarray(ds[sel])
        b = runner.wide_band if wide else band
        return timed(lambda: runner._launch(sel_tasks, 1, b, wide, dstop=sel_stop, tbb=sel_tbb, adb=sel_adb, tb=tb,
                                            tb_lo=tb_lo, tb_off=tb_off), exec_walls)

    print(f"\nthe executor's {args.long} longest sides (anti-diagonals to the best, cells to it, mean width): "
          + ", ".join(f"{int(ds[x])}/{int(cab[x])}/{cab[x] / max(ds[x], 1):.0f}" for x in top[:8]))
    print(f"executor: all {ms:.2f} ms; without them {executor(rest, False):.2f} ms; them alone, a warp each "
          f"{executor(top, False):.2f} ms, a block each {executor(top, True):.2f} ms")
    total = int(r[:, gr.R_CELLS].sum())
    print()
    print(f"{n} tasks at band {band}: {total:,} cells, {int(cab.sum()):,} up to the best "
          f"({100 * cab.sum() / max(total, 1):.1f} %); executor up to the best {ms:.2f} ms (ydrop's mode 1 "
          f"{ms32:.2f} ms); "
          f"execution with the walk back and copies {whole:.2f} ms, without the records' routes {bare:.2f} ms "
          f"(longest best anti-diagonal {int(ds.max()):,}); the walk back alone {walk:.2f} ms, without the routes "
          f"{walk_bare:.2f} ms")
    print(executor_shape(ds, cab))
    if args.profile:
        cp.cuda.profiler.start()
        inspector(runner.walls, runner.nslot)()
        if runner.pairs16:
            inspector(runner.walls, runner.nslot, True)()
        # the executor up to each side's best (exec16 where the scores fit), with the walls of --exec-walls
        runner._tl.walls = exec_walls
        try:
            executor_all(None)()
        finally:
            runner._tl.walls = None
        cp.cuda.Device().synchronize()
        cp.cuda.profiler.stop()


if __name__ == "__main__":
    main()
