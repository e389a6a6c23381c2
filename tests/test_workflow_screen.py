"""The workflow's pair screen: the table of skipped work units, in the DAG and end to end."""

import gzip

import numpy as np
import pytest

from test_workflow import DATA, _job_counts, _slice, _snakemake, _workdir

pytest.importorskip("snakemake")

SCREEN = {"strand": "both", "unmask": False, "seed": "1110100110010101111", "transition": True,
          "screen_min_identity": 92, "scoring": {"gap_open": 400, "gap_extend": 30, "hspthresh": 3000}}


@pytest.fixture(scope="module")
def screen_genomes(tmp_path_factory):
    """Two related slices (Blochmannia, ~98% identical) and one random genome unrelated to both."""
    d = tmp_path_factory.mktemp("screen_genomes")
    out = {}
    for name, src in (("Bpen", "Bpennsylvanicus_BPEN.fna.gz"), ("Bchr", "Bchromaiodes_640.fna.gz")):
        out[name] = d / f"{name}.fa.gz"
        _slice(DATA / src, out[name], [(0, 30_000)])
    rng = np.random.default_rng(6)
    text = "".join("ACGT"[c] for c in rng.choice(4, size=20_000, p=[0.35, 0.15, 0.15, 0.35]))
    out["Rand"] = d / "Rand.fa.gz"
    with gzip.open(out["Rand"], "wt") as fh:
        fh.write(">random\n" + "\n".join(text[i:i + 80] for i in range(0, len(text), 80)) + "\n")
    return out


def test_screen_table_only_when_screen_is_on(tmp_path, screen_genomes):
    off = _job_counts(_workdir(tmp_path / "off", screen_genomes, plots=False))
    on = _job_counts(_workdir(tmp_path / "on", screen_genomes, plots=False, engine=SCREEN))
    assert "screen_table" not in off
    assert on["screen_table"] == 1 and on["align"] == off["align"] == 3


@pytest.mark.slow
def test_skipped_units_are_recorded_with_reason(tmp_path, screen_genomes):
    wd = _workdir(tmp_path, screen_genomes, plots=False, engine=SCREEN)
    res = _snakemake(wd, "-c2")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-5000:]
    lines = (wd / "results" / "matrices" / "ava_screen_skipped.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    rows = [dict(zip(header, line.split("\t"))) for line in lines[1:]]
    assert header[:3] == ["target", "query", "unit"] and header[-1] == "reason"
    # the random genome is skipped against both Blochmannia; the related pair is not
    assert sorted((r["target"], r["query"]) for r in rows) == [("Bchr", "Rand"), ("Bpen", "Rand")]
    for r in rows:
        assert r["unit"] == "t0000-q0000" and r["min_identity"] == "92" and r["bound"] == "89"
        assert int(r["best_count"]) < 89
        assert r["reason"].startswith("best query window has") and "92% identity" in r["reason"]
        assert r["query_chunk"].startswith("record random whole")
    long = (wd / "results" / "matrices" / "ava_long.tsv").read_text().splitlines()
    cols = long[0].split("\t")
    by_pair = {(d["subject"], d["query"]): d for d in (dict(zip(cols, x.split("\t"))) for x in long[1:])}
    assert by_pair[("Bpen", "Rand")]["alignments"] == "0"
    assert int(by_pair[("Bpen", "Bchr")]["alignments"]) > 0
    # a job a unit on the CPU backend by default: the unit's own log says why it was skipped
    logs = [p.read_text() for p in (wd / "results" / "logs" / "align").glob("b*.log")]
    log, = [text for text in logs if "unit Bpen/Rand/t0000-q0000:" in text]
    assert "pair screen: skip" in log
