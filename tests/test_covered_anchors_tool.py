"""``bench/covered_anchors.py``: the waves replayed on the CPU twin's result, and the rules' counts (CPU only)."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from covered_anchors import (covering_anchors, record_strands, replay_waves, rule_counts,  # noqa: E402
                             substitution_cells, wave_counts)

from conftest import DATA  # noqa: E402


def test_substitution_cells_follow_the_columns():
    from gpukernels.cpu.gapped import OP_D, OP_EQ, OP_I, OP_X
    ops = np.array([OP_EQ, OP_EQ, OP_D, OP_X, OP_I, OP_EQ], dtype=np.uint8)
    keys, owners = substitution_cells(np.array([10]), np.array([20]), np.array([0, 6]), ops)
    cells = sorted(((k >> 32), k & 0xFFFFFFFF) for k in keys)
    assert cells == sorted([(-10, 10), (-10, 11), (-9, 13), (-10, 14)])
    assert owners.tolist() == [0, 0, 0, 0]


def test_replayed_waves_on_a_real_pair():
    """H. pylori's 40 kb pieces: each extended anchor lies on its own alignment or an earlier one's; one wave
    takes every anchor; waves of two anchors leave out some on paths kept two waves before."""
    from gpukernels.genome import read_fasta
    strands = record_strands(read_fasta(DATA / "hpylori_g27_40k.fa.gz"), read_fasta(DATA / "hpylori_sjm180_40k.fa.gz"))
    s = strands["+"]
    t0, t1, q0, q1, score, op_off, ops, cells = s["out"]
    assert len(t0) > 3
    covering = covering_anchors(s["anchor_q"], s["anchor_t"], cells, t0, q0, op_off, ops)
    ext = np.flatnonzero(cells >= 0)
    assert (covering[ext] >= 0).all() and (covering[ext] <= ext).all()
    n = len(covering)
    one = wave_counts(replay_waves(covering, first=n, width=n), covering, cells)
    assert one["waves"] == 1 and one["inspected"] == n and one["same"] == one["wasted"]
    small = replay_waves(covering, first=2, width=2)
    got = wave_counts(small, covering, cells)
    assert got["same"] + got["previous"] + got["older"] <= got["wasted"] and got["older"] == 0
    assert got["inspected"] + (small < 0).sum() == n
    none = rule_counts(small, s["anchor_q"], s["anchor_t"], cells, *s["hsp"], -1, 0)
    assert none == dict(predicted=0, caught=0, mispredicted=0)
    wide = rule_counts(small, s["anchor_q"], s["anchor_t"], cells, *s["hsp"], 1 << 40, 1 << 40)
    assert wide["caught"] + wide["mispredicted"] == wide["predicted"]


def test_the_tool_prints_each_wave_size_and_an_empty_strand(capsys):
    """``--waves``: a row per size and strand, the rules on the first size only; H. pylori's − strand has no
    anchors and still gets its rows."""
    from covered_anchors import main
    main([str(DATA / "hpylori_g27_40k.fa.gz"), str(DATA / "hpylori_sjm180_40k.fa.gz"),
          "--waves", "512:4096", "--waves", "0:0", "--rule", "8:2000"])
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines()[2:]]
    assert [(r[0], r[1]) for r in rows] == [("| +", "512:4096"), ("| +", "0:0"), ("| -", "512:4096"), ("| -", "0:0")]
    assert rows[0][2:8] == rows[1][2:8]             # 58 anchors: one wave either way
    assert "/" in rows[0][8] and rows[1][8].strip(" |") == ""
    assert rows[2][2:4] == ["0", "0"]
