"""Work-unit planning: splits, batches, pairs."""

import gzip

import pytest

from gpukernels.errors import InputError
from gpukernels import workunits as wu


def test_split_windows_cover_record_with_overlap():
    wins = wu.split_windows(1_000_000, 300_000, 50_000)
    assert wins[0][0] == 0 and wins[-1][1] == 1_000_000
    for (s0, e0), (s1, e1) in zip(wins, wins[1:]):
        assert e0 - s1 >= 50_000          # neighbours share at least the overlap
        assert s1 > s0
    assert all(e - s <= 300_000 for s, e in wins)


def test_short_record_is_one_window():
    assert wu.split_windows(100, 300, 50) == [(0, 100)]


def test_bad_split_settings():
    with pytest.raises(InputError, match="overlap"):
        wu.split_windows(100, 50, 50)
    with pytest.raises(InputError, match="unit size"):
        wu.plan_genome("g", ["a"], [10], 100, 10, 0)


def test_batching_of_small_records():
    names = [f"s{i}" for i in range(1000)]
    chunks = wu.plan_genome("g", names, [1000] * 1000, split_size=50_000, overlap=1000,
                            unit_size=100_000)
    assert len(chunks) == 10
    assert all(c.size == 100_000 for c in chunks)
    assert "batch of 100 records" in chunks[0].reason


def test_mixed_records_keep_file_order():
    chunks = wu.plan_genome("g", ["chr1", "p1", "p2", "chr2"], [250, 10, 20, 90],
                            split_size=100, overlap=20, unit_size=50)
    kinds = [c.reason.split()[0] for c in chunks]
    assert kinds == ["record"] * 3 + ["batch", "record"]
    assert chunks[3].intervals == ((1, 0, 10), (2, 0, 20))
    assert "window 1 of 3" in chunks[0].reason
    assert chunks[-1].intervals == ((3, 0, 90),)


def test_align_batches_are_consecutive_and_even():
    units = [("a", "b", f"u{k}") for k in range(10)]
    batches = wu.align_batches(units, 4)
    assert [len(b) for b in batches] == [3, 3, 4]
    assert [u for b in batches for u in b] == units
    assert wu.align_batches(units, 10) == [units]
    assert wu.align_batches(units, 1) == [[u] for u in units]
    assert wu.align_batches([], 8) == []
    with pytest.raises(InputError, match="at least 1"):
        wu.align_batches(units, 0)


def test_pairs_modes():
    g = ["a", "b", "c"]
    assert wu.genome_pairs(g) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(wu.genome_pairs(g, "ordered")) == 6
    assert len(wu.genome_pairs(g, "ordered", True)) == 9
    assert ("b", "b") in wu.genome_pairs(g, self_pairs=True)
    with pytest.raises(InputError):
        wu.genome_pairs(g, "both")


def test_plan_round_trip(tmp_path):
    t = wu.plan_genome("t", ["x"], [300], 100, 10, 100)
    q = wu.plan_genome("q", ["y", "z"], [5, 5], 100, 10, 100)
    doc = wu.write_plan(tmp_path / "p.json", "t", "q", t, q, {"split_size": 100})
    assert len(doc["units"]) == len(t) * len(q)
    back = wu.read_plan(tmp_path / "p.json")
    assert back["target_chunks"] == t
    tc, qc = wu.unit_chunks(back, doc["units"][-1]["unit"])
    assert tc == t[-1] and qc == q[0]


def test_fasta_lengths(tmp_path):
    p = tmp_path / "g.fa.gz"
    with gzip.open(p, "wt") as fh:
        fh.write(">a desc\nACGT\nAC\r\n>b\n\n>c\nNNNN NN\n")
    assert wu.fasta_lengths(p) == (["a", "b", "c"], [6, 0, 6])


def test_default_units_per_job():
    # a job a unit off the GPU; on it up to GPU_UNITS_PER_JOB, fewer so that every shared slot gets a batch
    assert wu.default_units_per_job(40, "cpu", 4) == 1
    assert wu.default_units_per_job(40, "auto") == 1
    assert wu.default_units_per_job(40, "gpu") == wu.GPU_UNITS_PER_JOB
    assert wu.default_units_per_job(6, "gpu") == 6
    assert wu.default_units_per_job(6, "gpu", 3) == 2
    assert wu.default_units_per_job(10, "gpu", 4) == 3
    assert wu.default_units_per_job(1, "gpu", 4) == 1
    assert wu.default_units_per_job(0, "gpu", 4) == 1


def test_gpu_job_threads():
    # the cores over the GPU slots, at least 1; a fixed count where Snakemake has no --cores
    assert wu.gpu_job_threads(16, 4) == 4
    assert wu.gpu_job_threads(16, None) == 16
    assert wu.gpu_job_threads(2, 8) == 1
    assert wu.gpu_job_threads(None, 2) == wu.GPU_JOB_THREADS
