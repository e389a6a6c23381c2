"""LASTZ's default ``general`` format.

Columns: ``score name1 strand1 size1 zstart1 end1 name2 strand2 size2 zstart2
end2 identity idPct coverage covPct``. Sequence 1 is the target. On the minus
strand the query coordinates count along the reverse strand, as LASTZ does.
Identity is matches over ACGT columns without gaps; coverage is the aligned
length of the shorter sequence over its size.
"""

from __future__ import annotations

from .common import rows

HEADER = ("#score\tname1\tstrand1\tsize1\tzstart1\tend1\tname2\tstrand2\tsize2\tzstart2\tend2\t"
          "identity\tidPct\tcoverage\tcovPct")


def _frac(n, d):
    return f"{n}/{d}\t{100.0 * n / d:.1f}%" if d else f"{n}/{d}\tNA"


def write(fh, alns, target, query, eqx=False, command=None):
    """Write the header and one line per alignment."""
    fh.write(HEADER + "\n")
    for r in rows(alns, target, query):
        q0, q1 = r["q0"], r["q1"]
        if r["strand"] == "-":
            q0, q1 = r["qlen"] - r["q1"], r["qlen"] - r["q0"]
        if r["tlen"] < r["qlen"]:
            cov_n, cov_d = r["t1"] - r["t0"], r["tlen"]
        else:
            cov_n, cov_d = r["q1"] - r["q0"], r["qlen"]
        fh.write(f"{r['score']}\t{r['tname']}\t+\t{r['tlen']}\t{r['t0']}\t{r['t1']}\t"
                 f"{r['qname']}\t{r['strand']}\t{r['qlen']}\t{q0}\t{q1}\t"
                 f"{_frac(r['matches'], r['matches'] + r['mismatches'])}\t{_frac(cov_n, cov_d)}\n")


def read(path):
    """Parse a general file (ours or LASTZ's) into dicts with forward query coordinates."""
    out = []
    with open(path) as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            f = line.rstrip("\n").split("\t")
            rec = dict(score=int(f[0]), tname=f[1], tlen=int(f[3]), t0=int(f[4]), t1=int(f[5]),
                       qname=f[6], strand=f[7], qlen=int(f[8]), q0=int(f[9]), q1=int(f[10]),
                       identity=f[11])
            if rec["strand"] == "-":
                rec["q0"], rec["q1"] = rec["qlen"] - rec["q1"], rec["qlen"] - rec["q0"]
            out.append(rec)
    return out
