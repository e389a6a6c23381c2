#!/usr/bin/env python3
"""The inspections the GPU's waves throw away, replayed on the CPU twin's result, and rules that would predict them.

Usage::

    python3 bench/covered_anchors.py TARGET QUERY [--rule D:L ...] [--waves FIRST:WIDTH ...]

Aligns the pair with the CPU backend (no GPU needed), keeping each strand's
HSPs in the walk's order and the gapped stage's alignments. Then replays the
GPU's wave formation (``gpu/gapped``: :data:`FIRST_WAVE` anchors, doubling up
to :data:`WAVE`, two waves in flight, so a wave is formed when the walk of
the wave two before it ends and leaves out the anchors on the paths kept by
then) and counts the anchors a wave inspects that the walk then skips, by
the wave of the anchor whose alignment passes through theirs
(``bench/wasted_inspections.py`` counts the same on the device). For each
rule ``D:L``, an anchor is predicted skipped when an earlier anchor of its
own wave or of the wave before has its HSP on a diagonal at most ``D`` from
the anchor's and within ``L`` target letters of it: the rule's catch and
its mispredictions (anchors it would leave out that the walk extends).
``--waves FIRST:WIDTH`` replays other wave sizes too (``0:0``: all of a
strand's anchors in one wave), with the rules counted on the first only:
what fewer, larger waves would throw away.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

#: the GPU's waves (gpu/gapped.FIRST_WAVE, WAVE, WAVES_IN_FLIGHT)
FIRST_WAVE, WAVE, IN_FLIGHT = 512, 4096, 2


def substitution_cells(t0, q0, op_off, ops):
    """Every substitution cell of the alignments' paths (their runs, ``cpu/gapped.runs_of``): sorted keys
    (diagonal ``t - q`` and target position) and the alignment of each."""
    from gpukernels.cpu.gapped import runs_of
    keys, owners = [], []
    for k in range(len(t0)):
        rt, rq, rl, _ = runs_of(ops[op_off[k]:op_off[k + 1]], t0[k], q0[k])
        t = np.repeat(rt, rl) + np.arange(rl.sum()) - np.repeat(np.cumsum(rl) - rl, rl)
        keys.append((np.repeat(rt - rq, rl) << 32) + t)
        owners.append(np.full(len(t), k))
    if not keys:                        # a strand without alignments
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    keys, owners = np.concatenate(keys), np.concatenate(owners)
    order = np.argsort(keys, kind="stable")
    return keys[order], owners[order]


def covering_anchors(anchor_q, anchor_t, anchor_cells, t0, q0, op_off, ops):
    """For each anchor, the first (in walk order) anchor whose kept alignment passes through its cell (-1: none).

    An alignment's own anchor lies on its path, and the alignments come in
    their anchors' order: each extended anchor in turn owns the next
    alignment if it lies on it (an extension may keep none).
    """
    keys, owners = substitution_cells(t0, q0, op_off, ops)
    want = ((anchor_t - anchor_q) << 32) + anchor_t
    lo, hi = np.searchsorted(keys, want, "left"), np.searchsorted(keys, want, "right")
    anchor_of = np.full(len(t0), -1, dtype=np.int64)
    k = 0
    for e in np.flatnonzero(anchor_cells >= 0):
        if k < len(t0) and k in owners[lo[e]:hi[e]]:
            anchor_of[k] = e
            k += 1
    if k != len(t0):
        raise ValueError(f"{len(t0) - k} alignments without an anchor on their path")
    out = np.full(len(anchor_q), -1, dtype=np.int64)
    for b in np.flatnonzero(hi > lo):
        out[b] = anchor_of[owners[lo[b]:hi[b]]].min()
    return out


def replay_waves(covering, first=FIRST_WAVE, width=WAVE, in_flight=IN_FLIGHT):
    """Each anchor's wave (-1: left out, on a path kept before its wave was formed)."""
    n = len(covering)
    wave_of = np.full(n, -1, dtype=np.int64)
    pos, k = 0, 0
    while pos < n:
        size, taken = min(width, first << k), 0
        while pos < n and taken < size:
            c = covering[pos]
            if not (0 <= c < pos and 0 <= wave_of[c] <= k - in_flight):
                wave_of[pos] = k
                taken += 1
            pos += 1
        k += 1
    return wave_of


def wave_counts(wave_of, covering, anchor_cells):
    """Anchors inspected; those skipped after (inspected, not extended); of them, those on the path of an anchor of
    the ``same`` wave, of the ``previous`` one, of an ``older`` one."""
    wasted = (wave_of >= 0) & (anchor_cells < 0)
    w = np.where(covering >= 0, wave_of[np.maximum(covering, 0)], -9)
    return dict(waves=int(wave_of.max(initial=-1)) + 1, inspected=int((wave_of >= 0).sum()), wasted=int(wasted.sum()),
                same=int((wasted & (w == wave_of)).sum()), previous=int((wasted & (w == wave_of - 1)).sum()),
                older=int((wasted & (w >= 0) & (w < wave_of - 1)).sum()))


