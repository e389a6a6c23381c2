"""Genome input: FASTA(.gz) to one-byte codes, soft-mask flags and a record table.

All records of a file are concatenated into one code array, with a single
separator code between records. Every stage treats the separator as a wall
(no seed spans it, no extension crosses it), so a whole genome, or a batch of
small contigs, is one array that a kernel can take in one piece.

Encoding (one byte per base)
----------------------------
===========  =====
A C G T      0 1 2 3
N and IUPAC  4  (never seeds; scored like N in LASTZ)
separator    5  (between records; a wall)
===========  =====

Lowercase is the soft-mask: it is kept in a separate boolean array, excluded
from seeding and allowed in extension, as LASTZ does by default.
"""

from __future__ import annotations

import gzip
import os
import re
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from .errors import InputError

A, C, G, T, N, SEP = 0, 1, 2, 3, 4, 5
BASES = "ACGTN"

_IUPAC = b"ACGTNRYKMSWBDHVU"
_CODE = np.full(256, 255, dtype=np.uint8)
for _ch in _IUPAC:
    _CODE[_ch] = 4
    _CODE[ord(chr(_ch).lower())] = 4
for _ch, _c in zip(b"ACGT", range(4)):
    _CODE[_ch] = _c
    _CODE[ord(chr(_ch).lower())] = _c
_CODE[ord("U")] = T
_CODE[ord("u")] = T
_LOWER = np.zeros(256, dtype=bool)
_LOWER[ord("a"):ord("z") + 1] = True
# one bytes.translate table for both look-ups: code | 8 if lowercase, 255 if not IUPAC
_TABLE = np.where(_CODE == 255, 255, _CODE | (_LOWER.astype(np.uint8) << 3)).astype(np.uint8).tobytes()
_NON_SPACE = re.compile(rb"\S")
_WHITESPACE = b" \t\r\n\v\f"
_COMPLEMENT = np.array([3, 2, 1, 0, 4, 5], dtype=np.uint8)


@njit(cache=True, nogil=True)
def complement_reversed(codes):
    """``_COMPLEMENT[codes[::-1]]`` in one pass: the reverse complement of codes (N stays N).

    NumPy's gather took 12 ms for a 4.6 Mb genome, on the critical path of
    the − strand (its seeds are looked up only after it); this takes 2 ms.
    """
    n = codes.shape[0]
    out = np.empty(n, dtype=np.uint8)
    for x in range(n):
        out[x] = _COMPLEMENT[codes[n - 1 - x]]
    return out


@dataclass
class Genome:
    """Encoded sequences of one FASTA file (or a piece of one).

    Attributes
    ----------
    name : str
        A label for the genome (the file's stem by default).
    names : list of str
        Record names (first word of each header).
    lengths : ndarray of int64
        Full length of each record in its source file.
    offsets : ndarray of int64
        Where each piece starts in its source record (0 unless the genome
        was cut into a work unit).
    starts : ndarray of int64
        Where each piece starts in ``codes``.
    sizes : ndarray of int64
        Length of each piece.
    codes : ndarray of uint8
        Concatenated base codes, one separator between pieces.
    softmask : ndarray of bool
        True where the source letter was lowercase.
    """

    name: str
    names: list
    lengths: np.ndarray
    offsets: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray
    codes: np.ndarray
    softmask: np.ndarray
    _rc: np.ndarray | None = field(default=None, repr=False, compare=False)
    _seed: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_records(self):
        """Number of records (pieces)."""
        return len(self.names)

    def reverse_complement(self):
        """Codes of the reverse complement of the whole concatenated array."""
        if self._rc is None:
            self._rc = complement_reversed(self.codes)
        return self._rc

    def seed_codes(self, unmask=False):
        """Codes for seeding: soft-masked bases become N unless ``unmask``.

        Made once and kept (``codes`` itself where no base is soft-masked), like
        :meth:`reverse_complement`: a pair reads them for the index and for each
        strand, and the GPU backend uploads an array it has seen once. Read-only
        for callers.
        """
        if unmask:
            return self.codes
        out = self._seed.get("+")
        if out is None:
            out = self.codes
            if self.softmask.any():
                out = self.codes.copy()
                out[self.softmask] = N
            self._seed["+"] = out
        return out

    def seed_codes_rc(self, unmask=False):
        """Reverse complement of :meth:`seed_codes` (the − strand's seeds), made once and kept."""
        fwd = self.seed_codes(unmask)
        if fwd is self.codes:
            return self.reverse_complement()
        out = self._seed.get("-")
        if out is None:
            out = self._seed["-"] = complement_reversed(fwd)
        return out

    def record_of(self, pos):
        """Index of the piece holding each concatenated position ``pos``."""
        return np.searchsorted(self.starts, pos, side="right") - 1

    def non_n_length(self):
        """Number of A, C, G, T bases (the denominator of coverage)."""
        return int(np.count_nonzero(self.codes < 4))

    def piece(self, intervals, name=None):
        """A new genome made of sub-intervals of this one's records.

        Parameters
        ----------
        intervals : iterable of (int, int, int)
            ``(record_index, start, end)`` with 0-based half-open ends in
            the coordinates of the piece ``record_index``.
        name : str, optional
            Label of the new genome.

        Returns
        -------
        Genome
            Coordinates in its alignments refer back to the source records.
        """
        names, lengths, offsets, parts, masks = [], [], [], [], []
        for rec, start, end in intervals:
            if not (0 <= start < end <= self.sizes[rec]):
                raise InputError(f"interval {start}-{end} outside record {self.names[rec]}")
            s0 = self.starts[rec]
            names.append(self.names[rec])
            lengths.append(self.lengths[rec])
            offsets.append(self.offsets[rec] + start)
            parts.append(self.codes[s0 + start:s0 + end])
            masks.append(self.softmask[s0 + start:s0 + end])
        return _assemble(name or self.name, names, lengths, offsets, parts, masks)

    def save(self, path):
        """Write the encoded genome to ``path`` (``.npz``), atomically."""
        tmp = f"{path}.tmp{os.getpid()}.npz"
        np.savez(tmp, name=np.array(self.name), names=np.array(self.names, dtype=object),
                 lengths=self.lengths, offsets=self.offsets, starts=self.starts,
                 sizes=self.sizes, codes=self.codes, softmask=np.packbits(self.softmask))
        os.replace(tmp, path)


