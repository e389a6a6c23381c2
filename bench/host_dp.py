#!/usr/bin/env python3
"""The host's y-drop DP (``cpu/gapped.extend_side``): nanoseconds a cell on one thread and on many at once.

Usage: ``python3 bench/host_dp.py TARGET QUERY [--sides 300] [--window 2000] [--threads 1,8,16]``

The GPU engine's walk redoes dirty sides with this DP on its stripes'
threads, beside the relay's threads; this tells the DP's own speed on the
machine, and how much it slows when as many threads run it at once. The
anchors are the pair's first HSPs (+ strand, CPU seeds and ungapped
stage); each side runs inside a window of ``--window`` letters around its
anchor with no walls. After a warm-up, each thread of a thread count
runs all the sides. Prints one row per thread count: sides a thread,
cells of all threads, wall seconds, and nanoseconds a cell a thread.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def anchors(target, query, count):
    """The first ``count`` anchors of the pair's + strand, in the engine's order (CPU stages)."""
    from gpukernels import seeds, ungapped
    from gpukernels.engine import AlignOptions
    from gpukernels.gapped import anchor_order
    import numpy as np
    sc = AlignOptions().scoring
    seed = seeds.parse_seed(AlignOptions().seed)
    index = seeds.build_index(target.seed_codes(), seed)
    hq, ht = seeds.find_hits(index, seeds.seed_keys(query.seed_codes(), seed), 0, len(query.codes), True, 0)
    diag_end = np.full(len(target.codes) + len(query.codes) + 1, -1, dtype=np.int64)
    hsps = ungapped.add_anchors(ungapped.extend_hits(target.seed_codes(), query.seed_codes(), hq, ht, seed.span, sc,
                                                     diag_end), target.codes, query.codes, sc)
    order = anchor_order(hsps.score, hsps.anchor_q, hsps.anchor_t)[:count]
    return hsps.anchor_q[order], hsps.anchor_t[order], sc


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("--sides", type=int, default=300, help="anchors (two sides each)")
    p.add_argument("--window", type=int, default=2000)
    p.add_argument("--threads", default="1,8,16")
    args = p.parse_args(argv)

    import numpy as np
    from gpukernels.cpu import gapped as cg
    from gpukernels.genome import read_fasta

    t, q = read_fasta(args.target), read_fasta(args.query)
    aq, at, sc = anchors(t, q, args.sides)
    tc, qc = t.codes, q.codes
    t_rev, q_rev = tc[::-1].copy(), qc[::-1].copy()
    walls = np.zeros((len(tc) + 1, 4, 2), np.int32)
    w = args.window
    jobs = [(bool(right), int(aq[k]), int(at[k])) for k in range(len(aq)) for right in (0, 1)]

    def run(part):
        """The sides ``part`` on this thread, with buffers of its own; returns their cells."""
        work = np.empty((8, 2 * w + 2), np.int32)
        tb, tb_off, tb_lo = np.empty(1 << 16, np.uint8), np.empty(1024, np.int64), np.empty(1024, np.int64)
        cells = 0
        for right, a_q, a_t in part:
            out = cg.extend_side(right, tc, qc, t_rev, q_rev, a_q, a_t, max(0, a_t - w), min(len(tc) - 1, a_t + w),
                                 max(0, a_q - w), min(len(qc) - 1, a_q + w), sc.matrix, sc.gap_open, sc.gap_extend,
                                 sc.ydrop, False, walls, work, tb, tb_off, tb_lo)
            tb, tb_off, tb_lo = out[5], out[6], out[7]
            cells += int(out[3])
        return cells

    run(jobs[:4])
    print("| threads | sides a thread | cells (M) | wall (s) | ns a cell a thread |")
    print("|---|---|---|---|---|")
    for n in (int(x) for x in args.threads.split(",")):
        with ThreadPoolExecutor(n) as pool:
            c = time.perf_counter()
            cells = sum(pool.map(run, [jobs] * n))
            sec = time.perf_counter() - c
        print(f"| {n} | {len(jobs)} | {cells / 1e6:.1f} | {sec:.3f} | {sec * n / cells * 1e9:.2f} |")


if __name__ == "__main__":
    main()
