#!/usr/bin/env python3
"""FASTA parsing speed of :func:`gpukernels.read_fasta`, in MB of sequence per second.

Reads each file given (plain or gzipped) several times and prints one table
row per file: size, records, best-of-N seconds and MB/s. Gzip inflation is
part of the time for ``.gz`` files, so a plain copy is also timed when the
file is gzipped (written to a temporary folder).

Usage: ``python bench/parse_speed.py FILE [FILE ...] [--repeat N]``
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gpukernels.genome import read_fasta  # noqa: E402


def best_time(path, repeat):
    """Fastest of ``repeat`` parses, and the genome."""
    best, genome = float("inf"), None
    for _ in range(repeat):
        clock = time.perf_counter()
        genome = read_fasta(path)
        best = min(best, time.perf_counter() - clock)
    return best, genome


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print("| file | records | Mb | seconds | MB/s |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.files:
            variants = [path]
            if path.endswith(".gz"):
                plain = os.path.join(tmp, os.path.basename(path)[:-3])
                with gzip.open(path, "rb") as src, open(plain, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                variants.append(plain)
            for p in variants:
                sec, g = best_time(p, args.repeat)
                mb = len(g.codes) / 1e6
                print(f"| {os.path.basename(p)} | {g.n_records} | {mb:.1f} | {sec:.3f} | {mb / sec:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
