#!/usr/bin/env python3
"""Each strand of one genome pair alone on the GPU, and both at once (GPU only): which strand the pair waits for.

Usage::

    python3 bench/strand_alone.py TARGET QUERY [--repeats 3] [--threads 16]

After one warm-up pair, aligns the pair ``--repeats`` times with
``strand="minus"``, then ``"plus"``, then ``"both"`` (the default run, the two
strands side by side on the GPU), timing each call of
:func:`gpukernels.engine.align` with the device synchronised after it.
Prints one table: the seconds of each call and their mean. The engine runs
the strands at once, so a pair takes about as long as its longer strand
plus what sharing the GPU costs it; the gap between that strand alone and
both says what the sharing costs (twenty-fifth session: E. coli's − strand
0.81 s alone, + 0.47 s, both 0.92 s).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

STRANDS = ("minus", "plus", "both")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=16, help="host threads, as ava align --threads")
    args = p.parse_args(argv)

    import cupy as cp
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta

    t, q = read_fasta(args.target), read_fasta(args.query)

    def seconds(strand):
        start = time.perf_counter()
        align(t, q, AlignOptions(strand=strand), backend="gpu", threads=args.threads)
        cp.cuda.runtime.deviceSynchronize()
        return time.perf_counter() - start

    seconds("both")     # warm-up: compiles the kernels, fills the pinned pools
    times = {s: [seconds(s) for _ in range(args.repeats)] for s in STRANDS}
    print(f"| strand | {' | '.join(f'pair {k + 1} (s)' for k in range(args.repeats))} | mean (s) |")
    print("|---|" + "---|" * (args.repeats + 1))
    for s in STRANDS:
        row = " | ".join(f"{x:.3f}" for x in times[s])
        print(f"| {s} | {row} | {sum(times[s]) / len(times[s]):.3f} |")


if __name__ == "__main__":
    main()
