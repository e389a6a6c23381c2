#!/usr/bin/env python3
"""Where the walk's time goes, in its stripes and outside them, on one genome pair (GPU only).

Usage: ``python3 bench/walk_profile.py TARGET QUERY [--pairs 2] [--top 12]``

After a warm-up pair, wraps the sequential walk that :class:`gpukernels.gpu.stripes.StripedWalk`
runs between its stripe passes (barriers, short segments, the anchor a
round stopped at) and prints, per pair and strand, its calls that took
longest: the anchors they decided, the seconds, the host DP's counts
(anchors, dirty sides, sides stopped at the stale best) and, for the call's
last anchor, its status before, the rows its sides reach and each side's
last full run (cells, anti-diagonals). Then the stripe passes' cycles (all
stripes' against each pass's busiest) and the counter's rate, so that
cycles read as seconds, and for the passes with the most cycles each
stripe's anchors, cycles, dirty sides and anchors redone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def counter_rate():
    """Cycles of :func:`gpukernels.cpu.cycles.cycles` a second (the time-stamp counter's rate)."""
    from numba import njit
    from gpukernels.cpu.cycles import cycles

    @njit
    def now():
        return cycles()
    now()
    c0, t0 = now(), time.perf_counter()
    time.sleep(0.2)
    return (now() - c0) / (time.perf_counter() - t0)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("--pairs", type=int, default=2)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--threads", type=int, default=16)
    args = p.parse_args(argv)

    import threading
    import numpy as np
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import gapped as gg, stripes
    from gpukernels.gpu.gapped import R_FULL_CELLS, R_FULL_DIAGS

    t, q = read_fasta(args.target), read_fasta(args.query)
    align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
    rate = counter_rate()
    calls = []
    inner = stripes._walk
    strand_of = threading.local()

    def walk(pos, end, *rest):
        status, res_all, anchor_t, t_lo, t_hi, host = rest[0], rest[2], rest[6], rest[11], rest[12], rest[35]
        before = status[pos:end].copy()
        h0 = host.copy()
        c = time.perf_counter()
        out = inner(pos, end, *rest)
        sec = time.perf_counter() - c
        last = min(out[0], end - 1)
        lo, hi = stripes._rows(last, 0, 0, 0, res_all, anchor_t, t_lo, t_hi)
        sides = "/".join(f"{int(res_all[2 * last + s, R_FULL_CELLS]):,}c {int(res_all[2 * last + s, R_FULL_DIAGS]):,}d"
                         for s in range(2))
        dh = host - h0
        calls.append((getattr(strand_of, "s", "?"), sec, pos, out[0], int((before != 4).sum()), int(dh[0]),
                      int(dh[2]), int(dh[9]), int(before[last - pos]), hi - lo + 1, sides,
                      (dh[gg.H_KEPT:gg.H_N] / 1e6).round(1).tolist()))
        return out
    stripes._walk = walk

    inner_stripe = stripes.walk_stripe
    stripe_rows = []

    def walk_stripe(mine, *rest):
        host = rest[30][-1]
        h0 = host.copy()
        out = inner_stripe(mine, *rest)
        dh = host - h0
        stripe_rows.append(("+" if rest[8] is q.codes else "-", int(mine[0]), len(mine), out[0],
                            int(dh[gg.H_KEPT:gg.H_N].sum()), int(dh[2]), int(dh[5]),
                            (dh[gg.H_KEPT:gg.H_N] / 1e6).round(1).tolist()))
        return out
    stripes.walk_stripe = walk_stripe

    extend = gg.extend_anchors

    def extend_marked(*a, **k):
        strand_of.s = "+" if a[1] is q.codes else "-"
        out = extend(*a, **k)
        s = gg.last_stats()
        passes.append((strand_of.s, s.get("walk_s", 0), s.get("stripe_s", 0), s.get("serial_s", 0),
                       s.get("stripe_passes", 0), s.get("stripe_cycles", 0), s.get("stripe_cycles_max", 0)))
        return out
    gg.extend_anchors = extend_marked

    for pair in range(args.pairs):
        calls.clear()
        stripe_rows.clear()
        passes = []
        c = time.perf_counter()
        align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
        print(f"\n== pair {pair}: {time.perf_counter() - c:.3f} s (counter {rate / 1e9:.2f} GHz)")
        for s, walk_s, stripe_s, serial_s, npass, cyc, cyc_max in passes:
            print(f"strand {s}: walk {walk_s:.3f} s, stripes {stripe_s:.3f} s ({npass} passes, all stripes "
                  f"{cyc / rate:.3f} s of cycles, busiest {cyc_max / rate:.3f} s), serial {serial_s:.3f} s")
        print("| strand | s | from | to | undecided | host anchors | dirty sides | stopped | last's status "
              "| last's rows | last's sides (full run) | cycles M (kept/dirty/holds/sides/keep) |")
        print("|---" * 12 + "|")
        for row in sorted(calls, key=lambda r: -r[1])[:args.top]:
            print("| " + " | ".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row) + " |")
        for s in "+-":
            mine = [r for r in calls if r[0] == s]
            print(f"strand {s}: {len(mine)} serial calls, {sum(r[1] for r in mine):.3f} s")
        # the stripes of one pass start together: group the rows by strand in submission order
        print("| strand | stripe's first anchor | anchors | walked | cycles M | dirty sides | redone "
              "| cycles M (kept/dirty/holds/sides/keep) |")
        print("|---" * 8 + "|")
        heavy = sorted(stripe_rows, key=lambda r: -r[4])[:args.top]
        for r in heavy:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4] / 1e6:.1f} | {r[5]} | {r[6]} | {r[7]} |")
        for s in "+-":
            mine = [r for r in stripe_rows if r[0] == s]
            if mine:
                cyc = np.array([r[4] for r in mine], float)
                print(f"strand {s}: {len(mine)} stripe walks, cycles {cyc.sum() / rate:.3f} s, the heaviest "
                      f"{cyc.max() / rate:.3f} s; anchors {sum(r[2] for r in mine)}")


if __name__ == "__main__":
    main()
