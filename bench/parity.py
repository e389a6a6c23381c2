#!/usr/bin/env python3
"""Parity with LASTZ on one genome pair: time, alignments, sensitivity, extra.

Runs the system ``lastz`` (general format) and ``ava align`` (general format)
on TARGET and QUERY, both single-threaded, and prints one markdown table row:

* each tool's wall time and number of alignments;
* sensitivity: the part of LASTZ-aligned bases that our alignments cover.
  Bases are counted per sequence and strand as a union of intervals, on the
  target side and on the query side; the lower of the two is reported;
* extra: our covered bases outside LASTZ's, over LASTZ's total (the higher
  of the two sides).

Usage: ``python bench/parity.py TARGET.fa[.gz] QUERY.fa[.gz] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time

import resource

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from gpukernels.formats import general  # noqa: E402


def _plain_fasta(path, workdir):
    """LASTZ reads no gzip: decompress into ``workdir`` when needed."""
    if not path.endswith(".gz"):
        return path
    out = os.path.join(workdir, os.path.basename(path)[:-3])
    with gzip.open(path, "rb") as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return out


def _masks(records, side):
    """Per (name, strand): a boolean array of covered positions on one side."""
    masks = {}
    for r in records:
        if side == "t":
            key, size, lo, hi = (r["tname"], r["strand"]), r["tlen"], r["t0"], r["t1"]
        else:
            key, size, lo, hi = (r["qname"], r["strand"]), r["qlen"], r["q0"], r["q1"]
        m = masks.setdefault(key, np.zeros(size, dtype=bool))
        m[lo:hi] = True
    return masks


def compare(ref, ours):
    """Sensitivity and extra of ``ours`` against ``ref`` (lists of general records)."""
    sens, extra = [], []
    for side in ("t", "q"):
        a, b = _masks(ref, side), _masks(ours, side)
        total = sum(int(m.sum()) for m in a.values())
        hit = sum(int((m & b[k]).sum()) for k, m in a.items() if k in b)
        out = sum(int((m & ~a[k]).sum()) if k in a else int(m.sum()) for k, m in b.items())
        sens.append(hit / total if total else 1.0)
        extra.append(out / total if total else 0.0)
    return min(sens), max(extra)


def _child_cpu():
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def run_pair(target, query, workdir, times=None):
    """Run both tools; return (lastz_s, ours_s, lastz_records, our_records).

    Wall-clock seconds are returned; ``times``, a dict, also receives each
    tool's CPU seconds (``lastz_cpu``, ``ava_cpu``), which a busy machine
    disturbs less.
    """
    times = {} if times is None else times
    t_plain, q_plain = _plain_fasta(target, workdir), _plain_fasta(query, workdir)
    lz_out = os.path.join(workdir, "lastz.general")
    clock, cpu = time.perf_counter(), _child_cpu()
    with open(lz_out, "w") as fh:
        subprocess.run(["lastz", f"{t_plain}[multiple,nameparse=full]", f"{q_plain}[nameparse=full]", "--format=general"], stdout=fh,
                       check=True)
    lastz_s = time.perf_counter() - clock
    times["lastz_cpu"] = _child_cpu() - cpu
    ours_out = os.path.join(workdir, "ava.general")
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    clock, cpu = time.perf_counter(), _child_cpu()
    subprocess.run([sys.executable, "-m", "gpukernels.cli", "-q", "align", target, query, "--backend", "cpu",
                    "--format", "general", "-o", ours_out], check=True, env=env)
    ours_s = time.perf_counter() - clock
    times["ava_cpu"] = _child_cpu() - cpu
    ref = general.read(lz_out)
    for r in ref:  # LASTZ's nameparse=full keeps the whole header line
        r["tname"] = r["tname"].lstrip(">").split()[0]
        r["qname"] = r["qname"].lstrip(">").split()[0]
    return lastz_s, ours_s, ref, general.read(ours_out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target")
    ap.add_argument("query")
    ap.add_argument("--keep", help="keep both outputs in this directory")
    ap.add_argument("--header", action="store_true", help="print the table header first")
    args = ap.parse_args(argv)
    workdir = args.keep or tempfile.mkdtemp(prefix="parity.")
    os.makedirs(workdir, exist_ok=True)
    try:
        times = {}
        lz_s, ours_s, ref, ours = run_pair(args.target, args.query, workdir, times)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    sens, extra = compare(ref, ours)
    name = f"{os.path.basename(args.target)} × {os.path.basename(args.query)}"
    if args.header:
        print("| pair | lastz s (cpu s) | ava s (cpu s) | speed-up (cpu) | lastz alns | ava alns "
              "| sensitivity | extra |")
        print("|---|---|---|---|---|---|---|---|")
    lz_c, av_c = times["lastz_cpu"], times["ava_cpu"]
    print(f"| {name} | {lz_s:.1f} ({lz_c:.1f}) | {ours_s:.1f} ({av_c:.1f}) | {lz_s / ours_s:.2f}× "
          f"({lz_c / av_c:.2f}×) | {len(ref)} | {len(ours)} | {sens:.4f} | {extra:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
