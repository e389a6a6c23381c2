#!/usr/bin/env python3
"""Timeline of one genome pair on the GPU: the engine's host calls, per thread, from the pair's start (GPU only).

Usage::

    python3 bench/timeline.py TARGET QUERY [SETTINGS] [--pairs 2] [--threads 16] [--probe MS] [--sample MS] [--waves]
        [--wrap MODULE:NAME ...] [--sample-threads PREFIX,...]

Wraps the calls where a strand's time goes (the seed and ungapped stages,
the runner's inspections, executions and walls, the walk, each relayed
side and its steps: the chunks' launch, the packing of their bytes, their
table, the traceback and the region) with wall clocks, and after one
warm-up pair prints, per pair, one row per call: start and end (seconds
from the pair's start), duration, thread and call. A row's wait is the
host's: a call that waits for the device shows how long the device took
to get to its work, shared with both strands' other kernels. Then one row
per relay launch (kernel ``ydrop_chunk``): its chunks and the cells they
swept (against the relayed sides' own cells: the rest is warm-ups and
speculation past a side's end), and the seconds each relay thread spent in
the small calls it makes per chunk. ``SETTINGS`` are :mod:`ab_settings`'s
(``MODULE.NAME=VALUE,...``), applied before the warm-up. With
``--probe``, a thread times a tiny kernel every MS milliseconds
(:class:`Probe`): how long a short kernel waited for the device during
the pair; with ``--sample``, another reads the strand threads' stacks
every MS milliseconds (:class:`Sampler`): where a strand's thread was
between the rows; with ``--waves``, each strand's waves with their cells and
seconds (:func:`wave_rows`); with ``--device``, each y-drop kernel's launch with CUDA
events on its stream (:class:`DeviceRows`: when its stream reached it and when it
ended, on the pair's clock), beside the host's rows; ``--wrap`` clocks more calls,
and ``--sample-threads`` prints the samples of more threads. The twenty-ninth session's timelines (``bench/RESULTS.md``)
come from it.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

#: calls summed per thread rather than listed (thousands of them a pair)
SUMMED = ("same_state", "entry_guess", "_chunk_states")
#: listed calls shorter than 2 ms left out (the walk's steps between waves, the walls' copies)
QUIET = ("set_walls", "snapshot_walls", "kept_rows", "walk")


class Timeline:
    """Wall-clock rows of wrapped calls while :attr:`on`, relative to :attr:`start`.

    ``put(owner, name, value)`` installs a wrapper (``setattr``; a test passes its monkeypatch's).
    """

    def __init__(self, put=setattr):
        self.put = put
        self.rows, self.summed, self.chunk_launches = [], {}, []
        self.start, self.on = 0.0, False
        self._lock = threading.Lock()

    def begin(self):
        """Clear the rows and start clocking from now."""
        self.rows, self.summed, self.chunk_launches = [], {}, []
        self.start, self.on = time.perf_counter(), True

    def wrap(self, owner, name, label=None):
        """Replace ``owner.name`` with a clocked call."""
        func, label = getattr(owner, name), label or name

        @functools.wraps(func)
        def clocked(*args, **kwargs):
            if not self.on:
                return func(*args, **kwargs)
            c0 = time.perf_counter()
            out = func(*args, **kwargs)
            c1 = time.perf_counter()
            thread = threading.current_thread().name
            with self._lock:
                if label in SUMMED:
                    self.summed[(thread, label)] = self.summed.get((thread, label), 0.0) + c1 - c0
                else:
                    self.rows.append((c0 - self.start, c1 - self.start, thread, label, _detail(label, args, out)))
            return out
        self.put(owner, name, clocked)

    def print_pair(self):
        """The pair's rows, its relay launches and the summed calls."""
        for c0, c1, thread, label, detail in sorted(self.rows):
            if label in QUIET and c1 - c0 < 0.002:
                continue
            print(f"{c0:7.3f} {c1:7.3f} {1000 * (c1 - c0):7.1f} ms  {thread[-24:]:24s} {label:16s} {detail}")
        sides = sum(int(d.split("cells=")[1]) for *_, label, d in self.rows if label == "relay_side")
        swept = 0
        from gpukernels.gpu.gapped import RELAY_WARM
        for at, thread, res in self.chunk_launches:
            res = res.get()
            swept += int(res[:, 3].sum())
            print(chunk_line(at, thread, res, RELAY_WARM))
        print(f"relay chunks swept {swept / 1e6:.1f} M cells for relayed sides of {sides / 1e6:.1f} M")
        for (thread, label), seconds in sorted(self.summed.items()):
            print(f"summed {thread[-24:]:24s} {label:16s} {1000 * seconds:7.1f} ms")


def chunk_line(at, thread, res, warm):
    """One relay launch's line: its chunks, their cells, and how long they held their blocks.

    ``res`` is the launch's result rows (``R_CELLS`` column 3, ``R_DIAGS``,
    the last anti-diagonal swept, column 10). A chunk that started past its
    side's end most likely dies within its warm-up of ``warm``
    anti-diagonals; one that ran to its end held its block for the whole
    launch.
    """
    cells, diags = res[:, 3], res[:, 10]
    full = int(diags.max()) if len(diags) else 0
    median = int(np.median(diags)) if full else 0
    return (f"chunks {at:7.3f} {thread[-24:]:24s} {len(cells)} chunks, {cells.sum() / 1e6:.1f} M cells, "
            f"{int((cells > 1e6).sum())} over 1 M; anti-diagonals: {int((diags <= warm).sum())} within the warm-up "
            f"({warm}), {int((diags >= full).sum())} to the end ({full}), median {median}")


def wave_rows(strand, trace):
    """Lines for one strand's ``gapped.last_stats()["trace"]``: each wave, round or long batch the GPU ran.

    A row's kind (0 wave, 1 wide round, 2 round of abandoned anchors, 3 long batch), its anchors,
    the longest side's explored and best anti-diagonals, the cells of all its sides, and its
    inspector and executor seconds (a long batch's seconds in the first).
    """
    out = []
    for row in trace:
        kind, anchors, explored, best, cells, insp, exe = row
        rate = f"{cells / insp:.2e} cells/s" if insp > 0 else ""
        out.append(f"wave {strand} kind={int(kind)} anchors={int(anchors)} explored={int(explored)} best={int(best)} "
                   f"cells={cells / 1e6:.1f}M inspect={1000 * insp:.1f}ms execute={1000 * exe:.1f}ms {rate}")
    return out


class DeviceRows:
    """Each y-drop kernel's launch between two CUDA events on its stream, on the pair's clock.

    A launch's start is when its stream reached it (the work queued before it
    on that stream done), its end when the kernel ended; the time between is
    the kernel's, shared with whatever ran beside it. Event times are taken
    from a reference event recorded at :meth:`begin` (the device idle), so
    they line up with the host's rows within the clocks' skew (tens of
    microseconds). :meth:`rows` lists them once the pair has ended.
    """

    #: the runner's kernels launched outside ``_launch`` (its instance attributes)
    KERNELS = ("_trace", "_pack", "_walk_ahead", "_walk_join")
    #: ``_launch``'s modes by name (1 with ``wide`` is a lone long side of an execution)
    MODES = {0: "inspect", 1: "exec", 2: "round", 3: "chunks"}

    def __init__(self):
        self.launches, self.ref, self.start, self.ref_at = [], None, 0.0, 0.0

    def begin(self, start):
        import cupy as cp
        cp.cuda.Device().synchronize()
        self.launches, self.start = [], start
        self.ref = cp.cuda.Event()
        self.ref.record()
        self.ref.synchronize()
        self.ref_at = time.perf_counter() - start

    def clocked(self, label, launch):
        """``launch`` (a callable that queues one kernel) between two events, recorded under ``label``."""
        import cupy as cp

        def run(*args, **kwargs):
            if self.ref is None:
                return launch(*args, **kwargs)
            stream = cp.cuda.get_current_stream()
            e0 = stream.record()
            out = launch(*args, **kwargs)
            self.launches.append((label, threading.current_thread().name, e0, stream.record()))
            return out
        return run

    def rows(self):
        """``(start, end, thread, label)`` rows, seconds from the pair's start, after the device has ended them."""
        import cupy as cp
        out = []
        for label, thread, e0, e1 in self.launches:
            e1.synchronize()
            at = self.ref_at + cp.cuda.get_elapsed_time(self.ref, e0) / 1000
            out.append((at, self.ref_at + cp.cuda.get_elapsed_time(self.ref, e1) / 1000, thread, label))
        self.ref = None
        return sorted(out)


def instrument_device(rows, put=setattr):
    """Clock every y-drop kernel of every runner made from now on (:class:`DeviceRows`; ``put`` as
    :class:`Timeline`'s)."""
    from gpukernels.gpu import runner
    init, launch = runner.DeviceRunner.__init__, runner.DeviceRunner._launch

    def made(self, *args, **kwargs):
        init(self, *args, **kwargs)
        for name in DeviceRows.KERNELS:
            setattr(self, name, rows.clocked(name.strip("_"), getattr(self, name)))

    def launched(self, tasks, mode, band, wide, **kwargs):
        label = f"{DeviceRows.MODES.get(mode, mode)}{'-block' if wide else ''} n={int(tasks.shape[0])}"
        return rows.clocked(label, launch)(self, tasks, mode, band, wide, **kwargs)
    put(runner.DeviceRunner, "__init__", made)
    put(runner.DeviceRunner, "_launch", launched)


def print_device(rows, least=0.001):
    """The device rows of at least ``least`` seconds, and each thread's kernels summed."""
    summed = {}
    for c0, c1, thread, label in rows:
        kind = label.split(" ")[0]
        summed[(thread, kind)] = summed.get((thread, kind), 0.0) + c1 - c0
        if c1 - c0 >= least:
            print(f"device {c0:7.3f} {c1:7.3f} {1000 * (c1 - c0):7.1f} ms  {thread[-24:]:24s} {label}")
    for (thread, kind), seconds in sorted(summed.items()):
        print(f"device-summed {thread[-24:]:24s} {kind:16s} {1000 * seconds:7.1f} ms")


def _detail(label, args, out):
    """A row's last column: sides of an inspection, chunks of a launch, a relayed side's extent."""
    if label == "relay_side":
        return f"best_d={int(out[1]) + int(out[2])} cells={int(out[3])}"
    if label == "relay_chunks":
        return f"chunks={len(args[2])}"
    if label in ("inspect", "inspect_traced", "execute"):
        return f"sides={len(args[1])}"
    return ""


def instrument(timeline):
    """Wrap the engine's calls (module attributes, so the callers' lookups find the wrappers)."""
    from gpukernels import engine, seeds, ungapped
    from gpukernels.cpu import relay
    from gpukernels.gpu import gapped, runner, stripes
    for name in ("inspect", "inspect_traced", "execute", "relay_chunks", "_packed_bytes", "relay_trace",
                 "set_walls", "snapshot_walls", "kept_rows"):
        timeline.wrap(runner.DeviceRunner, name)
    timeline.wrap(runner._RelayTable, "__init__", "relay_table")
    timeline.wrap(runner._RelayTable, "side_region")
    timeline.wrap(runner, "_chunk_states")
    timeline.wrap(stripes.StripedWalk, "walk")
    timeline.wrap(gapped, "relay_side")
    timeline.wrap(gapped, "extend_anchors")
    timeline.wrap(relay, "_traceback", "relay_traceback")
    timeline.wrap(relay, "same_state")
    timeline.wrap(relay, "entry_guess")
    timeline.wrap(engine, "_strand_hsps")
    for name in ("seed_keys", "find_hits"):
        timeline.wrap(seeds, name)
    for name in ("extend_hits", "add_anchors"):
        timeline.wrap(ungapped, name)
    launch = runner.DeviceRunner._launch

    def chunk_launch(self, tasks, mode, band, wide, **kwargs):
        if timeline.on and mode == 3:
            timeline.chunk_launches.append((time.perf_counter() - timeline.start, threading.current_thread().name,
                                            kwargs["res"]))
        return launch(self, tasks, mode, band, wide, **kwargs)
    timeline.put(runner.DeviceRunner, "_launch", chunk_launch)


class _Every:
    """A background thread that runs a step every ``every`` seconds from :meth:`begin` to :meth:`end`,
    its rows timed from ``start`` (the pair's)."""

    def __init__(self, every):
        self.every = every
        self.rows, self.start = [], 0.0
        self._stop = threading.Event()
        self._thread = None

    def _loop(self, start, step, name, context=None):
        """Start the thread: ``step()`` until :meth:`end`, within ``context()`` where given."""
        self.rows, self.start = [], start
        self._stop.clear()

        def run():
            import contextlib
            with (context or contextlib.nullcontext)():
                while not self._stop.is_set():
                    step()
                    time.sleep(self.every)
        self._thread = threading.Thread(target=run, name=name, daemon=True)
        self._thread.start()

    def end(self):
        self._stop.set()
        self._thread.join()


class Probe(_Every):
    """How long a tiny kernel waits for the device, every ``every`` seconds of a pair, on a stream of the greatest priority.

    A background thread launches a one-block kernel and waits for it; its
    latency (launch to finish) tells how long any short kernel of the
    engine's (packing, tables, tracebacks) waited for a multiprocessor at
    that moment. :meth:`print_bins` prints them in bins of ``bin_s``.
    """

    def __init__(self, every, bin_s=0.02):
        super().__init__(every)
        self.bin_s = bin_s

    def begin(self, start):
        import functools
        import cupy as cp
        from gpukernels.gpu import own_stream
        kernel = cp.ElementwiseKernel("int32 x", "int32 y", "y = x + 1", "probe_tiny")
        x = cp.zeros(1, dtype=cp.int32)
        kernel(x, x)                    # compiled here, not in the first probe
        cp.cuda.get_current_stream().synchronize()

        def step():
            c0 = time.perf_counter()
            kernel(x, x)
            cp.cuda.get_current_stream().synchronize()
            self.rows.append((c0 - self.start, time.perf_counter() - c0))
        self._loop(start, step, "probe", functools.partial(own_stream, cp.cuda.Device().id))

    def print_bins(self):
        if not self.rows:
            return
        at, wait = (np.array(v) for v in zip(*self.rows))
        print(f"probe: a one-block kernel's wait, every {1000 * self.every:.1f} ms (ms per bin of "
              f"{1000 * self.bin_s:.0f} ms: count, median, max)")
        for b in range(int(at.max() / self.bin_s) + 1):
            sel = (at >= b * self.bin_s) & (at < (b + 1) * self.bin_s)
            if sel.any():
                w = 1000 * wait[sel]
                print(f"probe {b * self.bin_s:6.2f} {int(sel.sum()):4d} {np.median(w):7.2f} {w.max():7.2f} "
                      + "#" * min(int(w.max()), 60))


class Sampler(_Every):
    """The stacks of the threads that run ``extend_anchors``, every ``every`` seconds of a pair.

    A background thread reads ``sys._current_frames()``; :meth:`print_runs`
    prints, per strand thread, each run of samples whose innermost frames
    (``depth`` of them, in the engine's package) stay the same for at least
    ``least`` seconds: where a strand's thread spends the gaps between the
    timeline's rows.
    """

    def __init__(self, every, depth=3, least=0.002):
        super().__init__(every)
        self.depth, self.least = depth, least

    def _where(self, frame):
        out = []
        while frame is not None and len(out) < self.depth:
            name = frame.f_code.co_filename
            if "gpukernels" in name:
                out.append(f"{os.path.basename(name)}:{frame.f_code.co_name}:{frame.f_lineno}")
            frame = frame.f_back
        return " < ".join(out)

    def begin(self, start):
        names = {t.ident: t.name for t in threading.enumerate()}

        def step():
            now = time.perf_counter() - self.start
            for ident, frame in sys._current_frames().items():
                if ident not in names:
                    names.update({t.ident: t.name for t in threading.enumerate()})
                self.rows.append((now, names.get(ident, "?"), self._where(frame)))
        self._loop(start, step, "sampler")

    def print_runs(self, threads):
        for thread in threads:
            runs = []
            for now, name, where in self.rows:
                if name != thread:
                    continue
                if runs and runs[-1][2] == where:
                    runs[-1][1] = now
                else:
                    runs.append([now, now, where])
            for a, b, where in runs:
                if b - a >= self.least:
                    print(f"sample {a:7.3f} {b:7.3f} {1000 * (b - a):7.1f} ms  {thread[-24:]:24s} {where}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("settings", nargs="?", default="")
    p.add_argument("--pairs", type=int, default=2, help="pairs timed after the warm-up")
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--sample", type=float, default=0.0, help="milliseconds between samples of the strand threads' "
                   "stacks (Sampler; 0: none)")
    p.add_argument("--waves", action="store_true", help="print each strand's waves, rounds and long batches too "
                   "(wave_rows)")
    p.add_argument("--device", action="store_true", help="each y-drop kernel's launch too, with CUDA events "
                   "(DeviceRows)")
    p.add_argument("--probe", type=float, default=0.0, help="milliseconds between probes of the device's wait "
                   "(Probe; 0: none)")
    p.add_argument("--wrap", action="append", default=[], help="one more call to clock, MODULE:NAME or "
                   "MODULE:CLASS.NAME (a module attribute, so the callers' lookups find the wrapper)")
    p.add_argument("--sample-threads", default="", help="comma-separated prefixes of more thread names whose "
                   "samples to print (as ava-abandoned)")
    args = p.parse_intermixed_args(argv)
    from ab_settings import apply_settings
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    apply_settings(args.settings)
    timeline = Timeline()
    instrument(timeline)
    device = DeviceRows() if args.device else None
    if device:
        instrument_device(device)
    for spec in args.wrap:
        import importlib
        module, _, name = spec.partition(":")
        owner = importlib.import_module(module)
        *path, name = name.split(".")
        for part in path:
            owner = getattr(owner, part)
        timeline.wrap(owner, name)
    t, q = read_fasta(args.target), read_fasta(args.query)
    waves = {}
    if args.waves:
        from gpukernels.gpu import gapped
        extend = gapped.extend_anchors

        def kept_stats(*a, **k):
            out = extend(*a, **k)
            waves["+" if a[1] is q.codes else "-"] = gapped.last_stats().get("trace", ())
            return out
        gapped.extend_anchors = kept_stats
    align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
    probe = Probe(args.probe / 1000) if args.probe > 0 else None
    sampler = Sampler(args.sample / 1000) if args.sample > 0 else None
    for k in range(args.pairs):
        timeline.begin()
        if device:
            device.begin(timeline.start)
        for watch in (probe, sampler):
            if watch:
                watch.begin(timeline.start)
        align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
        total = time.perf_counter() - timeline.start
        timeline.on = False
        for watch in (probe, sampler):
            if watch:
                watch.end()
        print(f"\n== pair {k}: {total:.3f} s")
        timeline.print_pair()
        if device:
            print_device(device.rows())
        if probe:
            probe.print_bins()
        if sampler:
            more = tuple(filter(None, args.sample_threads.split(",")))
            sampler.print_runs(sorted({row[2] for row in timeline.rows if row[3] == "extend_anchors"}
                                      | {name for _, name, _ in sampler.rows if more and name.startswith(more)}))
        for strand, trace in sorted(waves.items()):
            print("\n".join(wave_rows(strand, trace)))


if __name__ == "__main__":
    main()
