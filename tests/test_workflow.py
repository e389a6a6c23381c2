"""The Snakemake workflow: DAG sizes, config errors, lint, and a small end-to-end run."""

import gzip
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "config" / "data"

pytest.importorskip("snakemake")


def _slice(src, dest, pieces):
    """Write the first bases of some records of a bundled genome as a small FASTA.gz."""
    from gpukernels.genome import read_fasta
    g = read_fasta(src)
    with gzip.open(dest, "wt") as fh:
        for rec, length in pieces:
            s = g.starts[rec]
            seq = "ACGTN"
            codes = g.codes[s:s + length]
            text = "".join(seq[c] for c in codes.tolist())
            fh.write(f">{g.names[rec]}\n")
            for i in range(0, len(text), 80):
                fh.write(text[i:i + 80] + "\n")


@pytest.fixture(scope="module")
def tiny_genomes(tmp_path_factory):
    """Three small slices of the bundled genomes; the last has two records."""
    d = tmp_path_factory.mktemp("genomes")
    spec = {"Bpen": ("Bpennsylvanicus_BPEN.fna.gz", [(0, 40_000)]),
            "Bchr": ("Bchromaiodes_640.fna.gz", [(0, 40_000)]),
            "Vcho": ("Vcholerae_O395.fa.gz", [(0, 20_000), (1, 15_000)])}
    out = {}
    for name, (src, pieces) in spec.items():
        out[name] = d / f"{name}.fa.gz"
        _slice(DATA / src, out[name], pieces)
    return out


def _workdir(tmp_path, genomes, **overrides):
    """A working directory with config/config.yaml and config/genomes.tsv."""
    (tmp_path / "config").mkdir(parents=True, exist_ok=True)
    with open(tmp_path / "config" / "genomes.tsv", "w") as fh:
        fh.write("name\tfasta\n")
        for name, path in genomes.items():
            fh.write(f"{name}\t{path}\n")
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    config["backend"] = "cpu"
    for key, value in overrides.items():
        config[key] = value
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    return tmp_path


def _snakemake(workdir, *args, timeout=600):
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
           "-d", str(workdir), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _job_counts(workdir, *args):
    res = _snakemake(workdir, "-n", "--forceall", *args)
    assert res.returncode == 0, res.stdout + res.stderr
    text = res.stdout + res.stderr
    table = text[text.index("Job stats:"):]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


def test_default_config_dag():
    counts = _job_counts(ROOT)
    # 3 genomes, 3 unordered pairs; V. cholerae: chr1 in 2 windows + chr2 = 3 chunks
    assert counts["prepare"] == 3 and counts["plan"] == 3 and counts["merge"] == 3
    assert counts["align"] == 1 + 2 * 3


def test_dag_counts_splits(tmp_path, tiny_genomes):
    wd = _workdir(tmp_path, tiny_genomes, split={"size": 15_000, "overlap": 5_000},
                  unit_size=100_000)
    counts = _job_counts(wd)
    # Bpen and Bchr (40 kb) in 4 windows each; Vcho: chr1 (20 kb) 2 windows, chr2 (15 kb) whole
    assert counts["align"] == 4 * 4 + 4 * 3 + 4 * 3
    assert counts["merge"] == counts["dotplot"] == 3


def test_dag_counts_batching_and_self_pairs(tmp_path, tiny_genomes):
    wd = _workdir(tmp_path, tiny_genomes, split={"size": 50_000, "overlap": 5_000},
                  unit_size=100_000, pairs="ordered")
    wd_self = _workdir(tmp_path / "s", tiny_genomes, split={"size": 50_000, "overlap": 5_000},
                       unit_size=100_000, pairs="ordered", self=True)
    # no splits, the two Vcho records batched into one unit: one align job per pair
    assert _job_counts(wd)["align"] == 6
    counts = _job_counts(wd_self)
    assert counts["align"] == 9 and counts["plan"] == 9
    wd_small = _workdir(tmp_path / "b", tiny_genomes, split={"size": 50_000, "overlap": 5_000},
                        unit_size=18_000)
    assert _job_counts(wd_small)["align"] == 1 + 2 + 2  # Vcho records in 2 units


