#!/usr/bin/env python3
"""Time the GPU engine on one genome pair: per-stage GPU time, time per pair, counts, DP cells/s.

Usage: ``python3 bench/engine_bench.py TARGET QUERY [--repeats N] [--json FILE] [--gpu-mem GIB]``

After one warm-up pair (kernel compilation, numba's host helpers), the pair
is aligned ``--repeats`` times in this process. Each stage function is
wrapped with CUDA events on the current stream (the stage's span on the
device, host work inside it included); the per-pair time is the wall time
of :func:`gpukernels.engine.align` (both strands, canonical output).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def _paf_bytes(alns, target, query):
    """The bytes ``ava align`` would write for ``alns`` as PAF."""
    import tempfile
    from gpukernels.formats import write_alignments
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "gpu.paf")
        write_alignments(alns, target, query, out, fmt="paf")
        with open(out, "rb") as fh:
            return fh.read()


def _parity(alns, target, query, tpath, qpath):
    """Compare the warm-up's PAF with the CPU PAF cached by tests/gpu_reference.py (no CPU run)."""
    import gzip
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
    import gpu_reference as ref
    cached = ref.CACHE / f"{ref.cache_key(tpath, qpath, ())}.paf.gz"
    if not cached.exists():
        return "no cached CPU PAF"
    mine = _paf_bytes(alns, target, query)
    with gzip.open(cached, "rb") as fh:
        theirs = fh.read()
    return "byte-identical" if mine == theirs else f"DIFFERENT ({len(mine)} vs {len(theirs)} bytes)"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("--repeats", type=int, default=3, help="timed pairs after the warm-up (at least 1)")
    p.add_argument("--json", default=None)
    p.add_argument("--gpu-mem", type=float, default=None, help="GiB")
    p.add_argument("--threads", type=int, default=os.cpu_count(),
                   help="host threads for the extensions too long for the GPU (default: all cores, as the peers)")
    p.add_argument("--trace", default=None, help="save the warm-up's speculation trace (gpu/gapped.py) as .npz")
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be at least 1 (the warm-up pair alone is not timed)")

    import cupy as cp
    from gpukernels import engine
    from gpukernels.engine import AlignOptions, StageStats, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import gapped as gg

    target, query = read_fasta(args.target), read_fasta(args.query)
    gpu_mem = None if args.gpu_mem is None else int(args.gpu_mem * (1 << 30))
    events = {}
    wave_stats = {}     # strand ("+" or "-") -> counts of its last gapped stage (the strands run at once)
    traces = {}

    def wrap(mod, name, stage):
        fn = getattr(mod, name)

        def timed(*a, **k):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            out = fn(*a, **k)
            stop.record()
            events.setdefault(stage, []).append((start, stop))
            if stage == "gapped y-drop":
                strand = "+" if a[1] is query.codes else "-"
                w = dict(gg.last_stats())
                traces[strand] = w.pop("trace", None)
                wave_stats[strand] = w
            return out
        return fn, timed

    stages = [(engine.seeds, "build_index", "seed: index"), (engine.seeds, "seed_keys", "seed: query keys"),
              (engine.seeds, "find_hits", "seed: lookup"), (engine.ungapped, "extend_hits", "ungapped x-drop"),
              (engine.ungapped, "add_anchors", "anchors"), (engine.gapped, "extend_anchors", "gapped y-drop")]
    originals = []
    for mod, name, stage in stages:
        fn, timed = wrap(mod, name, stage)
        originals.append((mod, name, fn))
        setattr(mod, name, timed)

    clock = time.perf_counter()
    wstats = StageStats()
    warm = align(target, query, AlignOptions(), backend="gpu", gpu_mem=gpu_mem, stats=wstats,
                 threads=args.threads)
    cp.cuda.Device().synchronize()
    warm_s = time.perf_counter() - clock
    # printed at once, in case a time limit stops the repeats
    print(f"warm-up pair: {warm_s:.2f} s; stage seconds {wstats.seconds}; alignments {len(warm)}", flush=True)
    for s, ev in events.items():
        print(f"  warm-up {s}: {sum(cp.cuda.get_elapsed_time(a, b) for a, b in ev) / 1000:.3f} s", flush=True)
    for strand, w in sorted(wave_stats.items()):
        print(f"  warm-up gapped waves, strand {strand}: {w}", flush=True)
    parity = _parity(warm, target, query, args.target, args.query)
    print(f"parity with the cached CPU PAF: {parity}", flush=True)
    if args.trace:
        import numpy as np
        np.savez(args.trace, **{f"strand{k}": tr for k, tr in traces.items() if tr is not None})
    if warm_s > 20:
        args.repeats = 1
    events.clear()
    wave_stats.clear()
    times, stats = [], None
    for _ in range(args.repeats):
        stats = StageStats()
        cp.cuda.Device().synchronize()
        clock = time.perf_counter()
        alns = align(target, query, AlignOptions(), backend="gpu", gpu_mem=gpu_mem, stats=stats,
                     threads=args.threads)
        cp.cuda.Device().synchronize()
        times.append(time.perf_counter() - clock)
        assert len(alns) == len(warm)
    for mod, name, fn in originals:
        setattr(mod, name, fn)
    per_stage = {s: sum(cp.cuda.get_elapsed_time(a, b) for a, b in ev) / 1000 / args.repeats
                 for s, ev in events.items()}
    gapped_s = per_stage.get("gapped y-drop", float("nan"))
    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = dev["name"].decode() if isinstance(dev["name"], bytes) else dev["name"]
    out = dict(device=name, target=os.path.basename(args.target), query=os.path.basename(args.query),
               repeats=args.repeats, warmup_s=warm_s, pair_s=sum(times) / len(times), pair_runs_s=times,
               stages_s=per_stage, seed_hits=stats.seed_hits, hsps=stats.hsps,
               anchors_extended=stats.anchors_extended, alignments=len(warm), dp_cells=stats.dp_cells,
               dp_cells_per_s=stats.dp_cells / gapped_s if gapped_s == gapped_s else None,
               gapped_waves=wave_stats, parity=parity)
    print(f"device: {name}")
    print(f"pair {out['target']} x {out['query']}: {out['pair_s']:.3f} s per pair (mean of {args.repeats}; "
          f"warm-up {warm_s:.1f} s; {args.threads} host threads)")
    print("| stage | GPU time per pair (s) |\n|---|---|")
    for s, v in per_stage.items():
        print(f"| {s} | {v:.4f} |")
    print(f"seed hits {stats.seed_hits:,}; HSPs {stats.hsps:,}; anchors extended {stats.anchors_extended:,}; "
          f"alignments {len(warm):,}; DP cells {stats.dp_cells:.3e}; "
          f"gapped {out['dp_cells_per_s'] or 0:.3e} cells/s")
    for strand, w in sorted(wave_stats.items()):
        print(f"gapped waves, strand {strand}: " + ", ".join(
            f"{a}={b:.3f}" if isinstance(b, float) else f"{a}={b}" for a, b in w.items()))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return out


if __name__ == "__main__":
    main()
