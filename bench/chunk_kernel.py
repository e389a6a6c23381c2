#!/usr/bin/env python3
"""The relay's chunk kernels alone on one captured launch of a genome pair (GPU only): time per anti-diagonal.

Usage::

    python3 bench/chunk_kernel.py TARGET QUERY [--repeats 3] [--nth 1]

Aligns the pair once on the GPU, keeping the ``--nth`` relay launch with the
most chunks (its tasks, stops, checks, rooms and walls), then relaunches it
with CUDA events after a warm-up with each chunk kernel: ``chunk16`` (16-bit
pairs, a warp a chunk) and ``ydrop_chunk`` (a block of ``CHUNK_THREADS``
threads a chunk), alone and as 1, 16 and 64 copies of itself (the relay's
first phase runs 16 sides' launches at once). Prints one table: chunks,
their longest chain of anti-diagonals, the launch's milliseconds, the
microseconds an anti-diagonal of that chain, and the cells swept per second.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def main(argv=None):
    from gpu_timing import gpu_seconds, pair_parser
    p = pair_parser(__doc__)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--nth", type=int, default=1, help="the nth launch among those with the most chunks")
    args = p.parse_args(argv)

    import cupy as cp
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import runner as gr

    captured = []
    launch = gr.DeviceRunner._launch

    def keep(self, tasks, mode, band, wide, **kw):
        if wide == "chunk":
            walls = self._walls_now()
            captured.append((self, band, cp.array(tasks), {k: cp.array(v) for k, v in kw.items()
                                                           if k in ("dstop", "tbb", "adb", "dump_at")},
                             cp.array(walls)))
        return launch(self, tasks, mode, band, wide, **kw)

    gr.DeviceRunner._launch = keep
    align(read_fasta(args.target), read_fasta(args.query), AlignOptions(), backend="gpu")
    gr.DeviceRunner._launch = launch
    if not captured:
        raise SystemExit("no relay launch in this pair")
    most = max(len(c[2]) for c in captured)
    runner, band, tasks, kw, walls = [c for c in captured if len(c[2]) == most][args.nth - 1]
    n = len(tasks)
    chain = int(cp.asnumpy(kw["dstop"]).max())

    def buffers(copies):
        tbb, adb = cp.asnumpy(kw["tbb"]), cp.asnumpy(kw["adb"])
        out = []
        for _ in range(copies):
            out.append(dict(kw, res=cp.empty((n, gr.R_N), dtype=cp.int64), tb=cp.empty(max(int(tbb[-1]), 1), cp.uint8),
                            tb_lo=cp.empty(int(adb[-1]), cp.int32), tb_off=cp.empty(int(adb[-1]), cp.int64),
                            dump=cp.empty(2 * n * (gr.DUMP_HEAD + 4 * (band + 2)), cp.int32)))
        return out

    print("| kernel | chunks | band | longest chain | copies | launch (ms) | us an anti-diagonal | Gcells/s |")
    print("|---|---|---|---|---|---|---|---|")
    saved = gr.CHUNK16
    try:
        for copies in (1, 16, 64):
            bufs = buffers(copies)
            streams = [cp.cuda.Stream(non_blocking=True) for _ in range(copies)]
            for name, on in (("chunk16", True), ("ydrop_chunk", False)):
                gr.CHUNK16 = on

                def run():
                    # each copy on a stream of its own, all after the timing stream's start and before its end
                    main = cp.cuda.get_current_stream()
                    start = main.record()
                    runner._tl.walls = walls
                    try:
                        for b, stream in zip(bufs, streams):
                            with stream:
                                stream.wait_event(start)
                                runner._launch(tasks, 3, band, "chunk", **b)
                                main.wait_event(stream.record())
                    finally:
                        runner._tl.walls = None
                s = gpu_seconds(run, args.repeats)[0]
                cells = int(cp.asnumpy(bufs[0]["res"])[:, gr.R_CELLS].sum()) * copies
                print(f"| {name} | {n} | {band} | {chain:,} | {copies} | {1000 * s:.2f} | {1e6 * s / chain:.3f} | "
                      f"{cells / s / 1e9:.1f} |")
    finally:
        gr.CHUNK16 = saved


if __name__ == "__main__":
    main()
