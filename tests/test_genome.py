"""Genome input: formats, names, encoding, soft-mask, and every listed error."""

import gzip

import numpy as np
import pytest

from gpukernels.cli import main
from gpukernels.errors import InputError
from gpukernels.genome import N, SEP, load_genome, read_fasta


def write(tmp_path, name, text, compress=False):
    path = tmp_path / name
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return str(path)


def test_records_names_and_codes(tmp_path):
    p = write(tmp_path, "g.fa", ">chr1 first record\nACGT\nacgtN\n>chr2\nRYKM\n")
    g = read_fasta(p)
    assert g.names == ["chr1", "chr2"]
    assert g.lengths.tolist() == [9, 4]
    assert g.codes[:9].tolist() == [0, 1, 2, 3, 0, 1, 2, 3, N]
    assert g.codes[9] == SEP
    assert g.codes[10:].tolist() == [N] * 4
    assert g.softmask[:9].tolist() == [False] * 4 + [True] * 4 + [False]


@pytest.mark.parametrize("compress", [False, True])
def test_gzip_crlf_and_line_lengths(tmp_path, compress):
    seq = "ACGTTGCA" * 50
    wrapped = "\r\n".join(seq[i:i + 7] for i in range(0, len(seq), 7))
    p = write(tmp_path, "g.fa.gz" if compress else "g.fa", f">x\r\n{wrapped}\r\n>y\r\n{seq}\r\n", compress)
    g = read_fasta(p)
    assert g.names == ["x", "y"]
    assert g.sizes.tolist() == [400, 400]
    assert np.array_equal(g.codes[:400], g.codes[401:])


def test_save_load_roundtrip(tmp_path):
    g = read_fasta(write(tmp_path, "g.fa", ">a\nACGTacgtNN\n>b\nGGCC\n"))
    g.save(str(tmp_path / "g.npz"))
    h = load_genome(str(tmp_path / "g.npz"))
    assert h.names == g.names and np.array_equal(h.codes, g.codes)
    assert np.array_equal(h.softmask, g.softmask)


def test_piece_keeps_source_coordinates(tmp_path):
    g = read_fasta(write(tmp_path, "g.fa", ">a\nACGTACGTAC\n>b\nGGCCTT\n"))
    p = g.piece([(0, 2, 8), (1, 0, 3)])
    assert p.names == ["a", "b"] and p.offsets.tolist() == [2, 0]
    assert p.lengths.tolist() == [10, 6] and p.sizes.tolist() == [6, 3]


@pytest.mark.parametrize("text, message, line", [
    ("", "empty file", 1),
    ("\n\n  \n", "empty file", 1),
    ("ACGT\nACGT\n", "no FASTA records", 1),
    (">a\nACGT\n>b\nAC\n>a\nGG\n", "duplicate record name 'a'", 5),
    (">a\nACGT\nAC!T\n", "character '!'", 3),
    (">a\nACGT\n>b\nAC\nGG\nGZ\n", "character 'Z'", 6),
])
def test_bad_input_names_file_and_line(tmp_path, text, message, line):
    p = write(tmp_path, "bad.fa", text)
    with pytest.raises(InputError) as err:
        read_fasta(p)
    assert message in str(err.value)
    assert err.value.path == p and err.value.line == line
    assert f"{p}, line {line}" in str(err.value)


def test_bad_input_cli_exit_code(tmp_path, capsys):
    bad = write(tmp_path, "bad.fa", ">a\nAC#T\n")
    good = write(tmp_path, "good.fa", ">a\nACGT\n")
    assert main(["align", good, bad, "-o", str(tmp_path / "out.paf")]) == 2
    err = capsys.readouterr().err
    assert "bad.fa, line 2" in err and "Traceback" not in err
    assert not (tmp_path / "out.paf").exists()


def test_missing_file(tmp_path, capsys):
    assert main(["align", str(tmp_path / "nope.fa"), str(tmp_path / "nope.fa")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_complement_reversed_is_the_gather():
    """The one-pass reverse complement equals NumPy's gather, N and the sixth code included."""
    from gpukernels.genome import _COMPLEMENT, complement_reversed
    codes = np.random.default_rng(4).integers(0, 6, 10_001).astype(np.uint8)
    assert np.array_equal(complement_reversed(codes), _COMPLEMENT[codes[::-1]])
    assert complement_reversed(codes[:0]).shape == (0,)


@pytest.mark.parametrize("text", [">a\nACGTacgtNNac\n>b\nGGta\n", ">a\nACGTACGTNNAC\n>b\nGGTA\n"])
def test_seed_codes_made_once_and_codes_untouched(tmp_path, text):
    """Seed codes mask lowercase bases as N, are made once per genome (``codes`` itself without
    lowercase), and their reverse complement is the − strand's; ``codes`` never changes."""
    from gpukernels.genome import _COMPLEMENT
    g = read_fasta(write(tmp_path, "g.fa", text))
    codes = g.codes.copy()
    want = np.where(g.softmask, N, codes).astype(np.uint8)
    fwd = g.seed_codes()
    assert np.array_equal(fwd, want)
    assert g.seed_codes() is fwd
    assert (fwd is g.codes) == (not g.softmask.any())
    rc = g.seed_codes_rc()
    assert np.array_equal(rc, _COMPLEMENT[want[::-1]])
    assert g.seed_codes_rc() is rc
    assert g.seed_codes(unmask=True) is g.codes
    assert np.array_equal(g.seed_codes_rc(unmask=True), g.reverse_complement())
    assert np.array_equal(g.codes, codes)
