#!/usr/bin/env python3
"""The host DP's cell loop in 32-bit lanes against 16-bit lanes: nanoseconds a cell on one thread.

Usage: ``python3 bench/host_dp_lanes.py [--cells 128,300,600] [--total 30000000]``

A probe for a 16-bit host DP (``cpu/gapped.ydrop_sweep`` holds its rows in
int32; the GPU's inspector holds its scores in 16-bit halves less a base
that follows the best, ``cuda/gapped.cu`` at ``REBASE16``). It runs the
sweep's interior loop alone, the same statements on rows of either width,
over one anti-diagonal of ``--cells`` cells again and again (random
scores, the substitution scores already gathered), and prints the best of
five runs per width. Only the loop: the gather of the substitution
scores, the walls and each anti-diagonal's bookkeeping stay as they are
(``bench/RESULTS.md``, thirty-fifth session: about 0.6 of the DP's 1.5 ns a
cell is this loop).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit, uint64, uint8


def cell_loop(dtype):
    """The sweep's interior loop compiled for rows of ``dtype``: ``loop(wk, W, tb, reps, n, goe, gext, floor)``."""
    neg = dtype(-(1 << 29)) if dtype == np.int32 else dtype(-(9400 + 1402))
    zero, one8, two, four, eight = uint8(0), uint8(1), uint8(2), uint8(4), uint8(8)

    @njit(nogil=True)
    def loop(wk, W, tb, reps, n, goe, gext, floor):
        uH2, uH1, uH = uint64(0), uint64(W), uint64(2 * W)
        uE1, uE, uF1, uF, uS = uint64(3 * W), uint64(4 * W), uint64(5 * W), uint64(6 * W), uint64(7 * W)
        one = uint64(1)
        acc = 0
        for _ in range(reps):
            dbest = neg
            for i in range(uint64(1), uint64(n)):
                sub = dtype(wk[uH2 + i - one] + wk[uS + i])
                e_open = dtype(wk[uH1 + i] - goe)
                e_ext = dtype(wk[uE1 + i] - gext)
                e = max(e_open, e_ext)
                f_open = dtype(wk[uH1 + i - one] - goe)
                f_ext = dtype(wk[uF1 + i - one] - gext)
                f = max(f_open, f_ext)
                h = max(sub, max(e, f))
                src = zero if h == sub else (one8 if h == e else two)
                alive = h >= floor
                hv = h if alive else neg
                wk[uH + i] = hv
                wk[uE + i] = e if alive else neg
                wk[uF + i] = f if alive else neg
                tb[i] = uint8(src | (four if e_ext > e_open else zero) | (eight if f_ext > f_open else zero))
                dbest = max(dbest, hv if src == zero else neg)
            acc += dbest
        return acc
    return loop


def ns_a_cell(dtype, n, total, runs=5):
    """Best of ``runs`` of about ``total`` cells over one anti-diagonal of ``n`` cells, in ns a cell."""
    rng = np.random.default_rng(1)
    W = n + 8
    wk = np.zeros(8 * W, dtype=dtype)
    wk[:7 * W] = rng.integers(-2000, 2000, 7 * W)
    wk[7 * W:] = rng.choice([91, -114, -31, -125], W)
    tb = np.zeros(W, np.uint8)
    loop = cell_loop(dtype)
    goe, gext, floor = dtype(430), dtype(30), dtype(-1500)
    loop(wk, W, tb, 2, n, goe, gext, floor)
    reps = max(total // n, 1)
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        loop(wk, W, tb, reps, n, goe, gext, floor)
        best = min(best, time.perf_counter() - t0)
    return best / (reps * (n - 1)) * 1e9


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cells", default="128,300,600", help="cells an anti-diagonal, comma-separated")
    p.add_argument("--total", type=int, default=30_000_000, help="cells a run")
    args = p.parse_args(argv)
    print("| cells an anti-diagonal | int32 ns a cell | int16 ns a cell | int32 / int16 |")
    print("|---|---|---|---|")
    for n in (int(x) for x in args.cells.split(",")):
        a, b = ns_a_cell(np.int32, n, args.total), ns_a_cell(np.int16, n, args.total)
        print(f"| {n} | {a:.3f} | {b:.3f} | {a / b:.2f} |")


if __name__ == "__main__":
    main()