def rule_counts(wave_of, anchor_q, anchor_t, anchor_cells, hsp_q0, hsp_q1, hsp_t0, near_diag, near_t):
    """The rule ``near_diag:near_t`` (module docstring): anchors it predicts skipped, those the walk did skip,
    and those it extended (mispredicted)."""
    hsp_diag = hsp_t0 - hsp_q0
    hsp_t1 = hsp_t0 + (hsp_q1 - hsp_q0)
    pred = np.zeros(len(anchor_q), dtype=bool)
    for b in np.flatnonzero(wave_of >= 0):
        before = np.flatnonzero((wave_of[:b] == wave_of[b]) | (wave_of[:b] == wave_of[b] - 1))
        near = ((np.abs(hsp_diag[before] - (anchor_t[b] - anchor_q[b])) <= near_diag)
                & (hsp_t0[before] - near_t <= anchor_t[b]) & (anchor_t[b] < hsp_t1[before] + near_t))
        pred[b] = near.any()
    wasted = (wave_of >= 0) & (anchor_cells < 0)
    return dict(predicted=int(pred.sum()), caught=int((pred & wasted).sum()),
                mispredicted=int((pred & (anchor_cells >= 0)).sum()))


def record_strands(target, query, options=None):
    """Align on the CPU; per strand (``+``, ``-``): its HSPs in walk order (``q0, q1, t0``), anchors and the gapped
    stage's alignments ``(t0, t1, q0, q1, score, op_off, ops, anchor_cells)``."""
    from gpukernels import engine, gapped
    from gpukernels.cpu import gapped as cg
    strands, local = {}, threading.local()
    hsps_of, extend = engine._strand_hsps, cg.extend_anchors

    def hsps_kept(t_seed, q_seed, t_codes, q_codes, *a, **k):
        local.hsps = hsps_of(t_seed, q_seed, t_codes, q_codes, *a, **k)
        local.strand = "+" if q_codes is query.codes else "-"
        return local.hsps

    def extended(t, q, aq, at, *a, **k):
        out = extend(t, q, aq, at, *a, **k)
        h = local.hsps
        order = gapped.anchor_order(h.score, h.anchor_q, h.anchor_t)
        strands[local.strand] = dict(hsp=(h.q0[order], h.q1[order], h.t0[order]), anchor_q=aq, anchor_t=at,
                                     out=[np.asarray(x) for x in out[:8]])
        return out
    engine._strand_hsps, cg.extend_anchors = hsps_kept, extended
    try:
        engine.align(target, query, options or engine.AlignOptions(), backend="cpu", threads=2)
    finally:
        engine._strand_hsps, cg.extend_anchors = hsps_of, extend
    return strands


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("--rule", action="append", default=None, help="D:L (default 0:2000, 8:2000, 32:5000)")
    p.add_argument("--waves", action="append", default=None,
                   help=f"FIRST:WIDTH wave sizes to replay (default {FIRST_WAVE}:{WAVE}, the GPU's; 0:0 one wave)")
    args = p.parse_args(argv)
    from gpukernels.genome import read_fasta
    rules = [tuple(int(x) for x in r.split(":")) for r in (args.rule or ["0:2000", "8:2000", "32:5000"])]
    sizes = [tuple(int(x) for x in w.split(":")) for w in (args.waves or [f"{FIRST_WAVE}:{WAVE}"])]
    strands = record_strands(read_fasta(args.target), read_fasta(args.query))
    print("| strand | first:width | waves | inspected | skipped after | on a path of the same wave | the previous | "
          "older | " + " | ".join(f"rule {d}:{L} caught / mispredicted" for d, L in rules) + " |")
    print("|---" * (8 + len(rules)) + "|")
    for name in ("+", "-"):
        s = strands[name]
        t0, t1, q0, q1, score, op_off, ops, cells = s["out"]
        covering = covering_anchors(s["anchor_q"], s["anchor_t"], cells, t0, q0, op_off, ops)
        n = len(covering)
        for i, (first, width) in enumerate(sizes):
            wave_of = replay_waves(covering, first=first or n, width=width or n)
            c = wave_counts(wave_of, covering, cells)
            got = [rule_counts(wave_of, s["anchor_q"], s["anchor_t"], cells, *s["hsp"], d, L) if i == 0 else None
                   for d, L in rules]
            row = [name, f"{first}:{width}"] + [c[k] for k in ("waves", "inspected", "wasted", "same", "previous",
                                                                "older")]
            row += [f"{g['caught']} / {g['mispredicted']}" if g else "" for g in got]
            print("| " + " | ".join(str(x) for x in row) + " |")


if __name__ == "__main__":
    main()
