#!/usr/bin/env python3
"""Sweep the GPU walk's round settings on one genome pair: time per pair and rounds, same output.

Usage: ``python3 bench/walk_sweep.py TARGET QUERY [--configs LOOK,CAP,CELLS ...]``

The output of the GPU gapped stage does not depend on how many anchors a
round takes (``ROUND_LOOK``, ``ROUND_CAP`` in ``gpukernels/gpu/gapped.py``)
nor on the size from which a stale side goes to a round rather than to the
host (``round_cells``); only the time does. After a warm-up pair with the
defaults (checked against the cached CPU PAF when there is one), the pair
is aligned once per setting; each run's PAF must equal the warm-up's.
Prints one table row per setting, with the walk's counts summed over both
strands.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("--configs", nargs="+", default=["64,32,131072", "256,128,131072", "1024,512,131072",
                                                     "64,32,32768", "256,128,524288"])
    args = p.parse_args(argv)

    import cupy as cp
    from engine_bench import _paf_bytes, _parity
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import gapped as gg

    target, query = read_fasta(args.target), read_fasta(args.query)
    defaults = (gg.ROUND_LOOK, gg.ROUND_CAP, gg.extend_anchors)
    clock = time.perf_counter()
    warm = align(target, query, AlignOptions(), backend="gpu")
    print(f"warm-up pair (defaults): {time.perf_counter() - clock:.1f} s; "
          f"parity with the cached CPU PAF: {_parity(warm, target, query, args.target, args.query)}", flush=True)
    ref = _paf_bytes(warm, target, query)
    rows = []
    for cfg in args.configs:
        look, cap, cells = (int(x) for x in cfg.split(","))
        gg.ROUND_LOOK, gg.ROUND_CAP = look, cap
        strands = []
        real = defaults[2]

        def spy(*a, **k):
            out = real(*a, **k)
            strands.append(dict(gg.last_stats()))
            return out
        gg.extend_anchors = functools.partial(spy, round_cells=cells)
        cp.cuda.Device().synchronize()
        clock = time.perf_counter()
        alns = align(target, query, AlignOptions(), backend="gpu")
        cp.cuda.Device().synchronize()
        sec = time.perf_counter() - clock
        same = _paf_bytes(alns, target, query) == ref

        def total(key):
            return sum(s.get(key, 0) for s in strands)
        rows.append((look, cap, cells, sec, total("rounds"), total("round_anchors"), total("round_s"),
                     total("walk_s"), total("long_s"), total("host_anchors"), same))
        print(f"  {cfg}: {sec:.2f} s, same PAF: {same}", flush=True)
    gg.ROUND_LOOK, gg.ROUND_CAP, gg.extend_anchors = defaults
    print("| look | cap | round cells | s per pair | rounds | round anchors | round s | walk s | long s "
          "| host anchors | same PAF |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| {} | {} | {} | {:.2f} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {} | {} |".format(*r))


if __name__ == "__main__":
    main()
