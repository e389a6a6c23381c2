#!/usr/bin/env python3
"""The waves' inspector with its rows in registers (``regs16``) against ``ydrop16``, launch by launch (GPU only).

Usage::

    python3 bench/inspector_regs.py TARGET QUERY [--repeats 5] [--min-sides 2048]

Aligns the pair once on the GPU with ``ydrop16`` as the waves' inspector,
keeping the tasks of every inspector launch of the warps at the first band
(both strands), then launches each kernel on each of them with the walls
of the end of that strand's run: ``ydrop16``, ``regs16`` (held to 128
registers) and ``regs16_free`` (not held). Every task's results (all
``R_N`` columns) must equal ``ydrop16``'s, except where a side outgrew the
register kernel's slots (status 1: the pipeline inspects it again at the
next band). Then it times each kernel on the launches of at least
``--min-sides`` sides by CUDA events after a warm-up and prints one table:
milliseconds, cells per second, and the ratio to ``ydrop16``.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

KERNELS = ("ydrop16", "regs16", "regs16_free")


def main(argv=None):
    from gpu_timing import gpu_seconds, pair_parser
    p = pair_parser(__doc__)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--min-sides", type=int, default=2048, help="launches timed: those of at least this many sides")
    args = p.parse_args(argv)

    import cupy as cp
    import numpy as np
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import runner as gr

    captured = []
    inspect = gr.DeviceRunner.inspect

    def keep(self, tasks, wide=False, dcap=None):
        if not wide and dcap is None:
            captured.append((self, np.array(tasks)))
        return inspect(self, tasks, wide, dcap=dcap)

    gr.DeviceRunner.inspect = keep
    saved = gr.REGS16
    gr.REGS16 = ""
    try:
        align(read_fasta(args.target), read_fasta(args.query), AlignOptions(), backend="gpu")
    finally:
        gr.DeviceRunner.inspect = inspect
    band = gr.BANDS[0]

    def launch(runner, d_tasks, res, kernel):
        def run():
            gr.REGS16 = "" if kernel == "ydrop16" else kernel
            runner._tl.walls = runner.walls
            try:
                runner._launch(d_tasks, 0, band, False, res=res, pairs16=True)
            finally:
                runner._tl.walls = None
        return run

    equal = {k: 0 for k in KERNELS[1:]}
    wider = {k: 0 for k in KERNELS[1:]}
    differ = {k: [] for k in KERNELS[1:]}
    times = {k: 0.0 for k in KERNELS}
    cells_timed = 0
    sides = 0
    for runner, tasks in captured:
        d_tasks = cp.asarray(tasks)
        out = {}
        for kernel in KERNELS:
            res = cp.empty((len(tasks), gr.R_N), dtype=cp.int64)
            launch(runner, d_tasks, res, kernel)()
            out[kernel] = res.get()
        ref = out["ydrop16"]
        sides += len(tasks)
        for kernel in KERNELS[1:]:
            got = out[kernel]
            over = (got[:, gr.R_STATUS] == 1) & (ref[:, gr.R_STATUS] != 1)
            same = (got == ref).all(axis=1)
            equal[kernel] += int(same.sum())
            wider[kernel] += int(over.sum())
            for x in np.flatnonzero(~same & ~over)[:3]:
                differ[kernel].append((x, ref[x].tolist(), got[x].tolist()))
        if len(tasks) >= args.min_sides:
            cells_timed += int(ref[:, gr.R_CELLS].sum())
            for kernel in KERNELS:
                res = cp.empty((len(tasks), gr.R_N), dtype=cp.int64)
                times[kernel] += gpu_seconds(launch(runner, d_tasks, res, kernel), args.repeats)[0]
    gr.REGS16 = saved
    print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"{len(captured)} inspector launches, {sides:,} sides")
    for kernel in KERNELS[1:]:
        print(f"{kernel} against ydrop16: {equal[kernel]:,} of {sides:,} sides' results equal, "
              f"{wider[kernel]:,} wider than its slots (status 1), {sides - equal[kernel] - wider[kernel]:,} differ")
        for x, a, b in differ[kernel][:5]:
            print(f"  side {x}: ydrop16 {a}\n  {' ' * len(str(x))}       {kernel} {b}")
    print(f"\n| kernel | launches of >= {args.min_sides} sides (ms) | G cells/s | against ydrop16 |")
    print("|---|---|---|---|")
    for kernel in KERNELS:
        ms = 1000.0 * times[kernel]
        print(f"| {kernel} | {ms:.2f} | {cells_timed / max(times[kernel], 1e-12) / 1e9:.1f} | "
              f"{times['ydrop16'] / max(times[kernel], 1e-12):.2f}x |")


if __name__ == "__main__":
    main()
