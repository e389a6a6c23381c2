"""WFA as the gapped stage's traceback (issue 5, part 3): same scores as the DP, valid paths, no wall crossed."""

import pathlib

import numpy as np
import pytest

from gpukernels import AlignOptions, align, read_fasta
from gpukernels import engine, gapped
from gpukernels.cli import main
from gpukernels.cpu import gapped as G
from gpukernels.cpu import wfa_traceback as W
from gpukernels.scoring import lastz_scoring, uniform_scores, uniform_scoring

DATA = pathlib.Path(__file__).parent / "data"
T = str(DATA / "hpylori_g27_40k.fa.gz")
Q = str(DATA / "hpylori_sjm180_40k.fa.gz")
FAR = 1 << 40


def mutate(rng, s, rate):
    """Substitutions, insertions and deletions at ``rate`` (equal odds)."""
    out = []
    for c in s:
        r = rng.random()
        if r < rate / 3:
            continue
        if r < 2 * rate / 3:
            out.append(rng.integers(0, 4))
        out.append((c + rng.integers(1, 4)) % 4 if rate * 2 / 3 <= r < rate else c)
    return np.array(out, dtype=np.uint8)


def right_side(t, q, sc, ydrop, store, walls=None):
    """One right-hand side from the origin (t[0], q[0] first), as extend_anchors runs it."""
    work = np.empty((8, len(q) + 2), dtype=np.int32)
    if walls is None:
        walls = np.zeros((len(t) + 2, 2, 2), dtype=np.int32)
    return G.ydrop_one_side(t[::-1].copy(), len(t), len(t), q, -1, len(q), sc.matrix, sc.gap_open,
                            sc.gap_extend, ydrop, FAR, walls, 0, 0, 1, work, np.empty(16, np.uint8),
                            np.empty(4, np.int64), np.empty(4, np.int64), store)


def test_uniform_scores_detects_the_preset():
    assert uniform_scores(uniform_scoring(100, 100)) == (100, 100)
    assert uniform_scores(uniform_scoring(1, 3)) == (1, 3)
    assert uniform_scores(lastz_scoring()) is None
    pen = gapped.wfa_penalties(uniform_scoring())
    assert pen.tolist()[:5] == [5, 10, 2, 80, 100]   # (400, 800, 160) / 80


@pytest.mark.parametrize("seed", range(6))
def test_score_only_inspector_finds_the_same_cell(seed):
    rng = np.random.default_rng(seed)
    sc = uniform_scoring()
    t = rng.integers(0, 4, 400).astype(np.uint8)
    q = mutate(rng, t, [0.02, 0.1, 0.25][seed % 3])
    walls = np.zeros((len(t) + 2, 2, 2), dtype=np.int32)
    walls[200, 0] = (150, 260)   # a wall across the middle
    full = right_side(t, q, sc, 3000, True, walls)
    insp = right_side(t, q, sc, 3000, False, walls)
    assert full[:4] == insp[:4]
    assert insp[4].size == 0


@pytest.mark.parametrize("seed", range(10))
def test_wfa_path_matches_the_unpruned_dp(seed):
    rng = np.random.default_rng(50 + seed)
    sc = uniform_scoring(*[(100, 100), (1, 3), (2, 5)][seed % 3], gap_open=[400, 5, 0][seed % 3],
                         gap_extend=[30, 2, 3][seed % 3])
    t = rng.integers(0, 4, int(rng.integers(1, 500))).astype(np.uint8)
    q = mutate(rng, t, [0.0, 0.05, 0.2, 0.35][seed % 4])
    if q.size == 0:
        q = np.array([1], np.uint8)
    best, bi, bj, cells, ops, *_ = right_side(t, q, sc, 1 << 26, True)
    walls = np.zeros((len(t) + 2, 2, 2), dtype=np.int32)
    st, wops, _ = W.side_path(t, 0, bj, q, 0, bi, best, 1 << 40, gapped.wfa_penalties(sc), walls, False,
                              True, np.empty(4, np.uint8))
    if bi + bj == 0:
        return
    assert st == W.WFA_OK
    assert (wops != G.OP_I).sum() == bj and (wops != G.OP_D).sum() == bi
    assert G.rescore(wops, t, 0, q, 0, sc.matrix, sc.gap_open, sc.gap_extend) == best