def test_dag_counts_units_per_job(tmp_path, tiny_genomes):
    split = {"size": 15_000, "overlap": 5_000}
    # 40 units (as in test_dag_counts_splits) in batches of at most 3, across pairs
    counts = _job_counts(_workdir(tmp_path, tiny_genomes, split=split, unit_size=100_000, units_per_job=3))
    assert counts["align"] == 14 and counts["merge"] == 3
    # the defaults: a job a unit on the CPU backend, 8 units a job on the GPU's (no GPU needed to plan)
    counts = _job_counts(_workdir(tmp_path / "d", tiny_genomes, split=split, unit_size=100_000,
                                  units_per_job=None))
    assert counts["align"] == 40
    counts = _job_counts(_workdir(tmp_path / "g", tiny_genomes, split=split, unit_size=100_000,
                                  units_per_job=None, backend="gpu"))
    assert counts["align"] == 5
    # on a GPU shared by 3 jobs, the 6 units of a small screen go in 3 batches, not one
    counts = _job_counts(_workdir(tmp_path / "s", tiny_genomes, units_per_job=None, backend="gpu",
                                  jobs_per_gpu=3))
    assert counts["align"] == 3


def _align_threads(workdir, *args):
    """The threads of each alignment job in a dry run (Snakemake prints none for one thread)."""
    res = _snakemake(workdir, "-n", "--forceall", *args)
    assert res.returncode == 0, res.stdout + res.stderr
    blocks = re.findall(r"^rule align:\n((?:    .*\n)+)", res.stdout + res.stderr, re.M)
    assert blocks
    return [int(m.group(1)) if (m := re.search(r"threads: (\d+)", b)) else 1 for b in blocks]


def test_align_threads(tmp_path, tiny_genomes):
    # threads null: on the GPU backend the cores over the GPU slots, so the engine's walk gets its
    # stripes; 1 a job on the CPU's; a number given is taken as it is (within --cores)
    gpu = _workdir(tmp_path / "g", tiny_genomes, backend="gpu", threads=None)
    assert set(_align_threads(gpu, "-c", "12", "--resources", "gpu=3")) == {4}
    assert set(_align_threads(gpu, "-c", "6")) == {6}
    cpu = _workdir(tmp_path / "c", tiny_genomes, threads=None)
    assert set(_align_threads(cpu, "-c", "12")) == {1}
    given = _workdir(tmp_path / "t", tiny_genomes, backend="gpu", threads=2)
    assert set(_align_threads(given, "-c", "12", "--resources", "gpu=1")) == {2}


@pytest.mark.parametrize("overrides, message", [
    ({"pairs": "all"}, "pairs"),
    ({"backend": "tpu"}, "backend"),
    ({"units_per_job": 0}, "units_per_job"),
    ({"colour": "blue"}, "colour"),
    ({"split": {"size": 10_000, "overlap": 10_000}}, "overlap"),
    ({"threads": 0}, "threads"),
    ({"jobs_per_gpu": 0}, "jobs_per_gpu"),
])
def test_schema_errors(tmp_path, tiny_genomes, overrides, message):
    wd = _workdir(tmp_path, tiny_genomes, **overrides)
    res = _snakemake(wd, "-n")
    assert res.returncode != 0
    text = res.stdout + res.stderr
    assert message in text
    assert "Traceback" not in text


@pytest.mark.parametrize("sheet, message", [
    ("name\tpath\nA\tx.fa\n", "fasta"),
    ("name\tfasta\nA B\tx.fa\n", "does not match"),
    ("name\tfasta\nA\t{a}\nA\t{b}\n", "repeated"),
    ("name\tfasta\nA\tmissing.fa\n", "does not exist"),
])
def test_sample_sheet_errors(tmp_path, tiny_genomes, sheet, message):
    wd = _workdir(tmp_path, tiny_genomes)
    (wd / "config" / "genomes.tsv").write_text(
        sheet.format(a=tiny_genomes["Bpen"], b=tiny_genomes["Bchr"]))
    res = _snakemake(wd, "-n")
    assert res.returncode != 0
    assert message in res.stdout + res.stderr


