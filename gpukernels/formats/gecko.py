"""GECKO's CSV (``--format gecko``), as GECKO-MGV opens it.

GECKO's header block, then ``Type,xStart,yStart,xEnd,yEnd,strand(f/r),block,
length,score,ident,similarity,%ident,SeqX,SeqY`` and one ``Frag`` line per
alignment. X is the target, Y the query. Coordinates are 0-based and
inclusive; on the ``r`` strand ``yStart > yEnd`` (forward coordinates of the
query, read backwards), as GECKO writes them. ``SeqX``/``SeqY`` are record
indices. ``ident`` is the number of identical columns, ``%ident`` the true
identity (GECKO's published tool writes a constant there), ``similarity``
the score as a percentage of the best possible score for the length
(100 · score / length with +1/-1 scores; GECKO's own score/(4 · length)).
Gapped alignments are written with their number of columns as ``length``.
"""

from __future__ import annotations

from .common import rows

COLUMNS = "Type,xStart,yStart,xEnd,yEnd,strand(f/r),block,length,score,ident,similarity,%ident,SeqX,SeqY"
RULE = "=" * 56


def header(target, query, n_frags, min_length="undef", min_identity="undef"):
    """GECKO's header lines (without the column line)."""
    return [
        "All by-Identity Ungapped Fragments (Hits based approach)",
        "[Abr.98/Apr.2010/Dec.2011 -- <ortrelles@uma.es>",
        f"SeqX filename        : {target.name}",
        f"SeqY filename        : {query.name}",
        f"SeqX name            : {target.names[0] if target.names else ''}",
        f"SeqY name            : {query.names[0] if query.names else ''}",
        f"SeqX length          : {int(target.lengths.sum())}",
        f"SeqY length          : {int(query.lengths.sum())}",
        f"Min.fragment.length  : {min_length}",
        f"Min.Identity         : {min_identity}",
        "Tot Hits (seeds)     : undef",
        "Tot Hits (seeds) used: undef",
        f"Total fragments      : {n_frags}",
        RULE,
        "Total CSB: 0",
        RULE,
    ]


def write(fh, alns, target, query, eqx=False, command=None):
    """Write the header and one ``Frag`` line per alignment."""
    fh.write("\n".join(header(target, query, len(alns))) + "\n" + COLUMNS + "\n")
    for r in rows(alns, target, query):
        length = r["columns"]
        x0, x1 = r["t0"], r["t1"] - 1
        if r["strand"] == "-":
            y0, y1, strand = r["q1"] - 1, r["q0"], "r"
        else:
            y0, y1, strand = r["q0"], r["q1"] - 1, "f"
        ident = r["matches"]
        pct = 100.0 * ident / length if length else 0.0
        sim = 100.0 * r["score"] / length if length else 0.0
        fh.write(f"Frag,{x0},{y0},{x1},{y1},{strand},0,{length},{r['score']},{ident},{sim:.2f},{pct:.2f},"
                 f"{int(alns.t_rec[r['k']])},{int(alns.q_rec[r['k']])}\n")


def read(path):
    """Parse the ``Frag`` lines into dicts (0-based half-open forward coordinates)."""
    out = []
    with open(path) as fh:
        body = False
        for line in fh:
            if line.startswith("Type,"):
                body = True
                continue
            if not body or not line.startswith("Frag,"):
                continue
            f = line.rstrip("\n").split(",")
            y0, y1 = int(f[2]), int(f[4])
            out.append(dict(t0=int(f[1]), t1=int(f[3]) + 1, q0=min(y0, y1), q1=max(y0, y1) + 1,
                            strand="-" if f[5] == "r" else "+", length=int(f[7]), score=int(f[8]),
                            ident=int(f[9]), similarity=float(f[10]), pct_ident=float(f[11]),
                            tseq=int(f[12]), qseq=int(f[13])))
    return out