def test_side_path_falls_back():
    sc = uniform_scoring()
    pen = gapped.wfa_penalties(sc)
    t = np.array([0, 1, 2, 3, 0, 1, 2, 3], np.uint8)
    walls = np.zeros((len(t) + 1, 2, 2), dtype=np.int32)
    buf = np.empty(4, np.uint8)
    assert W.side_path(t, 0, 8, t, 0, 8, 800, FAR, pen, walls, False, True, buf)[0] == W.WFA_OK
    tn = t.copy()
    tn[3] = 4   # N
    assert W.side_path(tn, 0, 8, t, 0, 8, 600, FAR, pen, walls, False, True, buf)[0] == W.FALL_N
    # a better path than the DP claims: the DP's optimum was cut off
    assert W.side_path(t, 0, 8, t, 0, 8, 400, FAR, pen, walls, False, True, buf)[0] == W.FALL_SCORE
    # the path through lattice point (t 4, q 4) is on a wall; the anchor's own point is not tested
    walls[4, 0] = (4, 5)
    assert W.side_path(t, 0, 8, t, 0, 8, 800, FAR, pen, walls, False, True, buf)[0] == W.FALL_WALL
    walls[4, 0] = (0, 0)
    walls[0, 0] = (0, 1)
    assert W.side_path(t, 0, 8, t, 0, 8, 800, FAR, pen, walls, False, True, buf)[0] == W.WFA_OK
    assert W.side_path(t, 0, 8, t, 0, 8, 800, FAR, pen, walls, False, False, buf)[0] == W.FALL_WALL
    walls[0, 0] = (0, 0)
    # the self-comparison barrier (t == q) is dead too
    assert W.side_path(t, 0, 8, t, 0, 8, 800, FAR, pen, walls, True, True, buf)[0] == W.FALL_WALL
    # too costly for WFA against the DP's cells: the DP traces back
    assert W.side_path(t, 0, 8, t, 4, 4, 0, 1, pen, walls, False, True, buf)[0] == W.FALL_COST


def lattice_points(t0, q0, ops):
    """Every lattice point (target, query) of a forward path."""
    pts = [(t0, q0)]
    lt, lq = t0, q0
    for op in ops:
        lt += op != G.OP_I
        lq += op != G.OP_D
        pts.append((lt, lq))
    return pts


def check_raw(raw, t, q, sc, self_barrier):
    """Each kept alignment re-scores to its score, spells both sequences and avoids earlier ones."""
    seen = set()
    for k in range(len(raw["t0"])):
        ops = raw["ops"][raw["op_off"][k]:raw["op_off"][k + 1]]
        t0, t1, q0, q1 = (int(raw[c][k]) for c in ("t0", "t1", "q0", "q1"))
        assert (ops != G.OP_I).sum() == t1 - t0 and (ops != G.OP_D).sum() == q1 - q0
        assert G.rescore(ops, t, t0, q, q0, sc.matrix, sc.gap_open, sc.gap_extend) == raw["score"][k]
        sub = ops <= G.OP_X
        ti = t0 + np.cumsum(ops != G.OP_I) - 1
        qi = q0 + np.cumsum(ops != G.OP_D) - 1
        assert ((ops[sub] == G.OP_EQ) == ((t[ti[sub]] == q[qi[sub]]) & (t[ti[sub]] < 4))).all()
        pts = set(lattice_points(t0, q0, ops))
        assert not pts & seen, "an alignment touches an earlier one"
        if self_barrier:
            assert not any(a == b for a, b in pts)
        seen |= pts


def capture(monkeypatch):
    """Record the arguments and results of every gapped.extend_anchors call of the engine."""
    calls = []
    inner = gapped.extend_anchors

    def spy(*a, **k):
        out = inner(*a, **k)
        calls.append((a, k, out))
        return out
    monkeypatch.setattr(engine.gapped, "extend_anchors", spy)
    return calls


