"""``ava align`` end to end on bundled real data, and round trips of every format."""

import pathlib

import numpy as np
import pytest

from gpukernels import AlignOptions, align, read_fasta
from gpukernels.alignments import cigar_string
from gpukernels.backend import gpu_available
from gpukernels.cli import main
from gpukernels.formats import blast6, general, maf, paf

DATA = pathlib.Path(__file__).parent / "data"
T = str(DATA / "hpylori_g27_40k.fa.gz")
Q = str(DATA / "hpylori_sjm180_40k.fa.gz")


@pytest.fixture(scope="module")
def pair():
    t, q = read_fasta(T), read_fasta(Q)
    return t, q, align(t, q, AlignOptions(), backend="cpu")


def test_real_pair_aligns(pair):
    t, q, alns = pair
    assert len(alns) >= 1
    best = int(np.argmax(alns.score))
    assert alns.t_end[best] - alns.t_start[best] > 30000
    counts = alns.counts()
    assert counts[best, 0] / counts[best, :4].sum() > 0.9


def test_paf_roundtrip(pair, tmp_path):
    t, q, alns = pair
    out = tmp_path / "o.paf"
    assert main(["-q", "align", T, Q, "-o", str(out), "--backend", "cpu"]) == 0
    recs = paf.read(str(out))
    assert len(recs) == len(alns)
    counts = alns.counts()
    for k, r in enumerate(recs):
        assert (r["t0"], r["t1"], r["q0"], r["q1"]) == (alns.t_start[k], alns.t_end[k], alns.q_start[k],
                                                        alns.q_end[k])
        assert r["strand"] == ("+" if alns.strand[k] == 0 else "-") and r["AS"] == alns.score[k]
        assert r["matches"] == counts[k, 0] and r["mapq"] == 255
        assert r["cg"] == cigar_string(alns.columns(k))
        assert r["NM"] == counts[k, 1] + counts[k, 2] + counts[k, 3]


def test_eqx_cigar(tmp_path):
    out = tmp_path / "o.paf"
    assert main(["-q", "align", T, Q, "-o", str(out), "--eqx", "--backend", "cpu"]) == 0
    cg = paf.read(str(out))[0]["cg"]
    assert "=" in cg and "M" not in cg


def test_general_maf_blast6_roundtrip(pair, tmp_path):
    t, q, alns = pair
    for fmt, reader in (("general", general.read), ("maf", maf.read), ("blast6", blast6.read)):
        out = tmp_path / f"o.{fmt}"
        assert main(["-q", "align", T, Q, "-o", str(out), "--format", fmt, "--backend", "cpu"]) == 0
        recs = reader(str(out))
        assert len(recs) == len(alns)
        for k, r in enumerate(recs):
            if fmt == "maf":
                tl, ql = r["lines"]
                assert (tl["start"], tl["end"], ql["start"], ql["end"]) == (
                    alns.t_start[k], alns.t_end[k], alns.q_start[k], alns.q_end[k])
                assert r["score"] == alns.score[k] and ql["strand"] == ("+" if alns.strand[k] == 0 else "-")
                assert len(tl["text"]) == len(ql["text"]) == len(alns.columns(k))
                assert tl["text"].replace("-", "").upper() == tl["text"].replace("-", "").upper()
            else:
                assert (r["t0"], r["t1"], r["q0"], r["q1"]) == (alns.t_start[k], alns.t_end[k],
                                                                alns.q_start[k], alns.q_end[k])
                assert r["strand"] == ("+" if alns.strand[k] == 0 else "-")


def test_maf_text_spells_the_sequences(pair, tmp_path):
    t, q, alns = pair
    out = tmp_path / "o.maf"
    main(["-q", "align", T, Q, "-o", str(out), "--format", "maf", "--backend", "cpu"])
    block = maf.read(str(out))[0]
    tl = block["lines"][0]
    from gpukernels.genome import BASES
    expect = "".join(BASES[c] for c in t.codes[tl["start"]:tl["end"]])
    assert tl["text"].replace("-", "").upper() == expect


def test_output_is_deterministic(tmp_path):
    a, b = tmp_path / "a.paf.gz", tmp_path / "b.paf.gz"
    main(["-q", "align", T, Q, "-o", str(a), "--backend", "cpu"])
    main(["-q", "align", T, Q, "-o", str(b), "--backend", "cpu"])
    assert a.read_bytes() == b.read_bytes()


def test_self_mode_skips_trivial_diagonal(tmp_path):
    out = tmp_path / "self.paf"
    assert main(["-q", "align", T, "--self", "-o", str(out), "--backend", "cpu"]) == 0
    for r in paf.read(str(out)):
        assert not (r["strand"] == "+" and r["t0"] == r["q0"] and r["t1"] == r["q1"])


def test_strand_option(tmp_path):
    out = tmp_path / "plus.paf"
    assert main(["-q", "align", T, Q, "--strand", "plus", "-o", str(out), "--backend", "cpu"]) == 0
    assert all(r["strand"] == "+" for r in paf.read(str(out)))


@pytest.mark.skipif(gpu_available(), reason="a GPU is present")
def test_gpu_backend_without_gpu_is_a_clear_error(tmp_path, capsys):
    assert main(["align", T, Q, "--backend", "gpu", "-o", str(tmp_path / "x.paf")]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err


def test_bad_seed_is_a_clear_error(tmp_path, capsys):
    assert main(["align", T, Q, "--seed", "1021", "-o", str(tmp_path / "x.paf")]) == 2
    assert "seed pattern" in capsys.readouterr().err


def test_records_past_the_score_roof_are_warned(pair, caplog):
    """Records of both genomes longer than an alignment's score fits in 32 bits get a warning naming them.

    With the default scores the roof lies past 21 Mb (no warning for the 40 kb pair); with a match of
    1,000,000 it lies at 2,146 columns, below the bundled records."""
    from gpukernels.engine import longest_safe_alignment, warn_score_roof
    from gpukernels.scoring import lastz_scoring, uniform_matrix
    t, q, _ = pair
    assert longest_safe_alignment(lastz_scoring()) == (2**31 - 1) // 100 - 1
    assert warn_score_roof(t, q, lastz_scoring()) is None
    big = lastz_scoring(matrix=uniform_matrix(1_000_000, 1_000_000))
    with caplog.at_level("WARNING", logger="gpukernels"):
        assert warn_score_roof(t, q, big) == 2146
    assert "hpylori_g27_40k" in caplog.text and "2,146 columns" in caplog.text
    assert longest_safe_alignment(lastz_scoring(matrix=uniform_matrix(-1, 5), xdrop=0)) is None


def test_default_threads():
    """Threads where none are given: 1 on the CPU backend, the CPUs this process may use (at most
    GPU_HOST_THREADS) on the GPU backend, whose walk runs in stripes on them; a count given is kept."""
    import os
    from gpukernels.engine import GPU_HOST_THREADS, default_threads
    assert default_threads("cpu") == 1
    assert default_threads("cpu", 4) == 4 and default_threads("gpu", 3) == 3
    assert default_threads("gpu") == min(GPU_HOST_THREADS, len(os.sched_getaffinity(0)))
