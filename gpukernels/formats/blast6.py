"""BLAST tabular (``-outfmt 6``): 1-based, closed; ``sstart > send`` on the minus strand.

Columns: qseqid sseqid pident length mismatch gapopen qstart qend sstart send
evalue bitscore. The query is the PAF query, the subject the target. As in
LASTZ's BLASTN output, the e-value and bit score are rough conversions of
the alignment score: ``3e9 · exp(-0.01421 · score)`` and ``0.0205 · score``.
"""

from __future__ import annotations

import math

from .common import rows


def write(fh, alns, target, query, eqx=False, command=None):
    """Write one tab-separated line per alignment."""
    for r in rows(alns, target, query):
        pident = 100.0 * r["matches"] / r["columns"] if r["columns"] else 0.0
        s0, s1 = r["t0"] + 1, r["t1"]
        q0, q1 = r["q0"] + 1, r["q1"]
        if r["strand"] == "-":
            s0, s1 = s1, s0
        evalue = 3.0e9 * math.exp(-0.01421 * r["score"])
        bits = 0.0205 * r["score"]
        fh.write(f"{r['qname']}\t{r['tname']}\t{pident:.3f}\t{r['columns']}\t{r['mismatches']}\t"
                 f"{r['gap_opens']}\t{q0}\t{q1}\t{s0}\t{s1}\t{evalue:.2g}\t{bits:.1f}\n")


def read(path):
    """Parse blast6 lines into dicts with 0-based half-open coordinates and strand."""
    out = []
    with open(path) as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            f = line.rstrip("\n").split("\t")
            s0, s1 = int(f[8]), int(f[9])
            strand = "+" if s0 <= s1 else "-"
            lo, hi = min(s0, s1), max(s0, s1)
            out.append(dict(qname=f[0], tname=f[1], pident=float(f[2]), columns=int(f[3]),
                            mismatches=int(f[4]), gap_opens=int(f[5]), q0=int(f[6]) - 1, q1=int(f[7]),
                            t0=lo - 1, t1=hi, strand=strand))
    return out