def test_usable_as_module(tmp_path, tiny_genomes):
    (tmp_path / "Snakefile").write_text(f"""
configfile: "config.yaml"


module ava:
    snakefile:
        "{ROOT / 'Snakefile'}"
    config:
        config["ava"]


use rule * from ava as ava_*


rule all:
    default_target: True
    input:
        rules.ava_all.input,
""")
    (tmp_path / "genomes.tsv").write_text(
        f"name\tfasta\nA\t{tiny_genomes['Bpen']}\nB\t{tiny_genomes['Vcho']}\n")
    (tmp_path / "config.yaml").write_text("ava:\n  genomes: genomes.tsv\n  outdir: out/ava\n")
    res = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-d", str(tmp_path), "-s",
                          str(tmp_path / "Snakefile")], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert re.search(r"^ava_align\s+1$", res.stdout, re.M), res.stdout


def test_lint_is_clean():
    res = _snakemake(ROOT, "--lint")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Lints for" not in res.stdout + res.stderr


@pytest.fixture(scope="module")
def e2e(tmp_path_factory, tiny_genomes):
    """One run on the tiny genomes: splits, a multi-record genome, self pairs."""
    wd = _workdir(tmp_path_factory.mktemp("e2e"), tiny_genomes,
                  split={"size": 25_000, "overlap": 8_000}, unit_size=100_000, units_per_job=3)
    res = _snakemake(wd, "-c2")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-5000:]
    return wd


@pytest.mark.slow
def test_end_to_end_outputs(e2e):
    from gpukernels.matrix import read_matrix
    out = e2e / "results"
    names = ["Bpen", "Bchr", "Vcho"]
    for m in ("identity", "query_cov", "aln_lengths", "sim_errors", "hadamard"):
        rows, cols, mat = read_matrix(out / "matrices" / f"ava_{m}.tsv")
        assert rows == cols == names and mat.shape == (3, 3)
    _, _, ident = read_matrix(out / "matrices" / "ava_identity.tsv")
    assert ident[0, 1] > 0.9 and ident[1, 0] > 0.9
    long = (out / "matrices" / "ava_long.tsv").read_text().splitlines()
    assert long[0].startswith("query\tsubject\tidentity\tquery_coverage\tsubject_coverage")
    assert len(long) == 1 + 6
    phylip = (out / "matrices" / "ava_distance.phylip").read_text().splitlines()
    assert phylip[0] == "3" and len(phylip) == 4
    rows, cols, _ = read_matrix(out / "records" / "Bpen" / "Vcho" / "ava_query_cov.tsv")
    assert len(rows) == 2 and len(cols) == 1
    for png in ["plots/ava_identity_heatmap.png", "plots/ava_query_cov_heatmap.png",
                "plots/dotplots/Bpen/Bchr.png", "plots/dotplots/Bchr/Vcho.png"]:
        assert (out / png).stat().st_size > 5000
    # 8 units in batches of 2, 3 and 3 (the last two hold units of two pairs each), one process each
    logs = sorted((out / "logs" / "align").glob("b*.log"))
    assert [log.name for log in logs] == ["b00000.log", "b00001.log", "b00002.log"]
    assert [log.read_text().count(" done in ") for log in logs] == [2, 3, 3]
    assert "unit Bpen/Vcho/t0000-q0000:" in logs[1].read_text()
    for rule in ("prepare", "plan", "align", "merge", "pair_stats", "dotplot"):
        assert any((out / "logs" / rule).rglob("*.log")), rule
        assert any((out / "benchmarks" / rule).rglob("*.tsv")), rule


@pytest.mark.slow
def test_report_renders_in_chromium(e2e):
    res = _snakemake(e2e, "--report", "report.html")
    assert res.returncode == 0, res.stderr[-3000:]
    html = e2e / "report.html"
    assert html.stat().st_size > 100_000
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("headless chromium is not installed")
    png = e2e / "report.png"
    subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={png}",
                    "--window-size=1400,1000", "--virtual-time-budget=5000", html.as_uri()],
                   capture_output=True, timeout=120, env=dict(os.environ, HOME=str(e2e)))
    assert png.stat().st_size > 20_000
