"""CUDA-event timing and checks shared by the device benchmarks (METHOD.md: events, after a warm-up)."""

from __future__ import annotations

import argparse
import contextlib


def pair_parser(doc):
    """The argument parser of a benchmark on one genome pair: ``doc``'s first line, then TARGET and QUERY."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    return p


def gpu_seconds(func, repeats):
    """Mean seconds of ``func()`` on the current stream, by CUDA events, after one warm-up call.

    Returns
    -------
    tuple
        ``(seconds, result)``: the mean time of one call and the last call's result.
    """
    import cupy as cp
    out = func()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(repeats):
        out = func()
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) / 1000.0 / repeats, out


def same_alignments(alns, ref):
    """Do two :class:`~gpukernels.engine.Alignments` of one pair hold the same alignments (count, scores, starts)?

    The benchmarks that time a pair again and again check each run against their warm-up's.
    """
    import numpy as np
    return (len(alns) == len(ref) and np.array_equal(alns.score, ref.score)
            and np.array_equal(alns.t_start, ref.t_start) and np.array_equal(alns.q_start, ref.q_start))


@contextlib.contextmanager
def cuda_source(name, path, tag):
    """Kernels of ``cuda/<name>.cu`` built from the file ``path`` instead, while the block runs (None: the landed file).

    ``gpukernels.cuda`` memoises a module per (file, device, options): the
    build adds ``-DAVA_SOURCE=<tag>`` to its options, so that each source
    gets a module of its own (and an entry of its own in CuPy's disk cache).
    A caller that holds kernels (``DeviceRunner._kernels``) drops them when
    the block begins and ends, so that its next launch looks them up again.
    Lets a benchmark time builds of a kernel against each other in one
    process, on the same captured tasks (``bench/wave_kernel.py --variants``).
    """
    import gpukernels.cuda as kc
    if path is None:
        yield
        return
    source_path, module = kc.source_path, kc._module

    def variant_module(n, device_id, options):
        return module(n, device_id, tuple(options) + ((f"-DAVA_SOURCE={tag}",) if n == name else ()))
    kc.source_path = lambda n: path if n == name else source_path(n)
    kc._module = variant_module
    try:
        yield
    finally:
        kc.source_path, kc._module = source_path, module
