"""Coverage, identity, the one-to-one filter and the matrix files."""

import math

import numpy as np

from gpukernels import matrix
from gpukernels.genome import read_fasta
from gpukernels.merge import parse_paf_lines


def _line(q, qs, qe, t, ts, te, matches, cigar, strand="+", ql=100, tl=100):
    block = sum(int(x) for x in __import__("re").findall(r"(\d+)[MID]", cigar))
    return (f"{q}\t{ql}\t{qs}\t{qe}\t{strand}\t{t}\t{tl}\t{ts}\t{te}\t{matches}\t{block}\t255\t"
            f"cg:Z:{cigar}")


def _genome(tmp_path, name, records):
    p = tmp_path / f"{name}.fa"
    p.write_text("".join(f">{n}\n{s}\n" for n, s in records))
    return read_fasta(p, name=name)


def test_one_to_one_keeps_best_and_drops_shadowed():
    lines = [_line("q", 0, 50, "t", 0, 50, 48, "50M"),      # best
             _line("q", 10, 40, "t", 60, 90, 29, "30M"),    # q span fully claimed: dropped
             _line("q", 60, 90, "t", 20, 50, 29, "30M"),    # t span fully claimed: dropped
             _line("q", 45, 75, "t", 55, 85, 20, "30M")]    # 5 of 30 claimed: kept
    keep = matrix.one_to_one(parse_paf_lines(lines))
    assert list(keep) == [True, False, False, True]


def test_coverage_counts_union_and_skips_n():
    mask = np.ones(100, dtype=bool)
    mask[10:20] = False  # an N run
    cov = matrix.covered_bases(["a", "a", "a"], [0, 5, 50], [30, 25, 60], {"a": mask})
    assert cov == {"a": 30 - 10 + 10}


def test_pair_tables_both_directions(tmp_path):
    t = _genome(tmp_path, "T", [("t1", "A" * 100), ("t2", "C" * 50)])
    q = _genome(tmp_path, "Q", [("q1", "A" * 40 + "N" * 20 + "G" * 40)])
    lines = [_line("q1", 0, 40, "t1", 0, 40, 38, "40M", ql=100, tl=100),
             _line("q1", 60, 100, "t2", 0, 42, 36, "20M2D20M", ql=100, tl=50)]
    paf = parse_paf_lines(lines)
    rows, recs = matrix.pair_tables(paf, "T", "Q", t, q)
    fwd, rev = rows
    assert (fwd["query"], fwd["subject"], rev["query"], rev["subject"]) == ("Q", "T", "T", "Q")
    assert math.isclose(fwd["identity"], (38 + 36) / (40 + 42))
    assert fwd["identity"] == rev["identity"]
    assert math.isclose(fwd["query_coverage"], 80 / 80)       # the N run is not counted
    assert math.isclose(rev["query_coverage"], (40 + 42) / 150)
    assert fwd["gap_columns"] == 2 and fwd["gap_opens"] == 1
    assert fwd["mismatches"] == (40 - 38) + (40 - 36)
    assert len(recs) == 2
    mats = matrix.record_matrices(recs, q.names, t.names)
    assert mats["identity"].shape == (1, 2)
    assert math.isclose(mats["subject_cov"][0, 1], 42 / 50)


def test_square_matrices_are_not_symmetrised(tmp_path):
    rows = [
        {"query": "B", "subject": "A", "identity": 0.9, "query_coverage": 0.8,
         "query_aligned_length": 80, "mismatches": 5, "gap_columns": 1, "run": "A:B"},
        {"query": "A", "subject": "B", "identity": 0.9, "query_coverage": 0.4,
         "query_aligned_length": 81, "mismatches": 5, "gap_columns": 1, "run": "A:B"},
        {"query": "A", "subject": "B", "identity": 0.95, "query_coverage": 0.5,
         "query_aligned_length": 90, "mismatches": 3, "gap_columns": 1, "run": "B:A"},
    ]
    mats = matrix.square_matrices(rows, ["A", "B"], {"A": 200, "B": 100})
    # A as query comes from the run where A was the query (B:A), not from the swap
    assert mats["identity"][0, 1] == 0.95 and mats["identity"][1, 0] == 0.9
    assert mats["query_cov"][0, 1] == 0.5 and mats["query_cov"][1, 0] == 0.8
    assert mats["aln_lengths"][0, 0] == 200 and mats["sim_errors"][0, 1] == 4
    assert math.isclose(mats["hadamard"][1, 0], 0.72)
    path = tmp_path / "x_identity.tsv"
    matrix.write_matrix(path, ["A", "B"], ["A", "B"], mats["identity"])
    names, cols, back = matrix.read_matrix(path)
    assert names == cols == ["A", "B"] and np.allclose(back, mats["identity"])
    d = matrix.distance_matrix(mats["identity"])
    assert np.allclose(d, d.T) and math.isclose(d[0, 1], 1 - 0.925)
    matrix.write_phylip(tmp_path / "d.phylip", ["A", "B"], d)
    assert (tmp_path / "d.phylip").read_text().splitlines()[0] == "2"


def test_cluster_order_groups_close_genomes():
    d = np.array([[0, 0.9, 0.1, 0.8],
                  [0.9, 0, 0.85, 0.2],
                  [0.1, 0.85, 0, 0.9],
                  [0.8, 0.2, 0.9, 0]])
    order = matrix.cluster_order(d)
    pos = {g: i for i, g in enumerate(order)}
    assert abs(pos[0] - pos[2]) == 1 and abs(pos[1] - pos[3]) == 1


def test_long_table_round_trip(tmp_path):
    row = {c: 1 for c in matrix.LONG_COLUMNS}
    row.update(query="a", subject="b", run="b:a", identity=float("nan"))
    matrix.write_long_table([row], tmp_path / "l.tsv")
    back = matrix.read_long_table(tmp_path / "l.tsv")[0]
    assert back["query"] == "a" and math.isnan(back["identity"])


def test_plots_write_pngs(tmp_path):
    from gpukernels import plots
    m = np.array([[1, 0.9], [0.91, 1]])
    plots.heatmap(m, ["A", "B"], tmp_path / "h.png", "t", "identity")
    paf = parse_paf_lines([_line("q1", 0, 40, "t1", 0, 40, 38, "40M"),
                           _line("q1", 50, 90, "t1", 50, 90, 30, "40M", strand="-")])
    plots.dotplot(paf, ["t1", "t2"], [100, 50], ["q1"], [100], tmp_path / "d.png", "t")
    assert (tmp_path / "h.png").stat().st_size > 5000
    assert (tmp_path / "d.png").stat().st_size > 5000
