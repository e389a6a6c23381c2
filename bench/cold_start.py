#!/usr/bin/env python3
"""Where a fresh process's compile time goes: every numba compile and CUDA module build of ``ava align`` runs.

Usage::

    python3 bench/cold_start.py [--top N] -- ALIGN_ARGS...

Runs ``ava align ALIGN_ARGS`` in this process with two clocks installed:
each numba dispatcher's ``compile`` that takes over a millisecond (one call
per new type signature: a load from numba's cache, or a compile when the
cache misses) and each
kernel's first :func:`gpukernels.cuda.get_kernel` (its module's NVRTC build
or a load from CuPy's kernel cache, the first kernel of a module paying it). Prints the wall time of the run, then one row per clock,
longest first: seconds, whether numba's cache had it, the function and
its signature. Point ``NUMBA_CACHE_DIR`` and ``CUPY_CACHE_DIR`` at empty
folders for a cold start, and run it again with the same folders for a
warm one. Numba compiles under one process-wide lock, so a compile on one
strand's thread stalls every other thread that calls a numba function.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


class Clocks:
    """Rows ``(seconds, kind, name, detail)`` of the wrapped calls, thread-safe."""

    def __init__(self):
        self.rows = []
        self._lock = threading.Lock()

    def add(self, *row):
        with self._lock:
            self.rows.append(row)


def _wrap_numba(clocks):
    from numba.core import dispatcher

    original = dispatcher.Dispatcher.compile

    def compile(self, sig):
        hits = sum(self._cache_hits.values())
        start = time.perf_counter()
        try:
            return original(self, sig)
        finally:
            seconds = time.perf_counter() - start
            if seconds > 1e-3:
                cached = "cache" if sum(self._cache_hits.values()) > hits else "compile"
                clocks.add(seconds, f"numba {cached}", f"{self.py_func.__module__}.{self.py_func.__qualname__}",
                           str(sig))

    dispatcher.Dispatcher.compile = compile


def _wrap_kernels(clocks):
    from gpukernels import cuda

    original = cuda.get_kernel
    seen = set()

    def get_kernel(name, kernel, options=("-std=c++17",)):
        key = (name, kernel, tuple(options))
        start = time.perf_counter()
        try:
            return original(name, kernel, options)
        finally:
            if key not in seen:
                seen.add(key)
                clocks.add(time.perf_counter() - start, "cuda kernel", f"{name}.cu {kernel}", " ".join(options))

    cuda.get_kernel = get_kernel


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--top", type=int, default=25, help="rows printed (default 25)")
    p.add_argument("align", nargs=argparse.REMAINDER, help="-- then the arguments of ava align")
    args = p.parse_args(argv)
    align_args = args.align[1:] if args.align[:1] == ["--"] else args.align
    clocks = Clocks()
    _wrap_numba(clocks)
    _wrap_kernels(clocks)
    from gpukernels.cli import main as ava
    start = time.perf_counter()
    rc = ava(["align", *align_args])
    wall = time.perf_counter() - start
    rows = sorted(clocks.rows, reverse=True)
    print(f"ava align: rc {rc}, {wall:.2f} s wall")
    for kind in ("numba compile", "numba cache", "cuda kernel"):
        got = [r[0] for r in rows if r[1] == kind]
        print(f"{kind}: {len(got)} calls, {sum(got):.2f} s in all")
    print("| s | kind | function | signature or options |\n|---|---|---|---|")
    for seconds, kind, name, detail in rows[:args.top]:
        print(f"| {seconds:.2f} | {kind} | {name} | {detail[:90]} |")
    return rc


if __name__ == "__main__":
    sys.exit(main())
