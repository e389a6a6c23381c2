"""MAF as LASTZ writes it: a header, then ``a score=`` blocks with two ``s`` lines.

The target line comes first and is always ``+``. On the minus strand the
query's start counts along the reverse strand and its text is
reverse-complemented, as the MAF specification says.
"""

from __future__ import annotations

from .common import aligned_text, rows


def write(fh, alns, target, query, eqx=False, command=None):
    """Write the MAF header and one block per alignment."""
    fh.write("##maf version=1 scoring=ava\n")
    if command:
        fh.write(f"# {command}\n")
    fh.write("\n")
    for r in rows(alns, target, query):
        t_txt, q_txt = aligned_text(alns, r["k"], target, query)
        q0 = r["q0"] if r["strand"] == "+" else r["qlen"] - r["q1"]
        width = max(len(r["tname"]), len(r["qname"]))
        fh.write(f"a score={r['score']}\n")
        fh.write(f"s {r['tname']:<{width}} {r['t0']} {r['t1'] - r['t0']} + {r['tlen']} {t_txt}\n")
        fh.write(f"s {r['qname']:<{width}} {q0} {r['q1'] - r['q0']} {r['strand']} {r['qlen']} {q_txt}\n\n")


def read(path):
    """Parse MAF blocks into dicts: score and per-line fields (forward query coordinates)."""
    out = []
    with open(path) as fh:
        block = None
        for line in fh:
            if line.startswith("a "):
                block = dict(score=int(line.split("score=")[1].split()[0]), lines=[])
                out.append(block)
            elif line.startswith("s ") and block is not None:
                f = line.split()
                start, size, strand, src = int(f[2]), int(f[3]), f[4], int(f[5])
                if strand == "-":
                    start = src - start - size
                block["lines"].append(dict(name=f[1], start=start, end=start + size, strand=strand,
                                           src_size=src, text=f[6]))
    return out
