"""Throughput of ``gpukernels.wfa`` on the WFA-GPU paper's simulated shapes (issue 5).

Pairs are made as WFA2-lib's ``generate_dataset`` makes them (random pattern,
then uniform mismatches, insertions and deletions at the error rate). For
each shape and mode (score-only, with CIGAR) the script warms up, sweeps
threads per block and blocks per SM on a small batch (GPU), sizes the measured batch to fill
the GPU within a time cap, and reports pairs per second from CUDA events
around the kernels (packing, transfers and host-side CIGAR strings are not
counted; the CPU backend reports wall time). A sample is checked against the
CPU twin. Output: a markdown table beside WFA-GPU's figures from issue 5.

``--cigar-modes chain,packed`` times the CIGAR mode once per GPU backtrace
design (``wfa(..., cigar_mode=...)``), each with its own launch sweep and its
own check against the CPU twin; ``--no-score-only`` skips score-only runs.

Usage::

    PYTHONPATH=. python3 bench/wfa_bench.py --backend gpu [--quick] [--shapes 150:0.02,1000:0.1]
    PYTHONPATH=. python3 bench/wfa_bench.py --shapes 10000:0.1 --cigar-modes chain,packed --no-score-only
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gpukernels.wfa import CIGAR_MODES, Sequences, simulate_pairs, wfa

# WFA-GPU on an NVIDIA H200, tuned, penalties 4,6,2 (issue 5): (with CIGAR, score-only)
REFERENCE = {
    (150, 0.02): (5.2e6, None),
    (150, 0.10): (3.2e6, 5.5e6),
    (1000, 0.02): (1.96e6, 2.98e6),
    (1000, 0.05): (0.88e6, 1.41e6),
    (1000, 0.10): (0.27e6, 0.45e6),
    (10000, 0.02): (47e3, 73e3),
    (10000, 0.10): (4.3e3, 9.7e3),
}
SHAPES = [(150, 0.02), (150, 0.05), (150, 0.10), (1000, 0.02), (1000, 0.05), (1000, 0.10),
          (10000, 0.02), (10000, 0.05), (10000, 0.10)]
TARGET_PAIRS = {150: 1_000_000, 1000: 200_000, 10000: 20_000}


def _head(S, n):
    return Sequences(S.codes, S.offsets[:n + 1])


def _fmt(rate):
    if rate is None:
        return "—"
    if rate >= 1e6:
        return f"{rate / 1e6:.2f} M/s"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f} k/s"
    return f"{rate:.0f} /s"


def _ratio(ours, ref):
    return "—" if ours is None or ref is None else f"{ours / ref:.2f}×"


def run_once(P, T, backend, score_only, tuning, edit=False, cigar_mode="chain"):
    """Align; return (seconds, result, rescued): CUDA-event time on the GPU, wall time on the CPU."""
    timing = {}
    t0 = time.perf_counter()
    res = wfa(P, T, edit=edit, score_only=score_only, backend=backend, timing=timing, tuning=tuning,
              cigar_mode=cigar_mode)
    wall = time.perf_counter() - t0
    if backend == "gpu":
        return timing["gpu_ms"] / 1000.0, res, timing.get("rescued", 0)
    return wall, res, 0


def sweep_configs(P, T, backend, score_only, n, edit=False, cigar_mode="chain"):
    """Best launch setting (threads per block, blocks per SM) on ``n`` pairs (GPU only)."""
    if backend != "gpu":
        return {}
    length = int(P.lengths.max())
    if edit:
        options = [{"ewfa_threads": t} for t in (32, 64, 128)]
    elif length <= 300:
        options = [{"threads": t} for t in (32, 64, 128)]
    elif length <= 3000:
        options = [{"threads": t} for t in (64, 128, 256)] + [{"threads": 256, "blocks_per_sm": 4}]
    else:
        options = [{"threads": 256}, {"threads": 512}, {"threads": 512, "blocks_per_sm": 2},
                   {"threads": 1024, "blocks_per_sm": 2}, {"threads": 1024, "blocks_per_sm": 1}]
    sub_p, sub_t = _head(P, n), _head(T, n)
    best, best_t = {}, None
    for tuning in options:
        t, _, _ = run_once(sub_p, sub_t, backend, score_only, tuning, edit, cigar_mode)
        if best_t is None or t < best_t:
            best, best_t = tuning, t
    return best


def verify(P, T, res, score_only, edit=False):
    """The first few results equal the CPU twin's."""
    length = int(P.lengths.max())
    n = min(len(res), 300 if length <= 300 else (48 if length <= 3000 else 4))
    sub_p, sub_t = _head(P, n), _head(T, n)
    cpu = wfa(sub_p, sub_t, edit=edit, score_only=score_only, backend="cpu")
    ok = np.array_equal(res.scores[:n], cpu.scores)
    if not score_only:
        k = int(res.op_offsets[n])
        ok = ok and np.array_equal(res.ops[:k], cpu.ops)
    return ok


