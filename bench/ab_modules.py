#!/usr/bin/env python3
"""A/B of two versions of the GPU gapped stage's module on one genome pair, alternated in one process.

Usage::

    python3 bench/ab_modules.py TARGET QUERY PREV.py [--rounds R] [--repeats N] [--threads T]

``PREV.py`` is an earlier ``gpukernels/gpu/gapped.py`` (say ``git show
REV:gpukernels/gpu/gapped.py > .carry/prev_gapped.py``, carried to the
device). It is loaded beside the current module as
``gpukernels.gpu._ab_prev`` (its relative imports resolve in the package),
and :func:`gpukernels.engine.align` is pointed at one version or the other
between pairs by swapping ``gpukernels.gpu.gapped.extend_anchors``.

Why not ``bench/ab_settings.py``: numba compiles a module's settings into
the functions that read them at their first call, so a setting read in
compiled code cannot be switched within one process; two modules can.
After one warm-up pair each (the alignments of the two must be equal), the
versions run in turn ``--rounds`` times, ``--repeats`` pairs each. Prints
one row per pair (per strand: the gapped stage's time, walk, long sides and
the walk's cycle sums where the version keeps them), then the mean per
version.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from ab_settings import recorded  # noqa: E402


def load_prev(path):
    """The module in ``path`` as ``gpukernels.gpu._ab_prev``, its relative imports within ``gpukernels.gpu``."""
    import gpukernels.gpu
    spec = importlib.util.spec_from_file_location("gpukernels.gpu._ab_prev", path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = gpukernels.gpu.__name__
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("prev", help="an earlier gpukernels/gpu/gapped.py")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--threads", type=int, default=16)
    args = p.parse_args(argv)

    import cupy as cp
    import numpy as np
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import gapped as current

    t, q = read_fasta(args.target), read_fasta(args.query)
    mods = {"prev": load_prev(args.prev), "new": current}
    extend = {name: mod.extend_anchors for name, mod in mods.items()}
    strands = {}

    def use(name):
        current.extend_anchors = recorded(extend[name], mods[name], q, strands)

    def pair():
        cp.cuda.Device().synchronize()
        c = time.perf_counter()
        alns = align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
        cp.cuda.Device().synchronize()
        return alns, time.perf_counter() - c

    try:
        ref = {}
        for name in mods:
            use(name)
            ref[name] = pair()[0]
        a, b = ref["prev"], ref["new"]
        same = len(a) == len(b) and all(np.array_equal(getattr(a, f), getattr(b, f))
                                        for f in ("t_start", "t_end", "q_start", "q_end", "score", "ops"))
        print(f"warm-up: {len(a)} and {len(b)} alignments, equal: {same}", flush=True)
        times = {name: [] for name in mods}
        for r in range(args.rounds):
            for name in (("prev", "new") if r % 2 == 0 else ("new", "prev")):
                use(name)
                for _ in range(args.repeats):
                    _, sec = pair()
                    times[name].append(sec)
                    print(f"| {name} | {sec:.3f} | " + " | ".join(
                        f"{s} {strands[s]['total_s']:.3f} walk {strands[s]['walk_s']:.3f} "
                        f"long {strands[s]['long_s']:.3f} {strands[s].get('walk_cycles', '')}" for s in "+-") + " |",
                        flush=True)
    finally:
        current.extend_anchors = extend["new"]
    print()
    print("| version | pairs | mean per pair (s) | min | max |\n|---|---|---|---|---|")
    for name, secs in times.items():
        print(f"| {name} | {len(secs)} | {np.mean(secs):.3f} | {min(secs):.3f} | {max(secs):.3f} |")


if __name__ == "__main__":
    main()