def random_pair(tmp_path, seed):
    """A genome with repeats and N runs, and a mutated copy with a rearrangement."""
    rng = np.random.default_rng(seed)
    unit = rng.integers(0, 4, 3000).astype(np.uint8)
    t = np.concatenate([rng.integers(0, 4, 4000), unit, rng.integers(0, 4, 3000), mutate(rng, unit, 0.04),
                        rng.integers(0, 4, 2000)]).astype(np.uint8)
    t[9000:9010] = 4
    q = mutate(rng, t, 0.03)
    q = np.concatenate([q[7000:], q[:7000]])
    paths = []
    for name, codes in (("t", t), ("q", q)):
        p = tmp_path / f"{name}.fa"
        p.write_text(f">{name}\n" + "".join("ACGTN"[c] for c in codes) + "\n")
        paths.append(str(p))
    return read_fasta(paths[0]), read_fasta(paths[1])


def run_both(monkeypatch, t, q, self_mode=False):
    """Align with each traceback (uniform preset); return {traceback: (alignments, captured calls)}."""
    calls = capture(monkeypatch)
    out = {}
    for tb in ("dp", "wfa"):
        calls.clear()
        alns = align(t, q, AlignOptions(scoring=uniform_scoring(), traceback=tb, self_mode=self_mode),
                     backend="cpu")
        out[tb] = (alns, list(calls))
    return out


def assert_same_and_valid(out, sc):
    (a, _), (b, calls) = out["dp"], out["wfa"]
    assert len(a) > 0
    assert sorted(a.score.tolist()) == sorted(b.score.tolist())
    assert sum(sum(raw["wfa_stats"].values()) for _, _, raw in calls) > 0
    for args, kw, raw in calls:
        check_raw(raw, args[0], args[1], sc, kw.get("self_barrier", False))
    return calls


@pytest.mark.parametrize("seed", range(3))
def test_random_genomes_same_scores_valid_paths(monkeypatch, tmp_path, seed):
    t, q = random_pair(tmp_path, seed)
    calls = assert_same_and_valid(run_both(monkeypatch, t, q), uniform_scoring())
    assert sum(raw["wfa_stats"]["wfa"] for _, _, raw in calls) > 0


def test_self_comparison_respects_the_barrier(monkeypatch, tmp_path):
    t, _ = random_pair(tmp_path, 7)
    assert_same_and_valid(run_both(monkeypatch, t, t, self_mode=True), uniform_scoring())


def test_real_pair_same_scores_valid_paths(monkeypatch):
    t, q = read_fasta(T), read_fasta(Q)
    calls = assert_same_and_valid(run_both(monkeypatch, t, q), uniform_scoring())
    assert sum(raw["wfa_stats"]["wfa"] for _, _, raw in calls) > 0


def test_cli_uniform_preset_and_traceback(tmp_path, capsys):
    outs = {}
    for tb in ("dp", "wfa"):
        out = tmp_path / f"{tb}.paf"
        assert main(["align", T, Q, "--backend", "cpu", "--preset", "uniform", "--traceback", tb,
                     "-o", str(out)]) == 0
        outs[tb] = sorted(int(line.split("\tAS:i:")[1].split("\t")[0]) for line in out.read_text().splitlines())
    assert outs["dp"] == outs["wfa"] and outs["dp"]
    assert main(["align", T, Q, "--backend", "cpu", "--match", "2", "--mismatch", "3", "--gap-open", "5",
                 "--gap-extend", "2", "--hspthresh", "60", "--xdrop", "20", "--ydrop", "40", "--traceback", "wfa",
                 "-o", str(tmp_path / "small.paf")]) == 0
    assert (tmp_path / "small.paf").read_text()
    capsys.readouterr()
    assert main(["align", T, Q, "--backend", "cpu", "--traceback", "wfa", "-o", str(tmp_path / "x.paf")]) == 2
    assert "uniform" in capsys.readouterr().err