def measure(P, T, backend, score_only, cap_s, edit=False, cigar_mode="chain"):
    """Pairs per second for one batch and mode; returns (rate, pairs, ok, rescued, tuning)."""
    n_max = len(P)
    length = int(P.lengths.max())
    small = min(n_max, 4096 if length <= 1000 else 512)
    mode = (edit, cigar_mode)
    run_once(_head(P, 64), _head(T, 64), backend, score_only, {}, *mode)  # compile, warm up
    tuning = sweep_configs(P, T, backend, score_only, small, *mode)
    t, _, _ = run_once(_head(P, small), _head(T, small), backend, score_only, tuning, *mode)
    rate = small / max(t, 1e-9)
    n = int(min(n_max, max(small, rate * cap_s)))
    t, res, rescued = run_once(_head(P, n), _head(T, n), backend, score_only, tuning, *mode)
    ok = verify(P, T, res, score_only, edit)
    return n / max(t, 1e-9), n, ok, rescued, tuning


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="gpu", choices=("gpu", "cpu"))
    ap.add_argument("--shapes", help="comma list of LENGTH:ERROR, e.g. 150:0.02,1000:0.1")
    ap.add_argument("--cap", type=float, default=4.0, help="target seconds per measured batch")
    ap.add_argument("--quick", action="store_true", help="10x fewer pairs at most")
    ap.add_argument("--pairs", type=int, help="at most this many pairs per shape")
    ap.add_argument("--budget", type=float, default=330.0, help="stop starting shapes after this many s")
    ap.add_argument("--cigar-modes", default="packed",
                    help=f"GPU backtrace designs to time with CIGAR (comma list of {', '.join(CIGAR_MODES)})")
    ap.add_argument("--no-score-only", action="store_true", help="time the CIGAR mode(s) only")
    args = ap.parse_args(argv)
    modes = [m for m in args.cigar_modes.split(",") if m]
    if not modes or any(m not in CIGAR_MODES for m in modes):
        ap.error(f"--cigar-modes {args.cigar_modes!r}: expected a comma list of {CIGAR_MODES}")
    if args.backend == "cpu":
        modes = modes[:1]  # one CPU twin, whatever the GPU design
    shapes = SHAPES
    if args.shapes:
        shapes = [(int(a), float(b)) for a, b in (s.split(":") for s in args.shapes.split(","))]
    device = "CPU (numba)"
    if args.backend == "gpu":
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        device = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"device: {device}; penalties 4,6,2; backend {args.backend}", flush=True)
    rows = []
    t_start = time.perf_counter()
    for length, err in shapes:
        if time.perf_counter() - t_start > args.budget:
            print(f"(budget spent: skipping {length} bp {err:.0%})", flush=True)
            continue
        n_max = TARGET_PAIRS.get(length, 10_000) // (10 if args.quick else 1)
        n_max = min(n_max, args.pairs or n_max)
        if args.backend == "cpu":
            n_max = max(100, n_max // 200)
        ref = REFERENCE.get((length, err), (None, None))
        name = f"{length} bp, {err:.0%}"
        notes = []
        P, T = simulate_pairs(n_max, length, err, seed=int(length * 1000 + err * 100))
        rates = {}
        runs = [(False, m) for m in modes] + ([] if args.no_score_only else [(True, "chain")])
        for score_only, mode in runs:
            label = "score-only" if score_only else f"CIGAR {mode}"
            try:
                rate, n, ok, rescued, tuning = measure(P, T, args.backend, score_only, args.cap,
                                                       cigar_mode=mode)
            except Exception as exc:  # one failing design must not hide the others' figures
                rates[label] = None
                notes.append(f"{'score' if score_only else mode}: FAILED ({type(exc).__name__})")
                print(f"  {name} {label}: FAILED: {exc}", flush=True)
                continue
            rates[label] = rate
            notes.append(f"{'score' if score_only else mode}: {n} pairs, {tuning or 'default'}"
                         f"{'' if ok else ', MISMATCH vs CPU'}{f', {rescued} rescued' if rescued else ''}")
            print(f"  {name} {label}: {_fmt(rate)} ({notes[-1]})", flush=True)
        cig = [rates[f"CIGAR {m}"] for m in modes]
        row = [name] + [_fmt(r) for r in cig] + [_fmt(ref[0])] + [_ratio(r, ref[0]) for r in cig]
        if not args.no_score_only:
            row += [_fmt(rates["score-only"]), _fmt(ref[1]), _ratio(rates["score-only"], ref[1])]
        rows.append(row + ["; ".join(notes)])
    # eWFA: edit distance, short pairs
    if args.backend == "gpu" and (not args.shapes or args.pairs) and time.perf_counter() - t_start < args.budget + 60:
        n_max = min(TARGET_PAIRS[150] // (10 if args.quick else 1), args.pairs or 10**9)
        P, T = simulate_pairs(n_max, 150, 0.02, seed=7)
        for score_only in (False, True):
            rate, n, ok, rescued, tuning = measure(P, T, "gpu", score_only, args.cap, edit=True)
            print(f"  eWFA edit 150 bp 2% {'score-only' if score_only else 'CIGAR'}: {_fmt(rate)} "
                  f"({n} pairs, {tuning}{'' if ok else ', MISMATCH'})", flush=True)
    print()
    tag = (lambda m: "") if len(modes) == 1 else (lambda m: f" ({m})")
    head = (["shape"] + [f"ours, CIGAR{tag(m)}" for m in modes] + ["WFA-GPU, CIGAR"]
            + [f"ratio{tag(m)}" for m in modes])
    if not args.no_score_only:
        head += ["ours, score-only", "WFA-GPU, score-only", "ratio"]
    head.append("notes")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
