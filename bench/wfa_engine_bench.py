#!/usr/bin/env python3
"""Gapped-stage CPU time with the DP traceback vs the WFA traceback (uniform preset, CPU backend).

Usage: ``python3 bench/wfa_engine_bench.py TARGET QUERY [--repeats N] [--json FILE]``

Single thread (``NUMBA_NUM_THREADS=1`` is set before numba loads). After one
warm-up alignment per traceback (numba compilation), the pair is aligned
``--repeats`` times with each traceback, alternating; the gapped stage
(``gapped.extend_anchors``) is timed in user CPU seconds of this process
(``os.times``), which a loaded machine does not inflate the way it does wall
time. Reports the best and median per traceback, the WFA outcome counts per
side, and whether both tracebacks gave the same scores.

``--only dp|wfa`` aligns once with one traceback (no warm-up) and reports the
process's peak resident memory, to compare the tracebacks' memory in two runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def timed_gapped(engine):
    """Wrap ``engine.gapped.extend_anchors``; return the list its user CPU seconds go to."""
    spent = []
    inner = engine.gapped.extend_anchors

    def wrapper(*a, **k):
        before = os.times()
        out = inner(*a, **k)
        after = os.times()
        spent.append(after.user - before.user)
        return out
    engine.gapped.extend_anchors = wrapper
    return spent


def run_once(engine, target, query, scoring, traceback, spent):
    """Align once; return (gapped user seconds, total user seconds, alignments, stats)."""
    spent.clear()
    stats = engine.StageStats()
    before = os.times()
    alns = engine.align(target, query, engine.AlignOptions(scoring=scoring, traceback=traceback),
                        backend="cpu", stats=stats, threads=1)
    total = os.times().user - before.user
    return sum(spent), total, alns, stats


def peak_memory(engine, target, query, scoring, traceback, spent):
    """Align once with ``traceback``; print gapped seconds and the peak RSS in MiB."""
    import resource
    g, tot, alns, stats = run_once(engine, target, query, scoring, traceback, spent)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(dict(traceback=traceback, gapped_user_s=g, total_user_s=tot, alignments=len(alns),
                          peak_rss_mib=round(peak), wfa=stats.wfa)))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", default=None)
    p.add_argument("--only", choices=("dp", "wfa"), default=None,
                   help="one run with this traceback; report peak memory")
    args = p.parse_args(argv)

    from gpukernels import engine
    from gpukernels.genome import read_fasta
    from gpukernels.scoring import uniform_scoring

    target, query = read_fasta(args.target), read_fasta(args.query)
    scoring = uniform_scoring()
    spent = timed_gapped(engine)
    if args.only:
        return peak_memory(engine, target, query, scoring, args.only, spent)
    modes = ("dp", "wfa")
    results = {m: dict(gapped=[], total=[]) for m in modes}
    last = {}
    for m in modes:
        run_once(engine, target, query, scoring, m, spent)  # warm-up (compilation)
    for _ in range(args.repeats):
        for m in modes:
            g, tot, alns, stats = run_once(engine, target, query, scoring, m, spent)
            results[m]["gapped"].append(g)
            results[m]["total"].append(tot)
            last[m] = (alns, stats)
    report = {"target": args.target, "query": args.query, "repeats": args.repeats}
    for m in modes:
        alns, stats = last[m]
        report[m] = dict(gapped_best=min(results[m]["gapped"]),
                         gapped_median=statistics.median(results[m]["gapped"]),
                         total_median=statistics.median(results[m]["total"]),
                         alignments=len(alns), score_sum=int(alns.score.sum()),
                         dp_cells=stats.dp_cells, wfa=stats.wfa)
    a, b = last["dp"][0], last["wfa"][0]
    report["same_scores"] = sorted(a.score.tolist()) == sorted(b.score.tolist())
    report["same_paths"] = bool(len(a) == len(b) and (a.ops.shape == b.ops.shape) and (a.ops == b.ops).all())
    report["speedup_gapped"] = report["dp"]["gapped_median"] / max(report["wfa"]["gapped_median"], 1e-9)
    print(json.dumps(report, indent=1))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
