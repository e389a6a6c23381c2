#!/usr/bin/env python3
"""Where the relay's long sides spend their time, per side, on one strand of one pair (GPU only).

Usage::

    python3 bench/relay_profile.py TARGET QUERY [--strand minus] [--pairs 2] [SETTINGS ...]

Wraps the relay's calls (``cpu/relay.relay_side`` and its steps, the
runner's chunk launches and device traceback) with wall clocks summed per
host thread; each long side runs on a thread of its own, so a row is a side.
The chunk kernel is waited for right after its launch, so its column is the
kernel's time as the side saw it (with the GPU shared by the others). After
one warm-up pair, each pair prints one row per side, longest first: the
side's length in anti-diagonals (its best cell's), then the seconds in each
call. ``SETTINGS`` are :mod:`ab_settings`'s (``MODULE.NAME=VALUE,...``),
applied before the first pair. The twentieth session's figures
(``bench/RESULTS.md``) come from it.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

#: the relay's module-level steps, clocked where ``relay_side`` calls them
RELAY_STEPS = ("same_state", "restore", "snapshot", "entry_guess", "traceback_steps", "trace_merge", "_traceback")


class Clocks:
    """Seconds per host thread and label, from functions wrapped in place."""

    def __init__(self):
        self.seconds = collections.defaultdict(lambda: collections.defaultdict(float))
        self.longest = collections.defaultdict(int)

    def wrap(self, owner, name, label=None, after=None):
        """Replace ``owner.name`` by a clocked call (``after(result)`` runs inside the clock)."""
        func = getattr(owner, name)
        label = label or name

        def clocked(*args, **kwargs):
            start = time.perf_counter()
            out = func(*args, **kwargs)
            if after is not None:
                after(out)
            self.seconds[threading.current_thread().name][label] += time.perf_counter() - start
            return out
        setattr(owner, name, clocked)

    def clear(self):
        self.seconds.clear()
        self.longest.clear()

    def table(self):
        """Markdown rows, one per thread that ran a relayed side, longest side first."""
        sides = [name for name in self.seconds if "relay_side" in self.seconds[name]]
        labels = sorted({k for name in sides for k in self.seconds[name]})
        lines = ["| anti-diagonals | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
        for name in sorted(sides, key=lambda n: -self.longest[n]):
            row = self.seconds[name]
            lines.append(f"| {self.longest[name]} | " + " | ".join(f"{row.get(k, 0.0):.3f}" for k in labels) + " |")
        return "\n".join(lines)


def instrument(clocks):
    """Clock the relay's calls: its steps, the runner's chunk calls, launches, device traceback and region."""
    import gpukernels.cpu.relay as relay
    import gpukernels.gpu.gapped as gapped
    import gpukernels.gpu.runner as runner
    for name in RELAY_STEPS:
        if hasattr(relay, name):
            clocks.wrap(relay, name)
    clocks.wrap(runner.DeviceRunner, "_relay_chunks", "chunk calls")
    clocks.wrap(runner.DeviceRunner, "relay_trace", "device traceback")
    clocks.wrap(runner._RelayTable, "side_region", "side region")
    launch = runner.DeviceRunner._launch

    def launch_and_wait(self, tasks, mode, band, wide, **kwargs):
        start = time.perf_counter()
        launch(self, tasks, mode, band, wide, **kwargs)
        if mode == 3:
            self.cp.cuda.get_current_stream().synchronize()
            clocks.seconds[threading.current_thread().name]["chunk kernel"] += time.perf_counter() - start
    runner.DeviceRunner._launch = launch_and_wait

    def note_length(out):
        name = threading.current_thread().name
        clocks.longest[name] = max(clocks.longest[name], int(out[1]) + int(out[2]))
    clocks.wrap(gapped, "relay_side", after=note_length)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target")
    ap.add_argument("query")
    ap.add_argument("--strand", default="minus", choices=("plus", "minus", "both"))
    ap.add_argument("--pairs", type=int, default=2, help="pairs timed after the warm-up")
    ap.add_argument("settings", nargs="?", default="", help="MODULE.NAME=VALUE,... (see ab_settings.py)")
    args = ap.parse_args(argv)
    from ab_settings import apply_settings
    from gpukernels import engine
    from gpukernels.genome import read_fasta
    apply_settings(args.settings)
    target, query = read_fasta(args.target), read_fasta(args.query)
    clocks = Clocks()
    instrument(clocks)
    options = engine.AlignOptions(strand=args.strand)
    for r in range(args.pairs + 1):
        clocks.clear()
        start = time.perf_counter()
        engine.align(target, query, options, backend="gpu", threads=os.cpu_count() or 2)
        if r:
            print(f"\npair {r} (strand {args.strand}): {time.perf_counter() - start:.3f} s")
            print(clocks.table())


if __name__ == "__main__":
    main()
