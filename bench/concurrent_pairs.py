#!/usr/bin/env python3
"""Genome pairs aligned at once in one process, N threads each running one pair (GPU only).

Usage::

    python3 bench/concurrent_pairs.py TARGET QUERY [--at-once 1,2,3] [--rounds 3] [--threads 16]

After one warm-up pair, each ``--at-once`` count N is run in turn
``--rounds`` times: N threads each align the same pair (host threads
``--threads`` // N each), and the wall time of the N pairs is taken. Every
pair's alignments are checked against the warm-up's. Prints one row per
batch, then the mean seconds per pair for each N: how much of a pair's time
the device and the host's cores leave to a second pair beside it.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)


def main(argv=None):
    from gpu_timing import pair_parser, same_alignments
    p = pair_parser(__doc__)
    p.add_argument("--at-once", default="1,2,3", help="comma-separated pairs run at once")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=16, help="host threads shared by the pairs run at once")
    args = p.parse_args(argv)

    import cupy as cp
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta

    t, q = read_fasta(args.target), read_fasta(args.query)
    ref = align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
    counts = [int(x) for x in args.at_once.split(",")]
    per_pair = {n: [] for n in counts}

    def one(threads):
        return same_alignments(align(t, q, AlignOptions(), backend="gpu", threads=threads), ref)

    print("| pairs at once | wall (s) | per pair (s) | same |")
    print("|---|---|---|---|")
    for _ in range(args.rounds):
        for n in counts:
            with ThreadPoolExecutor(n) as pool:
                cp.cuda.Device().synchronize()
                c = time.perf_counter()
                same = list(pool.map(one, [max(2, args.threads // n)] * n))
                cp.cuda.Device().synchronize()
                wall = time.perf_counter() - c
            per_pair[n].append(wall / n)
            print(f"| {n} | {wall:.3f} | {wall / n:.3f} | {'yes' if all(same) else 'NO'} |")
    print("\n| pairs at once | batches | mean per pair (s) | min | max |")
    print("|---|---|---|---|---|")
    for n in counts:
        v = per_pair[n]
        print(f"| {n} | {len(v)} | {sum(v) / len(v):.3f} | {min(v):.3f} | {max(v):.3f} |")


if __name__ == "__main__":
    main()
