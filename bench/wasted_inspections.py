#!/usr/bin/env python3
"""Inspections the walk throws away: anchors a wave inspected that the walk then skipped on a kept path (GPU only).

Usage::

    python3 bench/wasted_inspections.py TARGET QUERY [--threads 16]

Aligns the pair twice on the GPU and, for the second pair, follows each
strand's waves (``gpu/gapped._form_wave``) and the cells of each anchor's
first inspection (``_note_inspection``). An anchor inspected and then not
extended lay on the path of an alignment kept before the walk reached it;
:func:`wasted_table` says whether that alignment's anchor was in the same
wave (the inspections ran at once) or in an earlier one (its alignment was
not yet kept when this wave was formed: the wave ran beside that walk), and
what their inspections cost. Prints one table row per strand;
``bench/covered_anchors.py`` replays the same waves on the CPU.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def wasted_table(anchor_q, anchor_t, waves, first_cells, out):
    """Counts of one strand's inspections that the walk did not use.

    Parameters
    ----------
    anchor_q, anchor_t : ndarray
        The anchors, in walk order.
    waves : list of ndarray
        Each wave's anchors, in the order the waves were formed.
    first_cells : ndarray
        Cells of each anchor's first inspection (both sides; 0 if none: an
        anchor of a wave that a long batch took instead).
    out : tuple of ndarray
        ``extend_anchors``'s result (``t0, t1, q0, q1, score, op_off, ops, anchor_cells``).

    Returns
    -------
    dict
        :func:`covered_anchors.wave_counts` of the anchors inspected (in a
        wave, with cells), with ``inspected_cells`` and ``wasted_cells``.
    """
    from covered_anchors import covering_anchors, wave_counts
    t0, q0, op_off, ops, cells = out[0], out[2], out[5], out[6], out[7]
    wave_of = np.full(len(anchor_q), -1, dtype=np.int64)
    for k, wave in enumerate(waves):
        wave_of[wave] = k
    wave_of[first_cells <= 0] = -1
    counts = wave_counts(wave_of, covering_anchors(anchor_q, anchor_t, cells, t0, q0, op_off, ops), cells)
    inspected = wave_of >= 0
    counts.update(inspected_cells=int(first_cells[inspected].sum()),
                  wasted_cells=int(first_cells[inspected & (cells < 0)].sum()))
    return counts


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("--threads", type=int, default=16)
    args = p.parse_args(argv)
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import gapped
    from gpukernels.gpu.runner import R_CELLS

    # one record per strand's call, by its status array (the waves' inspections note from threads of their own)
    local, records, strands, lock = threading.local(), {}, [], threading.Lock()
    form, note, extend = gapped._form_wave, gapped._note_inspection, gapped.extend_anchors

    def formed(pos, anchor_q, *a):
        end, m = form(pos, anchor_q, *a)
        status, sel = a[-2], a[-1]
        if recording[0]:
            with lock:
                rec = records.setdefault(id(status), dict(waves=[], cells=np.zeros(len(anchor_q), np.int64)))
            local.key = id(status)
            if m:
                rec["waves"].append(sel[:m].copy())
        return end, m

    def noted(idx, r, b, at, res_all, band_all, stamp, status):
        rec = records.get(id(status)) if recording[0] else None
        if rec is not None:
            # the first inspection's (a round inspects an anchor again)
            cells = rec["cells"]
            cells[idx] = np.where(cells[idx] == 0, r[0::2, R_CELLS] + r[1::2, R_CELLS], cells[idx])
        return note(idx, r, b, at, res_all, band_all, stamp, status)

    def extended(*a, **k):
        out = extend(*a, **k)
        if recording[0]:
            rec = records.pop(local.key)
            with lock:
                strands.append(wasted_table(a[2], a[3], rec["waves"], rec["cells"], out))
        return out

    recording = [False]
    gapped._form_wave, gapped._note_inspection, gapped.extend_anchors = formed, noted, extended
    t, q = read_fasta(args.target), read_fasta(args.query)
    align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
    recording[0] = True
    align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
    print("| strand call | inspected anchors | their G cells | skipped on a kept path | their G cells "
          "| on a path of the same wave | of the wave before | of an older one |")
    print("|---|---|---|---|---|---|---|---|")
    for k, row in enumerate(strands):
        print(f"| {k} | {row['inspected']} | {row['inspected_cells'] / 1e9:.2f} | {row['wasted']} "
              f"| {row['wasted_cells'] / 1e9:.2f} | {row['same']} | {row['previous']} | {row['older']} |")


if __name__ == "__main__":
    main()
