#!/usr/bin/env python3
"""Where one genome pair's GPU time goes, kernel by kernel: Nsight Compute's counts summed by kernel name.

Usage::

    ncu --profile-from-start off --clock-control none --csv --page raw \\
        --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,\\
    smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active \\
        python3 bench/kernel_times.py TARGET QUERY > raw.csv
    python3 bench/kernel_times.py --sum raw.csv

The first command aligns the pair twice on the GPU and profiles the second
pair only (``cudaProfilerStart/Stop`` around it; the first compiles and
warms up). ncu runs the kernels one at a time, so the sums are each
kernel's own time, not the pipeline's, where the strands' kernels overlap.
The second prints one row per kernel, the longest first: its launches, its
milliseconds, their share, the milliseconds its multiprocessors were
active (time × active cycles / elapsed cycles: a latency-bound chain on a
few multiprocessors has far less of these than of time), its warp
instructions and its mean occupancy while active. The forty-ninth
session's table in ``bench/RESULTS.md`` comes from it.
"""

from __future__ import annotations

import argparse
import collections
import csv
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

#: ncu's metrics that :func:`kernel_rows` reads
METRICS = ("gpu__time_duration.sum", "sm__cycles_active.avg", "sm__cycles_elapsed.avg", "smsp__inst_executed.sum",
           "sm__warps_active.avg.pct_of_peak_sustained_active")


def kernel_rows(lines):
    """Per kernel name: launches, nanoseconds, active nanoseconds, warp instructions, occupancy-weighted ns.

    ``lines``: ncu's ``--csv --page raw`` output (lines before its header,
    such as the profiled program's own, are skipped). Returns a list of
    ``(name, launches, ns, active_ns, instructions, occupancy_ns)``, the
    longest first.
    """
    rows = list(csv.reader(lines))
    start = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if start is None:
        raise ValueError("no ncu raw table (a 'Kernel Name' column) in the input")
    ix = {name: i for i, name in enumerate(rows[start])}
    missing = [m for m in METRICS if m not in ix]
    if missing:
        raise ValueError(f"the ncu table lacks {', '.join(missing)}: profile with --metrics {','.join(METRICS)}")

    def value(row, name):
        try:
            return float(row[ix[name]].replace(",", ""))
        except (ValueError, IndexError):
            return 0.0
    sums = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0])
    for row in rows[start + 2:]:            # past the header and its units
        if len(row) <= ix["Kernel Name"]:
            continue
        s = sums[row[ix["Kernel Name"]]]
        ns = value(row, METRICS[0])
        s[0] += 1
        s[1] += ns
        s[2] += ns * value(row, METRICS[1]) / max(value(row, METRICS[2]), 1.0)
        s[3] += value(row, METRICS[3])
        s[4] += ns * value(row, METRICS[4]) / 100.0
    return sorted(((name, *s) for name, s in sums.items()), key=lambda r: -r[2])


def print_table(rows):
    """:func:`kernel_rows` as a Markdown table with a total."""
    total = sum(r[2] for r in rows) or 1.0
    print("| kernel | launches | ms | share | SM-active ms | warp instructions (G) | occupancy while active |")
    print("|---|---|---|---|---|---|---|")
    for name, n, ns, active, inst, occ in rows:
        print(f"| {name[:48]} | {n} | {ns / 1e6:.2f} | {100 * ns / total:.1f} % | {active / 1e6:.2f} | "
              f"{inst / 1e9:.3f} | {100 * occ / max(ns, 1.0):.1f} % |")
    print(f"total {total / 1e6:.1f} ms over {sum(r[1] for r in rows)} launches")


def profile_pair(target, query):
    """Align the pair twice on the GPU, the second inside ``cudaProfilerStart/Stop``."""
    import cupy as cp
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    t, q = read_fasta(target), read_fasta(query)
    align(t, q, AlignOptions(), backend="gpu")
    cp.cuda.Device().synchronize()
    cp.cuda.profiler.start()
    start = time.perf_counter()
    align(t, q, AlignOptions(), backend="gpu")
    cp.cuda.Device().synchronize()
    cp.cuda.profiler.stop()
    print(f"profiled pair: {time.perf_counter() - start:.2f} s", file=sys.stderr)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pair", nargs="*", help="TARGET QUERY: align them (under ncu)")
    p.add_argument("--sum", metavar="RAW_CSV", help="print ncu's raw CSV summed by kernel")
    args = p.parse_args(argv)
    if args.sum:
        try:
            with open(args.sum, newline="") as fh:
                rows = kernel_rows(fh)
        except (OSError, ValueError) as err:
            raise SystemExit(f"kernel_times: {args.sum}: {err}")
        print_table(rows)
    elif len(args.pair) == 2:
        profile_pair(*args.pair)
    else:
        p.error("give TARGET QUERY, or --sum RAW_CSV")


if __name__ == "__main__":
    main()
