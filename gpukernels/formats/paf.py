"""PAF as minimap2 writes it: query columns first, then target; 0-based half-open.

Columns 10 and 11 are minimap2's: the number of matching bases and the
number of alignment columns (gaps included). MAPQ is 255 (not computed).
Tags: ``tp:A:P``, ``NM:i`` (mismatches plus gap bases), ``AS:i`` (score) and
``cg:Z`` (CIGAR along the target; ``M`` or, with ``--eqx``, ``=``/``X``).
"""

from __future__ import annotations

from ..alignments import cigar_string
from .common import rows


def format_row(r, cigar):
    """One PAF line (without newline) from a row dict and its CIGAR."""
    nm = r["mismatches"] + r["ins"] + r["dels"]
    return (f"{r['qname']}\t{r['qlen']}\t{r['q0']}\t{r['q1']}\t{r['strand']}\t"
            f"{r['tname']}\t{r['tlen']}\t{r['t0']}\t{r['t1']}\t{r['matches']}\t{r['columns']}\t255\t"
            f"tp:A:P\tNM:i:{nm}\tAS:i:{r['score']}\tcg:Z:{cigar}")


def write(fh, alns, target, query, eqx=False, command=None):
    """Write PAF lines for ``alns`` to the text file ``fh``."""
    for r in rows(alns, target, query):
        fh.write(format_row(r, cigar_string(alns.columns(r["k"]), eqx)) + "\n")


def read(path_or_lines):
    """Parse PAF lines into dicts (the 12 columns plus tags by name)."""
    lines = open(path_or_lines) if isinstance(path_or_lines, str) else path_or_lines
    out = []
    for line in lines:
        if not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        rec = dict(qname=f[0], qlen=int(f[1]), q0=int(f[2]), q1=int(f[3]), strand=f[4], tname=f[5],
                   tlen=int(f[6]), t0=int(f[7]), t1=int(f[8]), matches=int(f[9]), columns=int(f[10]),
                   mapq=int(f[11]))
        for tag in f[12:]:
            key, typ, val = tag.split(":", 2)
            rec[key] = int(val) if typ == "i" else val
        out.append(rec)
    return out
