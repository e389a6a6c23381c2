#!/usr/bin/env python3
"""Each GPU execution of one genome pair, by part: host preparation, executor kernels, walk back, the rest (GPU only).

Usage::

    python3 bench/exec_parts.py TARGET QUERY [--pairs 3] [--threads 16]

Wraps :meth:`gpukernels.gpu.runner.DeviceRunner.execute` (a wave's, a
round's or a first wave's execution: the executor, ``ydrop_trace`` and the
copies back) and records CUDA events around its executor launches (mode 1;
the long wide sides run in blocks on a stream of their own, marked ``w``)
and around ``ydrop_trace``, and host clocks at the call, at its first
launch and at the walk back's launch. After ``--pairs`` pairs (the first
compiles) prints one row per call of the last pair: its thread, sides, wall
time, the host's milliseconds before its first launch (``prep``) and
before the walk back, each executor launch's device milliseconds, the walk
back's, and what is left of the wall time after the walk back's launch
(``after``: the walk itself, the copies back, the columns and routes
gathered). The forty-seventh session's figures in ``bench/RESULTS.md`` come
from it.
"""

from __future__ import annotations

import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)


class ExecClock:
    """Events and host clocks of each ``DeviceRunner.execute`` call, per calling thread."""

    def __init__(self, cp):
        self.cp = cp
        self.local = threading.local()
        self.calls = []

    def _event(self):
        e = self.cp.cuda.Event()
        e.record()
        return e

    def install(self, runner_mod):
        """Wrap ``DeviceRunner.execute``, its executor launches and its ``ydrop_trace`` launch."""
        clock = self
        cls = runner_mod.DeviceRunner
        execute, launch, init = cls.execute, cls._launch, cls.__init__

        def timed_launch(runner, tasks, mode, band, wide, **kw):
            rec = getattr(clock.local, "rec", None)
            if mode != 1 or rec is None:
                return launch(runner, tasks, mode, band, wide, **kw)
            rec.setdefault("h_launch", time.perf_counter())
            a = clock._event()
            out = launch(runner, tasks, mode, band, wide, **kw)
            rec["exec"].append((a, clock._event(), int(tasks.shape[0]), bool(wide)))
            return out

        class TimedTrace:
            def __init__(self, kernel):
                self.kernel = kernel

            def __call__(self, *args, **kw):
                rec = getattr(clock.local, "rec", None)
                if rec is None:
                    return self.kernel(*args, **kw)
                rec["h_trace"] = time.perf_counter()
                a = clock._event()
                out = self.kernel(*args, **kw)
                rec["trace"] = (a, clock._event())
                return out

        def timed_init(runner, *args, **kw):
            init(runner, *args, **kw)
            runner._trace = TimedTrace(runner._trace)

        def timed_execute(runner, tasks, *args, **kw):
            rec = clock.local.rec = {"exec": [], "w0": time.perf_counter()}
            try:
                return execute(runner, tasks, *args, **kw)
            finally:
                rec["wall"] = time.perf_counter() - rec["w0"]
                clock.calls.append((threading.current_thread().name, len(tasks), rec))
                clock.local.rec = None

        cls._launch, cls.__init__, cls.execute = timed_launch, timed_init, timed_execute

    def rows(self):
        """One line per call (after the device has finished them all)."""
        cp = self.cp
        cp.cuda.Device().synchronize()
        ms = cp.cuda.get_elapsed_time
        out = ["| thread | sides | wall | prep | to walk back | executor launches (sides) | walk back | after |",
               "|---|---|---|---|---|---|---|---|"]
        for name, n, rec in self.calls:
            w0 = rec["w0"]
            prep = 1000 * (rec.get("h_launch", w0) - w0)
            at_trace = 1000 * (rec.get("h_trace", w0) - w0)
            launches = " ".join(f"{ms(a, b):.1f} ({m}{'w' if wide else ''})" for a, b, m, wide in rec["exec"])
            trace = ms(*rec["trace"]) if "trace" in rec else 0.0
            out.append(f"| {name} | {n} | {1000 * rec['wall']:.1f} | {prep:.1f} | {at_trace:.1f} | {launches} | "
                       f"{trace:.1f} | {1000 * rec['wall'] - at_trace:.1f} |")
        return out


def main(argv=None):
    from gpu_timing import pair_parser
    p = pair_parser(__doc__)
    p.add_argument("--pairs", type=int, default=3)
    p.add_argument("--threads", type=int, default=16)
    args = p.parse_args(argv)

    import cupy as cp
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import runner as runner_mod

    clock = ExecClock(cp)
    clock.install(runner_mod)
    t, q = read_fasta(args.target), read_fasta(args.query)
    for k in range(args.pairs):
        clock.calls.clear()
        w = time.perf_counter()
        align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
        print(f"pair {k}: {time.perf_counter() - w:.3f} s")
    print("\n".join(clock.rows()))


if __name__ == "__main__":
    main()
