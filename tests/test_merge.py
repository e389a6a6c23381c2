"""Merging unit PAFs: duplicates, clipped pieces, stitching, split invariance."""

import importlib.util
import pathlib

import numpy as np
import pytest

from gpukernels import merge, workunits
from gpukernels.genome import read_fasta

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "config" / "data"


def _line(q, qs, qe, strand, t, ts, te, cigar, matches=None, score=100, ql=1000, tl=1000):
    block = sum(int(n) for n, _ in merge._CIGAR.findall(cigar))
    matches = block if matches is None else matches
    return (f"{q}\t{ql}\t{qs}\t{qe}\t{strand}\t{t}\t{tl}\t{ts}\t{te}\t{matches}\t{block}\t255\t"
            f"NM:i:0\tAS:i:{score}\tcg:Z:{cigar}")


def test_parse_and_canonical_write(tmp_path):
    lines = [_line("q", 10, 20, "+", "t", 30, 40, "10M"), _line("q", 0, 5, "-", "t", 0, 5, "5M")]
    paf = merge.parse_paf_lines(lines)
    assert list(paf.strand) == [1, -1] and paf.score[0] == 100
    merge.write_paf(paf, tmp_path / "x.paf.gz")
    back = merge.read_paf(tmp_path / "x.paf.gz")
    assert list(back.lines) == lines[::-1]


def test_exact_duplicates_and_trivial_self():
    a = _line("c", 0, 100, "+", "c", 0, 100, "100M")
    b = _line("c", 0, 100, "+", "c", 500, 600, "100M")
    paf = merge.parse_paf_lines([a, b, b])
    out, stats = merge.merge_units([(paf, {}, {})], self_pair=True)
    assert stats["exact_duplicates"] == 1 and stats["trivial_self"] == 1
    assert list(out.lines) == [b]


def test_clipped_piece_inside_whole_alignment_is_dropped():
    whole = _line("q", 100, 400, "+", "t", 200, 500, "300M", score=300)
    clipped = _line("q", 100, 250, "+", "t", 200, 350, "150M", score=150)  # unit ends at t=350
    offdiag = _line("q", 100, 250, "+", "t", 300, 450, "150M", score=150)  # a repeat, kept
    zones = {"t": [(300, 350)]}
    units = [(merge.parse_paf_lines([whole]), {}, {}),
             (merge.parse_paf_lines([clipped, offdiag]), {"t": [350]}, {})]
    out, stats = merge.merge_units(units, target_zones=zones)
    assert stats["contained_duplicates"] == 1
    assert sorted(out.lines) == sorted([whole, offdiag])


def test_stitching_pieces_of_a_long_alignment(tmp_path):
    rng = np.random.default_rng(1)
    seq = "".join(rng.choice(list("ACGT"), 1000))
    fa = tmp_path / "g.fa"
    fa.write_text(f">r\n{seq}\n")
    g = read_fasta(fa)
    seqs = merge.Sequences(g, g)
    # the full alignment would be 0-1000 on target, 0-1000 on query, with a 1-base deletion at 700
    left = _line("r", 0, 600, "+", "r", 0, 600, "600M", ql=1000, tl=1000)
    right = _line("r", 400, 999, "+", "r", 400, 1000, "300M1D299M", ql=1000, tl=1000)
    units = [(merge.parse_paf_lines([left]), {"r": [600]}, {"r": [600]}),
             (merge.parse_paf_lines([right]), {"r": [400]}, {"r": [400]})]
    zones = {"r": [(400, 600)]}
    out, stats = merge.merge_units(units, target_zones=zones, query_zones=zones, sequences=seqs)
    assert stats["stitched"] == 1 and len(out) == 1
    f = out.lines[0].split("\t")
    assert (f[2], f[3], f[7], f[8]) == ("0", "999", "0", "1000")
    assert f[-1] == "cg:Z:700M1D299M"
    assert int(f[10]) == 1000
    assert int(f[9]) < 1000  # bases after the deletion are shifted: mismatches recounted


def test_stitching_on_the_minus_strand(tmp_path):
    rng = np.random.default_rng(2)
    seq = "".join(rng.choice(list("ACGT"), 1000))
    rc = seq[::-1].translate(str.maketrans("ACGT", "TGCA"))
    (tmp_path / "t.fa").write_text(f">t\n{seq}\n")
    (tmp_path / "q.fa").write_text(f">q\n{rc}\n")
    seqs = merge.Sequences(read_fasta(tmp_path / "t.fa"), read_fasta(tmp_path / "q.fa"))
    left = _line("q", 400, 1000, "-", "t", 0, 600, "600M")
    right = _line("q", 0, 600, "-", "t", 400, 1000, "600M")
    units = [(merge.parse_paf_lines([left]), {"t": [600]}, {}),
             (merge.parse_paf_lines([right]), {"t": [400]}, {})]
    out, stats = merge.merge_units(units, target_zones={"t": [(400, 600)]}, sequences=seqs)
    assert stats["stitched"] == 1
    f = out.lines[0].split("\t")
    assert (f[2], f[3], f[7], f[8], f[9], f[10]) == ("0", "1000", "0", "1000", "1000", "1000")
    assert f[-1] == "cg:Z:1000M" and "NM:i:0" in f


def _load_align_batch():
    spec = importlib.util.spec_from_file_location(
        "align_batch", ROOT / "workflow" / "scripts" / "align_batch.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run_plan(tmp_path, tag, t, q, split_size, overlap):
    run_engine = _load_align_batch().run_engine
    tc = workunits.plan_genome("t", t.names, t.sizes, split_size, overlap, split_size)
    qc = workunits.plan_genome("q", q.names, q.sizes, split_size, overlap, split_size)
    plan = workunits.read_plan(workunits.write_plan(tmp_path / f"{tag}.json", "t", "q", tc, qc, {})
                               and tmp_path / f"{tag}.json")
    paths = {}
    for u in plan["units"]:
        tp = t.piece(plan["target_chunks"][u["target"]].intervals)
        qp = q.piece(plan["query_chunks"][u["query"]].intervals)
        paths[u["unit"]] = tmp_path / f"{tag}-{u['unit']}.paf.gz"
        run_engine(tp, qp, {"strand": "both"}, str(paths[u["unit"]]), "cpu", None, None, 1, False)
    out = tmp_path / f"{tag}.paf.gz"
    stats = merge.merge_pair(plan, paths, out, (t.names, list(t.sizes)), (q.names, list(q.sizes)),
                             sequences=merge.Sequences(t, q))
    return merge.read_paf(out), stats, len(plan["units"])


@pytest.mark.slow
def test_split_invariance_on_real_genomes(tmp_path):
    """Small splits give the same aligned bases as no split, with no duplicates."""
    t_full = read_fasta(DATA / "Bpennsylvanicus_BPEN.fna.gz")
    q_full = read_fasta(DATA / "Bchromaiodes_640.fna.gz")
    t = t_full.piece([(0, 0, 120_000)], name="t")
    q = q_full.piece([(0, 0, 120_000)], name="q")
    whole, _, n_whole = _run_plan(tmp_path, "whole", t, q, 10_000_000, 100_000)
    split, stats, n_split = _run_plan(tmp_path, "split", t, q, 50_000, 12_000)
    assert n_whole == 1 and n_split > 4
    cmp = merge.compare_alignments(whole, split)
    assert cmp["duplicates_b"] == 0, (cmp, stats)
    assert cmp["fraction_same"] >= 0.999, (cmp, stats)
