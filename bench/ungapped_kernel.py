#!/usr/bin/env python3
"""The ungapped stage alone on a genome pair's captured seed hits (GPU only): its time, per build of its kernel.

Usage::

    python3 bench/ungapped_kernel.py TARGET QUERY [--repeats 5] [--variant NAME=-DMACRO=V ...]

Aligns the pair once on the GPU, keeping every call of
``gpu/ungapped.extend_hits`` (both strands, each query batch: the hits, the
diagonals' extents before the call), then replays the calls in order with
CUDA events after a warm-up: the whole stage as the pipeline runs it (the
sort by diagonal, the kernels, the copies back) and the kernels
``extend_diagonals*`` alone. Each ``--variant`` compiles the kernels with
extra nvcc options (``-D`` macros of ``cuda/ungapped.cu``) and is checked
call by call against the default build's results. Prints one table.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def main(argv=None):
    from gpu_timing import pair_parser
    p = pair_parser(__doc__)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--variant", action="append", default=[], help="NAME=OPTIONS (space-separated nvcc options)")
    args = p.parse_args(argv)

    import cupy as cp
    import numpy as np
    import gpukernels.cuda as cuda
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import ungapped as gu

    calls = []
    extend = gu.extend_hits

    def keep(t_codes, q_codes, hit_q, hit_t, span, matrix, xdrop, diag_end, *rest, **kw):
        calls.append((t_codes, q_codes, cp.array(hit_q), cp.array(hit_t), span, np.array(matrix), xdrop,
                      cp.array(diag_end), rest, kw))
        return extend(t_codes, q_codes, hit_q, hit_t, span, matrix, xdrop, diag_end, *rest, **kw)

    gu.extend_hits = keep
    align(read_fasta(args.target), read_fasta(args.query), AlignOptions(), backend="gpu")
    gu.extend_hits = extend

    get_kernel = cuda.get_kernel
    kernel_ms = []

    class Timed:
        """A kernel whose launches are bracketed by CUDA events (kept in kernel_ms by kernel name)."""

        def __init__(self, name, k):
            self.name = name
            self.k = k

        def __getattr__(self, attr):
            return getattr(self.k, attr)

        def __call__(self, *a, **kw):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            self.k(*a, **kw)
            e.record()
            kernel_ms.append((self.name, s, e))

    def replay(options):
        def build(name, kernel, opts=("-std=c++17",)):
            k = get_kernel(name, kernel, tuple(opts) + (tuple(options) if name == "ungapped" else ()))
            return Timed(kernel, k) if kernel.startswith("extend_diagonals") else k
        cuda.get_kernel = build
        try:
            out = []
            for t_codes, q_codes, hq, ht, span, matrix, xdrop, d0, rest, kw in calls:
                out.append(extend(t_codes, q_codes, hq, ht, span, matrix, xdrop, d0.copy(), *rest, **kw))
            return out
        finally:
            cuda.get_kernel = get_kernel

    def timed(options):
        replay(options)   # warm-up (compiles)
        cp.cuda.Device().synchronize()
        kernel_ms.clear()
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        for _ in range(args.repeats):
            out = replay(options)
        e.record()
        e.synchronize()
        kern = {}
        for name, a, b in kernel_ms:
            kern[name] = kern.get(name, 0.0) + cp.cuda.get_elapsed_time(a, b) / args.repeats
        return cp.cuda.get_elapsed_time(s, e) / args.repeats, kern, out

    hits = sum(int(c[2].shape[0]) for c in calls)
    print(f"{len(calls)} calls, {hits:,} hits")
    print("| build | stage (ms) | kernels (ms) | per kernel (ms) | same results |")
    print("|---|---|---|---|---|")
    base = None
    for spec in ["default="] + args.variant:
        name, _, opts = spec.partition("=")
        stage, kern, out = timed(opts.split())
        same = "" if base is None else all(
            all(np.array_equal(x, y) for x, y in zip(a, b)) for a, b in zip(base, out))
        base = out if base is None else base
        each = ", ".join(f"{k} {v:.2f}" for k, v in sorted(kern.items()))
        print(f"| {name} {opts} | {stage:.2f} | {sum(kern.values()):.2f} | {each} | {same} |")


if __name__ == "__main__":
    main()
