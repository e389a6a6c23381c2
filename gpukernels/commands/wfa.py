"""``ava wfa``: exact global alignment of many sequence pairs (wavefront algorithm).

Input is either a two-column TSV (pattern, text) or WFA's ``.seq`` format
(``>pattern`` and ``<text`` lines, alternating). Output has one line per pair,
in input order: ``score<TAB>CIGAR`` (``score`` alone with ``--score-only``).
"""

from __future__ import annotations

import re

from ..errors import InputError
from ..io_utils import atomic_text_output
from ..wfa import DEFAULT_PENALTIES, encode_sequences, parse_penalties, wfa

_BAD = re.compile(r"[^ACGTacgt]")


def add_parser(subparsers):
    """Register ``ava wfa`` on ``subparsers``."""
    p = subparsers.add_parser(
        "wfa", help="align many sequence pairs end to end (wavefront algorithm)",
        description="Exact global alignment of sequence pairs with the wavefront algorithm "
                    "(gap-affine or edit distance). Prints 'score<TAB>CIGAR' per pair.")
    p.add_argument("pairs", metavar="PAIRS",
                   help="two-column TSV (pattern, text) or WFA .seq file (>pattern / <text lines)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--penalties", default=",".join(map(str, DEFAULT_PENALTIES)),
                      metavar="X,O,E",
                      help="mismatch, gap-open, gap-extend penalties; a gap of length L costs "
                           "O+E*L (default %(default)s)")
    mode.add_argument("--edit", action="store_true", help="edit distance instead of gap-affine")
    p.add_argument("--score-only", action="store_true", help="print scores only, no CIGAR")
    p.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto",
                   help="where to align (default %(default)s)")
    p.add_argument("-o", "--output", default="-", metavar="OUT",
                   help="output file (default: standard output)")
    p.set_defaults(func=run)
    return p


def read_pairs(path):
    """Read pairs from a TSV or ``.seq`` file.

    Returns
    -------
    (list of str, list of str)
        Patterns and texts, in file order.

    Raises
    ------
    InputError
        For a missing or empty file, a malformed line or a character other
        than A, C, G, T (naming the file and the line).
    """
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise InputError("empty file: no sequence pairs", path)
    if lines[0].startswith((">", "<")):
        return _read_seq(lines, path)
    return _read_tsv(lines, path)


def _check(seq, path, line):
    bad = _BAD.search(seq)
    if bad:
        raise InputError(f"bad character {bad.group()!r} at column {bad.start() + 1}; "
                         f"only A, C, G, T are allowed", path, line)
    return seq


def _read_seq(lines, path):
    if len(lines) % 2:
        raise InputError(f"odd number of lines ({len(lines)}): every >pattern line needs a "
                         f"<text line", path, len(lines))
    pats, txts = [], []
    for i, line in enumerate(lines, start=1):
        want = ">" if i % 2 else "<"
        if not line.startswith(want):
            raise InputError(f"expected a line starting with {want!r}", path, i)
        (pats if want == ">" else txts).append(_check(line[1:].rstrip("\r"), path, i))
    return pats, txts


def _read_tsv(lines, path):
    pats, txts = [], []
    for i, line in enumerate(lines, start=1):
        cols = line.rstrip("\r").split("\t")
        if len(cols) != 2:
            raise InputError(f"expected two tab-separated columns (pattern, text), found "
                             f"{len(cols)}", path, i)
        pats.append(_check(cols[0], path, i))
        txts.append(_check(cols[1], path, i))
    return pats, txts


def run(args):
    """Run ``ava wfa`` for parsed ``args``; return the exit status."""
    penalties = DEFAULT_PENALTIES if args.edit else parse_penalties(args.penalties)
    pats, txts = read_pairs(args.pairs)
    result = wfa(encode_sequences(pats), encode_sequences(txts), penalties=penalties,
                 edit=args.edit, score_only=args.score_only, backend=args.backend)
    with atomic_text_output(args.output) as fh:
        if args.score_only:
            fh.writelines(f"{s}\n" for s in result.scores.tolist())
        else:
            for s, c in zip(result.scores.tolist(), result.cigars()):
                fh.write(f"{s}\t{c}\n")
    return 0
