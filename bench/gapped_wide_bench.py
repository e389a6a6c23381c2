#!/usr/bin/env python3
"""Latency of one gapped-extension launch: a warp per side (waves) against a block per side (rounds).

Usage: ``python3 bench/gapped_wide_bench.py TARGET QUERY [--anchors N]``

The host walk of ``gpu/gapped.py`` waits on each round, so what matters
there is the time of one launch over a few sides, set by the side with the
most anti-diagonals. This takes the first ``N`` anchors of the pair's plus
strand (best HSPs first, no walls), runs the inspector once per kernel shape
after a warm-up, and times it with CUDA events. It prints a table: kernel
shape, ms per launch, the anti-diagonals of the longest side, µs per
anti-diagonal of that side, cells/s, and whether the results equal the
warp kernel's (on the sides both finish).
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
sys.path.insert(0, HERE)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("--anchors", type=int, default=32)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)

    import numpy as np
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import gapped as gg
    from gpukernels.gpu import runner as runner_module
    from gpu_timing import gpu_seconds
    from test_gpu_gapped_waves import strand_inputs

    t, q = read_fasta(args.target), read_fasta(args.query)
    (tc, qc, aq, at, t_lo, t_hi, q_lo, q_hi, matrix, go, ge, yd, _, barrier, slots) = strand_inputs(t, q, False)
    idx = np.arange(min(args.anchors, len(aq)))
    tasks = gg._tasks_of(idx, aq, at, t_lo, t_hi, q_lo, q_hi, barrier)
    runner = gg.DeviceRunner(tc, qc, matrix, go, ge, yd, slots, 1 << 30)
    shapes = [("warp", False, 32)] + [(f"block of {n}", True, n) for n in (64, 128, 256, 512, 1024)]
    rows = []
    first = None
    for name, wide, threads in shapes:
        runner_module.WIDE_THREADS = threads
        sec, (res, _) = gpu_seconds(lambda: runner.inspect(tasks, wide), args.repeats)   # warm-up compiles
        ms = 1000.0 * sec
        ok = res[:, gg.R_STATUS] == 0
        diag = res[:, gg.R_DIAGS]
        longest = int(diag[ok].max()) if ok.any() else 0
        cells = int(res[ok, gg.R_CELLS].sum())
        if first is None:
            first = res
        both = ok & (first[:, gg.R_STATUS] == 0)
        same = "yes" if np.array_equal(res[both], first[both]) else "NO"
        rows.append((name, ms, int(ok.sum()), longest, 1000 * ms / max(longest, 1), cells / (ms / 1000), same))
    print(f"{len(tasks)} sides of the first {len(idx)} anchors, {args.repeats} launches each after a warm-up")
    print("| kernel | ms per launch | sides done | anti-diagonals of the longest | µs per anti-diagonal | cells/s "
          "| results = warp's |")
    print("|---|---|---|---|---|---|---|")
    for name, ms, done, longest, us, cps, same in rows:
        print(f"| {name} | {ms:.3f} | {done} | {longest:,} | {us:.3f} | {cps:.3e} | {same} |")


if __name__ == "__main__":
    main()