def load_genome(path):
    """Read a genome written by :meth:`Genome.save`."""
    with np.load(path, allow_pickle=True) as z:
        codes = z["codes"]
        return Genome(name=str(z["name"]), names=list(z["names"]), lengths=z["lengths"],
                      offsets=z["offsets"], starts=z["starts"], sizes=z["sizes"],
                      codes=codes, softmask=np.unpackbits(z["softmask"], count=len(codes)).astype(bool))


def _assemble(name, names, lengths, offsets, parts, masks):
    sizes = np.array([len(p) for p in parts], dtype=np.int64)
    starts = np.zeros(len(parts), dtype=np.int64)
    if len(parts) > 1:
        starts[1:] = np.cumsum(sizes[:-1] + 1)
    sep = np.array([SEP], dtype=np.uint8)
    no = np.zeros(1, dtype=bool)
    codes = np.concatenate([x for p in parts for x in (sep, p)][1:]) if parts else np.zeros(0, np.uint8)
    softmask = np.concatenate([x for m in masks for x in (no, m)][1:]) if masks else np.zeros(0, bool)
    return Genome(name=name, names=list(names), lengths=np.asarray(lengths, dtype=np.int64),
                  offsets=np.asarray(offsets, dtype=np.int64), starts=starts, sizes=sizes,
                  codes=codes.astype(np.uint8, copy=False), softmask=softmask.astype(bool, copy=False))


def genome_label(path):
    """The file name without directory and FASTA/gzip suffixes."""
    base = os.path.basename(str(path))
    for suffix in (".gz", ".fasta", ".fa", ".fna", ".fas"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base


def _read_bytes(path):
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
            fh.seek(0)
            if head == b"\x1f\x8b":
                try:
                    return gzip.decompress(fh.read())
                except (OSError, EOFError) as exc:
                    raise InputError(f"corrupt gzip data ({exc})", path) from None
            return fh.read()
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a FASTA file", path) from None
    except PermissionError:
        raise InputError("permission denied", path) from None


def _line_of(data, offset):
    return data.count(b"\n", 0, offset) + 1


def read_fasta(path, name=None):
    """Read a FASTA or gzipped FASTA file into a :class:`Genome`.

    Any line length and CRLF line ends are accepted. The record name is the
    first word of its header. Work is done by bytes and NumPy operations, never
    a Python loop over characters.

    Parameters
    ----------
    path : str or path-like
        The file.
    name : str, optional
        Label of the genome; the file stem by default.

    Raises
    ------
    InputError
        For an empty file, a file with no records, text before the first
        header, an empty record name, a duplicate record name, or a character
        outside the IUPAC nucleotide codes; the message names the file and line.
    """
    path = str(path)
    data = _read_bytes(path)
    found = _NON_SPACE.search(data)
    if found is None:
        raise InputError("empty file", path, 1)
    first = found.start()
    if data[first:first + 1] != b">":
        raise InputError("no FASTA records: expected '>' at the start of a record",
                         path, _line_of(data, first))
    headers = []
    pos = first
    while pos != -1:
        eol = data.find(b"\n", pos)
        end = len(data) if eol == -1 else eol
        headers.append((pos, end))
        nxt = data.find(b"\n>", end) if eol != -1 else -1
        pos = -1 if nxt == -1 else nxt + 1
    names, parts, masks, seen = [], [], [], {}
    for k, (hstart, hend) in enumerate(headers):
        words = data[hstart + 1:hend].split()
        if not words:
            raise InputError("record header has no name", path, _line_of(data, hstart))
        rec_name = words[0].decode("utf-8", "replace")
        if rec_name in seen:
            # line numbers are counted only for the message: counting them for
            # every record would make parsing quadratic in the number of records
            raise InputError(f"duplicate record name '{rec_name}' (first seen on line "
                             f"{_line_of(data, seen[rec_name])})", path, _line_of(data, hstart))
        seen[rec_name] = hstart
        body_end = headers[k + 1][0] if k + 1 < len(headers) else len(data)
        raw = data[hend:body_end].translate(None, _WHITESPACE)
        coded = raw.translate(_TABLE)
        bad = coded.find(b"\xff")
        if bad != -1:
            ch = chr(raw[bad])
            # find the offset of the bad character in the original bytes
            off = data.find(ch.encode("latin-1"), hend, body_end)
            raise InputError(f"character {ch!r} in record '{rec_name}' is not an IUPAC nucleotide code",
                             path, _line_of(data, off))
        both = np.frombuffer(coded, dtype=np.uint8)
        codes = both & 7
        lower = both >= 8
        names.append(rec_name)
        parts.append(codes)
        masks.append(lower)
    lengths = [len(p) for p in parts]
    if sum(lengths) == 0:
        raise InputError("records hold no sequence", path, 1)
    return _assemble(name or genome_label(path), names, lengths, [0] * len(parts), parts, masks)
